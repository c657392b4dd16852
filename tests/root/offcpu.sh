# SPDX-License-Identifier: GPL-2.0
# scry offcpu against workloads with known blocking: offcpu_wl sleeps
# 10 ms x N in sleep_short(), then 50 ms x M in sleep_long(), one voluntary
# off-CPU period per sleep; state_wl blocks in state D (vfork) and T
# (stopped) a known number of times.
#
# The ground truth of a phase is what the kernel counted for the
# workload's thread (getrusage, written to $WL_REPORT by wl_report.h):
# every context switch is one off-CPU period, voluntary (it blocked) or
# not (it was preempted). A nap is not always one sleep: if the thread
# stalls between arming the timer and blocking (preempted, or its vCPU
# descheduled) for the whole 10 ms, the timer fires first and it never
# blocks (seen under load: 19 sleeps of 20, nvcsw 19). What is exact:
# those counts, and that each sleep lasts at least its length (a timer
# never fires early). What is not: how long the woken thread then waits
# for a CPU, so a 10 ms sleep may end in the 16 ms bucket; the only upper
# bound is the phase's wall time.
. "$(dirname "$0")/../lib.sh"

N=20 M=4
SHORT_NS=10000000 LONG_NS=50000000
# A voluntary sleep: schedule() called by do_nanosleep(). A preemption
# inside the syscall is another off-CPU period (state R) of any length,
# mostly with another kernel stack; with this one when do_nanosleep
# calls schedule() after the timer has already woken it (the kernel
# counts that switch involuntary: seen once, a 32 us period, under load).
SLEEP_K='vmlinux`__schedule;vmlinux`schedule;vmlinux`do_nanosleep;'
KERN_END='vmlinux`entry_SYSCALL_64_after_hwframe;'
# the user stack DWARF unwinding gives (inlined frames are rows of their
# own in the text output, so this is the exact frame list)
USER_SHORT='libc.so.6`clock_nanosleep;libc.so.6`__nanosleep;offcpu_wl`nap;offcpu_wl`sleep_short;offcpu_wl`main;libc.so.6`__libc_start_call_main;libc.so.6`__libc_start_main;offcpu_wl`_start;offcpu_wl$'
USER_LONG=${USER_SHORT//sleep_short/sleep_long}

# count FILE KEY-REGEX MIN-BUCKET: "IN OUT", periods of matching rows in
# buckets >= MIN-BUCKET and below it
count() {
	rows "$1" | awk -F'\t' -v pat="$2" -v min="$3" '
		$1 ~ pat && $2 ~ /^[0-9]+$/ { if ($2 + 0 >= min) i += $3; else o += $3 }
		END { print i + 0, o + 0 }'
}
# nrows FILE KEY-REGEX: distinct keys matching
nrows() {
	rows "$1" | awk -F'\t' -v pat="$2" '$1 ~ pat { print $1 }' | sort -u | wc -l
}

# wl FILE KEY: a value offcpu_wl reported
wl() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

# The sleeps, from any run of offcpu_wl N M with the offcpu question and
# $WL_REPORT. The buckets: 10 ms >= 2^23 ns (8.4 ms), 50 ms >= 2^25 ns
# (33.6 ms).
check_sleeps() {	# LABEL FILE REPORT USER-SHORT-REGEX USER-LONG-REGEX
	local f=$2 r=$3 ph fn re min naps vcsw ivcsw imax got
	for ph in short long; do
		fn=sleep_$ph
		[ $ph = short ] && re=$4 min=8388608 naps=$N || re=$5 min=33554432 naps=$M
		vcsw=$(wl "$r" ${ph}_vcsw) ivcsw=$(wl "$r" ${ph}_ivcsw) imax=$(wl "$r" ${ph}_ivcsw_max)
		# (preemptions bracketed: wl_report.h, wl_call_end)
		got=$(count "$f" "offcpu_wl\`$fn;" 0 | awk '{ print $1 + $2 }')
		if [ "$ivcsw" = "$imax" ]; then
			check_eq "$1: $fn's off-CPU periods are its $vcsw + $ivcsw context switches" "$got" $((vcsw + ivcsw)) "$f"
		else
			check_range "$1: $fn's off-CPU periods are its $vcsw voluntary + $ivcsw..$imax involuntary switches" \
				"$got" $((vcsw + ivcsw)) $((vcsw + imax))
		fi
		# shorter with the sleep's stack: only a preemption, which
		# is one of the phase's involuntary switches (do_nanosleep
		# calling schedule() once the timer had already woken it)
		read -r got short <<<"$(count "$f" "^$SLEEP_K.*$re" $min)"
		check_range "$1: $fn's sleeps are each >= the nap (bucket >= $min), none shorter but its <= $imax preemptions" "$short" 0 "$imax"
		check_eq "$1: $fn's sleeps are its $vcsw voluntary switches (of $naps naps)" "$got" "$vcsw"
	done
	# on a miss, scry's loss counters tell whether it knew
	[ "$(count "$f" "offcpu_wl\`sleep_" 0 | awk '{ print $1 + $2 }')" -ge \
	  $(($(wl "$r" short_vcsw) + $(wl "$r" short_ivcsw) + $(wl "$r" long_vcsw) + $(wl "$r" long_ivcsw))) ] ||
		sed 's/^/#   stderr: /' "${f%.out}.err"
	check_eq "$1: no BPF or tracing frames in kernel stacks" \
		"$(grep -Ec 'bpf_prog_|bpf_trace_run|__bpf_trace|__traceiter_|trace_call_bpf' "$f")" 0
	check "$1: header names the unit and the keys" \
		grep -qx 'off-CPU time (ns) by kernel stack, user stack, comm:' "$f"
}

# -c: run the command, ungated, stop when it exits. The command runs
# from its first instruction; its stacks are whole all the same, one row
# per logical stack (scry holds it at exec until its tables are in).
WL_REPORT=$TMP/c.wl run_c "$TMP/c.out" "$TMP/c.err" "$WL/offcpu_wl $N $M" offcpu
check_status "-c: exit status" $? 0 "$TMP/c.err"
check_sleeps "-c" "$TMP/c.out" "$TMP/c.wl" "$KERN_END$USER_SHORT" "$KERN_END$USER_LONG"
check_eq "-c: one row per logical stack (sleep_short, sleep_long)" \
	"$(nrows "$TMP/c.out" "^$SLEEP_K.*$KERN_END$USER_SHORT") $(nrows "$TMP/c.out" "^$SLEEP_K.*$KERN_END$USER_LONG")" "1 1" "$TMP/c.out"
check_eq "-c: nothing lost or degraded (stderr is the banner only)" \
	"$(grep -v '^scry: tracing' "$TMP/c.err")" ""

# The engine's programs load on both CPUs (src/parload.c): prev's half
# of the sched_switch program on the second one. On one CPU they load one
# after another, and the answer is the same.
"$SCRY" -v offcpu -c true >/dev/null 2>"$TMP/v.err"
check_status "-v: exit status" $? 0 "$TMP/v.err"
check_eq "-v: the lean engine, offcpu_out_0 loaded on the second CPU" \
	"$(grep -Ec '^scry: engine: (the lean build|offcpu_out_0 loads on a second CPU)$' "$TMP/v.err")" 2 "$TMP/v.err"
WL_REPORT=$TMP/one.wl taskset -c 0 "$SCRY" -v offcpu -c "$WL/offcpu_wl $N $M" \
	>"$TMP/one.out" 2>"$TMP/one.err"
check_status "one CPU: exit status" $? 0 "$TMP/one.err"
check_eq "one CPU: every program loads on it" \
	"$(grep -c 'loads on a second CPU' "$TMP/one.err")" 0
check_sleeps "one CPU" "$TMP/one.out" "$TMP/one.wl" "$KERN_END$USER_SHORT" "$KERN_END$USER_LONG"

# -p: attach to a running process, stop when it exits; it exits before
# scry prints, so symbols must come from the mappings captured earlier.
# Its tables are loaded before scry says it is tracing: every stack is
# whole, one row per logical stack.
mkfifo "$TMP/gate"
WL_REPORT=$TMP/p.wl start_gated wl "$WL/offcpu_wl" $N $M "$TMP/gate"
scry_bg "$TMP/p.out" "$TMP/p.err" offcpu -p $wl
open_gate "$TMP/gate"
wait_exit $wl
wait_exit $SCRY_PID
check_status "-p: scry exits 0 when the traced process exits" $? 0 "$TMP/p.err"
check_sleeps "-p (process exited first)" "$TMP/p.out" "$TMP/p.wl" "$KERN_END$USER_SHORT" "$KERN_END$USER_LONG"
check_eq "-p: one row per logical stack (sleep_short, sleep_long)" \
	"$(nrows "$TMP/p.out" "^$SLEEP_K.*$KERN_END$USER_SHORT") $(nrows "$TMP/p.out" "^$SLEEP_K.*$KERN_END$USER_LONG")" "1 1"
check_eq "-p: nothing lost or degraded (stderr is the banner only)" \
	"$(grep -v '^scry: tracing' "$TMP/p.err")" ""

# --folded: comm;user frames;kernel frames_[k] MICROSECONDS (rounded).
# The sleeps of a phase add up to at least its voluntary switches x the
# nap and at most its wall time; each line may round by half a
# microsecond.
WL_REPORT=$TMP/f.wl run_c "$TMP/f.out" "$TMP/f.err" "$WL/offcpu_wl $N $M" offcpu --folded
check_status "--folded: exit status" $? 0 "$TMP/f.err"
folded_sum() {	# FUNCTION: "SUM LINES" of the voluntary sleeps under FUNCTION
	awk -v fn="$1" 'index($0, ";" fn ";") && /;do_nanosleep_\[k\];schedule_\[k\];__schedule_\[k\] [0-9]+$/ {
		s += $NF; n++ } END { printf "%.0f %d\n", s, n }' "$TMP/f.out"
}
for phase in short long; do
	read -r sum lines <<<"$(folded_sum sleep_$phase)"
	wall_us=$(($(wl "$TMP/f.wl" ${phase}_ns) / 1000))
	[ $phase = short ] && nap_us=$((SHORT_NS / 1000)) || nap_us=$((LONG_NS / 1000))
	low=$(($(wl "$TMP/f.wl" ${phase}_vcsw) * nap_us))
	check_range "--folded: sleep_$phase's sleeps total between their sleeps and the phase's wall time (us)" \
		"$sum" $((low - lines)) $((wall_us + lines))
done
check "--folded: root frame is comm, the user stack, kernel frames end in _[k]" \
	grep -Eq '^offcpu_wl;.*;main;sleep_short;.*;do_nanosleep_\[k\];schedule_\[k\];__schedule_\[k\] [0-9]+$' "$TMP/f.out"
check_eq "--folded: every line is FRAMES COUNT with no empty frame" \
	"$(grep -Evc '^[^ ;][^;]*(;[^;]+)* [0-9]+$' "$TMP/f.out")" 0

# --min-block: three scry on the same process, two filtered: each
# filtered one keeps exactly the periods the unfiltered one saw in the
# buckets from its bound up. The bounds sit just under a bucket's (33554
# us is 432 ns under 2^25 ns, 16777 us 216 ns under 2^24 ns): a period in
# those few hundred nanoseconds would be kept but bucketed below (never
# seen). 16777 us also tells a bound off by half (the 10 ms sleeps would
# pass), 33554 us one off by double (the 50 ms sleeps would not).
mkfifo "$TMP/mgate"
start_gated wl "$WL/offcpu_wl" $N $M "$TMP/mgate"
scry_bg "$TMP/all.out" "$TMP/all.err" offcpu -p $wl
all_pid=$SCRY_PID
scry_bg "$TMP/m24.out" "$TMP/m24.err" offcpu --min-block 16777 -p $wl
m24_pid=$SCRY_PID
scry_bg "$TMP/m.out" "$TMP/m.err" offcpu --min-block 33554 -p $wl
open_gate "$TMP/mgate"
wait_exit $wl
wait_exit $all_pid
wait_exit $m24_pid
wait_exit $SCRY_PID
check_status "--min-block: exit status" $? 0 "$TMP/m.err"
for b in 33554:33554432:m 16777:16777216:m24; do
	IFS=: read -r us ns f <<<"$b"
	read -r want_in want_out <<<"$(count "$TMP/all.out" '' $ns)"
	check_eq "--min-block $us: exactly the periods an unfiltered run saw at >= $ns ns ($want_in of $((want_in + want_out)))" \
		"$(count "$TMP/$f.out" '' $ns)" "$want_in 0" "$TMP/$f.out"
done
# (compared with what the unfiltered scry saw, and that with M below).
# A 10 ms sleep stays only if it blocked past the bound (a loaded
# machine can wake it 30 ms late): then the unfiltered run saw it there.
# A period below the bound with a long nap's stack is gone: a preemption
# at do_nanosleep's schedule() (SLEEP_K above; the unfiltered run saw 5
# for 4 naps once, and this check wanted all 5)
check_eq "--min-block 33554: the 50 ms sleeps stay, the 10 ms ones are gone (but those the unfiltered run saw blocked past the bound)" \
	"$(count "$TMP/m.out" "^$SLEEP_K.*sleep_long" 0) $(count "$TMP/m.out" "^$SLEEP_K.*sleep_short" 0)" \
	"$(count "$TMP/all.out" "^$SLEEP_K.*sleep_long" 33554432 | cut -d' ' -f1) 0 $(count "$TMP/all.out" "^$SLEEP_K.*sleep_short" 33554432 | cut -d' ' -f1) 0"
case $LAST_CHECK in FAIL*) sed 's/^/#   m.err: /' "$TMP/m.err" ;; esac
check_eq "--min-block: the unfiltered scry saw the $M 50 ms sleeps" \
	"$(count "$TMP/all.out" "^$SLEEP_K.*sleep_long" 33554432 | cut -d' ' -f1)" $M
# three programs on sched_switch: the tracepoint calls them through
# __traceiter_sched_switch, which is scry's frame, not the kernel's
check_eq "several scry at once: no tracepoint iterator or BPF frames in kernel stacks" \
	"$(cat "$TMP/all.out" "$TMP/m.out" "$TMP/m24.out" | grep -Ec 'bpf_prog_|bpf_trace_run|__bpf_trace|__traceiter_|trace_call_bpf')" 0

# --state: S and D through state_wl vfork: the parent waits for each
# vfork child in state D (TASK_KILLABLE) in kernel_clone; each child
# sleeps in state S. K of each, each >= 100 ms, so in buckets >= 2^25 ns
# (the margin also covers the parent getting off the CPU after its child
# started sleeping). -c follows the children.
K=3
VFORK_K='vmlinux`kernel_clone;'
"$SCRY" offcpu -q --state D -c "$WL/state_wl vfork $K 100" >"$TMP/d.out" 2>"$TMP/d.err"
check_status "--state D: exit status" $? 0 "$TMP/d.err"
read -r got short <<<"$(count "$TMP/d.out" "$VFORK_K" 33554432)"
check_eq "--state D: the $K vfork waits (D)" "$got" $K "$TMP/d.out"
check_eq "--state D: each >= 2^25 ns" "$short" 0
check_eq "--state D: none of the children's sleeps (S)" \
	"$(count "$TMP/d.out" 'do_nanosleep' 0)" "0 0"
"$SCRY" offcpu -q --state S -c "$WL/state_wl vfork $K 100" >"$TMP/s.out" 2>"$TMP/s.err"
check_status "--state S: exit status" $? 0 "$TMP/s.err"
# (keyed by the kernel stack: a forked child's user stack may be walked
# before its tables are known, tests/root/cmd_stacks.sh)
read -r got short <<<"$(count "$TMP/s.out" "^$SLEEP_K"'vmlinux`hrtimer_nanosleep;vmlinux`__x64_sys_nanosleep;' 33554432)"
check_eq "--state S: the $K children's sleeps (S, in forked children)" "$got" $K "$TMP/s.out"
check_eq "--state S: each >= 2^25 ns" "$short" 0
check_eq "--state S: none of the vfork waits (D)" \
	"$(count "$TMP/s.out" "$VFORK_K" 0)" "0 0"
"$SCRY" offcpu -q --state D -c "$WL/offcpu_wl $N $M" >"$TMP/dd.out" 2>"$TMP/dd.err"
check_status "--state D on offcpu_wl: exit status" $? 0 "$TMP/dd.err"
check_eq "--state D on offcpu_wl: no nanosleep (state S)" \
	"$(count "$TMP/dd.out" 'do_nanosleep' 0)" "0 0"

# state T: children that stop themselves (SIGSTOP), K of them, each
# stopped >= 100 ms; the kernel stops them in do_signal_stop
"$SCRY" -q -c "$WL/state_wl stop $K 100" \
	'offcpu /state == 4/ { @[kstack] = quantize(latency) }' >"$TMP/t.out" 2>"$TMP/t.err"
check_status "state T: exit status" $? 0 "$TMP/t.err"
read -r got short <<<"$(count "$TMP/t.out" 'vmlinux`do_signal_stop;' 33554432)"
check_eq "state T: the $K stopped children, in do_signal_stop" "$got" $K "$TMP/t.out"
check_eq "state T: each >= 2^25 ns" "$short" 0
check_eq "state T: nothing else is in state T" \
	"$(count "$TMP/t.out" '' 0)" "$(count "$TMP/t.out" 'vmlinux`do_signal_stop;' 0)"

"$SCRY" -v offcpu --state S --min-block 5 -d 0.1 >"$TMP/v.out" 2>"$TMP/v.err"
check "-v prints the expansion" grep -qxF \
	'scry: offcpu expands to: offcpu /state == 1 && latency >= 5000/ { @[kstack, ustack, comm] = quantize(latency) }' "$TMP/v.err"

# -d: the deadline, on a process that sleeps throughout; JSON says how
# long scry traced. Never less than asked; more only by the time scry
# takes to wake up and stop on a loaded machine.
sleep 30 &
sl=$!
CLEANUP+=("kill -9 $sl")
"$SCRY" offcpu -q --json -d 1 -p $sl >"$TMP/d1.json" 2>"$TMP/d1.err"
check_status "-d 1 -p: exit status" $? 0 "$TMP/d1.err"
check_eq "-d 1 -p: traced for 1 s and at most 0.5 s more" \
	"$(python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline())["duration_s"]; print(1.0 <= d < 1.5 or d)' "$TMP/d1.json")" True
# system-wide for a fixed time
"$SCRY" offcpu -q --json -d 1 >"$TMP/sys.json" 2>"$TMP/sys.err"
check_status "-d 1 system-wide: exit status" $? 0 "$TMP/sys.err"
check_eq "-d 1 system-wide: traced for at least 1 s, with rows from many processes" \
	"$(python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print(d["duration_s"] >= 1.0, len({r["keys"]["comm"] for r in d["rows"]}) > 1)' "$TMP/sys.json")" "True True"
