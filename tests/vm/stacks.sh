# SPDX-License-Identifier: GPL-2.0
# User stacks on this kernel, by frame pointers and by the DWARF walker
# (bpf_loop, bpf_probe_read_user, at a uprobe and at a perf sample).
# malloc_wl (frame pointers) mallocs 100000 x 48 B from small_allocs(),
# 200 x 1 MiB from big_allocs() and 24 B per qsort comparison from
# cmp_alloc(); Debian's libc has no frame pointers, so only CFI walks
# qsort's internals and libc's start up to _start.
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl
# a complete stack, root first: _start, libc's start (named
# __libc_start_call_main only with libc's debug symbols), main
START='^_start;__libc_start_main;[^;]+;main;'

sum_of() {	# FILE REGEX: summed values of the folded lines matching REGEX
	awk -v re="$2" '$0 ~ re { s += $NF } END { print s + 0 }' "$1"
}

# scry malloc as a user runs it (-c, no gate): bytes per stack
"$SCRY" malloc -q --folded -c "$MWL sizes" >"$TMP/m.folded" 2>"$TMP/m.err"
check_status "malloc -c ungated: exit status" $? 0 "$TMP/m.err"
cmp_calls=$(grep -o 'cmp_calls=[0-9]*' "$TMP/m.folded" | cut -d= -f2)
check_eq "malloc -c (ungated): 4800000 bytes from small_allocs" \
	"$(sum_of "$TMP/m.folded" ';small_allocs;malloc ')" 4800000
check_eq "malloc -c (ungated): 209715200 bytes from big_allocs" \
	"$(sum_of "$TMP/m.folded" ';big_allocs;malloc ')" 209715200
check_eq "malloc -c (ungated): 24 B x $cmp_calls comparisons from cmp_alloc" \
	"$(sum_of "$TMP/m.folded" ';cmp;cmp_alloc;malloc ')" $((cmp_calls * 24))
# (bytes per size: the calls whose stacks are complete)
check_eq "malloc -c (ungated): every stack complete to _start (small_allocs, big_allocs, cmp_alloc calls)" \
	"$(($(sum_of "$TMP/m.folded" "${START}small_allocs;malloc ") / 48)) $(($(sum_of "$TMP/m.folded" "${START}big_allocs;malloc ") / 1048576)) $(($(sum_of "$TMP/m.folded" "${START}sort_some;qsort_r;.*;cmp;cmp_alloc;malloc ") / 24))" \
	"100000 200 $cmp_calls"
sed 's/^/#   /' "$TMP/m.err"

# DWARF stacks of the calls the predicate keeps: the 100000 small ones
# are filtered out in the kernel, before any walk (the walks are what an
# emulated CPU is slow at)
run_c "$TMP/d.folded" "$TMP/d.err" "$MWL sizes" --folded 'uprobe:libc:malloc /arg0 != 48/ { @[ustack] = count() }'
check_status "dwarf, -c: exit status" $? 0 "$TMP/d.err"
check_eq "dwarf, -c: 200 big_allocs calls, _start to malloc" \
	"$(sum_of "$TMP/d.folded" "${START}big_allocs;malloc ")" 200
check_eq "dwarf, -c: $cmp_calls cmp_alloc calls through qsort, _start to malloc" \
	"$(sum_of "$TMP/d.folded" "${START}sort_some;qsort_r;.*;cmp;cmp_alloc;malloc ")" "$cmp_calls"
check_eq "dwarf, -c: no small_allocs call passed the predicate" \
	"$(sum_of "$TMP/d.folded" ';small_allocs;malloc ')" 0

# frame pointers: exact through malloc_wl's own frames (the walk ends in
# libc's start, which has none)
run_c "$TMP/f.folded" "$TMP/f.err" "$MWL sizes" --unwind=fp --folded 'uprobe:libc:malloc { @[ustack] = count() }'
check_status "--unwind=fp: exit status" $? 0 "$TMP/f.err"
check_eq "--unwind=fp: 100000 small_allocs calls, main;small_allocs;malloc" \
	"$(sum_of "$TMP/f.folded" '(^|;)main;small_allocs;malloc ')" 100000
check_eq "--unwind=fp: 200 big_allocs calls, main;big_allocs;malloc" \
	"$(sum_of "$TMP/f.folded" '(^|;)main;big_allocs;malloc ')" 200

# perf samples (user mode: the sample's registers; in the kernel:
# bpf_task_pt_regs) in a comparator without frame pointers
run_c "$TMP/p.folded" "$TMP/p.err" "$WL/unwind_wl spin 2" profile -F 499 --folded
check_status "profile -c: exit status" $? 0 "$TMP/p.err"
all=$(sum_of "$TMP/p.folded" ';cmp(;|_\[i\]| )')
full=$(sum_of "$TMP/p.folded" '^unwind_wl;_start;__libc_start_main;[^;]+;main;sort_some;qsort_r;.*;cmp(;|_\[i\]| )')
check "profile, dwarf: samples in the comparator ($all)" test "$all" -gt 100
# Under emulation the vDSO's clock_gettime takes its syscall fallback,
# whose CFI scry's walker does not take: such a stack ends there, and
# stderr counts it ("user stacks ended at an unsupported CFI rule", about
# one sample in a few thousand). So: every sample complete, or counted.
counted=$(sed -nE 's/^(scry: )?([0-9]+) (user stacks ended|unwind steps) .*/\2/p' "$TMP/p.err" | awk '{ s += $1 } END { print s + 0 }')
check "profile, dwarf: every one of them complete to _start, or counted on stderr ($full of $all complete, $counted counted)" \
	test $((all - full)) -le "$counted"
[ "$full" = "$all" ] && exit 0
sed 's/^/#   stderr: /' "$TMP/p.err"
echo "#   samples in the comparator that are not complete:"
grep -E ';cmp(;|_\[i\]| )' "$TMP/p.folded" | grep -Ev '^unwind_wl;_start;__libc_start_main;[^;]+;main;sort_some;qsort_r;' |
	sed 's/^/#   /' | head -10
