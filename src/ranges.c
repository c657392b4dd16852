// SPDX-License-Identifier: GPL-2.0
/* Overlapping address ranges: see include/scry/ranges.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scry/array.h>
#include <scry/ranges.h>

int ranges_add(struct ranges *t, __u64 start, __u64 end, __u64 val)
{
	struct range *r;

	if (t->n >= UINT32_MAX)
		return -E2BIG;
	if (array_ensure(&t->v, &t->cap, sizeof(*t->v), t->n + 1))
		return -ENOMEM;
	r = &t->v[t->n];
	r->start = start;
	r->end = end;
	r->val = val;
	r->seq = t->n++;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void ranges_finish(struct ranges *t)
{
	__u64 maxend = 0;
	size_t i;

	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), range_cmp);
	for (i = 0; i < t->n; i++) {
		if (t->v[i].end > maxend)
			maxend = t->v[i].end;
		t->v[i].maxend = maxend;
	}
}

/*
 * Walks down from the last range that starts at or below @addr, only as
 * long as some lower range still reaches past it: without overlaps that
 * is one step. A file can make every range overlap (one huge range
 * first): the walk then stops after MAX_WALK steps with the best seen,
 * so a lookup never costs more than that.
 */
#define MAX_WALK	4096

const struct range *ranges_find(const struct ranges *t, __u64 addr)
{
	const struct range *best = NULL;
	size_t lo = 0, hi = t->n, steps = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && t->v[lo].maxend > addr && steps++ < MAX_WALK) {
		const struct range *r = &t->v[lo];

		if (addr < r->end && (!best || r->seq > best->seq))
			best = r;
	}
	return best;
}

void ranges_clear(struct ranges *t)
{
	if (!t)
		return;
	free(t->v);
	memset(t, 0, sizeof(*t));
}
