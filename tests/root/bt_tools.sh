# SPDX-License-Identifier: GPL-2.0
# The bpftrace tools (/usr/sbin/*.bt) run with `scry -f`, as a user runs
# them, and the language they need: tracepoint fields as wide and as
# signed as declared, typed pointer fields, the kernel's constants.
# Ground truth: tests/workloads/bt_wl.c (exact arguments, sleeps,
# threads); each expected line is what bpftrace 0.17 prints for it.
. "$(dirname "$0")/../lib.sh"

BT=/usr/sbin
bt_tool() {	# NAME: the tool's file, or a skip naming the package
	if [ -r "$BT/$1.bt" ]; then
		return 0
	fi
	skip "$1.bt" "$BT/$1.bt is missing (apt-get install bpftrace)"
	return 1
}

# 1. syscall arguments are 8 bytes in the record; the declared type
# decides: int dfd AT_FDCWD is -100, long ret -2, umode_t mode 0640,
# pid_t pid -999999 (bpftrace prints exactly these)
mkdir "$TMP/d"
"$SCRY" -q -c "$WL/bt_wl args $TMP/d" '
tracepoint:syscalls:sys_enter_openat /comm == "bt_wl"/ {
	printf("openat %d %s %d %o\n", args->dfd, str(args->filename),
	    args->flags, args->mode) }
tracepoint:syscalls:sys_exit_openat /comm == "bt_wl"/ { printf("ret %d\n", args->ret) }
tracepoint:syscalls:sys_enter_read /comm == "bt_wl"/ { printf("read %d %d\n", args->fd, args->count) }
tracepoint:syscalls:sys_enter_kill /comm == "bt_wl"/ { printf("kill %d %d\n", args->pid, args->sig) }' \
	>"$TMP/args.out" 2>"$TMP/args.err"
check_status "declared field types: exit status" $? 0 "$TMP/args.err"
fd=$(awk -v a="$TMP/d/a" '$1 == "openat" && $3 == a { getline; print $2 }' "$TMP/args.out")
check_eq "declared field types: int dfd, int flags, umode_t mode, long ret, unsigned int fd, size_t count, pid_t pid" \
	"$(sed -n "\\|^openat -100 $TMP/d/a|,\$p" "$TMP/args.out" | paste -sd'|')" \
	"openat -100 $TMP/d/a 64 640|ret $fd|openat -100 $TMP/d/none 0 0|ret -2|read $fd 7|kill -999999 0"

# an array field is no narrower number: inet_sock_set_state's __u8
# saddr[4] is the address ntop() prints (and AF_INET, TCP_SYN_SENT are
# the kernel's constants); a refused connect to 127.0.0.1:1 is CLOSE ->
# SYN_SENT -> CLOSE
"$SCRY" -q -c "bash -c 'exec 3<>/dev/tcp/127.0.0.1/1 || true'" \
	'tracepoint:sock:inet_sock_set_state /args->family == AF_INET/ {
	printf("%s %d %d %d\n", ntop(AF_INET, args->saddr), args->dport,
	    args->oldstate, args->newstate == TCP_SYN_SENT) }' >"$TMP/sock.out" 2>"$TMP/sock.err"
check_eq "inet_sock_set_state: saddr[4] as an address, dport, the states" \
	"$(paste -sd'|' "$TMP/sock.out")" "127.0.0.1 1 7 1|127.0.0.1 1 2 0"

# 2. naptime.bt: args->rqtp->tv_sec through the user's struct
# __kernel_timespec *, $task->real_parent of a cast curtask
if bt_tool naptime; then
	"$SCRY" -q -c "$WL/bt_wl nap" -f "$BT/naptime.bt" >"$TMP/nap.out" 2>"$TMP/nap.err" &
	spid=$!
	wait $spid
	check_status "naptime.bt: exit status" $? 0 "$TMP/nap.err"
	# TIME PPID PCOMM PID COMM SECONDS: the parent is scry (-c's child)
	check_eq "naptime.bt: the three sleeps, 0.012 0.003 7.1000, parent scry" \
		"$(awk '$5 == "bt_wl" { print $2, $3, $6 }' "$TMP/nap.out" | paste -sd'|')" \
		"$spid scry 0.012|$spid scry 0.003|$spid scry 7.1000"
	check_eq "naptime.bt: its header" "$(sed -n 2p "$TMP/nap.out")" \
		"TIME     PPID   PCOMM            PID    COMM             SECONDS"
fi

# a syscall's pointer is the caller's: a kernel address passed there reads
# as nothing (user memory only, as bpftrace's probe_read_user), not as the
# kernel data at that address
K=$(awk '$3 == "__start_rodata" { print $1 }' /proc/kallsyms)
"$SCRY" -q -c "$WL/bt_wl nap $K" 'tracepoint:syscalls:sys_enter_nanosleep {
	printf("%x %d %d\n", args->rqtp, args->rqtp->tv_sec, args->rqtp->tv_nsec) }' \
	>"$TMP/kaddr.out" 2>"$TMP/kaddr.err"
check_status "user pointer holding a kernel address: exit status" $? 0 "$TMP/kaddr.err"
check_eq "user pointer holding a kernel address: the 3 sleeps, then $K read as 0 0" \
	"$(cut -d' ' -f2- "$TMP/kaddr.out" | paste -sd'|')|$(tail -1 "$TMP/kaddr.out")" \
	"0 12000000|0 3000000|7 1000000000|0 0|$K 0 0"

# 5. an error in a file: FILE:LINE:COL, then that line alone with its
# caret (tabs kept), as compilers show it; a plan error the same way
{
	echo '#!/usr/bin/env bpftrace'
	for i in $(seq 2 18); do echo "// line $i"; done
	printf 'BEGIN {\n\t@x = (1 + ;\n}\n'
} >"$TMP/syn.bt"
"$SCRY" -f "$TMP/syn.bt" >"$TMP/syn.out" 2>"$TMP/syn.err"
check_eq "-f syntax error: exit status" $? 2
check_eq "-f syntax error at line 20: FILE:LINE:COL, the line, the caret under the ';'" \
	"$(cat "$TMP/syn.err")" "scry: $TMP/syn.bt:20:12: expected an operand after '+'
    	@x = (1 + ;
    	          ^"
printf 'BEGIN\n{\n\tprintf("%%d\\n",\n\t    nope);\n}\n' >"$TMP/sem.bt"
"$SCRY" -f "$TMP/sem.bt" >"$TMP/sem.out" 2>"$TMP/sem.err"
check_eq "-f meaning error: exit status" $? 2
check_eq "-f meaning error on line 4: its line and caret only" \
	"$(sed 's/ (fields: .*//' "$TMP/sem.err")" "scry: $TMP/sem.bt:4:6: unknown field 'nope'
    	    nope);
    	    ^"
"$SCRY" -e 'BEGIN {
	@x = 1 +
}' >"$TMP/e.out" 2>"$TMP/e2.err"
check_eq "multi-line -e: line and column, the line, the caret" \
	"$(cat "$TMP/e2.err")" "scry: expected an operand after '+' at line 3, column 1
    }
    ^"

# 4. threadsnoop.bt: uprobe:libpthread:pthread_create, which glibc 2.34+
# defines in libc.so.6 (libpthread.so.0 is a stub that needs it): probed
# there, and said so (bpftrace 0.17 attaches nothing and prints no thread)
if bt_tool threadsnoop; then
	"$SCRY" -c "$WL/bt_wl threads 3" -f "$BT/threadsnoop.bt" >"$TMP/ts.out" 2>"$TMP/ts.err"
	check_status "threadsnoop.bt: exit status" $? 0 "$TMP/ts.err"
	check_eq "threadsnoop.bt: 3 threads of bt_wl, each starting bt_thread" \
		"$(awk 'NR > 1 { print $3, $4 }' "$TMP/ts.out" | paste -sd'|')" \
		"bt_wl bt_thread|bt_wl bt_thread|bt_wl bt_thread"
	check_eq "threadsnoop.bt: one pid, the command's" \
		"$(awk 'NR > 1 { print $2 }' "$TMP/ts.out" | sort -u | wc -l)" 1
	check "threadsnoop.bt: stderr names libc.so.6 as the file probed" \
		grep -q "^scry: pthread_create: not in libpthread but in libc.so.6, which it needs .*: probing /.*libc.so.6$" "$TMP/ts.err"
fi
expect "a function in neither the stub nor what it needs" 2 \
	"^scry: function 'pthread_creat' not found in libpthread.so.0" \
	-- "$SCRY" -d 1 'uprobe:libpthread:pthread_creat { @ = count() }'

# 3. runqlat.bt: `args->prev_state == TASK_RUNNING` after its #include
# <linux/sched.h>: the kernel's task states are known by name (bpftrace
# 0.17 here refuses the tool: it finds only the uapi header, without them).
# Inside its sleeps (the gate's own wait may come after scry attached)
mkfifo "$TMP/g.sleeps"
start_gated wl "$WL/bt_wl" sleeps 40 "$TMP/g.sleeps"
if scry_bg "$TMP/st.out" "$TMP/st.err" -p "$wl" \
	'tracepoint:syscalls:sys_enter_clock_nanosleep { self->in = 1 }
	 tracepoint:syscalls:sys_exit_clock_nanosleep { self->in = 0 }
	 tracepoint:sched:sched_switch /self->in && args->prev_state == TASK_INTERRUPTIBLE/ { @s = count() }
	 tracepoint:sched:sched_switch /self->in && args->prev_state == 1/ { @one = count() }'; then
	open_gate "$TMP/g.sleeps"
	wait_exit $SCRY_PID >/dev/null
	s=$(awk '$1 == "@s:" { getline; print $1 }' "$TMP/st.out")
	check_eq "TASK_INTERRUPTIBLE is the kernel's 1: the same switches as prev_state == 1" \
		"$s" "$(awk '$1 == "@one:" { getline; print $1 }' "$TMP/st.out")"
	# one switch out in S per sleep; a sleep whose 1 ms passed before it
	# reached schedule() (preempted under load) has none
	check_range "TASK_INTERRUPTIBLE: the workload's 40 sleeps, each a switch out in S" \
		"$s" 36 40
fi
if bt_tool runqlat; then
	mkfifo "$TMP/g.rq"
	start_gated wl "$WL/bt_wl" sleeps 200 "$TMP/g.rq"
	if scry_bg "$TMP/rq.out" "$TMP/rq.err" -f "$BT/runqlat.bt"; then
		open_gate "$TMP/g.rq"
		wait_exit "$wl" >/dev/null
		kill -INT $SCRY_PID
		wait_exit $SCRY_PID
		check_status "runqlat.bt: exit status" $? 0 "$TMP/rq.err"
		check_eq "runqlat.bt: its header, then @usecs" \
			"$(grep -c '^Tracing CPU scheduler... Hit Ctrl-C to end.$\|^@usecs:$' "$TMP/rq.out")" 2
		# each of the workload's 200 wakeups is one run queue latency
		check_range "runqlat.bt: at least the workload's 200 wakeups in @usecs" \
			"$(rows "$TMP/rq.out" | awk -F'\t' '{ s += $3 } END { print s + 0 }')" 200 100000000
	fi
fi
expect "an unknown constant names what scry looks for" 2 \
	"^scry: unknown constant 'TASK_RUNNNG': no enumerator of the kernel's BTF and no macro scry knows \(docs/LANGUAGE.md lists them\): write its value at column" \
	-- "$SCRY" -d 1 'tracepoint:sched:sched_switch /args->prev_state == TASK_RUNNNG/ { @ = count() }'

# "//" comments after code (writeback.bt's, ssllatency.bt's) are comments
if bt_tool writeback; then
	"$SCRY" -q -d 1 -f "$BT/writeback.bt" >"$TMP/wb.out" 2>"$TMP/wb.err"
	check_status "writeback.bt (// after code): exit status" $? 0 "$TMP/wb.err"
	check_eq "writeback.bt: its header" "$(sed -n 2p "$TMP/wb.out" | tr -s ' ')" \
		"TIME DEVICE PAGES REASON ms"
fi
