# SPDX-License-Identifier: GPL-2.0
# make static: one scry file with no shared library, proven in a chroot
# that holds nothing but it and a static workload (plus /proc and /sys):
# it answers real questions there, with exact counts and named stacks.
. "$(dirname "$0")/../lib.sh"

ST=$BUILD/static/scry
make --no-print-directory -s static >"$TMP/make.out" 2>&1
check_status "make static" $? 0 "$TMP/make.out"
check_eq "ldd: not a dynamic executable" "$(ldd "$ST" 2>&1 | sed 's/^[[:space:]]*//')" "not a dynamic executable"
check_eq "no program interpreter, no NEEDED library" \
	"$(readelf -ld "$ST" | grep -cE 'INTERP|\(NEEDED\)')" 0
check_eq "the static linker had nothing to warn about (no dlopen in a static glibc)" \
	"$(cat "$BUILD/static/link.log")" ""

# the chroot: scry, a workload built static, /proc and /sys (BTF, kallsyms)
R=$TMP/root
mkdir -p "$R/proc" "$R/sys"
cp "$ST" "$R/scry"
gcc -static -O1 -g -fno-omit-frame-pointer -fno-inline -D_GNU_SOURCE -pthread -Itests/workloads \
	tests/workloads/offcpu_wl.c -o "$R/offcpu_wl" 2>"$TMP/cc.err"
check_status "a static offcpu_wl for the chroot" $? 0 "$TMP/cc.err"
check_eq "the chroot holds no shared library" "$(find "$R" -name '*.so*' | wc -l)" 0

# in a private mount namespace, so the mounts go away with it (inside a
# chroot, as fresh-machine runs the tests, / is no mount point and keeps
# its propagation: the bind mounts then rely on the host's, and on the
# namespace's end)
inroot() { unshare -m --propagation unchanged sh -c '{ mount --make-rprivate / 2>/dev/null || :; } &&
	mount --rbind /proc "$0/proc" && mount --rbind /sys "$0/sys" &&
	exec chroot "$0" "$@"' "$R" "$@"; }

inroot /scry -q -c "/offcpu_wl 5 2" 'syscall:nanosleep,clock_nanosleep { @[comm] = count() }' \
	>"$TMP/c.out" 2>"$TMP/c.err"
check_status "static scry in the chroot: exit status" $? 0 "$TMP/c.err"
check_eq "static scry in the chroot: offcpu_wl's 7 naps, exactly" \
	"$(awk '$1 == "offcpu_wl" { print $2 }' "$TMP/c.out")" 7

inroot /scry offcpu -q --folded -c "/offcpu_wl 5 2" >"$TMP/f.out" 2>"$TMP/f.err"
check_status "static scry offcpu in the chroot: exit status" $? 0 "$TMP/f.err"
check "static scry offcpu: stacks named from the binary and the kernel (main;sleep_long;nap;...;do_nanosleep_[k])" \
	grep -Eq '^offcpu_wl;.*main;sleep_long;nap;.*;do_nanosleep_\[k\];' "$TMP/f.out"
