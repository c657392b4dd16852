# SPDX-License-Identifier: GPL-2.0
# PENDING (not in make test): fails on main, about one run in two, until
# --interval's clearing loses no count; run by hand
#   tests/run --only build tests/pending/interval_exact.sh
# Move it to tests/root/ once it passes reliably (several runs, under load).
#
# The bug: each snapshot takes the keys out with lookup_and_delete_batch
# (drain_aggs_each), so a count that lands while the batch is read goes
# to the next snapshot, but a probe that has already looked its key up
# (scry_aggregate in bpf/prog.bpf.h: lookup, then atomic add) adds to the
# element after the batch has deleted it: that count is gone, with no
# loss counter. Seen on 67b90a5, malloc_wl rate 2000000 under
# --interval 0.1 (37 to 47 snapshots), six runs: 2000000, 1999999,
# 1999999, 1999997, 1999996, 2000000. (Reading with lookup_batch and
# deleting after, as before the batch delete, lost 206 to 631 a run:
# this test tells the two apart, and fails on both.) A fix needs the
# probes off a map before it is read: two aggregation maps, the probes'
# choice flipped by the frontend and the old one read once the kernel
# has waited for the probes in flight (a map-in-map update waits for
# them: maybe_wait_bpf_programs).
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
