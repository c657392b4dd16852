# SPDX-License-Identifier: GPL-2.0
# Files a traced user controls, turned against root's scry, each built
# here: a .gnu_debuglink (and a build-id debug path) naming a FIFO, a
# mapped binary's path swapped for a FIFO, a function with 150k CFI rows,
# /tmp/perf-PID.map files of 1 GB and of 2 M lines. Each run must end
# within its -d (scry once blocked forever, or for minutes), with the safe
# outcome: names where they can be had, bounded memory, what was skipped
# said.
. "$(dirname "$0")/../lib.sh"

# Slack over -d for a loaded 2-core machine: a hang (the old failure)
# never ends at all; a quadratic table build took 93 s.
SLACK=10

# timed OUT ERR ARGS...: run scry, set RC and MS (its wall time)
timed() {
	local out=$1 err=$2 t0
	shift 2
	t0=$(date +%s%N)
	timeout -k 5 120 "$SCRY" "$@" >"$out" 2>"$err"
	RC=$?
	MS=$((($(date +%s%N) - t0) / 1000000))
}

# ---- a .gnu_debuglink and a build-id debug file that are FIFOs ----
B=$TMP/dbg_wl
objcopy --only-keep-debug "$WL/offcpu_wl" "$TMP/dbg_wl.debug" &&
	objcopy --strip-debug --add-gnu-debuglink="$TMP/dbg_wl.debug" \
		"$WL/offcpu_wl" "$B" || fail "build a binary with a debuglink"
rm -f "$TMP/dbg_wl.debug"
mkfifo "$TMP/dbg_wl.debug"
mkdir -p "$TMP/.debug" && mkfifo "$TMP/.debug/dbg_wl.debug"
bid=$(readelf -n "$B" | awk '/Build ID/ { print $3 }')
bdir=/usr/lib/debug/.build-id/${bid:0:2}
bfile=$bdir/${bid:2}.debug
if [ -n "$bid" ] && [ ! -e "$bfile" ]; then
	[ -d "$bdir" ] || CLEANUP+=("rmdir '$bdir'")
	mkdir -p "$bdir" && mkfifo "$bfile" && CLEANUP=("rm -f '$bfile'" "${CLEANUP[@]}")
fi
timed "$TMP/d.out" "$TMP/d.err" offcpu -q -d 20 -c "$B 5 1"
check_status "FIFO debuglink: scry runs to the end" $RC 0 "$TMP/d.err"
check_range "FIFO debuglink: ends with the command, within -d 20 (ms)" $MS 0 $((20000 + SLACK * 1000))
check "FIFO debuglink: frames still named from the binary's .symtab" \
	grep -q 'dbg_wl`sleep_short' "$TMP/d.out"
[ -p "$bfile" ] && check "FIFO build-id debug file: never opened (still a FIFO)" test -p "$bfile"
rm -f "$bfile"

# ---- a mapped binary whose path becomes a FIFO while it runs ----
S=$TMP/swap_wl
cp "$WL/offcpu_wl" "$S"
mkfifo "$TMP/gate1"
"$S" 5 1 "$TMP/gate1" &
wl=$!
CLEANUP+=("kill -9 $wl")
sleep 0.2
mv "$S" "$S.moved" && mkfifo "$S"
t0=$(date +%s%N)
scry_bg "$TMP/s.out" "$TMP/s.err" offcpu -d 20 -p $wl
open_gate "$TMP/gate1"
wait_exit $wl 60
wait_exit $SCRY_PID $((20 + SLACK))
RC=$?
MS=$((($(date +%s%N) - t0) / 1000000))
check_status "swapped path: scry runs to the end" $RC 0 "$TMP/s.err"
check_range "swapped path: ends with the process, within -d 20 (ms)" $MS 0 $((20000 + SLACK * 1000))
# the kernel names the mapping by the file's new name
check "swapped path: frames named from the mapped file, not the FIFO" \
	grep -q 'swap_wl.moved`sleep_short' "$TMP/s.out"
check "swapped path: the FIFO is still a FIFO, untouched" test -p "$S"

# ---- a function with 150k CFI rows ----
# gated: every stack is taken once the tables are in
t0=$(date +%s%N)
run_c "$TMP/b.out" "$TMP/b.err" "$WL/bigfde_wl 10" offcpu --stats --folded -d 20
RC=$?
MS=$((($(date +%s%N) - t0) / 1000000))
check_status "150k-row FDE: scry runs to the end" $RC 0 "$TMP/b.err"
check_range "150k-row FDE: ends with the command, within -d 20 (ms)" $MS 0 $((20000 + SLACK * 1000))
ms=$(sed -nE 's/^scry: unwind rows: .* ([0-9.]+) ms$/\1/p' "$TMP/b.err" | cut -d. -f1)
check_range "150k-row FDE: every table built in well under a second (ms)" "${ms:-99999}" 0 500
# unwind_rows' chunks hold 64Ki rows (unwind_abi.h): big_fde's 150k rows
# fill two and go on into a third, and the frames below cross them all
chunks=$(sed -nE 's/^scry: unwind tables: .* in ([0-9]+) chunks of 0\.5 MiB.*/\1/p' "$TMP/b.err")
check_range "150k-row FDE: its rows in 3 or more chunks of unwind_rows" "${chunks:-0}" 3 32
# folded values are microseconds; each sleep is 20 ms plus wake-up delay
got=$(awk '/;_start;.*;main;big_fde;wl_block;/ { s += $NF } END { printf "%d", s / 1000 }' "$TMP/b.out")
check_range "150k-row FDE: the 10 x 20 ms sleeps unwound through big_fde to _start (ms)" \
	"$got" 195 1000

# ---- huge perf maps: memory bounded, what was skipped said ----
# perfmap_run NAME: the gated workload traced with -p while its perf map
# is $TMP/pm.<NAME>; sets RSS_KB, RC, MS and leaves stderr in $TMP/p.err
perfmap_run() {
	local g=$TMP/gate.$1
	mkfifo "$g"
	"$WL/offcpu_wl" 2 1 "$g" &
	wl=$!
	CLEANUP+=("kill -9 $wl" "rm -f /tmp/perf-$wl.map")
	mv "$TMP/pm.$1" "/tmp/perf-$wl.map"
	# written now, as if by the process: a map older than its process
	# is an earlier one's and is not read (unwind.sh)
	touch "/tmp/perf-$wl.map"
	: >"$TMP/p.err"		# no "tracing" left from the last run
	t0=$(date +%s%N)
	/usr/bin/time -f '%M' -o "$TMP/rss" "$SCRY" offcpu -d 20 -p $wl \
		>"$TMP/p.out" 2>"$TMP/p.err" &
	local tp=$!
	wait_for "$TMP/p.err" "tracing" 30
	open_gate "$g"
	wait_exit $wl 60
	wait_exit $tp $((20 + SLACK))
	RC=$?
	MS=$((($(date +%s%N) - t0) / 1000000))
	RSS_KB=$(tail -1 "$TMP/rss")
	echo "# $1: scry's peak RSS $RSS_KB KiB, $MS ms"
	rm -f "/tmp/perf-$wl.map"
}

# one line of 1 GB (sparse: no newline anywhere)
truncate -s 1G "$TMP/pm.line"
perfmap_run line
check_status "1 GB one-line perf map: scry runs to the end" $RC 0 "$TMP/p.err"
check_range "1 GB one-line perf map: within -d 20 (ms)" $MS 0 $((20000 + SLACK * 1000))
check_range "1 GB one-line perf map: scry's peak memory (KiB)" "${RSS_KB:-0}" 1 250000
check "1 GB one-line perf map: the skipped line and unread bytes said" \
	grep -Eq "perf-[0-9]+\.map: 1 lines skipped .* [0-9]{9,} bytes past" "$TMP/p.err"

# 2 M lines (more entries than the cap keeps)
awk 'BEGIN { for (i = 0; i < 2000000; i++) printf "%x 10 jit_fn_%d\n", 4096 + i * 16, i }' >"$TMP/pm.lines"
perfmap_run lines
check_status "2 M-line perf map: scry runs to the end" $RC 0 "$TMP/p.err"
check_range "2 M-line perf map: within -d 20 (ms)" $MS 0 $((20000 + SLACK * 1000))
check_range "2 M-line perf map: scry's peak memory (KiB)" "${RSS_KB:-0}" 1 250000
check "2 M-line perf map: the entries past the cap said" \
	grep -Eq "perf-[0-9]+\.map: 0 lines skipped .*, [0-9]+ entries past the first 524288" "$TMP/p.err"
check "2 M-line perf map: the process's own frames still named" \
	grep -q 'offcpu_wl`sleep_short' "$TMP/p.out"
