# SPDX-License-Identifier: GPL-2.0
# User-space probes against malloc_wl's known calls: exact counts, bytes,
# sizes per stack; predicates in the kernel; uretprobe retval/latency;
# USDT arguments; a million calls with nothing lost.
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl


# scry malloc: calls, bytes and sizes per stack, totals at the end
"$SCRY" malloc -q -c "$MWL sizes" >"$TMP/m.out" 2>"$TMP/m.err"
check_status "malloc: exit status" $? 0 "$TMP/m.err"
cmp_calls=$(grep -o 'cmp_calls=[0-9]*' "$TMP/m.out" | cut -d= -f2)
calls_of() { awk -v pat="$2" '
	/^              [^ ]/ { key = key ";" $0; next }
	/^  calls: / { if (key ~ pat) { gsub(/,/, ""); c += $2; b += $4 } key = ""; next }
	END { print c + 0, b + 0 }' "$1"; }
check_eq "malloc: small_allocs: 100000 calls, 4800000 bytes" "$(calls_of "$TMP/m.out" 'malloc_wl`small_allocs')" "100000 4800000"
check_eq "malloc: big_allocs: 200 calls, 200 MiB" "$(calls_of "$TMP/m.out" 'malloc_wl`big_allocs')" "200 209715200"
check_eq "malloc: cmp_alloc through qsort's callback: $cmp_calls calls of 24 B" \
	"$(calls_of "$TMP/m.out" 'malloc_wl`cmp_alloc.*malloc_wl`cmp')" "$cmp_calls $((cmp_calls * 24))"
check_eq "malloc: 48-byte calls sit in the [32, 64) bucket" \
	"$(sum_rows "$TMP/m.out" 'small_allocs' 32)" 100000
check_eq "malloc: 1 MiB calls sit in the [1 MiB, 2 MiB) bucket" \
	"$(sum_rows "$TMP/m.out" 'big_allocs' 1048576)" 200
# the uprobe fires on malloc's first instruction, before it pushes a
# frame: the caller is read from [rsp], never lost (with frame pointers
# or DWARF alike)
# -c, ungated: each function's calls are one row, its stack whole to
# _start (a stack taken before the tables were in would be a row of its
# own, or end early)
ALLOC_START='malloc_wl`main;libc.so.6`__libc_start_call_main;libc.so.6`__libc_start_main;malloc_wl`_start'
for fn in small_allocs big_allocs; do
	check_eq "malloc: $fn's calls are one row, malloc <- $fn <- main ... _start" \
		"$(rows "$TMP/m.out" | awk -F'\t' -v fn="malloc_wl\`$fn;" 'index($1, fn) { print $1 }' | sort -u)" \
		"libc.so.6\`malloc;malloc_wl\`$fn;$ALLOC_START" "$TMP/m.out"
done
# Besides the workload's own calls, libc mallocs twice: qsort's 4000-byte
# merge buffer (1000 ints, too many for its stack buffer) and stdout's
# 4096-byte buffer at the first printf.
check_eq "malloc: totals are the exact calls and bytes (workload + qsort's and stdout's buffers)" \
	"$(grep '^total calls: ' "$TMP/m.out")" \
	"total calls: $((100000 + 200 + cmp_calls + 2)), bytes: $((4800000 + 209715200 + 24 * cmp_calls + 4000 + 4096)) (204.8 MiB)"
check_eq "malloc: the rows add up to the totals" \
	"$(calls_of "$TMP/m.out" '')" "$((100000 + 200 + cmp_calls + 2)) $((4800000 + 209715200 + 24 * cmp_calls + 4000 + 4096))"

# a predicate on arg0 isolates the big allocations, in the kernel
"$SCRY" -q -c "$MWL sizes" 'uprobe:libc:malloc /arg0 > 4096/ { @[ustack] = quantize(arg0) }' >"$TMP/p.out" 2>&1
check_eq "predicate arg0 > 4096: exactly the 200 big allocations from big_allocs" \
	"$(rows "$TMP/p.out" | awk -F'\t' '$1 ~ /big_allocs/ { s += $3 } END { printf "%.0f\n", s }')" 200
check_eq "predicate arg0 > 4096: nothing from small_allocs or cmp_alloc" \
	"$(rows "$TMP/p.out" | grep -Ec 'small_allocs|cmp_alloc')" 0

# -p: attach to one process only
mkfifo "$TMP/gate"
start_gated wl -o "$TMP/wl.out" "$MWL" sizes "$TMP/gate"
scry_bg "$TMP/pp.out" "$TMP/pp.err" -p $wl 'uprobe:libc:malloc { @[ustack] = sum(arg0) }'
"$MWL" sizes >/dev/null	# another process: not traced
open_gate "$TMP/gate"
wait_exit $wl
wait_exit $SCRY_PID
check_status "-p: exit status when the process exits" $? 0 "$TMP/pp.err"
check_eq "-p: sum(arg0) under small_allocs is 4800000 (this pid only)" "$(val_of "$TMP/pp.out" 'small_allocs')" 4800000
check_eq "-p: sum(arg0) under big_allocs is 209715200" "$(val_of "$TMP/pp.out" 'big_allocs')" 209715200

# a million calls: in-kernel aggregation loses nothing. -p, so that the
# process's tables are loaded before its first call: stderr must be the
# banner alone, no loss or degradation counter of any kind.
mkfifo "$TMP/rgate"
start_gated wl "$MWL" rate 1000000 "$TMP/rgate"
scry_bg "$TMP/r.out" "$TMP/r.err" -p $wl 'uprobe:libc:malloc /arg0 == 16/ { @[ustack] = count() }'
open_gate "$TMP/rgate"
wait_exit $wl
wait_exit $SCRY_PID
check_status "1000000 calls: exit status" $? 0 "$TMP/r.err"
check_eq "1000000 calls counted exactly, in one row under hot_loop" \
	"$(vals "$TMP/r.out" | awk -F'\t' '{ print ($1 ~ /hot_loop/), $2 }' | paste -sd' ')" "1 1000000"
check_eq "1000000 calls: no loss or degradation reported (stderr is the banner only)" \
	"$(grep -v '^scry: tracing' "$TMP/r.err")" ""

# folded: any stack-keyed aggregation, the value as the count
"$SCRY" -q --folded -c "$MWL sizes" 'uprobe:libc:malloc { @[ustack] = sum(arg0) }' >"$TMP/f.out" 2>&1
check_eq "--folded sum(arg0): one line each for small_allocs and big_allocs, whole stacks" \
	"$(grep -E ';(small|big)_allocs;' "$TMP/f.out" | sort)" \
	"_start;__libc_start_main;__libc_start_call_main;main;big_allocs;malloc 209715200
_start;__libc_start_main;__libc_start_call_main;main;small_allocs;malloc 4800000" "$TMP/f.out"

# min, max, avg, lquantize against the known sizes
# (one row per function: a second row, or another value, fails)
distinct_of() {	# FILE PATTERN: the values of matching rows
	vals "$1" | awk -F'\t' -v pat="$2" '$1 ~ pat { print $2 }' | paste -sd' '
}
for agg in min max avg; do
	"$SCRY" -q -c "$MWL sizes" "uprobe:libc:malloc { @[ustack] = $agg(arg0) }" >"$TMP/$agg.out" 2>&1
	check_eq "$agg(arg0) under small_allocs is 48" "$(distinct_of "$TMP/$agg.out" 'small_allocs')" 48
	check_eq "$agg(arg0) under big_allocs is 1048576" "$(distinct_of "$TMP/$agg.out" 'big_allocs')" 1048576
done
"$SCRY" -q -c "$MWL sizes" 'uprobe:libc:malloc { @[ustack] = lquantize(arg0, 0, 64, 16) }' >"$TMP/lq.out" 2>&1
check_eq "lquantize(arg0, 0, 64, 16): cmp_alloc's 24-byte calls in [16, 32)" \
	"$(sum_rows "$TMP/lq.out" 'cmp_alloc' 16)" "$cmp_calls"
check_eq "lquantize: small_allocs' 48-byte calls in [48, 64)" \
	"$(sum_rows "$TMP/lq.out" 'small_allocs' 48)" 100000
check_eq "lquantize: big_allocs' 1 MiB calls in the '>= 64' row" \
	"$(sum_rows "$TMP/lq.out" 'big_allocs' '>= 64')" 200
"$SCRY" -q -c "$MWL sizes" 'uprobe:libc:malloc /arg0 == 48 || arg0 == 24/ { @[comm, arg0] = count() }' >"$TMP/k.out" 2>&1
check_eq "keys comm, arg0 with an || predicate: 100000 calls of 48" \
	"$(awk '$1 == "malloc_wl" && $2 == 48 { print $3 }' "$TMP/k.out")" 100000
check_eq "keys comm, arg0 with an || predicate: cmp_calls calls of 24" \
	"$(awk '$1 == "malloc_wl" && $2 == 24 { print $3 }' "$TMP/k.out")" "$cmp_calls"
check_eq "keys comm, arg0: no other size passes the predicate" \
	"$(awk 'NF == 3 && $2 != 48 && $2 != 24' "$TMP/k.out" | wc -l)" 0

# uretprobe: retval and latency of slow_fn (20 ms, returns 42), 5 calls
"$SCRY" -q -c "$MWL slow 5" "uretprobe:$MWL:slow_fn { @[retval] = count() }" >"$TMP/u.out" 2>&1
check_eq "uretprobe retval: 42 seen 5 times" "$(awk 'NF == 2 && $1 == 42 { print $2 }' "$TMP/u.out")" 5
# latency: each call sleeps 20 ms, so lasts at least that (bucket >= 2^24
# ns); how much longer depends on the load, but all 5 fit in the wall time
# the workload measured around its calls
WL_REPORT=$TMP/l.wl "$SCRY" -q --json -c "$MWL slow 5" "uretprobe:$MWL:slow_fn { @ = quantize(latency) }" >"$TMP/l.json" 2>"$TMP/l.err"
check_status "uretprobe latency: exit status" $? 0 "$TMP/l.err"
check_eq "uretprobe latency: 5 calls, each >= 20 ms (bucket >= 16777216), all within the loop's wall time" \
	"$(python3 - "$TMP/l.json" "$(awk '$1 == "slow_ns" { print $2 }' "$TMP/l.wl")" <<'PYEOF'
import json, sys
r = json.loads(open(sys.argv[1]).readline())["rows"]
wall = int(sys.argv[2])
print(len(r), r[0]["count"], r[0]["min"] >= 20000000,
      all(b["low"] >= 16777216 for b in r[0]["buckets"] if b["count"]),
      r[0]["sum"] <= wall or (r[0]["sum"], wall))
PYEOF
)" "1 5 True True True"
"$SCRY" -q -c "$MWL slow 5" "uretprobe:$MWL:slow_fn /latency > 1000000000/ { @ = count() }" >"$TMP/l2.out" 2>"$TMP/l2.err"
check_status "uretprobe, latency predicate: exit status" $? 0 "$TMP/l2.err"
check_eq "uretprobe: a latency predicate filters all of them out (no row, nothing on stderr)" \
	"$(od -An -c "$TMP/l2.out" | tr -s ' ')|$(cat "$TMP/l2.err")" " \n|"

# a process that exits right after its only event still gets names
"$SCRY" -q -c "$MWL slow 1" "uretprobe:$MWL:slow_fn { @[ustack] = count() }" >"$TMP/u1.out" 2>&1
check "uretprobe ustack of a process that exits at once: symbolized (main)" \
	grep -q 'malloc_wl`main+0x' "$TMP/u1.out"

# USDT: 7 firings of scry_test:tick(i, 2i)
"$SCRY" -q -c "$MWL usdt 7" "usdt:$MWL:scry_test:tick { @[arg0] = count() }" >"$TMP/s.out" 2>&1
check_eq "usdt: arg0 takes 0..6 once each, nothing else" \
	"$(awk 'NF == 2 { print $1 ":" $2 }' "$TMP/s.out" | paste -sd' ')" "0:1 1:1 2:1 3:1 4:1 5:1 6:1"
"$SCRY" -q -c "$MWL usdt 7" "usdt:$MWL:scry_test:tick { @ = sum(arg1) }" >"$TMP/s2.out" 2>&1
check_eq "usdt: sum(arg1) = 2 * (0 + ... + 6) = 42" "$(awk 'NF == 1 && /[0-9]/ { print $1 }' "$TMP/s2.out")" 42

# -l
"$SCRY" -l 'uprobe:libc:mall*' >"$TMP/list.out"
check "-l lists malloc" grep -q ':malloc$' "$TMP/list.out"
check "-l lists only glob matches" bash -c "! grep -v ':mall[^:]*$' '$TMP/list.out' | grep -q ."
"$SCRY" -l "usdt:$MWL" >"$TMP/lu.out"
check "-l lists the USDT probe" grep -q ':scry_test:tick' "$TMP/lu.out"

# bad input: a clear line and exit 2
expect "unknown library" 2 "^scry: library 'libnosuch' not found" -- "$SCRY" -d 1 'uprobe:libnosuch:malloc { @ = count() }'
expect "unknown function" 2 "^scry: function 'maloc' not found in .*libc.so.6; did you mean: malloc" -- "$SCRY" -d 1 'uprobe:libc:maloc { @ = count() }'
[ -e /sys/bus/event_source/devices/kprobe/type ] ||
	expect "kprobes on a kernel without them" 2 "^scry: this kernel has no kprobes" -- "$SCRY" 'kprobe:vfs_read { @ = count() }'
expect "bad predicate field" 2 "^scry: unknown field 'bogus'" -- "$SCRY" 'uprobe:libc:malloc /bogus > 1/ { @ = count() }'
expect "retval at a uprobe" 2 "^scry: 'retval' needs a probe with a return: use uretprobe" -- "$SCRY" 'uprobe:libc:malloc /retval > 1/ { @ = count() }'
expect "unterminated string" 2 "^scry: unterminated string at column" -- "$SCRY" 'uprobe:libc:malloc /comm == "abc/ { @ = count() }'
expect "a glob where one function is needed" 2 "^scry: 'mall\*' is a glob: globs are for listing" -- "$SCRY" 'uprobe:libc:mall* { @ = count() }'
expect "unknown USDT probe" 2 "^scry: probe 'scry_test:nosuch' not found in malloc_wl; it has: scry_test:tick$" -- "$SCRY" -d 1 "usdt:$MWL:scry_test:nosuch { @ = count() }"

# the uprobe links of a run are gone when it ends
scry_bg "$TMP/lk.out" "$TMP/lk.err" -d 60 'uretprobe:libc:malloc { @ = count() }'
links=$(owned_ids link $SCRY_PID)
check "uretprobe: links held while running" test -n "$links"
kill -INT $SCRY_PID
wait_exit $SCRY_PID
check "uretprobe: its links are gone after Ctrl-C" gone_ids link $links
