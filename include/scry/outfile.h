/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outfile: where a report goes (-o FILE, or standard output), opened
 * before anything is traced and written one whole snapshot at a time.
 *
 * scry runs as root and -o may name a place other users can write, so:
 *  - a regular file, or a name that does not exist yet, is replaced
 *    whole: each snapshot goes to a temporary file created exclusively
 *    (O_CREAT|O_EXCL|O_NOFOLLOW, a random name, mode 0600 while written)
 *    in the same directory, is synced, then renamed over the name.
 *    Readers see the previous snapshot or the next, never half of one;
 *    rename replaces a name and never writes into an existing file. The
 *    new file keeps the permission bits of the file it replaces if that
 *    was scry's user's own, else gets 0666 & ~umask.
 *  - anything else that exists (a terminal, /dev/null, a FIFO, a link to
 *    /proc/self/fd/1) is opened and written in place, never replaced.
 *  - a symbolic link anywhere in the path is followed only when it is
 *    owned by scry's effective user or by root: another user's link
 *    could point root's write anywhere. Not even the links of the user
 *    who ran sudo: a sudo rule that allows only scry must not become a
 *    way to write where their link points. Links inside /proc (/proc/self,
 *    /proc/PID/fd/N) are the kernel's and are followed by the kernel,
 *    under the same rule on their owner.
 * The directory is resolved once, when opened; every later step works
 * relative to it, so renaming a directory on the way does not redirect
 * a snapshot.
 */
#ifndef SCRY_OUTFILE_H
#define SCRY_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct outfile;

/*
 * Open @path (NULL: standard output) for the reports of a run, checking
 * that it can be written: for a replaced file, a temporary file is
 * created and removed again in its directory. A FIFO waits for its
 * reader. On failure prints one line naming the problem and returns
 * -errno (*out NULL); returns 0 otherwise.
 */
int outfile_open(const char *path, struct outfile **out);

/*
 * One snapshot, streamed: outfile_begin gives *@f to format it into
 * (written a buffer at a time, the whole text never held), outfile_end
 * closes it. A replaced file is written to a temporary beside it and
 * renamed over it by outfile_end only when @ok and every write
 * succeeded: all or nothing. In place (standard output, a FIFO, a
 * device) the buffers go as they fill, from this one thread, so nothing
 * else scry writes comes between them. Both return 0 or -errno having
 * printed one line naming it (as outfile_write); with !@ok and no write
 * failure, outfile_end returns 0 and the caller says what went wrong.
 */
int outfile_begin(struct outfile *of, FILE **f);
int outfile_end(struct outfile *of, bool ok);

/*
 * Write @len bytes at @buf as one snapshot: replaces the file (see
 * above) or writes them all in place. Returns 0 or the -errno of the
 * step that failed (-ENOSPC, not -EIO), having printed one line naming
 * it; a closed pipe (-EPIPE, | head) is not worth a line.
 */
int outfile_write(struct outfile *of, const void *buf, size_t len);

/*
 * All of @len to @fd, a non-blocking one's EAGAIN waited out (its parent
 * may have set O_NONBLOCK on a shared pipe). 0, or the -errno of the
 * write that failed (-ENOSPC, -EPIPE; -EIO: no progress). scry's one
 * write loop: the cache files (cachefile.c, corebtf.c, ksym_cache.c)
 * write through it too.
 */
int outfile_write_fd(int fd, const void *buf, size_t len);

/* The path as given, or "standard output", for messages. */
const char *outfile_name(const struct outfile *of);

/* Close @of (NULL-safe). */
void outfile_free(struct outfile *of);

#ifdef SCRY_TESTING
/*
 * Use @names (NULL-terminated, kept by the caller) as the temporary
 * names, in order, instead of random ones: tests plant links at them.
 */
void outfile_debug_tmp_names(const char *const *names);
#endif

#endif /* SCRY_OUTFILE_H */
