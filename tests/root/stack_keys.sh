# SPDX-License-Identifier: GPL-2.0
# What a map key prints is what it is: ustack(N) and kstack(N) as keys are
# their N innermost frames (as bpftrace keeps them), so stacks that differ
# only beyond N are one key; rows whose printed keys collapse to the same
# text are one row in every format that prints them so (folded, text).
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl

folded_rows() { grep -E ' [0-9]+$' "$1"; }

# qsort's merge sort recurses: cmp() -> cmp_alloc() -> malloc() is reached
# from many depths, one call path per depth below the three frames
"$SCRY" -q --folded -c "$MWL sizes" \
	'uprobe:libc:malloc { @[ustack(3)] = count() }' >"$TMP/u3.out" 2>"$TMP/u3.err"
check_status "ustack(3) key: exit status" $? 0 "$TMP/u3.err"
cmp_calls=$(sed -n 's/^cmp_calls=//p' "$TMP/u3.out")
check_eq "ustack(3) key: one row of three frames, every cmp_alloc call" \
	"$(folded_rows "$TMP/u3.out" | grep cmp_alloc)" \
	"cmp;cmp_alloc;malloc $cmp_calls" "$TMP/u3.out"
check_eq "ustack(3) key: 100000 calls of small_allocs, one row" \
	"$(folded_rows "$TMP/u3.out" | grep ';small_allocs;')" \
	"main;small_allocs;malloc 100000" "$TMP/u3.out"

# the text output: the key is two frames, the value every call under them
"$SCRY" -q -c "$MWL sizes" \
	'uprobe:libc:malloc { @[ustack(2)] = count() }' >"$TMP/u2.out" 2>"$TMP/u2.err"
check_status "ustack(2) key, text: exit status" $? 0 "$TMP/u2.err"
check_eq "ustack(2) key, text: cmp_alloc's row is malloc, cmp_alloc, its count" \
	"$(grep -A2 '`cmp_alloc' "$TMP/u2.out" | sed 's/^ *//; s/+0x[0-9a-f]*//')" \
	"$(printf 'malloc_wl`cmp_alloc\n%s' "$cmp_calls")" "$TMP/u2.out"
check_eq "ustack(2) key, text: no row shows a third frame" \
	"$(grep -c '`main' "$TMP/u2.out")" 0 "$TMP/u2.out"

# print(@) in END: the same one row as the map printed at the end
"$SCRY" -q -c "$MWL sizes" \
	'uprobe:libc:malloc { @[ustack(2)] = count() } END { print(@); clear(@) }' >"$TMP/p2.out" 2>"$TMP/p2.err"
check_status "ustack(2) key, print(@): exit status" $? 0 "$TMP/p2.err"
check_eq "ustack(2) key, print(@): cmp_alloc's row once, with every call" \
	"$(grep -A2 '`cmp_alloc' "$TMP/p2.out" | sed 's/^ *//; s/+0x[0-9a-f]*//')" \
	"$(printf 'malloc_wl`cmp_alloc\n%s' "$cmp_calls")" "$TMP/p2.out"

# kstack(1): one frame of the kernel's path to the tracepoint, whatever
# this kernel names it
"$SCRY" -q --folded -c "$MWL rate 1" \
	'tracepoint:syscalls:sys_enter_exit_group { @[kstack(1)] = count() }' \
	>"$TMP/k1.out" 2>"$TMP/k1.err"
check_status "kstack(1) key: exit status" $? 0 "$TMP/k1.err"
check_eq "kstack(1) key: one row of one frame, the one exit_group" \
	"$(folded_rows "$TMP/k1.out" | sed -E 's/^[A-Za-z0-9_.]+_\[k\] /FRAME /')" \
	"FRAME 1" "$TMP/k1.out"

# --folded: one line per path. hot_a's samples land at many offsets in its
# loop; folded names no offsets, so they are one line (as flamegraph.pl
# expects), and no path is printed twice
"$SCRY" profile -q -F 999 --folded -c "$WL/cpu_wl 1" >"$TMP/p.out" 2>"$TMP/p.err"
check_status "profile --folded: exit status" $? 0 "$TMP/p.err"
check_eq "profile --folded: no path on two lines" \
	"$(folded_rows "$TMP/p.out" | sed -E 's/ [0-9]+$//' | sort | uniq -d)" "" "$TMP/p.out"
check_eq "profile --folded: hot_a's own samples on one line" \
	"$(folded_rows "$TMP/p.out" | grep -c ';main;hot_a [0-9]*$')" 1 "$TMP/p.out"
