/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mapmem: the kernel memory the engine's maps take once created, and the
 * memory this process may still get, so that --max-keys and --max-stacks
 * too large for the machine (or its memory cgroup) are refused before
 * loading, naming the option, instead of failing in the kernel.
 *
 * memlock is no limit here: since Linux 5.11 BPF maps are charged to the
 * memory cgroup, so what bounds them is the cgroup's limit and, outside
 * one, the memory the kernel reports available (MemAvailable).
 */
#ifndef SCRY_MAPMEM_H
#define SCRY_MAPMEM_H

#include <stddef.h>
#include <linux/types.h>

/* The options that size maps. */
enum mapmem_opt {
	MAPMEM_KEYS,		/* --max-keys: aggs, vars, strings, inflight */
	MAPMEM_STACKS,		/* --max-stacks: stacks */
	MAPMEM_UNWIND,		/* --max-unwind-rows: unwind_rows */
	MAPMEM_BUFFER,		/* --buffer-size: events */
	MAPMEM_NOPTS
};

struct mapmem {
	__u64 total;			/* bytes every map takes */
	__u64 by[MAPMEM_NOPTS];		/* of which each option sizes */
	__u64 value[MAPMEM_NOPTS];	/* the options' values */
};

/*
 * Bytes a map takes in the kernel once created: preallocated hash
 * elements (plus one spare per CPU) and buckets, arrays, per-CPU values
 * times @ncpus, ring buffer pages. A BPF_F_NO_PREALLOC hash counts only
 * its buckets: its elements come as they are used.
 */
__u64 mapmem_bytes(__u32 type, __u32 key_size, __u32 value_size,
		   __u32 max_entries, __u32 flags, unsigned int ncpus);

/*
 * Bytes this process may still allocate: MemAvailable, or less where a
 * memory cgroup it is in (v1 or v2, at any level up to the root) is
 * nearer its limit, counting its page cache as reclaimable. Files are
 * read under @root ("" for this system; tests give a fake tree). @why
 * (of @len bytes) says which bound it is. Returns 0 when nothing could
 * be read (no check then).
 */
__u64 mapmem_available(const char *root, char *why, size_t len);

/*
 * Before loading: when @need exceeds @avail (@why: what bounds it),
 * print one line naming the sizes and the options to lower, and return
 * -ENOMEM; when it is large, say how much it takes. @avail 0: unknown.
 */
int mapmem_check(const struct mapmem *need, __u64 avail, const char *why);

/*
 * Loading failed with ENOMEM: the kernel could not allocate the maps.
 * One line naming their size and the options to lower.
 */
void mapmem_enomem(const struct mapmem *need);

#endif /* SCRY_MAPMEM_H */
