# SPDX-License-Identifier: GPL-2.0
# CO-RE against the cut of this kernel's vmlinux BTF (src/corebtf.c):
# every engine program relocated exactly as with all of it
# (tests/unit/test_corebtf.c, which prints its own checks), and, with the
# VM's /var read-only (its root is the host's), the cut made in memory
# and the answer exact.
. "$(dirname "$0")/../lib.sh"

"$PWD/$BUILD/tests/test_corebtf" || true

"$SCRY" -q -c "$WL/malloc_wl rate 200" \
	'uprobe:libc:malloc /arg0 == 16/ { @ = count() }' \
	>"$TMP/ro.out" 2>"$TMP/ro.err"
check_status "read-only cache directory: exit status" $? 0 "$TMP/ro.err"
check_eq "read-only cache directory: the exact count" \
	"$(tr -d ' \n' <"$TMP/ro.out")" 200 "$TMP/ro.out"
check_eq "read-only cache directory: nothing on stderr" "$(cat "$TMP/ro.err")" ""
