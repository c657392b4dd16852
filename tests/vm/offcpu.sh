# SPDX-License-Identifier: GPL-2.0
# scry offcpu on this kernel: sched_switch (raw_tp), the task
# state at switch-out, user registers of a sleeping task
# (bpf_task_pt_regs). offcpu_wl sleeps 10 ms x N in sleep_short() and
# 50 ms x M in sleep_long(); unwind_wl blocks in read() inside a qsort
# comparator, on a path without frame pointers.
. "$(dirname "$0")/../lib.sh"

N=20 M=4

# sleeps FILE FUNC LOW HIGH [TAIL]: the sleeps under FUNC whose latency
# bucket is in [LOW, HIGH] and whose key ends in TAIL (a regex)
sleeps() {
	rows "$1" | awk -F'\t' -v f="$2" -v lo="$3" -v hi="$4" -v tail="${5:-}$" '
		$1 ~ "nanosleep.*" f && $1 ~ tail && $2 + 0 >= lo && $2 + 0 <= hi { s += $3 }
		END { print s + 0 }'
}

# Only sleeps (state S): a preemption is off-CPU time too, and an emulated
# CPU makes them long. A sleep is never shorter than asked, but under
# emulation it may end much later: the count is exact, the latency has a
# floor. Complete: the last user frame is _start, then the comm key.
truth() {	# LABEL FILE
	local f=$2 start='offcpu_wl`_start;offcpu_wl'
	check_eq "$1: $N sleeps of 10 ms (>= 8.4 ms) under sleep_short" \
		"$(sleeps "$f" sleep_short 8388608 1e12)" $N "$f"
	check_eq "$1: $M sleeps of 50 ms (>= 33.5 ms) under sleep_long" \
		"$(sleeps "$f" sleep_long 33554432 1e12)" $M "$f"
	check_eq "$1: nothing shorter than asked under sleep_short or sleep_long" \
		"$(($(sleeps "$f" sleep_short 0 4194304) + $(sleeps "$f" sleep_long 0 16777216)))" 0
	check_eq "$1: every stack of the $((N + M)) sleeps complete to _start" \
		"$(($(sleeps "$f" sleep_short 0 1e12 "$start") + $(sleeps "$f" sleep_long 0 1e12 "$start")))" $((N + M)) "$f"
	check "$1: kernel frames name the sleep (vmlinux\`do_nanosleep)" \
		grep -q 'vmlinux`do_nanosleep' "$f"
}

# as a user runs it: the process starts under scry with no gate
"$SCRY" offcpu -q --state S -c "$WL/offcpu_wl $N $M" >"$TMP/c.out" 2>"$TMP/c.err"
check_status "offcpu --state S -c ungated: exit status" $? 0 "$TMP/c.err"
truth "offcpu --state S -c (ungated)" "$TMP/c.out"

# the state filter runs in the kernel: nanosleep is S, never D
"$SCRY" offcpu -q --state D -c "$WL/offcpu_wl 3 1" >"$TMP/d.out" 2>"$TMP/d.err"
check_eq "offcpu --state D: no sleep of offcpu_wl (they are S)" \
	"$(rows "$TMP/d.out" | grep -c 'sleep_short\|sleep_long')" 0 "$TMP/d.out"

# blocked in read() inside qsort's comparator: only CFI walks this
# (unwind_wl's functions and libc have no frame pointers)
mkfifo "$TMP/gate"
"$WL/unwind_wl" block "$TMP/bt" "$TMP/gate" &
wl=$!
CLEANUP+=("kill -9 $wl")
scry_bg "$TMP/b.folded" "$TMP/b.err" --folded -p $wl \
	'offcpu /latency > 100000000/ { @[ustack] = count() }'
open_gate "$TMP/gate"
# record() writes the backtrace just before the comparator blocks:
# from then on, leave it blocked well past the 100 ms of the predicate
wait_for "$TMP/bt" 0x 30
sleep 0.5
kill $wl
wait_exit $SCRY_PID
all=$(awk '/;cmp;block_forever;/ { s += $NF } END { print s + 0 }' "$TMP/b.folded")
full=$(awk '/^_start;__libc_start_main;[^;]+;main;sort_some;qsort_r;.*;cmp;block_forever;/ { s += $NF } END { print s + 0 }' "$TMP/b.folded")
check "offcpu without frame pointers: the block in the comparator is seen ($all)" test "$all" -ge 1
check_eq "offcpu without frame pointers: its stack is complete, _start to read()" "$full" "$all"
[ "$full" = "$all" ] || sed 's/^/#   /' "$TMP/b.folded" "$TMP/b.err" | head -20
