# SPDX-License-Identifier: GPL-2.0
# test-timeout: 900
# test-asan: no
# The classic repertoire: one-liners from bpftrace's tutorial, README and
# man page, the DTraceToolkit's and opendtrace's one-liners, the DTrace
# guide, and the questions libbpf-tools answers, run on ground-truth
# workloads. Each runs in scry as written there (or in scry's own words
# where scry has another probe for it), its numbers checked, and, where
# bpftrace runs it here, side by side with bpftrace: the same numbers.
# The closing line says how many scry answers, and bpftrace.
# tests/repertoire/corpus.sh holds the entries, their sources and workloads.
. "$(dirname "$0")/../lib.sh"

NORM=tests/repertoire/norm.py
D=$TMP/files
mkdir -p "$D"
LW="$WL/lang_wl $D"
DIO="$WL/lang_wl dio $TMP/dio.dat"
EXE="$WL/lang_wl exec"
OW="$WL/offcpu_wl 5 2"
# a command that outlives a 100 ms interval by far, on a loaded machine
# too: offcpu_wl 5 2 ends after ~150 ms, and a late first tick missed it
OW_LONG="$WL/offcpu_wl 5 20"
MW="$WL/malloc_wl sizes"
CW="$WL/cpu_wl 1"
LIBC=$(ldconfig -p | awk '$1 == "libc.so.6" && /x86-64/ { print $NF; exit }')
LANGFN="$WL/lang_wl:lang_fn"
have_bt=0
if command -v bpftrace >/dev/null; then
	have_bt=1
else
	skip "side by side with bpftrace" "bpftrace is not installed (tests/deps.sh installs it)"
fi

total=0 scry_ok=0 bt_ok=0 bt_ran=0
declare -a NOTES=()

# run_scry KIND WORKLOAD PROGRAM OUT [-a]: -e for programs, questions as
# words; -a (every process, as bpftrace's -c) for the side-by-side ones
run_scry() {
	local kind=$1 w=$2 prog=$3 out=$4 fmt=()
	[ "$kind" = map ] && fmt=(--json)
	[ -n "${5:-}" ] && fmt+=("$5")
	case $prog in
	offcpu|profile|malloc|read|write)
		"$SCRY" -q "${fmt[@]}" "$prog" -c "$w" >"$out" 2>"$out.err" ;;
	*)	"$SCRY" -q "${fmt[@]}" -c "$w" -e "$prog" >"$out" 2>"$out.err" ;;
	esac
}

run_bt() {
	local kind=$1 w=$2 prog=$3 out=$4 fmt=()
	[ "$kind" = map ] && fmt=(-f json)
	BPFTRACE_STRLEN=128 timeout 120 bpftrace "${fmt[@]}" -c "$w" -e "$prog" \
		>"$out" 2>"$out.err"
}

# normalized NAME TOOL FILE KIND [MAPS]: what is compared
normalized() {
	local kind=$2 tool=$1 f=$3
	shift 3
	case $kind in
	map)	python3 "$NORM" "$tool" "$f" "$@" ;;
	lines)	sed 's/^ *//; s/  */ /g' "$f" | grep -v '^done [0-9]*$' |
		grep -v '^Attaching ' | grep -v '^$' | sort ;;
	run)	[ -s "$f" ] && echo ran ;;
	esac
}

# entry NAME SOURCE KIND WORKLOAD SCRY BPFTRACE EXPECT [MAPS...]
#   KIND    map (maps compared, --json), lines (printf output), run
#   SCRY    the program (or a question: offcpu, profile, read ...)
#   BPFTRACE the same in bpftrace, - when bpftrace cannot run it here
#   EXPECT  ';'-separated lines the normalized output must hold (exact
#           ground truth), - for none beyond bpftrace's equality
#   MAPS    compare only these maps
entry() {
	local name=$1 src=$2 kind=$3 w=$4 sp=$5 bp=$6 want=$7 sf bf line ok=1
	local bt_right
	shift 7
	total=$((total + 1))
	sf=$TMP/$name.scry bf=$TMP/$name.bt
	run_scry "$kind" "$w" "$sp" "$sf" "$([ "$bp" != - ] && echo -a)"
	if [ $? -ne 0 ]; then
		fail "$name ($src): scry: exit status: $(head -2 "$sf.err")"
		ok=0
	fi
	normalized scry "$kind" "$sf" "$@" >"$sf.norm"
	if [ "$want" != - ]; then
		while IFS= read -r line; do
			[ -z "$line" ] && continue
			if ! grep -qxF -- "$line" "$sf.norm"; then
				fail "$name ($src): scry: no '$line'"
				sed 's/^/#   /' "$sf.norm" | head -10
				ok=0
			fi
		done < <(tr ';' '\n' <<<"$want")
	fi
	# side by side: with ground truth, each tool is judged by it (and a
	# difference said); without, scry must give bpftrace's numbers
	if [ "$bp" != - ] && [ $have_bt = 1 ]; then
		bt_ran=$((bt_ran + 1))
		if run_bt "$kind" "$w" "$bp" "$bf"; then
			normalized bpftrace "$kind" "$bf" "$@" >"$bf.norm"
			bt_right=1
			while IFS= read -r line; do
				[ -z "$line" ] || grep -qxF -- "$line" "$bf.norm" ||
					bt_right=0
			done < <([ "$want" != - ] && tr ';' '\n' <<<"$want")
			[ $bt_right = 1 ] && bt_ok=$((bt_ok + 1))
			if ! diff -q "$sf.norm" "$bf.norm" >/dev/null; then
				if [ "$want" = - ]; then
					fail "$name ($src): scry and bpftrace differ"
					ok=0
				else
					NOTES+=("$name: bpftrace differs$([ $bt_right = 0 ] && echo ', and misses the ground truth'):")
				fi
				diff "$sf.norm" "$bf.norm" | head -6 | sed 's/^/#   /'
			fi
		else
			NOTES+=("$name: bpftrace failed: $(grep -v RLIMIT "$bf.err" | head -1)")
		fi
	fi
	if [ $ok = 1 ]; then
		scry_ok=$((scry_ok + 1))
		ok "$name ($src)$([ "$bp" != - ] && [ $have_bt = 1 ] && echo ': equal to bpftrace')"
	fi
}

# on_kernel FEATURE entry NAME SOURCE ...: an entry that needs kprobes or
# BPF trampolines (fentry). Where the kernel has them (tests/vm's kernels)
# it runs as any entry; here scry must refuse it clearly, and it counts in
# neither tool's tally.
has_kprobes=0 has_trampolines=0
[ -e /sys/bus/event_source/devices/kprobe/type ] && has_kprobes=1
"$SCRY" -q -d 0.1 -e 'fentry:vfs_read { @ = count() }' >/dev/null 2>"$TMP/tramp.err" &&
	has_trampolines=1
on_kernel() {
	local feature=$1 name=$3 src=$4 sp=$7 re
	shift
	if { [ "$feature" = kprobes ] && [ $has_kprobes = 1 ]; } ||
	   { [ "$feature" = trampolines ] && [ $has_trampolines = 1 ]; }; then
		"$@"
		return
	fi
	re='this kernel has no kprobes'
	[ "$feature" = trampolines ] && re='this kernel refuses BPF trampolines'
	"$SCRY" -q -e "$sp" >"$TMP/$name.out" 2>"$TMP/$name.err"
	check_status "$name ($src): refused here, status 2" $? 2 "$TMP/$name.err"
	check "$name ($src): says why ($re)" grep -Eq -- "$re" "$TMP/$name.err"
	NOTES+=("$name: needs $feature (not on this kernel)")
}

. tests/repertoire/corpus.sh

for n in "${NOTES[@]+"${NOTES[@]}"}"; do echo "# $n"; done
echo "# repertoire: scry answers $scry_ok of $total runnable here; bpftrace answers $bt_ok of the $bt_ran it was given (the others need what bpftrace has no form for)"
