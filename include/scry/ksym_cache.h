/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym_cache: the core kernel's text symbols kept on disk for one boot,
 * so a run that names a kernel frame does not read all of /proc/kallsyms
 * (122,000 lines: ~40 ms of the kernel's formatting plus ~20 ms of
 * parsing, every run). Core-kernel text does not move within a boot;
 * modules and BPF programs do, and are never cached. The file is
 * root's private data (kallsyms addresses): it lives in a directory
 * owned by the caller's euid and closed to others, is replaced only by
 * rename, and anything else found there is refused, never followed.
 */
#ifndef SCRY_KSYM_CACHE_H
#define SCRY_KSYM_CACHE_H

#include <stddef.h>
#include <linux/types.h>

struct symtab;
struct ksym_cache;

/* Where scry keeps it: tmpfs, emptied at every boot. */
#define KSYM_CACHE_DIR	"/run/scry"
#define KSYM_CACHE_FILE	"kallsyms"

/* Size of a boot id: 36 characters of /proc/sys/kernel/random/boot_id. */
#define KSYM_BOOT_ID_LEN	36

/* This boot's id into @id (KSYM_BOOT_ID_LEN + 1 bytes). 0 or -errno. */
int ksym_cache_boot_id(char *id);

/*
 * Map @dir/kallsyms if it is a valid cache of boot @boot_id: a regular
 * file owned by the euid, closed to others, one link, consistent sizes,
 * its checksum right (its addresses were sorted when written); @dir a
 * real directory owned by the euid and closed to others. NULL with
 * errno otherwise: ENOENT (no cache), ELOOP (the file a symlink),
 * ENOTDIR (@dir a symlink or not a directory), EPERM (wrong owner or
 * mode), EBADMSG (corrupt, truncated, another boot's, another version).
 */
struct ksym_cache *ksym_cache_open(const char *dir, const char *boot_id);
void ksym_cache_free(struct ksym_cache *c);

/*
 * Write the symbols @t->v[@first .. @first + @n) of a finished symtab
 * (sorted, one per address) as the cache of boot @boot_id: they answer
 * addresses from the first one up to (not including) @end. Creates
 * @dir (0700) if missing; writes a new file and renames it over the
 * old, so a reader sees the old cache or the new one, never a part.
 * Returns 0 or -errno (ENOTDIR/EPERM: @dir is not safe to write in).
 */
int ksym_cache_write(const char *dir, const char *boot_id,
		     const struct symtab *t, size_t first, size_t n,
		     __u64 end);

/*
 * The cached function at or below @addr and @addr's offset into it.
 * The name belongs to @c. Returns 0, or -ERANGE when @addr is outside
 * the cached range (ask the live kallsyms).
 */
int ksym_cache_find(const struct ksym_cache *c, __u64 addr,
		    const char **name, __u64 *off);

#endif /* SCRY_KSYM_CACHE_H */
