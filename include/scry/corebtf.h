/* SPDX-License-Identifier: GPL-2.0 */
/*
 * corebtf: the target BTF the engine's CO-RE reads are relocated against.
 * Not all of vmlinux BTF (5 MiB, ~126,000 types, parsed and then scanned
 * once per relocated type at every load) but the few thousand types the
 * engine's own names reach, cut from it once per kernel and engine and
 * kept in a root-only cache directory (src/corebtf.c says what is kept
 * and why the relocations come out the same).
 */
#ifndef SCRY_COREBTF_H
#define SCRY_COREBTF_H

#include <stddef.h>

struct btf;

/* Where the cache lives: created 0700, root's, on first use. */
#define COREBTF_DIR	"/var/cache/scry"

/*
 * The target BTF for the engine @obj (its ELF, @objsz bytes) on this
 * kernel, from cache directory @dir, else cut from @vmlinux() (parsed
 * only then) and written to @dir when @dir is safe and writable.
 * Returns a descriptor of it (scry only reads through it), whose
 * /proc/self/fd path is for libbpf's btf_custom_path, or -1: use all of
 * vmlinux BTF (nothing is said; -v tells why).
 */
int corebtf_open(const char *dir, const void *obj, size_t objsz,
		 struct btf *(*vmlinux)(void));

/*
 * The load with @fd's BTF failed: its cached file is removed, so the
 * next run cuts a new one.
 */
void corebtf_drop(const char *dir, const void *obj, size_t objsz);

/*
 * The subset of @vmlinux CO-RE needs for @local's types: every vmlinux
 * type whose name (less a ___flavour suffix) a struct, union, enum or
 * typedef of @local has, whole; what their members are, through arrays,
 * typedefs and modifiers; other named structs and unions as members as
 * shells of the same name and size. NULL on failure (errno).
 */
struct btf *corebtf_cut(const struct btf *local, const struct btf *vmlinux);

#endif
