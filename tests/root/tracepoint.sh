# SPDX-License-Identifier: GPL-2.0
# tracepoint:CAT:NAME with fields from the event's format.
. "$(dirname "$0")/../lib.sh"

"$SCRY" -q -c "sh -c 'for i in 1 2 3 4 5; do /bin/true; done'" \
	'tracepoint:sched:sched_process_exec { @[comm] = count() }' >"$TMP/t.out" 2>"$TMP/t.err"
check_status "exec tracepoint: exit status" $? 0 "$TMP/t.err"
check_eq "exec tracepoint: 5 execs of true" "$(awk '$1 == "true" { print $2 }' "$TMP/t.out")" 5
"$SCRY" -q -c "sh -c 'for i in 1 2 3; do /bin/true; done'" \
	'tracepoint:sched:sched_process_exec /args.old_pid > 0/ { @[args.filename] = count() }' >"$TMP/f.out" 2>&1
check_eq "args.filename (a __data_loc string) as a key: /bin/true 3 times" \
	"$(awk '$1 == "/bin/true" { print $2 }' "$TMP/f.out")" 3
# bpftrace's short name t: is tracepoint:, and probe names it in full
"$SCRY" -q -c "sh -c 'for i in 1 2 3 4; do /bin/true; done'" \
	't:sched:sched_process_exec /comm == "true"/ { @[probe] = count() }' >"$TMP/alias.out" 2>&1
check_eq "t:sched:sched_process_exec: 4 execs of true, probe in full" \
	"$(awk 'NF == 2 { print $1, $2 }' "$TMP/alias.out")" "tracepoint:sched:sched_process_exec 4"
# a clause over tracepoints whose field sits at different places (execve's
# filename at 16, execveat's at 24) runs as one clause per place, as
# bpftrace's execsnoop and opensnoop need
"$SCRY" -q -c "sh -c '/bin/true; /bin/true; /bin/true'" \
	'tracepoint:syscalls:sys_enter_exec* { @[str(args->filename)] = count() }' >"$TMP/split.out" 2>"$TMP/split.err"
check_status "sys_enter_exec* with args->filename: exit status" $? 0 "$TMP/split.err"
check_eq "sys_enter_exec*: /bin/true exec'ed 3 times" \
	"$(awk '$1 == "/bin/true" { print $2 }' "$TMP/split.out")" 3 "$TMP/split.out"
# opensnoop's way: the pointer kept at entry, its string read at return
printf x >"$TMP/opened"
"$SCRY" -q -c "cat $TMP/opened $TMP/opened $TMP/opened" \
	'tracepoint:syscalls:sys_enter_open, tracepoint:syscalls:sys_enter_openat { @f[tid] = args->filename }
	 tracepoint:syscalls:sys_exit_open, tracepoint:syscalls:sys_exit_openat /@f[tid]/ { @[str(@f[tid]), args->ret >= 0] = count(); delete(@f[tid]) }' \
	>"$TMP/os.out" 2>"$TMP/os.err"
check_status "opensnoop's clauses: exit status" $? 0 "$TMP/os.err"
check_eq "opensnoop's clauses: the file opened 3 times, each a success" \
	"$(awk -v f="$TMP/opened" '$1 == f { print $2, $3 }' "$TMP/os.out")" "1 3" "$TMP/os.out"
expect "unknown tracepoint field" 2 "^scry: tracepoint sched:sched_process_exec has no field 'nope' \(fields: .*filename" \
	-- "$SCRY" 'tracepoint:sched:sched_process_exec { @[args.nope] = count() }'
expect "unknown tracepoint" 2 "^scry: tracepoint:sched:nope: no such tracepoint" \
	-- "$SCRY" -d 1 'tracepoint:sched:nope { @ = count() }'

# -l lists tracepoints and syscalls by glob
"$SCRY" -l 'tracepoint:sched:sched_process_e*' >"$TMP/l.out"
check_eq "-l tracepoint glob: exactly exec and exit" "$(sort "$TMP/l.out" | paste -sd' ')" \
	"tracepoint:sched:sched_process_exec tracepoint:sched:sched_process_exit"
"$SCRY" -l 'syscall:pread6?' >"$TMP/s.out"
check_eq "-l syscall glob pread6?: pread64" "$(cat "$TMP/s.out")" "syscall:pread64"
