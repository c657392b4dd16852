# SPDX-License-Identifier: GPL-2.0
# -p PID 'uprobe:/path/lib.so:func' where PID has not loaded the library
# yet: one line says so (else a wrong path would look like a function
# never called), and the probe counts once the process loads it (dlopen).
. "$(dirname "$0")/../lib.sh"

LIB=$WL/libdlwl.so
mkfifo "$TMP/g"
start_gated wl "$WL/dl_wl" dlopen "$LIB" "$TMP/g"
scry_bg "$TMP/u.out" "$TMP/u.err" -p "$wl" "uprobe:$LIB:lib_fn { @ = count() }"
check_eq "-p, a library not loaded yet: one line says so" \
	"$(grep -v '^scry: tracing' "$TMP/u.err")" \
	"scry: uprobe:$LIB:lib_fn: pid $wl does not map $LIB (yet): probed all the same, it counts once the process loads it"
open_gate "$TMP/g"
wait_exit "$wl"
wait_exit "$SCRY_PID"
check_status "-p, a library not loaded yet: exit status" $? 0 "$TMP/u.err"
# dl_wl dlopens the library after its gate and calls lib_fn once
check_eq "-p, a library not loaded yet: its one call, once it is loaded" \
	"$(awk 'NF == 1 && $1 ~ /^[0-9]+$/ { print $1 }' "$TMP/u.out")" 1 "$TMP/u.out"

# a library the process maps, given by its path: nothing said (-q)
libc=$(awk '$6 ~ /\/libc\.so/ { print $6; exit }' /proc/self/maps)
mkfifo "$TMP/g2"
start_gated wl "$WL/malloc_wl" rate 10 "$TMP/g2"
"$SCRY" -q -p "$wl" -d 0.5 "uprobe:$libc:malloc { @ = count() }" \
	>"$TMP/m.out" 2>"$TMP/m.err"
check_status "-p, a mapped library by path: exit status" $? 0 "$TMP/m.err"
check_eq "-p, a mapped library by path: nothing on stderr" \
	"$(cat "$TMP/m.err")" ""
open_gate "$TMP/g2"
wait_exit "$wl"
