# SPDX-License-Identifier: GPL-2.0
# A traced process's own exit reaches the clauses: sched_process_exit of
# every process of a -c command (its children and the command itself) and
# of a -p process, at its last thread's exit, the one where scry drops the
# process's target.
. "$(dirname "$0")/../lib.sh"

EXIT='tracepoint:sched:sched_process_exit { @e[comm, pid] = count() }'
FORK='tracepoint:sched:sched_process_fork { @f[args->child_pid] = count() }'

# -c: state_wl stop 4 forks 4 children, each exits once it is continued,
# then the command exits: 5 exits, one per pid, 4 forks
run_c "$TMP/c.out" "$TMP/c.err" "$WL/state_wl stop 4 1" -q "$EXIT $FORK"
check_status "-c: exit status" $? 0 "$TMP/c.err"
awk '/^@e:/ { m = "e"; next } /^@f:/ { m = "f"; next }
     m == "e" && NF == 3 { print $2 >"'"$TMP"'/e.pids" }
     m == "f" && NF == 2 { print $1 >"'"$TMP"'/f.pids" }' "$TMP/c.out"
touch "$TMP/e.pids" "$TMP/f.pids"
check_eq "-c: 5 exits (4 children and the command), one each" \
	"$(awk '$1 == "state_wl" && $3 == 1' "$TMP/c.out" | wc -l)" 5 "$TMP/c.out"
check_eq "-c: 4 forks" "$(wc -l <"$TMP/f.pids")" 4 "$TMP/c.out"
# (files, not <(...): the VM of tests/vm has no /dev/fd)
sort "$TMP/e.pids" >"$TMP/e.sorted"
check_eq "-c: every forked child's exit seen" \
	"$(sort "$TMP/f.pids" | comm -23 - "$TMP/e.sorted" | wc -l)" 0 "$TMP/c.out"

# -p: a running process's exit, and scry stops once it has exited
mkfifo "$TMP/g"
start_gated wl "$WL/malloc_wl" rate 10 "$TMP/g"
scry_bg "$TMP/p.out" "$TMP/p.err" -p $wl "$EXIT"
open_gate "$TMP/g"
wait_exit $wl
wait_exit $SCRY_PID
check_status "-p: scry exits 0 once the process has exited" $? 0 "$TMP/p.err"
check_eq "-p: the process's exit, once" \
	"$(awk 'NF == 3 { print $1, $2, $3 }' "$TMP/p.out")" "malloc_wl $wl 1" "$TMP/p.out"
