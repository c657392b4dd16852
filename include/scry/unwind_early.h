/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_early: the DWARF tables of the files a -c command runs first
 * (its executable, ld.so, libc), built on a thread while the engine
 * loads. The held exec and mmap (cmd.h) then find them in the file
 * cache and only write their rows into the walker's maps: building
 * libc's alone took ~1.6 ms of each launch, with the command held.
 */
#ifndef SCRY_UNWIND_EARLY_H
#define SCRY_UNWIND_EARLY_H

#include <stddef.h>

struct obj_cache;
struct unwind_early;

/*
 * Open the @n files at @paths (fsafe.h: those that cannot be opened or
 * are no ELF files are passed over) and build their tables on a new
 * thread. Returns NULL (errno set) when there is nothing to build or no
 * thread.
 */
struct unwind_early *unwind_early_start(const char *const *paths, size_t n);

/*
 * Wait for the builds and give each table to its file's obj in @c
 * (obj_unwind_set()), then free @u. NULL-safe; @c NULL frees only.
 */
void unwind_early_finish(struct unwind_early *u, struct obj_cache *c);

#endif /* SCRY_UNWIND_EARLY_H */
