# SPDX-License-Identifier: GPL-2.0
# Stopping scry: whatever ends a run prints everything gathered until
# then, and no program or link of scry's stays loaded, not even after
# kill -9, for every probe kind. The ids are those the scry under test
# held, so other scry runs do not interfere.
. "$(dirname "$0")/../lib.sh"

BURST='uprobe:libc:malloc /arg0 > 4000 && arg0 < 4004/ { @[arg0] = count() }'

held() {	# NAME ERRFILE: record the programs and links SCRY_PID holds
	progs=$(owned_ids prog $SCRY_PID)
	links=$(owned_ids link $SCRY_PID)
	if [ -n "$progs" ] && [ -n "$links" ]; then
		ok "$1: programs and links attached while running"
	else
		fail "$1: programs and links attached while running (scry alive: $(kill -0 $SCRY_PID 2>&1 && echo yes))"
		sed 's/^/#   /' "$2"
	fi
}

# gate_wait PID: the path argument of the openat(2) PID is blocked in
# (a gate's FIFO), or nothing: tells burst_wl's two gates apart
gate_wait() {
	local nr dirfd path
	{ read -r nr dirfd path _ <"/proc/$1/syscall"; } 2>/dev/null
	[ "${nr:-}" = 257 ] && echo "$path"
}

# Ctrl-C and SIGTERM: burst_wl's first burst (4001 x3, 4002 x2, 4003 x1)
# is done, it waits on its second gate, and scry is stopped: exactly the
# first burst is printed. (Seen done: the workload blocks on the second
# gate's open, another path than the first's.)
for sig in INT TERM; do
	mkfifo "$TMP/$sig.1" "$TMP/$sig.2"
	start_gated wl "$WL/burst_wl" "$TMP/$sig.1" "$TMP/$sig.2"
	first=$(gate_wait $wl)
	scry_bg "$TMP/$sig.out" "$TMP/$sig.err" -p $wl "$BURST"
	held "SIG$sig" "$TMP/$sig.err"
	open_gate "$TMP/$sig.1"
	for ((i = 0; i < 200; i++)); do
		now=$(gate_wait $wl)
		[ -n "$now" ] && [ "$now" != "$first" ] && break
		sleep 0.05
	done
	kill -$sig $SCRY_PID
	wait_exit $SCRY_PID
	check_status "SIG$sig: exit status" $? 0 "$TMP/$sig.err"
	check_eq "SIG$sig: prints everything gathered until then (the first burst)" \
		"$(awk 'NF == 2 { print $1 ":" $2 }' "$TMP/$sig.out" | sort | paste -sd' ')" "4001:3 4002:2 4003:1" "$TMP/$sig.out"
	check "SIG$sig: its programs are gone" gone_ids prog $progs
	check "SIG$sig: its links are gone" gone_ids link $links
	{ kill -9 $wl; wait_exit $wl; } 2>/dev/null
done

# kill -9: no chance to detach, yet every attachment is a link fd, closed
# by the kernel with the process. Every probe kind, system-wide.
kill9() {	# KIND ARGS...
	local kind=$1
	shift
	scry_bg "$TMP/k.out" "$TMP/k.err" -d 60 "$@" || { fail "kill -9 $kind: scry did not start"; return; }
	held "kill -9 $kind" "$TMP/k.err"
	# (stderr: bash's "Killed" notice for the job)
	{ kill -9 $SCRY_PID; wait_exit $SCRY_PID; } 2>/dev/null
	check "kill -9 $kind: its programs are gone" gone_ids prog $progs
	check "kill -9 $kind: its links are gone" gone_ids link $links
}
kill9 offcpu offcpu
kill9 uprobe 'uprobe:libc:malloc { @ = count() }'
kill9 uretprobe 'uretprobe:libc:malloc { @ = quantize(latency) }'
kill9 usdt "usdt:$WL/malloc_wl:scry_test:tick { @[arg0] = count() }"
kill9 profile profile -F 49
kill9 syscall 'syscall:read { @[comm] = count() }'
kill9 tracepoint 'tracepoint:sched:sched_process_exec { @[comm] = count() }'
