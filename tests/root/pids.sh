# SPDX-License-Identifier: GPL-2.0
# What -p accepts: a process given twice is traced once, a thread's id is
# refused with its process's, a kernel thread is refused for uprobes; each
# refusal is one line, exit 2, before any output.
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

# -p TID: read_wl pipe_delay's second thread sleeps 60 s before it writes
"$WL/read_wl" pipe_delay 60000 &
rw=$!
CLEANUP+=("kill -9 $rw")
tid=
for ((i = 0; i < 200; i++)); do
	tid=$(ls "/proc/$rw/task" 2>/dev/null | grep -vx "$rw" | head -1)
	[ -n "$tid" ] && break
	sleep 0.05
done
if [ -z "$tid" ]; then
	fail "-p TID: read_wl pipe_delay started no second thread in 10 s"
else
	expect "-p TID" 2 "^scry: -p: $tid is a thread of process $rw: use -p $rw \(-p traces whole processes\)\$" \
		-- "$SCRY" -p "$tid" -d 1 'syscall:read { @ = count() }'
	check_eq "-p TID: one line, nothing on stdout" \
		"$(wc -l <"$TMP/e.err") $(wc -c <"$TMP/e.out")" "1 0"
	expect "-p P -p TID of P" 2 "is a thread of process $rw" \
		-- "$SCRY" -p "$rw" -p "$tid" -d 1 'syscall:read { @ = count() }'
fi
{ kill -9 $rw; wait $rw; } 2>/dev/null

# a kernel thread: no user code for uprobes (not "it has exited")
kt=$(pgrep -x kthreadd | head -1)
if [ -z "$kt" ]; then
	skip "-p KTHREAD" "no kthreadd visible (a pid namespace without kernel threads)"
else
	for q in malloc "uprobe:libc:malloc { @ = count() }"; do
		expect "-p KTHREAD ($q)" 2 "^scry: pid $kt \(kthreadd\) is a kernel thread: it runs no user code for uprobes to trace" \
			-- "$SCRY" -p "$kt" -d 1 "$q"
		check_eq "-p KTHREAD ($q): one line, nothing on stdout" \
			"$(wc -l <"$TMP/e.err") $(wc -c <"$TMP/e.out")" "1 0"
	done
	expect "-l -p KTHREAD" 2 "^scry: pid $kt is a kernel thread: it maps no library 'libc'\$" \
		-- "$SCRY" -l -p "$kt" 'uprobe:libc:mallo*'
	"$SCRY" -q -p "$kt" -d 0.2 offcpu >"$TMP/k.out" 2>"$TMP/k.err"
	check_status "-p KTHREAD: offcpu traces it" $? 0 "$TMP/k.err"
fi
