// SPDX-License-Identifier: GPL-2.0
/*
 * btf_parse: how long libbpf takes to parse /sys/kernel/btf/vmlinux, which
 * every CO-RE tool (scry, and libbpf inside bpftrace) pays at start-up
 * before the kernel sees a single program. Prints milliseconds.
 */
#include <stdio.h>
#include <time.h>
#include <bpf/btf.h>

int main(void)
{
	struct timespec a, b;
	struct btf *btf;

	clock_gettime(CLOCK_MONOTONIC, &a);
	btf = btf__load_vmlinux_btf();
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (!btf)
		return 1;
	printf("%.3f\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
	btf__free(btf);
	return 0;
}
