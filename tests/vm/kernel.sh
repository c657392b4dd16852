# SPDX-License-Identifier: GPL-2.0
# The kernel itself: scry starts on a kernel that has what it needs and
# refuses one that does not, naming the feature and the version
# (src/kernel.c); the hooks the language's kprobe probes need are there.
# SCRY_VM_EXPECT (tests/vm/run's kernel list): supported or too-old.
. "$(dirname "$0")/../lib.sh"

check "BTF: /sys/kernel/btf/vmlinux" test -r /sys/kernel/btf/vmlinux
check "uprobes: the perf uprobe PMU" test -r /sys/bus/event_source/devices/uprobe/type
check "kprobes: the perf kprobe PMU" test -r /sys/bus/event_source/devices/kprobe/type

# a sleep of its own, so there is something to print even on an idle VM
"$SCRY" offcpu -c "sleep 0.2" >"$TMP/o.out" 2>"$TMP/o.err"
rc=$?
if [ "${SCRY_VM_EXPECT:-supported}" = too-old ]; then
	check_eq "too old: scry exits 1" $rc 1
	# every feature of src/kernel.c's table came after 5.10
	check "too old: one line naming this kernel, what it lacks, Linux 5.17" \
		grep -qxF "scry: this kernel ($(uname -r)) lacks bpf_loop (Linux 5.17), bpf_find_vma (Linux 5.17), bpf_task_pt_regs (Linux 5.15), bpf_get_attach_cookie (Linux 5.15), bpf_get_current_task_btf (Linux 5.11), BPF task storage (Linux 5.11): scry needs Linux 5.17 or later" "$TMP/o.err"
	check_eq "too old: nothing else on stderr" "$(wc -l <"$TMP/o.err")" 1
	sed 's/^/#   /' "$TMP/o.err"
else
	check_status "supported: scry offcpu -c 'sleep 0.2' runs" $rc 0 "$TMP/o.err"
	check "supported: it printed the sleep" grep -q 'vmlinux`do_nanosleep' "$TMP/o.out"
fi
