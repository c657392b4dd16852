# SPDX-License-Identifier: GPL-2.0
# Shared helpers for tests/root/*.sh: checks, scry runs, output parsing.
# Every check prints one line for tests/run to count: "ok - WHAT",
# "FAIL - WHAT: DETAIL" or "skip - WHAT: WHY" (see the top of tests/run).
set -u
cd "$(dirname "$0")/../.."
BUILD=${SCRY_BUILD:-build}
SCRY=${SCRY:-$PWD/$BUILD/scry}
WL=$PWD/$BUILD/workloads
TMP=$(mktemp -d /tmp/scry-test.XXXXXX)
TEST_SHELL=$BASHPID
trap 'cleanup_test' EXIT
# tests/run's time limit sends SIGTERM to the whole test: say where it was
# (the runner reports the failure), then clean up through the EXIT trap
trap 'echo "# stopped by SIGTERM; last check: ${LAST_CHECK:-(none yet)}"; exit 143' TERM
CLEANUP=()
LAST_CHECK=

cleanup_test() {
	local c
	# only the test's own shell cleans up: a subshell that exits through
	# the inherited EXIT trap must not kill the test's jobs or remove TMP
	[ "$BASHPID" = "$TEST_SHELL" ] || return 0
	# bash's "Killed" notices for the jobs killed here are not output
	exec 2>/dev/null
	for c in "${CLEANUP[@]+"${CLEANUP[@]}"}"; do eval "$c" 2>/dev/null; done
	rm -rf "$TMP"
}

ok()   { LAST_CHECK="ok - $*"; echo "ok - $*"; }
fail() { LAST_CHECK="FAIL - $*"; echo "FAIL - $*"; }
# skip WHAT WHY: a check that cannot run here; WHY names what is missing
# and how to get it. make test counts it as a failure (tests/run).
skip() { LAST_CHECK="skip - $1: $2"; echo "skip - $1: $2"; }

# check DESCRIPTION COMMAND...: ok if the command succeeds
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}

# check_eq DESCRIPTION GOT WANT [FILE]: on failure show FILE's rows
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1: got '$2', want '$3'"
		[ -n "${4:-}" ] && rows "$4" | sed 's/^/#   /' | head -40
	fi
	return 0
}

# check_status DESCRIPTION GOT WANT STDERR-FILE: on failure show scry's stderr
check_status() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1: got '$2', want '$3'"
		sed 's/^/#   /' "$4" | head -20
	fi
}

# check_range DESCRIPTION GOT LOW HIGH (integers, inclusive)
check_range() {
	if [ "$2" -ge "$3" ] 2>/dev/null && [ "$2" -le "$4" ]; then
		ok "$1"
	else
		fail "$1: got '$2', want $3..$4"
	fi
}

# wait_for FILE PATTERN [SECONDS [PID]]: wait until FILE contains PATTERN
# (false after SECONDS, 10 by default, or once process PID is gone)
wait_for() {
	# a deadline, not a count of tries: under emulation (make vmtest) one
	# grep takes longer than the 50 ms sleep, and counted tries stretched
	# a 30 s wait past 300 s
	local end=$((SECONDS + ${3:-10}))
	while [ $SECONDS -lt $end ]; do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		[ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null && break
		sleep 0.05
	done
	grep -q -- "$2" "$1" 2>/dev/null
}

# Start scry in the background: scry_bg OUT ERR ARGS...; sets SCRY_PID.
# Returns once scry says it is tracing (probes attached), so never with
# -q; if it does not within 30 s, prints its stderr and returns 1.
scry_bg() {
	local out=$1 err=$2
	shift 2
	# emptied here, not by the child's redirections: wait_for must not
	# find a "tracing" left in ERR by an earlier run
	: >"$out"
	: >"$err"
	"$SCRY" "$@" >>"$out" 2>>"$err" &
	SCRY_PID=$!
	CLEANUP+=("kill -9 $SCRY_PID")
	# a scry that failed to start has exited: no use waiting the 30 s
	wait_for "$err" "tracing" 30 $SCRY_PID && return 0
	echo "# scry $* did not start tracing within 30 s; its stderr:"
	sed 's/^/#   /' "$err" | head -20
	return 1
}

# open_gate FIFO [SECONDS]: write the byte a workload's gate waits for.
# Opening a FIFO blocks until its reader comes: a workload that died
# first would hang the test, so give up after SECONDS (10) with a FAIL.
open_gate() {
	timeout "${2:-10}" bash -c 'echo go >"$1"' _ "$1" && return 0
	fail "gate $1: no workload opened it within ${2:-10} s (did it die?)"
	return 1
}

# start_gated VAR [-o OUT] [-e ERR] CMD...: start CMD (its stdout, stderr
# to OUT, ERR), a workload that first waits on a
# gate FIFO, in the background; set VAR to its pid; return once it is
# blocked opening the FIFO (wchan wait_for_partner). By then it has
# exec'd and mapped its libraries: a scry -p attached now sees the process
# it will trace, not the shell's fork of it (whose mappings an exec
# replaces while scry may not have caught up). Fails after 10 s.
start_gated() {	# VAR [-o OUT] [-e ERR] CMD...
	local var=$1 pid i w= out= err=
	shift
	[ "$1" = -o ] && { out=$2; shift 2; }
	[ "$1" = -e ] && { err=$2; shift 2; }
	# (never reopen /dev/stdout: that truncates the runner's log file)
	case "$out|$err" in
	"|") "$@" & ;;
	*"|") "$@" >"$out" & ;;
	"|"*) "$@" 2>"$err" & ;;
	*) "$@" >"$out" 2>"$err" & ;;
	esac
	pid=$!
	printf -v "$var" %s "$pid"
	CLEANUP+=("kill -9 $pid")
	for ((i = 0; i < 200; i++)); do
		{ read -r w <"/proc/$pid/wchan"; } 2>/dev/null
		[ "$w" = wait_for_partner ] && return 0
		sleep 0.05
	done
	fail "$* did not reach its gate in 10 s (wchan: ${w:-none})"
	return 1
}

# wait_exit PID [SECONDS]: wait for the background job PID and return its
# exit status. A scry that ignores its signal (or a workload that does
# not end) must fail the test, not hang it: after SECONDS (60) it is
# killed, a FAIL printed, and 124 returned. (Polled through /proc: bash's
# "wait -n" on several jobs loses the status of others that end at the
# same moment, and a job that ended is a zombie, state Z, until waited.)
wait_exit() {
	local pid=$1 t=${2:-60} i stat cmd
	for ((i = 0; i < t * 20; i++)); do
		{ read -r stat <"/proc/$pid/stat"; } 2>/dev/null || break
		stat=${stat##*) }
		[ "${stat%% *}" = Z ] && break
		sleep 0.05
	done
	if ((i >= t * 20)); then
		{ mapfile -d '' cmd <"/proc/$pid/cmdline"; } 2>/dev/null
		kill -9 "$pid" 2>/dev/null
		{ wait "$pid"; } 2>/dev/null
		fail "still running after $t s, killed: pid $pid: ${cmd[*]:-?}"
		return 124
	fi
	# (the braces keep bash's "Killed" notice for a job killed on purpose
	# out of the test's output; its status is returned all the same)
	{ wait "$pid"; } 2>/dev/null
}

# run_c OUT ERR CMD SCRY-ARGS...: scry SCRY-ARGS -c CMD, ungated, as users
# type it: the command runs from its first instruction while scry traces
# (scry holds it at exec and at each executable mapping until its tables
# are in, so its stacks are whole from the start: this is what the -c
# tests prove). Returns scry's exit status.
run_c() {
	local out=$1 err=$2 cmd=$3
	shift 3
	"$SCRY" "$@" -c "$cmd" >"$out" 2>"$err"
}

# rows FILE: the printa text of FILE as one line per histogram row:
#   KEY<TAB>VALUE<TAB>COUNT
# where KEY joins the row's frames and key columns with ';' (stack frames
# as printed, without offsets). Value rows only; "< 0" and ">= N" rows
# keep their labels.
rows() {
	awk '
	inhist && /\|/ {
		split($0, a, "|"); v = a[1]; gsub(/^ +| +$/, "", v)
		n = a[2]; sub(/^[@ ]*/, "", n); gsub(/ +$/, "", n)
		print key "\t" v "\t" n; next
	}
	/^ +value +-+ Distribution -+ count/ { inhist = 1; next }
	/^              [^ ]/ {
		if (inhist) { inhist = 0; key = "" }
		f = $0; sub(/^ +/, "", f); sub(/\+0x[0-9a-f]+$/, "", f)
		key = key (key == "" ? "" : ";") f; next
	}
	/^  calls: / { next }
	/^  [^ ]/ {
		if (inhist) { inhist = 0; key = "" }
		c = $0; gsub(/^ +| +$/, "", c)
		key = key (key == "" ? "" : ";") c; next
	}
	' "$1"
}

# vals FILE: printa count/sum/min/max/avg rows of stack keys (the value on
# a line of its own) as "frames;...<TAB>value". A value under 1000 is
# indented like a frame: a line that is only a number is the value.
vals() {
	awk '
	/^ +-?[0-9]+$/ { v = $1; print key "\t" v; key = ""; next }
	/^              [^ ]/ { f = $0; sub(/^ +/, "", f); sub(/\+0x[0-9a-f]+$/, "", f)
		key = key (key == "" ? "" : ";") f; next }
	' "$1"
}

# val_of FILE PATTERN: sum of the values of vals rows whose key matches
val_of() {
	vals "$1" | awk -F'\t' -v pat="$2" '$1 ~ pat { s += $2 } END { printf "%.0f\n", s }'
}

# sum_rows FILE KEYPATTERN VALUE: total count in bucket VALUE over rows whose key matches
sum_rows() {
	rows "$1" | awk -F'\t' -v pat="$2" -v val="$3" \
		'$1 ~ pat && $2 == val { s += $3 } END { printf "%.0f\n", s }'
}

# expect DESCRIPTION STATUS MESSAGE-REGEX -- ARGS...: run ARGS, check the
# exit status and that stderr matches the regex
expect() {	# DESCRIPTION STATUS MESSAGE-REGEX -- ARGS...
	local what=$1 want=$2 re=$3
	shift 4
	"$@" >"$TMP/e.out" 2>"$TMP/e.err"
	local rc=$?
	check_eq "$what: exit status" $rc $want
	if grep -Eq -- "$re" "$TMP/e.err"; then
		ok "$what: message"
	else
		fail "$what: message: want /$re/, got: $(head -3 "$TMP/e.err")"
	fi
}

# samples_expected HZ REPORT: "WANT TOL" for the profile samples of a
# process whose workload wrote cpu_ns and switches to REPORT (wl_report.h).
# scry's cpu-clock event with a frequency HZ fires every floor(1e9 / HZ) ns
# of each CPU's time (the kernel turns the frequency into that period for
# hrtimer events), so the process is sampled cpu_ns / period times, except
# where its runs start and end between two ticks: each of its switches + 1
# runs is off by less than one sample, either way. With independent
# phases that error has a standard deviation of at most sqrt(runs) / 2;
# TOL is 5 of those (+ 2 for the exit path after cpu_ns was read), and
# never more than runs + 2, the bound that holds for any phases. STEAL is
# what the hypervisor took from the CPUs meanwhile, in samples (steal_ns,
# wl_report.h): a period with stolen time in it still ends in a sample of
# the task, which the scheduler charged only the time it ran, so up to
# that many more may come. LATE is 1 % of WANT fewer: a tick that comes
# more than a period late (the guest's timer interrupt held off, or
# delivered late by a loaded host without the time counting as stolen)
# is forwarded past the periods it missed, one sample for them all
# (perf_swevent_hrtimer: hrtimer_forward_now); seen here 0.5 % short in
# a make test on a loaded 2-CPU machine, 3 % under qemu's emulation.
# "WANT TOL STEAL LATE".
samples_expected() {
	awk -v hz="$1" '
		$1 == "cpu_ns" { ns = $2 } $1 == "switches" { sw = $2 }
		$1 == "steal_ns" { st = $2 }
		END {
			period = int(1e9 / hz); runs = sw + 1
			tol = int(2.5 * sqrt(runs)) + 3
			if (tol > runs + 2) tol = runs + 2
			want = int(ns / period + 0.5)
			printf "%d %d %d %d\n", want, tol, st / period + 0.5, want / 100
		}' "$2"
}

# check_samples DESCRIPTION GOT HZ REPORT: GOT within samples_expected
check_samples() {
	local want tol steal late
	read -r want tol steal late <<<"$(samples_expected "$3" "$4")"
	check_range "$1 ($want - $tol - $late late .. + $tol + $steal stolen, for $(awk '$1 == "cpu_ns" { printf "%.3f", $2 / 1e9 }' "$4") s of CPU at $3 Hz)" \
		"$2" $((want - tol - late)) $((want + tol + steal))
}

# compare_bt JSON BT [SKIP]: the user stacks of every row (real frames, inlined
# ones folded into their function) against the backtrace() file: the
# stack's tail equals backtrace()'s frames after record(), the stack ends
# at _start. Prints "ROWS EVENTS MATCHED FRAMES LAST" (FRAMES and LAST of
# the last row). BT is what unwind_wl's record() wrote.
compare_bt() {
	python3 - "$1" "$2" "${3:-1}" <<'PYEOF'
import json, sys
doc = json.loads(open(sys.argv[1]).readline())
bt = [int(l, 16) for l in open(sys.argv[2]) if l.strip()]
want = bt[int(sys.argv[3]):]	# the frames above record() (or its caller)
rows = events = matched = 0
frames = last = None
for row in doc["rows"]:
    st = [f for f in row["keys"].get("ustack", []) if not f["inlined"]]
    addrs = [int(f["address"], 16) for f in st]
    rows += 1
    events += row["count"]
    if addrs[-len(want):] == want:
        matched += row["count"]
    frames = len(addrs)
    last = st[-1]["symbol"] if st else None
print(rows, events, matched, frames, last)
PYEOF
}

# svg_width FILE NAME: summed width of the frames titled NAME in a scry SVG
svg_width() {
	awk -v name="$2" '
		/<title>/ { t = $0; sub(/.*<title>/, "", t); sub(/ \(.*/, "", t); want = (t == name) }
		want && /<rect/ { w = $0; sub(/.*width="/, "", w); sub(/".*/, "", w); s += w; want = 0 }
		END { printf "%.0f\n", s }' "$1"
}

# owned_ids prog|link PID: ids of the BPF programs (or links) PID holds,
# from its fds' fdinfo (bpftool 7.1 on Debian cannot name owners)
owned_ids() {
	grep -h "^$1_id:" /proc/"$2"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -un
}

# gone_ids prog|link IDS...: true when none of the ids exists any more.
# The kernel frees a program after an RCU grace period once its last fd is
# closed, so allow it a few seconds. No ids, or a bpftool that cannot
# answer, is false (with a "#" line saying why): only the kernel saying
# "no such id" for every one of them counts as gone.
gone_ids() {
	local i
	if [ $# -lt 2 ]; then
		echo "# gone_ids $1: no ids to check (none were held?)"
		return 1
	fi
	for ((i = 0; i < 100; i++)); do
		gone_now "$@"
		case $? in
		0) return 0 ;;
		2) return 1 ;;
		esac
		sleep 0.1
	done
	echo "# gone_ids $1: still there after 10 s:$(for id in "${@:2}"; do gone_now "$1" "$id" || printf ' %s' "$id"; done)"
	return 1
}

# gone_now prog|link IDS...: 0 when none exists, 1 when one still does,
# 2 when bpftool fails for another reason than "No such file or directory"
# (missing, or no permission): that proves nothing.
gone_now() {
	local kind=$1 id err
	shift
	for id in "$@"; do
		if err=$(bpftool "$kind" show id "$id" 2>&1 >/dev/null); then
			return 1
		fi
		case $err in
		# prog: "get by id (ID): No such file or directory"
		# link: "failed to get link with ID ID: No such file or directory"
		*"($id): No such file or directory"* | *" $id: No such file or directory"*) ;;
		*) echo "# bpftool $kind show id $id: ${err:-failed}"; return 2 ;;
		esac
	done
	return 0
}
