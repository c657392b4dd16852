# SPDX-License-Identifier: GPL-2.0
# offcpu's aggregation and stack store fill as keys arrive on kernels
# whose hash maps allocate from bpf_mem_alloc (src/attach.c:
# alloc_on_demand): sched_switch runs with interrupts off, where the
# kernel does not refill a CPU's cache of free elements, and a new map's
# cache holds one. Without warm_caches() every system-wide run lost one
# stack per CPU (the second stack of each CPU's first switch). The
# witness of bpf_mem_alloc is the kernel's own BTF, not its version.
. "$(dirname "$0")/../lib.sh"

# a system-wide question: every CPU's first switch takes both stacks
for i in 1 2 3 4 5; do
	"$SCRY" -d 0.3 offcpu >"$TMP/s$i.out" 2>"$TMP/s$i.err"
	check_status "offcpu -d 0.3, run $i: exit status" $? 0 "$TMP/s$i.err"
	check_eq "offcpu -d 0.3, run $i: no drops" \
		"$(($(grep -c drops "$TMP/s$i.err") + $(grep -c '\[stack lost' "$TMP/s$i.out")))" \
		0 "$TMP/s$i.err"
done

# the maps' flags, while a question runs: BPF_F_NO_PREALLOC (1) for the
# stores exactly where the kernel has bpf_mem_alloc; inflight never
mem_alloc=0
bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	grep -q "^\[[0-9]*\] STRUCT 'bpf_mem_alloc'" && mem_alloc=1
scry_bg "$TMP/b.out" "$TMP/b.err" offcpu
flags=
for name in aggs stacks inflight; do
	for id in $(owned_ids map $SCRY_PID); do
		bpftool map show id "$id" 2>/dev/null |
			grep -q " name $name " || continue
		flags+="$name=$(bpftool map show id "$id" | grep -o 'flags 0x[0-9a-f]*' | head -1 | cut -d' ' -f2) "
	done
done
kill -INT $SCRY_PID
wait_exit $SCRY_PID
check_status "offcpu in the background: exit status" $? 0 "$TMP/b.err"
check_eq "offcpu: aggs and stacks not preallocated iff bpf_mem_alloc ($mem_alloc)" \
	"$flags" "aggs=0x$mem_alloc stacks=0x$mem_alloc inflight=0x0 "
