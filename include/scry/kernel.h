/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel: does the running kernel have what scry needs? Checked once at
 * start-up, so an old kernel gets one line naming what it lacks instead
 * of a verifier error. The minimum and why: docs/DESIGN.md, "Kernels".
 */
#ifndef SCRY_KERNEL_H
#define SCRY_KERNEL_H

#include <stdbool.h>

/*
 * Check BTF and every BPF feature the engine needs (needs CAP_BPF: it
 * loads probe programs). Logs one error line naming the missing features,
 * the kernel release and the upstream version that has them.
 * Returns zero on success and negative error code otherwise.
 */
int kernel_check(void);

/*
 * Do hash maps allocate their elements from bpf_mem_alloc (6.1+), so a
 * map that is not preallocated is safe in every program type? Probed
 * once (a perf_event program using such a map loads only then).
 */
bool kernel_htab_mem_alloc(void);

#endif /* SCRY_KERNEL_H */
