# SPDX-License-Identifier: GPL-2.0
# Losses are counted and reported, never silent: forced on purpose with
# tiny maps, every event is either in a row or in a loss counter, to the
# exact total; the counter names the option that fixes it.
#
# malloc_wl sizes mallocs 100000 x 48 B (small_allocs), 200 x 1 MiB
# (big_allocs), 24 B per qsort comparison (cmp_alloc, cmp_calls times),
# and libc twice more: qsort's 4000-byte merge buffer, stdout's buffer.
# -p on the gated process: its tables are loaded before it runs, so each
# function is one stack (tests/pending/cmd_stacks.sh has the -c side).
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl

# run_sizes NAME SCRY-ARGS...: scry -p on malloc_wl sizes; sets cmp_calls
run_sizes() {
	local name=$1
	shift
	mkfifo "$TMP/$name.gate"
	start_gated wl -o "$TMP/$name.wl" "$MWL" sizes "$TMP/$name.gate"
	scry_bg "$TMP/$name.out" "$TMP/$name.err" "$@" -p $wl
	open_gate "$TMP/$name.gate"
	wait_exit $wl
	wait_exit $SCRY_PID
	check_status "$name: exit status" $? 0 "$TMP/$name.err"
	cmp_calls=$(grep -o 'cmp_calls=[0-9]*' "$TMP/$name.wl" | cut -d= -f2)
}
losses() { grep -v '^scry: tracing' "$1"; }	# FILE: stderr but the banner

# --max-keys 2: the first two keys (small_allocs, then big_allocs) are
# kept, and keep counting; every later new key is an aggregation drop
run_sizes keys --max-keys 2 'uprobe:libc:malloc { @[ustack] = count() }'
check_eq "--max-keys 2: two rows, small_allocs 100000 and big_allocs 200" \
	"$(vals "$TMP/keys.out" | awk -F'\t' '{ n++; if ($1 ~ /`small_allocs;/) s = $2; if ($1 ~ /`big_allocs;/) b = $2 } END { print n, s, b }')" \
	"2 100000 200" "$TMP/keys.out"
check_eq "--max-keys 2: the other $cmp_calls + 2 calls are counted as drops, with the fix" \
	"$(losses "$TMP/keys.err")" "$((cmp_calls + 2)) aggregation drops: raise --max-keys"

# --max-stacks 2: the first two stacks are stored; later events still
# count, under a lost stack, and each is a stack drop
run_sizes stacks --max-stacks 2 'uprobe:libc:malloc { @[ustack] = count() }'
check_eq "--max-stacks 2: small_allocs 100000, big_allocs 200, the rest ($cmp_calls + 2) under a lost stack" \
	"$(vals "$TMP/stacks.out" | awk -F'\t' '{ n++; if ($1 ~ /`small_allocs;/) s = $2; if ($1 ~ /`big_allocs;/) b = $2; if ($1 ~ /^\[stack lost/) l = $1 "=" $2 } END { print n, s, b, l }')" \
	"3 100000 200 [stack lost: raise --max-stacks]=$((cmp_calls + 2))" "$TMP/stacks.out"
check_eq "--max-stacks 2: the $((cmp_calls + 2)) stack drops counted, with the fix" \
	"$(losses "$TMP/stacks.err")" "$((cmp_calls + 2)) stack drops (stack store full): raise --max-stacks"

# the same run with room enough: no counter at all (the control)
run_sizes room 'uprobe:libc:malloc { @[ustack] = count() }'
check_eq "default sizes: nothing lost, no counter" "$(losses "$TMP/room.err")" ""
check_eq "default sizes: every call in a row ($((100202 + cmp_calls)))" \
	"$(vals "$TMP/room.out" | awk -F'\t' '{ s += $2 } END { print s }')" $((100202 + cmp_calls))

# the unwinder's depth counter: one stack 300 deep, truncated at 127
mkfifo "$TMP/dgate"
start_gated wl "$WL/unwind_wl" deep 300 "$TMP/bt" "$TMP/dgate"
scry_bg "$TMP/d.out" "$TMP/d.err" -p $wl 'uprobe:libc:malloc /arg0 == 777/ { @[ustack] = count() }'
open_gate "$TMP/dgate"
wait_exit $wl
wait_exit $SCRY_PID
check_eq "unwinder: the one 300-deep stack is counted as truncated" \
	"$(losses "$TMP/d.err")" "1 user stacks deeper than 127 frames (truncated)"

# unwind rows too few for the command's tables: the cause and its option
# are said without --stats (its steps fall back to frame pointers)
"$SCRY" -q --max-unwind-rows 1024 -c "$WL/malloc_wl rate 10" \
	'uprobe:libc:malloc { @[ustack] = count() }' >"$TMP/ur.out" 2>"$TMP/ur.err"
check_status "--max-unwind-rows 1024: exit status" $? 0 "$TMP/ur.err"
check "--max-unwind-rows 1024: says rows full, raise --max-unwind-rows" \
	grep -Eq '^scry: unwind tables not loaded: [1-9][0-9]* \(rows full: raise --max-unwind-rows\)' "$TMP/ur.err"
