/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * resolve: user-space probe targets as written on the command line ->
 * what libbpf attaches to. "uprobe:LIB:FUNC" needs LIB as an ELF path and
 * FUNC as a file offset; "usdt:BIN:PROVIDER:NAME" needs the probe to exist
 * in BIN's .note.stapsdt notes; "scry -l" lists functions and probes
 * matching fnmatch(3) globs.
 *
 * Functions are defined STT_FUNC or STT_GNU_IFUNC symbols of .symtab and
 * .dynsym. Their names may carry a symbol version, "malloc@@GLIBC_2.2.5"
 * (the default version) or "memcpy@GLIBC_2.2.5" (an older one); a name
 * written without a version matches every version and resolves to the
 * default one. For an STT_GNU_IFUNC symbol (memcpy, strlen, ...) the
 * file only names the resolver, which runs once at load time; when this
 * process has the same file loaded (libc), the offset is that of the
 * implementation the dynamic linker picks on this machine instead.
 *
 * Functions taking @err/@errlen write a one-line message that names the
 * fix into @err on failure (nothing when @err is NULL or @errlen is 0);
 * RESOLVE_ERR_LEN bytes always hold it, longer ones are cut.
 */
#ifndef SCRY_RESOLVE_H
#define SCRY_RESOLVE_H

#include <stddef.h>
#include <linux/types.h>

#define RESOLVE_ERR_LEN	512

/* A function of an ELF file. */
struct resolve_func {
	char *name;		/* without its version: "malloc" */
	__u64 addr;		/* st_value, a link-time virtual address */
	__u64 offset;		/* file offset: func_offset for libbpf */
};

/* One USDT probe site: one .note.stapsdt note. */
struct resolve_usdt {
	char *provider;		/* "app" */
	char *name;		/* "request_start" */
	char *args;		/* "-4@%edi 8@%rsi", "" when it has none */
	__u64 pc;		/* probe address as the note records it */
	__u64 offset;		/* file offset of the probe instruction, 0 if
				 * no PT_LOAD holds it (relocatable files) */
	__u64 semaphore;	/* address of its semaphore, 0 if none */
};

/*
 * Find the ELF file that @lib names.
 * @lib: as the user writes it. With a '/' it is a path ("./server",
 *	"/usr/lib/x86_64-linux-gnu/libc.so.6"), taken as given. Otherwise it
 *	is a bare name ("libc", "c", "libc.so.6", "libpthread", "bash"),
 *	matched against file names NAME, NAME.so, NAME.so.*, libNAME.so,
 *	libNAME.so.*, NAME-VERSION.so and libNAME-VERSION.so, best first in
 *	that order; only ELF files for this machine count.
 * @pid: when > 0, search only the files that process maps (its
 *	/proc/PID/maps: the executable and its libraries). Otherwise search
 *	the ld.so cache, then /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu,
 *	/lib64 and /usr/lib, then $PATH (exact program names only). A name
 *	the process does not map is an error even if it may dlopen() it
 *	later: give a path then.
 * @path, @pathlen: receive the absolute path (symlinks resolved, except
 *	that paths from a process's maps are kept as the kernel shows them).
 * @err, @errlen: receive the reason on failure.
 *
 * Returns 0 or a negative errno: -ENOENT when nothing matches, -ESRCH when
 * @pid does not exist, -ENOEXEC when the file is not an ELF file,
 * -ENAMETOOLONG when @pathlen is too small.
 */
int resolve_lib(const char *lib, int pid, char *path, size_t pathlen,
		char *err, size_t errlen);

/*
 * Find function @func of the ELF file @path.
 * @path: an ELF file, typically from resolve_lib().
 * @func: a symbol name, plain ("malloc") or versioned
 *	("malloc@@GLIBC_2.2.5", "realpath@GLIBC_2.2.5"). "NAME@VER" matches
 *	NAME of version VER whether or not it is the default version;
 *	"NAME@@VER" only the default one.
 * @offset: receives the file offset of the function's first instruction
 *	(st_value converted through the PT_LOAD segment holding it).
 * @err, @errlen: receive the reason on failure, with up to 3 names close
 *	to @func ("did you mean: malloc, calloc?").
 *
 * Returns 0 or a negative errno: -ENOENT when @path defines no such
 * function, -ENOEXEC when @path is not an ELF file, -EINVAL when the
 * symbol lies outside every loadable segment.
 */
int resolve_func(const char *path, const char *func, __u64 *offset,
		 char *err, size_t errlen);

/*
 * List the functions of the ELF file @path whose name (without version)
 * matches the fnmatch(3) glob @glob (NULL: all), sorted by name, each
 * name once (for a name with several versions or definitions, the one
 * resolve_func() would pick).
 * @out, @n: receive a malloc'ed array of @n entries (NULL and 0 when
 *	nothing matches), owned by the caller: free with resolve_funcs_free().
 *
 * Returns 0 or a negative errno (-ENOENT, -ENOEXEC, -ENOMEM, ...).
 */
int resolve_funcs(const char *path, const char *glob,
		  struct resolve_func **out, size_t *n);

/* Free an array from resolve_funcs() (NULL-safe). */
void resolve_funcs_free(struct resolve_func *f, size_t n);

/*
 * List the USDT probes of the ELF file @path whose provider matches the
 * glob @provider and whose name matches the glob @name (NULL: all),
 * sorted by provider, name and address. A probe compiled in at several
 * places appears once per place.
 * @out, @n: receive a malloc'ed array of @n entries (NULL and 0 when
 *	nothing matches), owned by the caller: free with resolve_usdts_free().
 *
 * Returns 0 or a negative errno (-ENOENT, -ENOEXEC, -ENOMEM, ...).
 */
int resolve_usdts(const char *path, const char *provider, const char *name,
		  struct resolve_usdt **out, size_t *n);

/* Free an array from resolve_usdts() (NULL-safe). */
void resolve_usdts_free(struct resolve_usdt *u, size_t n);

/*
 * Check that the ELF file @path has at least one USDT probe matching
 * @provider and @name (fnmatch(3) globs; plain names match exactly, as
 * bpf_program__attach_usdt() needs them).
 * @err, @errlen: receive the reason on failure, listing up to 5 of the
 *	probes @path has, closest to the request first.
 *
 * Returns 0 or a negative errno: -ENOENT when no probe matches, -ENOEXEC
 * when @path is not an ELF file.
 */
int resolve_usdt_check(const char *path, const char *provider,
		       const char *name, char *err, size_t errlen);

/*
 * Read the ld.so cache from @file instead of /etc/ld.so.cache (NULL: the
 * default again), e.g. for a root filesystem mounted elsewhere or tests.
 * resolve_lib() parses the "glibc-ld.so.cache1.1" format itself (alone
 * or after an old "ld.so-1.7.0" part); when the file cannot be read or
 * holds no such part, it falls back to the output of
 * "/sbin/ldconfig -p -C FILE". Not thread-safe.
 */
void resolve_set_ld_cache(const char *file);

#endif /* SCRY_RESOLVE_H */
