/* SPDX-License-Identifier: GPL-2.0 */
/*
 * addrspace: the code mappings of one process, as scry last knew them:
 * which file (obj) is mapped where, from which offset. Filled from a
 * /proc/PID/maps read, or mapping by mapping by the caller (records that
 * arrive from BPF events), or both; lookups use whatever it holds, so a
 * process that has exited still resolves.
 */
#ifndef SCRY_ADDRSPACE_H
#define SCRY_ADDRSPACE_H

#include <stddef.h>
#include <linux/types.h>

struct obj;
struct obj_cache;

struct addrspace_map {
	__u64 start;
	__u64 end;
	__u64 pgoff;		/* file offset of start */
	__u64 dev;		/* the inode's device as the kernel sees it
				 * (/proc/PID/maps, vm_file's i_sb->s_dev),
				 * as a user-space dev_t; 0 if unknown */
	__u64 ino;		/* the inode's number, 0 if unknown */
	struct obj *obj;	/* NULL: the file could not be opened */
	char *module;		/* the file's base name, "[vdso]" */
};

struct addrspace;

struct addrspace *addrspace_new(void);
void addrspace_free(struct addrspace *as);

/*
 * Add mapping @m ([start, end) of @m->obj, which may be NULL, from file
 * offset pgoff; @m->module NULL: the obj's base name; copied). As mmap
 * does, it replaces what it covers: older mappings are cut around it.
 * Returns 0 or -errno (-EINVAL for an empty range).
 */
int addrspace_add(struct addrspace *as, const struct addrspace_map *m);

/*
 * Read /proc/@pid/maps and add its code mappings (files opened through
 * @c). What the read does not cover stays: a read racing with the
 * process's exit (mappings half torn down) or following an exec keeps
 * the old names for stacks taken before.
 * Returns 0, -ESRCH when the process is gone (nothing changed), -errno.
 */
int addrspace_read(struct addrspace *as, struct obj_cache *c, int pid);

/* The mapping holding @addr, or NULL. */
const struct addrspace_map *addrspace_find(const struct addrspace *as,
					   __u64 addr);

/* All mappings, sorted by start. */
const struct addrspace_map *addrspace_maps(const struct addrspace *as,
					   size_t *n);

#endif /* SCRY_ADDRSPACE_H */
