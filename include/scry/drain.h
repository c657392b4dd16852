/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drain: the kernel's aggregation, stack store and loss counters ->
 * a symbolized struct report. Runs after the probes are detached.
 */
#ifndef SCRY_DRAIN_H
#define SCRY_DRAIN_H

#include <stdbool.h>

struct attach;
struct syms;
struct report;

/*
 * Fill @r (rows, stats) from @a's maps, resolving stacks with @s. When
 * @clear is set, delete what was read (interval snapshots).
 * Returns 0 or -errno.
 */
int drain_report(struct attach *a, struct syms *s, struct report *r,
		 bool clear);

#endif /* SCRY_DRAIN_H */
