/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debuginfo: finding a binary's separate debug file, as gdb does:
 * /usr/lib/debug/.build-id/xx/yyyy.debug by build-id, then the
 * .gnu_debuglink name next to the binary, in its .debug/ directory and
 * under /usr/lib/debug. A candidate is used only when it proves to
 * belong to the binary: the same build-id when both carry one, else the
 * CRC32 the debuglink records.
 */
#ifndef SCRY_DEBUGINFO_H
#define SCRY_DEBUGINFO_H

#include <stddef.h>
#include <linux/types.h>

struct elf_file;

/*
 * The debug file of @f, which was found at @path (for the debuglink
 * directories; NULL: build-id only). Only a debug file with a .symtab
 * counts. Returns a new elf_file (free with elf_file_free) or NULL with
 * errno: ENOENT when there is none, EINTR when stop_requested().
 */
struct elf_file *debuginfo_find(const struct elf_file *f, const char *path);

/*
 * The build-id path of @id[0..@len) under the debug root, into @buf.
 * Returns 0, -EINVAL for an id shorter than 2 bytes, -ENAMETOOLONG.
 */
int debuginfo_build_id_path(const __u8 *id, size_t len, char *buf,
			    size_t size);

/*
 * The @i-th place (0, 1, 2) a debuglink @name of a binary at @path is
 * looked for, into @buf. Returns 0, -ENOENT past the last, -EINVAL when
 * @path has no directory or @name is unusable, -ENAMETOOLONG.
 */
int debuginfo_link_path(const char *path, const char *name, int i,
			char *buf, size_t size);

/* Look under @dir instead of /usr/lib/debug (NULL: the default; tests). */
void debuginfo_set_root(const char *dir);

#endif /* SCRY_DEBUGINFO_H */
