// SPDX-License-Identifier: GPL-2.0
/*
 * addrspace: one process's code mappings (include/scry/addrspace.h), a
 * sorted array of disjoint ranges. Adding a mapping works as mmap(2)
 * does over existing ones: what it covers is replaced, and a mapping it
 * covers in part keeps the parts outside it (the right part with its
 * file offset moved on).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <scry/addrspace.h>
#include <scry/array.h>
#include <scry/obj.h>
#include <scry/proc.h>

struct addrspace {
	struct addrspace_map *v;
	size_t n, cap;
};

struct addrspace *addrspace_new(void)
{
	return calloc(1, sizeof(struct addrspace));
}

void addrspace_free(struct addrspace *as)
{
	size_t i;

	if (!as)
		return;
	for (i = 0; i < as->n; i++)
		free(as->v[i].module);
	free(as->v);
	free(as);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Index of the first mapping ending after @addr. */
static size_t first_after(const struct addrspace *as, __u64 addr)
{
	size_t lo = 0, hi = as->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (as->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int addrspace_add(struct addrspace *as, const struct addrspace_map *m)
{
	__u64 start = m->start, end = m->end;
	const char *module = m->module;
	struct addrspace_map put[3];
	size_t i, j, k, np = 0;

	if (start >= end)
		return -EINVAL;
	if (!module)
		module = m->obj ? base_name(obj_path(m->obj)) : "";
	i = first_after(as, start);
	for (j = i; j < as->n && as->v[j].start < end; j++)
		;
	/* [i, j) overlap: keep what sticks out on the left and right */
	memset(put, 0, sizeof(put));
	if (i < j && as->v[i].start < start) {
		put[np] = as->v[i];
		put[np].end = start;
		put[np++].module = NULL;
	}
	put[np] = *m;
	put[np++].module = NULL;
	if (i < j && as->v[j - 1].end > end) {
		put[np] = as->v[j - 1];
		put[np].pgoff += end - as->v[j - 1].start;
		put[np].start = end;
		put[np++].module = NULL;
	}
	for (k = 0; k < np; k++) {
		const char *name = put[k].start == start ? module :
				   as->v[put[k].start < start ? i : j - 1].module;

		put[k].module = strdup(name);
		if (!put[k].module)
			goto nomem;
	}
	if (np > j - i &&
	    array_ensure(&as->v, &as->cap, sizeof(*as->v), as->n + np - (j - i)))
		goto nomem;
	for (k = i; k < j; k++)
		free(as->v[k].module);
	memmove(&as->v[i + np], &as->v[j], (as->n - j) * sizeof(*as->v));
	memcpy(&as->v[i], put, np * sizeof(*put));
	as->n = as->n + np - (j - i);
	return 0;
nomem:
	for (k = 0; k < np; k++)
		free(put[k].module);
	return -ENOMEM;
}

int addrspace_read(struct addrspace *as, struct obj_cache *c, int pid)
{
	struct proc_map *m;
	size_t n, i;
	int err;

	err = proc_maps_read(pid, PROC_MAPS_CODE, &m, &n);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++) {
		struct addrspace_map a = {
			.start = m[i].start, .end = m[i].end,
			.pgoff = m[i].pgoff, .dev = m[i].dev, .ino = m[i].ino,
			.obj = obj_cache_mapped(c, pid, &m[i]),
			.module = (char *)base_name(m[i].path),
		};

		err = addrspace_add(as, &a);
	}
	proc_maps_free(m, n);
	return err;
}

const struct addrspace_map *addrspace_find(const struct addrspace *as,
					   __u64 addr)
{
	size_t i = first_after(as, addr);

	return i < as->n && as->v[i].start <= addr ? &as->v[i] : NULL;
}

const struct addrspace_map *addrspace_maps(const struct addrspace *as,
					   size_t *n)
{
	*n = as->n;
	return as->v;
}
