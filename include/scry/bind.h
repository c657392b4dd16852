/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bind: which definition of a function a process really calls, as the
 * dynamic linker binds it. ld.so searches the executable first, then each
 * LD_PRELOAD library, then the libraries in the breadth-first order of
 * their DT_NEEDED entries; the first that exports the name wins. So the
 * malloc question probes the allocator a process uses (jemalloc in redis,
 * tcmalloc by LD_PRELOAD), not libc's malloc that nobody calls there.
 */
#ifndef SCRY_BIND_H
#define SCRY_BIND_H

#include <stdbool.h>
#include <stddef.h>

struct elf_file;
struct obj;
struct obj_cache;

/*
 * True when @f exports @func for others to bind to: a defined, global or
 * weak function of .dynsym (its default version). With @static_exe, an
 * executable without an interpreter, whose own .symtab definition is
 * what it calls.
 */
bool bind_exports(struct elf_file *f, const char *func, bool static_exe);

/*
 * @f's DT_SONAME (NULL if none) and its first @max DT_NEEDED names, in
 * order, pointing into @f. Returns how many names.
 */
size_t bind_needed(struct elf_file *f, const char **soname,
		   const char **needed, size_t max);

/* True for an ELF executable without PT_INTERP (linked statically). */
bool bind_is_static(struct elf_file *f);

/* What bind_pid() found. */
struct bind_choice {
	struct obj *obj;	/* the file that defines it */
	unsigned long long start, end;	/* one of its mappings in the pid */
};

/*
 * The definition of @func that running process @pid binds to, among the
 * files it maps (read through @c). Returns 0, or -ENOENT when none of its
 * files exports @func, -ESRCH when @pid is gone, -errno.
 */
int bind_pid(int pid, struct obj_cache *c, const char *func,
	     struct bind_choice *out);

#endif /* SCRY_BIND_H */
