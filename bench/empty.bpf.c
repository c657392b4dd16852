// SPDX-License-Identifier: GPL-2.0
/* The physical floor of a uprobe: a BPF program that does nothing. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("uprobe")
int empty(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
