/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ranges: address ranges that may overlap, each with a value; among the
 * ranges holding an address the one added last wins (a JIT's perf map:
 * a later line replaces code; DWARF: compile units).
 */
#ifndef SCRY_RANGES_H
#define SCRY_RANGES_H

#include <stddef.h>
#include <linux/types.h>

struct range {
	__u64 start, end;
	__u64 maxend;		/* largest end up to this entry */
	__u64 val;
	__u32 seq;
};

struct ranges {
	struct range *v;
	size_t n, cap;
};

/* Add [@start, @end) -> @val. Returns 0 or -errno. */
int ranges_add(struct ranges *t, __u64 start, __u64 end, __u64 val);

/* Sort for lookups; call after the last add. */
void ranges_finish(struct ranges *t);

/* The latest range holding @addr, or NULL. */
const struct range *ranges_find(const struct ranges *t, __u64 addr);

/* Free the array (the struct is the caller's); NULL-safe. */
void ranges_clear(struct ranges *t);

#endif /* SCRY_RANGES_H */
