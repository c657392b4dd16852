/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachefile: a cache file of root's in a directory only root writes, the
 * one place that decides when such a file may be used and how a new one
 * is put there. corebtf.c (the cut of vmlinux BTF) and ksym_cache.c (the
 * core kernel's symbols) keep only their formats and keys.
 *
 * The rules: the directory is opened without following a link, and is
 * used only when it is a directory the euid owns that no one else may
 * write in (with CACHEFILE_SECRET: no one else may enter); a file is
 * opened without following a link or blocking (a FIFO planted there),
 * and is used only when it is a regular file of one link, the euid's,
 * closed to others the same way, within a size bound. A new file is
 * written to a temporary name, synced, and renamed over the old, so a
 * reader sees the old file or the new one whole, and a link planted
 * under the name is replaced, never followed. Where the directory
 * cannot take the file (read-only, another user's), a caller keeps it
 * in memory (cachefile_memfd) or goes without.
 */
#ifndef SCRY_CACHEFILE_H
#define SCRY_CACHEFILE_H

#include <stddef.h>

struct stat;

/* Directory and file closed to others altogether, reads included. */
#define CACHEFILE_SECRET	0x1u
/* cachefile_dir: make the directory (0700) when it is missing. */
#define CACHEFILE_CREATE	0x2u

/* Room for a temporary's name: NAME.PID.tmp, NAME up to 64 bytes. */
#define CACHEFILE_TMP_LEN	96

/*
 * The cache directory @path as a descriptor, made first with
 * CACHEFILE_CREATE. Returns it, or -errno: ENOENT (missing), ENOTDIR (a
 * link, or not a directory), EPERM (another owner, or others may write
 * in it; with CACHEFILE_SECRET, open to others at all), or what mkdir
 * or open said (EROFS, EACCES).
 */
int cachefile_dir(const char *path, unsigned int flags);

/*
 * File @name of cache directory @dfd, read-only, if the cache may use
 * it (the rules above, @flags' CACHEFILE_SECRET included) and it holds
 * 1 to @max bytes; *@st is its stat. Returns the descriptor, or -errno:
 * ENOENT (none), ELOOP (a link), EPERM (not a regular file, more than
 * one link, another owner, open to others), EBADMSG (empty, too large),
 * or what open said.
 */
int cachefile_open(int dfd, const char *name, unsigned int flags,
		   size_t max, struct stat *st);

/*
 * A new file to become @name of @dfd: created exclusively, 0600, under
 * the temporary name written to @tmp (CACHEFILE_TMP_LEN bytes); a
 * leftover of a killed run with this pid is removed first. Returns a
 * read-write descriptor, or -errno (EROFS, EACCES: nowhere to keep it).
 */
int cachefile_create(int dfd, const char *name, char *tmp);

/*
 * Finish the file cachefile_create() made: with @err 0, synced and
 * renamed over @name; with @err set, or when that fails, @tmp removed.
 * @fd stays open. Returns 0, @err, or the sync's or rename's -errno.
 */
int cachefile_commit(int dfd, const char *tmp, const char *name, int fd,
		     int err);

/*
 * @len bytes at @p in a memory file called @name, for this run alone
 * (the cache could not keep them). Returns its descriptor or -errno.
 */
int cachefile_memfd(const char *name, const void *p, size_t len);

#endif /* SCRY_CACHEFILE_H */
