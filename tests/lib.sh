# SPDX-License-Identifier: GPL-2.0
# Shared helpers for tests/root/*.sh: checks, scry runs, output parsing.
set -u
cd "$(dirname "$0")/../.."
BUILD=${SCRY_BUILD:-build}
SCRY=${SCRY:-$PWD/$BUILD/scry}
WL=$PWD/$BUILD/workloads
TMP=$(mktemp -d /tmp/scry-test.XXXXXX)
trap 'cleanup_test' EXIT
CLEANUP=()

cleanup_test() {
	local c
	for c in "${CLEANUP[@]+"${CLEANUP[@]}"}"; do eval "$c" 2>/dev/null; done
	rm -rf "$TMP"
}

ok()   { echo "ok - $*"; }
fail() { echo "FAIL - $*"; }

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

# wait_for FILE PATTERN [SECONDS]: wait until FILE contains PATTERN
wait_for() {
	local i
	for ((i = 0; i < ${3:-10} * 20; i++)); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# Start scry in the background: scry_bg OUT ERR ARGS...; sets SCRY_PID.
# Returns once scry says it is tracing (probes attached).
scry_bg() {
	local out=$1 err=$2
	shift 2
	"$SCRY" "$@" >"$out" 2>"$err" &
	SCRY_PID=$!
	CLEANUP+=("kill -9 $SCRY_PID")
	wait_for "$err" "tracing" 15
}

# gated_c OUT ERR CMD SCRY-ARGS...: scry SCRY-ARGS -c "CMD GATE", where
# the workload waits on the FIFO GATE until scry traces and has read its
# mappings: a process's first milliseconds can outrun the frontend
# loading its unwind tables (those stacks use frame pointers, counted).
# Returns scry's exit status.
gated_c() {
	local out=$1 err=$2 cmd=$3 g
	shift 3
	g=$(mktemp -u "$TMP/gate.XXXXXX")
	mkfifo "$g"
	scry_bg "$out" "$err" "$@" -c "$cmd $g" || return 1
	sleep 0.3
	echo go >"$g"
	wait $SCRY_PID
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

# sum_rows FILE KEYPATTERN VALUE: total count in bucket VALUE over rows whose key matches
sum_rows() {
	rows "$1" | awk -F'\t' -v pat="$2" -v val="$3" \
		'$1 ~ pat && $2 == val { s += $3 } END { print s + 0 }'
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

# svg_width FILE NAME: summed width of the frames titled NAME in a scry SVG
svg_width() {
	awk -v name="$2" '
		/<title>/ { t = $0; sub(/.*<title>/, "", t); sub(/ \(.*/, "", t); want = (t == name) }
		want && /<rect/ { w = $0; sub(/.*width="/, "", w); sub(/".*/, "", w); s += w; want = 0 }
		END { print s + 0 }' "$1"
}

# owned_ids prog|link PID: ids of the BPF programs (or links) PID holds,
# from its fds' fdinfo (bpftool 7.1 on Debian cannot name owners)
owned_ids() {
	grep -h "^$1_id:" /proc/"$2"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -un
}

# gone_ids prog|link IDS...: true when none of the ids exists any more.
# The kernel frees a program after an RCU grace period once its last fd is
# closed, so allow it a few seconds.
gone_ids() {
	local i
	for ((i = 0; i < 50; i++)); do
		gone_now "$@" && return 0
		sleep 0.1
	done
	return 1
}

gone_now() {
	local kind=$1 id
	shift
	for id in "$@"; do
		bpftool "$kind" show id "$id" >/dev/null 2>&1 && return 1
	done
	return 0
}

# no_scry_bpf: true when no process named scry holds a BPF program or link
# (concurrent scry runs of other tests count; prefer owned_ids/gone_ids)
no_scry_bpf() {
	! bpftool prog list 2>/dev/null | grep -q 'pids scry('
}
