# SPDX-License-Identifier: GPL-2.0
# --interval loses no count: each snapshot reads a map the probes were
# moved off (attach_flip: they write the other one of a pair, and one RCU
# grace period later none is left adding to the old one), so a count
# lands in exactly one snapshot. Deleting keys under running probes lost
# what a probe added between its lookup and its add (scry_aggregate in
# bpf/prog.bpf.h), with no loss counter: on 67b90a5 six runs summed to
# 2000000, 1999999, 1999999, 1999997, 1999996, 2000000 (reading with
# lookup_batch and deleting after lost 206 to 631 a run). interval.sh's
# 10 ms naps could not show it: at that rate nothing lands during a read.
#
# The truth: malloc_wl rate N makes exactly N malloc(16) calls from
# hot_loop (cmd.sh: one row of exactly N); across the snapshots of an
# --interval run the counts sum to exactly N.
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl
N=2000000
Q='uprobe:libc:malloc /arg0 == 16/ { @ = count() }'

# the count, one line per snapshot: the number alone on its line
counts() { awk 'NF == 1 && /^ *[0-9]+$/ { print $1 }' "$1"; }

"$SCRY" -q -c "$MWL rate $N" "$Q" >"$TMP/whole.out" 2>"$TMP/whole.err"
check_status "no --interval: exit status" $? 0 "$TMP/whole.err"
check_eq "no --interval: the one count is exactly $N" "$(counts "$TMP/whole.out")" $N

for run in 1 2 3; do
	"$SCRY" -q --interval 0.1 -c "$MWL rate $N" "$Q" >"$TMP/$run.out" 2>"$TMP/$run.err"
	check_status "run $run, --interval 0.1: exit status" $? 0 "$TMP/$run.err"
	check_eq "run $run: nothing on stderr (no loss counter)" "$(cat "$TMP/$run.err")" ""
	n=$(grep -c '(snapshot [0-9]*,' "$TMP/$run.out")
	check_range "run $run: snapshots (calls land while each is read)" "$n" 5 100000
	check_eq "run $run: the snapshots' counts sum to exactly $N" \
		"$(counts "$TMP/$run.out" | awk '{ s += $1 } END { printf "%d\n", s }')" $N
done
