# SPDX-License-Identifier: GPL-2.0
# The frontend under valgrind: no memory errors, no leaks, on real runs.
# tests/valgrind.supp hides only valgrind's blind spot for bpf(2) attrs.
# test-asan: no (valgrind and ASan cannot share a process)
# test-timeout: 900 (valgrind is ~30x slower, more on a loaded machine)
. "$(dirname "$0")/../lib.sh"

vg() {	# NAME ARGS...: run scry under valgrind, expect exit 0 and no errors
	local name=$1
	shift
	valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=99 --suppressions=tests/valgrind.supp -q \
		"$SCRY" "$@" >"$TMP/vg.out" 2>"$TMP/vg.err"
	check_status "valgrind: $name: no memory errors or leaks" $? 0 "$TMP/vg.err"
}
vg "offcpu -c" offcpu -q -c "$WL/offcpu_wl 3 1"
vg "malloc -c" malloc -q -c "$WL/malloc_wl sizes"
vg "uretprobe, --folded" -q --folded -c "$WL/malloc_wl slow 2" "uretprobe:$WL/malloc_wl:slow_fn { @[ustack] = quantize(latency) }"
vg "-l" -l 'uprobe:libc:mall*'
