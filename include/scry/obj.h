/* SPDX-License-Identifier: GPL-2.0 */
/*
 * obj: the file cache. One struct obj per distinct binary (executable,
 * library, the vDSO) scry has met in any traced process, keyed by ONE
 * identity: the build-id where the file has one (so one library seen in
 * two containers is one entry), else (dev, inode, size, mtime). An obj
 * keeps the file open and lazily holds everything read from it: the ELF
 * handle, the function symbols, the separate debug file, the DWARF
 * (inlined frames, lines), the unwind table. Every process mapping the
 * file shares them. perf calls this a dso.
 *
 * Objects live as long as their cache.
 */
#ifndef SCRY_OBJ_H
#define SCRY_OBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

struct elf_file;
struct symtab;
struct dwinfo;
struct unwind_table;
struct proc_map;
struct obj;
struct obj_cache;

#define OBJ_BUILD_ID_MAX	64

/*
 * A file's identity. Two identities name the same file when both have a
 * build-id and the build-ids are equal, or when neither has one and
 * dev, ino, size and mtime are all equal.
 */
struct obj_id {
	__u64 dev;		/* user-space dev_t: makedev(major, minor) */
	__u64 ino;
	__u64 size;
	__s64 mtime_ns;
	__u32 build_id_len;	/* 0: none */
	__u8 build_id[OBJ_BUILD_ID_MAX];
};

bool obj_id_same(const struct obj_id *a, const struct obj_id *b);

/* "build-id in hex", else "dev:ino" in hex, into @buf. */
void obj_id_str(const struct obj_id *id, char *buf, size_t len);

/*
 * The kernel keeps a superblock's device as major << 20 | minor
 * (sb->s_dev, what BPF reads from an inode); user space's dev_t
 * (stat, makedev) packs the bits differently.
 */
__u64 obj_dev_from_kernel(__u32 s_dev);
__u32 obj_dev_to_kernel(__u64 dev);

struct obj_cache *obj_cache_new(void);
void obj_cache_free(struct obj_cache *c);

/*
 * The obj for the file open at @fd (duplicated: the caller keeps @fd),
 * named @name in messages and frames; e.g. a descriptor from
 * pidfd_getfd(2). NULL with errno on failure.
 */
struct obj *obj_cache_fd(struct obj_cache *c, int fd, const char *name);

/* The obj for @path, opened with fsafe_open. NULL with errno. */
struct obj *obj_cache_path(struct obj_cache *c, const char *path);

/*
 * The obj behind mapping @m of @pid (0: this process), the file opened
 * by proc_open_mapped(); for the vDSO, obj_cache_vdso(). NULL with errno.
 */
struct obj *obj_cache_mapped(struct obj_cache *c, int pid,
			     const struct proc_map *m);

/*
 * The vDSO: every process of this kernel maps the same image, so scry's
 * own copy stands in for all of them. NULL with errno.
 */
struct obj *obj_cache_vdso(struct obj_cache *c);

/* Number of distinct files, and of symbol tables read so far. */
size_t obj_cache_count(const struct obj_cache *c);
size_t obj_cache_symtabs_loaded(const struct obj_cache *c);

const struct obj_id *obj_id(const struct obj *o);
const char *obj_path(const struct obj *o);	/* "[vdso]" for the vDSO */
bool obj_is_vdso(const struct obj *o);

/*
 * Does @o hold the inode @dev:@ino open (user-space dev_t, as /proc/PID/
 * maps and stat() give it)? Only then may the kernel's view of a mapping,
 * its device and inode numbers, stand for @o: the open keeps the number
 * from going to another file, and a stat() device that is not the maps
 * device (btrfs subvolumes, where inode numbers repeat) rules it out.
 */
bool obj_holds_inode(const struct obj *o, __u64 dev, __u64 ino);

/* The open descriptor, or -1 (closed past the open-file cap, vDSO). */
int obj_fd(const struct obj *o);

/* The ELF image, or NULL when the file is not ELF (a JIT's memfd). */
struct elf_file *obj_elf(const struct obj *o);

/*
 * File offset -> ELF vaddr (elf_file_off_to_vaddr). Returns 0 or
 * -ENOENT (also for a file that is not ELF).
 */
int obj_vaddr(const struct obj *o, __u64 off, __u64 *vaddr);

/*
 * The function symbols: .symtab (the file's, else its debug file's),
 * then .dynsym. Read on first call. Returns the table (maybe empty) or
 * NULL with errno (ENOMEM, EINTR: tried again on the next call).
 */
const struct symtab *obj_symtab(struct obj *o);

/* The DWARF (the file's or its debug file's), or NULL when none. */
struct dwinfo *obj_dwinfo(struct obj *o);

/*
 * Let go of every file's DWARF and debug file: libdw's unpacked
 * sections (a compressed debug file of libc is 10 MiB unpacked) are
 * not kept past the drain that needed them. The next obj_dwinfo()
 * reads them again.
 */
void obj_cache_drop_dwarf(struct obj_cache *c);

/*
 * The unwind table, built on first call. NULL with errno: ENOENT (no
 * usable CFI), EFBIG (code above 4 GiB), ENOEXEC (not ELF), E2BIG (more
 * rows than UNWIND_MAX_ROWS), EINTR (stop_requested(): tried again on
 * the next call), ENOMEM.
 */
const struct unwind_table *obj_unwind(struct obj *o);

/*
 * Give @o the unwind table built from the same file elsewhere (on
 * unwind_early.c's thread, from a descriptor of its own), unless it has
 * one already: @t is freed then. Either way @t is @o's to free.
 */
void obj_unwind_set(struct obj *o, struct unwind_table *t);

/*
 * Let go of the unwind table once its rows are elsewhere (the walker's
 * map): a long run meets files by the hundred and would hold every
 * table twice. A later obj_unwind() builds it again.
 */
void obj_unwind_release(struct obj *o);

#endif /* SCRY_OBJ_H */
