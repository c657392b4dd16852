# SPDX-License-Identifier: GPL-2.0
# Kernel function probes, which the development kernel lacks: kprobe,
# kretprobe, DTrace's fbt, fentry/fexit (BPF trampolines), each counting
# dd's 100 one-byte reads of /dev/zero exactly (other reads of dd, its
# loader's among them, are larger), and a kprobe's stacks: the kernel
# stack through the read syscall, the user stack from the task's user
# registers, whole to _start.
. "$(dirname "$0")/../lib.sh"

DD="dd if=/dev/zero of=/dev/null bs=1 count=100 status=none"

check "kprobes: this kernel has the kprobe PMU" test -e /sys/bus/event_source/devices/kprobe/type

"$SCRY" -q -c "$DD" \
	'kprobe:vfs_read /arg2 == 1/ { @n = count() }
	 kretprobe:vfs_read /arg2 == 1/ { @r[retval] = count() }
	 fbt::vfs_read:return /arg2 == 1/ { @d[arg1] = count() }' \
	>"$TMP/kp.out" 2>"$TMP/kp.err"
check_status "kprobe/kretprobe/fbt: exit status" $? 0 "$TMP/kp.err"
check "kprobe: 100 one-byte reads; kretprobe, fbt return: each returned 1" \
	grep -Pzq '@n:\n +100\n\n@r:\n +1 +100\n\n@d:\n +1 +100\n' "$TMP/kp.out"
[ "${LAST_CHECK#FAIL}" = "$LAST_CHECK" ] || sed 's/^/#   /' "$TMP/kp.out"

"$SCRY" -q -c "$DD" \
	'fentry:vfs_read /args.count == 1/ { @n = count() }
	 fexit:vfs_read /args.count == 1/ { @r[retval] = count() }' \
	>"$TMP/f.out" 2>"$TMP/f.err"
check_status "fentry/fexit: exit status" $? 0 "$TMP/f.err"
check "fentry: 100 one-byte reads; fexit: each returned 1" \
	grep -Pzq '@n:\n +100\n\n@r:\n +1 +100\n' "$TMP/f.out"
[ "${LAST_CHECK#FAIL}" = "$LAST_CHECK" ] || sed 's/^/#   /' "$TMP/f.out"

# stacks at a kprobe: one row, the kernel's read path and dd's whole user
# stack (dd's read loop, libc's read, to _start)
"$SCRY" -q --folded -c "$DD" 'kprobe:vfs_read /arg2 == 1/ { @[kstack, ustack] = count() }' \
	>"$TMP/s.folded" 2>"$TMP/s.err"
check_status "kprobe stacks: exit status" $? 0 "$TMP/s.err"
check_eq "kprobe stacks: the 100 reads in one row" "$(awk '{ print $NF }' "$TMP/s.folded")" 100 "$TMP/s.folded"
check "kprobe stacks: user stack from _start to libc's read, kernel stack through ksys_read to vfs_read" \
	grep -Eq '^_start;.*;(__libc_)?read;.*ksys_read_\[k\];vfs_read_\[k\] 100$' "$TMP/s.folded"
[ "${LAST_CHECK#FAIL}" = "$LAST_CHECK" ] || sed 's/^/#   /' "$TMP/s.folded" "$TMP/s.err"
