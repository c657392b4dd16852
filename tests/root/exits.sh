# SPDX-License-Identifier: GPL-2.0
# A traced process's own exit reaches the clauses: sched_process_exit of
# every process of a -c command (its children and the command itself) and
# of a -p process, at its last thread's exit, and what the exit does after
# it (the SIGCHLD to the parent); a process reaped and freed is no target
# any more.
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

# the rest of an exit: state_wl stop's children each send SIGCHLD 3 times
# from their own context (stopped, continued, exited), the command once
# (exited, to scry)
run_c "$TMP/s.out" "$TMP/s.err" "$WL/state_wl stop 4 1" -q \
	'tracepoint:signal:signal_generate /args->sig == 17/ { @[pid] = count() }'
check_status "SIGCHLD at exit: exit status" $? 0 "$TMP/s.err"
check_eq "SIGCHLD at exit: 3 from each child, 1 from the command" \
	"$(awk 'NF == 2 { print $2 }' "$TMP/s.out" | sort | uniq -c | awk '{ print $2 "x" $1 }' | paste -sd' ')" \
	"1x1 3x4" "$TMP/s.out"

# reaped children are no targets: 20 of them come and go, then while the
# command waits on its gate the engine's targets map holds the command
# alone (a script run as words: no /bin/sh wrapper around it)
mkfifo "$TMP/tg"
printf 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do /bin/true; done\nread x <%s\n' \
	"$TMP/tg" >"$TMP/twenty.sh"
scry_bg "$TMP/t.out" "$TMP/t.err" -c "/bin/sh $TMP/twenty.sh" \
	'tracepoint:sched:sched_process_exit { @ = count() }'
tmap=
for id in $(grep -h '^map_id:' /proc/$SCRY_PID/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -un); do
	bpftool map show id "$id" 2>/dev/null | grep -q ' name targets ' && tmap=$id
done
# (a reaped task is freed by an RCU callback, which a kernel with lazy
# RCU may hold for 10 s or more under load: rcu_barrier() runs them all,
# where the kernel lets it be asked for; else wait, up to two minutes)
n=
for ((i = 0; i < 1200; i++)); do
	echo 1 >/sys/module/rcutree/parameters/do_rcu_barrier 2>/dev/null
	n=$(bpftool map dump id "$tmap" 2>/dev/null | grep -c '"key"')
	[ "$n" = 1 ] && break
	sleep 0.1
done
check_eq "reaped children leave the targets map (entries while the command waits)" "${n:-none}" 1
open_gate "$TMP/tg"
wait_exit $SCRY_PID
check_status "reaped children: exit status" $? 0 "$TMP/t.err"
check_eq "reaped children: 21 exits (20 /bin/true, the command)" \
	"$(awk 'NF == 1 && $1 ~ /^[0-9]+$/ { print $1 }' "$TMP/t.out")" 21 "$TMP/t.out"
