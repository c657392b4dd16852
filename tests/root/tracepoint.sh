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
