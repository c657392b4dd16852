# SPDX-License-Identifier: GPL-2.0
# What -p accepts: a process given twice is traced once.
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl
RATE16='uprobe:libc:malloc /arg0 == 16/ { @[pid] = count() }'

# -p P -p P: one process, its uprobes attached once (malloc_wl rate N
# mallocs 16 B N times: N, not 2N)
mkfifo "$TMP/a"
start_gated pa "$MWL" rate 3000 "$TMP/a"
scry_bg "$TMP/pp.out" "$TMP/pp.err" -p $pa -p $pa "$RATE16"
open_gate "$TMP/a"
wait_exit $pa
wait_exit $SCRY_PID
check_status "-p P -p P: scry exits 0 once it has exited" $? 0 "$TMP/pp.err"
check_eq "-p P -p P: each malloc counted once" \
	"$(awk 'NF == 2 { print $1 ":" $2 }' "$TMP/pp.out")" "$pa:3000" "$TMP/pp.out"
check "-p P -p P: the banner says one pid" grep -q "^scry: tracing uprobe of pid $pa;" "$TMP/pp.err"
