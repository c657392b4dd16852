# SPDX-License-Identifier: GPL-2.0
# The probe kinds scry attaches through this kernel's perf and uprobe
# interfaces: uprobe (with a predicate run in the kernel), uretprobe
# (return value, latency), USDT (arguments from the note), profile.
# malloc_wl's known calls: 200 mallocs of 1 MiB, slow_fn() returning 42
# after 20 ms, USDT scry_test:tick(i, 2 * i) for i in 0..6. cpu_wl's
# hot_a() burns 3 times the CPU of hot_b().
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl

"$SCRY" -q -c "$MWL sizes" 'uprobe:libc:malloc /arg0 > 4096/ { @ = count() }' >"$TMP/u.out" 2>"$TMP/u.err"
check_status "uprobe: exit status" $? 0 "$TMP/u.err"
check_eq "uprobe /arg0 > 4096/: exactly the 200 big allocations" \
	"$(awk 'NF == 1 && /^ *[0-9]+$/ { print $1 }' "$TMP/u.out")" 200

# latency: a 20 ms sleep is never shorter; emulation may make it longer
"$SCRY" -q -c "$MWL slow 5" "uretprobe:$MWL:slow_fn { @[retval] = quantize(latency) }" >"$TMP/r.out" 2>"$TMP/r.err"
check_status "uretprobe: exit status" $? 0 "$TMP/r.err"
check_eq "uretprobe: 5 returns, all of 42" \
	"$(awk '/^ +-?[0-9]+$/ { print $1 }' "$TMP/r.out" | paste -sd' ') $(rows "$TMP/r.out" | awk -F'\t' '{ s += $3 } END { print s + 0 }')" "42 5" "$TMP/r.out"
check_eq "uretprobe: 5 latencies of at least 16.7 ms (20 ms sleeps)" \
	"$(rows "$TMP/r.out" | awk -F'\t' '$2 >= 16777216 { s += $3 } END { print s + 0 }')" 5

"$SCRY" -q -c "$MWL usdt 7" "usdt:$MWL:scry_test:tick { @[arg0] = sum(arg1) }" >"$TMP/s.out" 2>"$TMP/s.err"
check_status "usdt: exit status" $? 0 "$TMP/s.err"
check_eq "usdt: tick(i, 2i) for i in 0..6, once each" \
	"$(awk 'NF == 2 { print $1 ":" $2 }' "$TMP/s.out" | sort -n | paste -sd' ')" "0:0 1:2 2:4 3:6 4:8 5:10 6:12" "$TMP/s.out"

# profile as a user runs it (-c, no gate): the split between two
# functions (leaf frames: named even before the tables load), and every
# sample's stack. Emulation gives a few hundred samples, not thousands:
# 8 points is 4.5 standard deviations of the share.
"$SCRY" profile -q -F 999 --folded -c "$WL/cpu_wl 3" >"$TMP/p.folded" 2>"$TMP/p.err"
check_status "profile -c: exit status" $? 0 "$TMP/p.err"
a=$(awk '/;hot_a / { s += $NF } END { print s + 0 }' "$TMP/p.folded")
b=$(awk '/;hot_b / { s += $NF } END { print s + 0 }' "$TMP/p.folded")
check "profile -c: samples in hot_a and hot_b ($a, $b)" test "$a" -gt 150 -a "$b" -gt 50
check_range "profile -c: hot_a's share of the two is 75% within 8 points (%)" \
	$((100 * a / (a + b + 1))) 67 83
check_eq "profile -c (no gate): every sample in hot_a or hot_b complete, cpu_wl;_start;...;main;hot_X" \
	"$(awk '/^cpu_wl;_start;__libc_start_main;[^;]+;main;hot_[ab] / { s += $NF } END { print s + 0 }' "$TMP/p.folded")" $((a + b))
