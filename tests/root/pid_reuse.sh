# SPDX-License-Identifier: GPL-2.0
# A targets entry is of one process, not of a pid: a pid is free again
# from its reap, but the engine drops the entry at sched_process_free, an
# RCU grace period later. The entry holds the process's start (abi.h:
# struct scry_target), so within that window
#  - a late free leaves the entry of a process the pid was given to, and
#  - an earlier process's entry does not make the pid's new owner traced.
# The kernel cannot be made to reuse a pid on demand; the test writes the
# entries the window would leave (bpftool), for real processes, and checks
# what the engine does with each.
. "$(dirname "$0")/../lib.sh"

# le PID: the map key, 4 bytes little-endian, as bpftool's hex words
le() { printf '%02x %02x %02x %02x' $(($1 & 255)) $(($1 >> 8 & 255)) \
	$(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
le64() { printf '%s %s' "$(le $(($1 & 0xffffffff)))" "$(le $(($1 >> 32)))"; }
# entry PID START STATE: targets[PID] = { START, STATE }; an engine whose
# entries hold the state alone (before struct scry_target) gets that, so
# the test shows what it does wrong
entry() {
	if [ "$vsize" = 1 ]; then
		bpftool map update id "$tmap" key hex $(le "$1") value hex \
			$(printf '%02x' "$3")
		return
	fi
	bpftool map update id "$tmap" key hex $(le "$1") value hex \
		$(le64 "$2") $(printf '%02x' "$3") 00 00 00 00 00 00 00
}
# find_tmap: the targets map of the scry running as SCRY_PID, into tmap
find_tmap() {
	tmap=
	for id in $(grep -h '^map_id:' /proc/$SCRY_PID/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -un); do
		bpftool map show id "$id" 2>/dev/null | grep -q ' name targets ' && tmap=$id
	done
	check "the engine's targets map found" test -n "$tmap"
	vsize=$(bpftool -j map show id "$tmap" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["bytes_value"])')
}
# start_of PID: the start targets[PID] holds, "none" without an entry
# ("state only": an entry of an engine without starts)
start_of() {
	bpftool -j map lookup id "$tmap" key hex $(le "$1") 2>/dev/null |
		python3 -c 'import json, sys
try:
    v = json.load(sys.stdin)["formatted"]["value"]
except Exception:
    print("none")
else:
    print(v["start"] if isinstance(v, dict) else "state only")'
}
# rcu_settle: run the RCU callbacks the kernel holds (sched_process_free
# among them), where it lets them be asked for
rcu_settle() { { echo 1 >/sys/module/rcutree/parameters/do_rcu_barrier; } 2>/dev/null; }

mkfifo "$TMP/ga" "$TMP/gb" "$TMP/gc" "$TMP/c.in"
# a: the -p process, that keeps scry tracing; b, c: as the kernel leaves
# their pids' entries, each then reads 100 single bytes
start_gated a bash -c "read x <$TMP/ga"
scry_bg "$TMP/r.out" "$TMP/r.err" -p "$a" \
	'syscall:read /arg2 == 1/ { @[pid] = count() }'
find_tmap

start_gated b bash -c "read x <$TMP/gb; exec dd if=/dev/zero of=/dev/null bs=1 count=100 status=none"
start_gated c bash -c "exec 3<$TMP/gc; exec dd if=$TMP/c.in of=/dev/null bs=1 count=100 status=none"
# b's pid holds an earlier process's entry (its start is not b's), c's
# one the frontend adds (-p, -c: start 0, not known yet)
check "an earlier process's entry for b's pid, written" entry "$b" 1 1
check "a frontend's entry for c's pid (start 0), written" entry "$c" 0 1
open_gate "$TMP/gb"
wait_exit "$b"
open_gate "$TMP/gc"
# c has exec'd dd, which waits for c.in's writer: its exec stamped it
for ((i = 0; i < 200; i++)); do
	{ read -r comm <"/proc/$c/comm"; read -r w <"/proc/$c/wchan"; } 2>/dev/null
	[ "$comm.$w" = dd.wait_for_partner ] && break
	sleep 0.05
done
ticks=$(awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$c/stat")
hz=$(getconf CLK_TCK)
st=$(start_of "$c")
check_eq "c's exec stamped its entry with c's start (to the clock tick)" \
	"$([[ $st =~ ^[1-9][0-9]*$ ]] && echo $((st / (1000000000 / hz))))" "$ticks"
head -c 100 /dev/zero >"$TMP/c.in"
wait_exit "$c"
check_eq "b's pid keeps the earlier process's entry, unchanged" "$(start_of "$b")" 1

# a late free: d and e exit and are reaped; d's pid now holds another
# process's entry (as a target's fork would have written it), e's is e's
sleep 600 &
d=$!
sleep 600 &
e=$!
CLEANUP+=("kill -9 $d $e")
check "another process's entry for d's pid, written" entry "$d" 1 1
check "a frontend's entry for e's pid, written" entry "$e" 0 1
{ kill -9 "$d" "$e"; wait "$d" "$e"; } 2>/dev/null
# (lazy RCU may hold the frees 10 s or more under load: two minutes)
for ((i = 0; i < 1200; i++)); do
	rcu_settle
	[ "$(start_of "$e")" = none ] && break
	sleep 0.1
done
check_eq "e's free drops e's own entry (stamped at its exit)" "$(start_of "$e")" none
rcu_settle
check_eq "d's free leaves the entry of the process its pid was given to" \
	"$(start_of "$d")" 1

open_gate "$TMP/ga"
wait_exit "$a"
wait_exit "$SCRY_PID"
check_status "exit status" $? 0 "$TMP/r.err"
check_eq "c's 100 one-byte reads counted, b's none (not its pid's process)" \
	"$(awk -v b="$b" -v c="$c" 'NF == 2 && ($1 == b || $1 == c) { print ($1 == c ? "c" : "b"), $2 }' "$TMP/r.out" | sort | paste -sd' ')" \
	"c 100" "$TMP/r.out"

# the -c command's end signals the processes it started that are still
# followed: not one that was only given the pid of one gone. u's pid
# holds a gone process's entry; v's an entry not stamped yet (a process
# that has not exited: the pid is still its own); w's one stamped with
# w's start (to the clock tick: what /proc says)
mkfifo "$TMP/gq"
scry_bg "$TMP/q.out" "$TMP/q.err" -c "head -c 3 $TMP/gq" \
	'tracepoint:sched:sched_process_exit { @ = count() }'
find_tmap
sleep 600 &
u=$!
sleep 600 &
v=$!
sleep 600 &
w=$!
CLEANUP+=("kill -9 $u $v $w")
wticks=$(awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$w/stat")
check "u: a gone process's entry, written" entry "$u" 1 1
check "v: an entry not stamped yet, written" entry "$v" 0 1
check "w: w's own entry, written" \
	entry "$w" $((wticks * (1000000000 / hz) + 1000000000 / hz / 2)) 1
open_gate "$TMP/gq"
wait_exit "$SCRY_PID"
check_status "-c: exit status" $? 0 "$TMP/q.err"
# alive PID: "gone" once it has exited (a zombie not yet waited for too)
alive() {
	local st
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || { echo gone; return; }
	st=${st##*) }
	[ "${st%% *}" = Z ] && echo gone || echo alive
}
check_eq "the command's end: u lives, v and w got its SIGTERM" \
	"$(alive "$u") $(alive "$v") $(alive "$w")" "alive gone gone"
{ kill -9 "$u"; wait "$u" "$v" "$w"; } 2>/dev/null || :
