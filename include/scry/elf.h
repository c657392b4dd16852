/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf: one reader for the ELF files scry looks into (uprobe targets,
 * USDT notes, symbol tables, debug files, unwind tables, the vDSO):
 * open from a descriptor or a memory image, loadable segments and the
 * address <-> file offset mapping through them, the build-id, sections,
 * the .gnu_debuglink, and one iterator over function symbols. Modelled on
 * libbpf's elf.c; the names say elf_file and elf_sym because libelf owns
 * the elf_ prefix.
 */
#ifndef SCRY_ELF_H
#define SCRY_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <gelf.h>
#include <linux/types.h>

#define ELF_BUILD_ID_MAX	64

struct elf_file;

/* One PT_LOAD segment. */
struct elf_seg {
	__u64 vaddr;
	__u64 off;
	__u64 filesz;
	__u64 memsz;
	bool exec;
};

/*
 * Open the ELF file at @fd (not closed, not needed afterwards: the image
 * is mapped). @name is kept for messages (copied). Returns NULL with
 * errno set: ENOEXEC when it is not an ELF file, ENOMEM.
 */
struct elf_file *elf_file_open(int fd, const char *name);

/* The same from an image in memory (copied): the vDSO, fuzzers. */
struct elf_file *elf_file_mem(const char *name, const void *image,
			      size_t size);

void elf_file_free(struct elf_file *f);

/*
 * Done reading @f for now (its unwind table built): the pages of a
 * mapped image leave scry's resident memory; they are clean, read again
 * from the file on the next use. A copy in memory is left alone.
 */
void elf_file_pageout(const struct elf_file *f);

Elf *elf_file_elf(const struct elf_file *f);
const char *elf_file_name(const struct elf_file *f);
const GElf_Ehdr *elf_file_ehdr(const struct elf_file *f);

/* The PT_LOAD segments, in program header order. */
const struct elf_seg *elf_file_segs(const struct elf_file *f, size_t *n);

/*
 * ELF virtual address -> file offset through the PT_LOAD whose file
 * bytes hold it. Returns 0 or -ENOENT.
 */
int elf_file_vaddr_to_off(const struct elf_file *f, __u64 vaddr, __u64 *off);

/*
 * File offset -> ELF virtual address, through the PT_LOAD holding it
 * (an executable one first: code is what gets looked up). A mapping
 * starts at the page holding a segment's first byte, so the page before
 * the segment's offset counts as the segment's. Returns 0 or -ENOENT.
 */
int elf_file_off_to_vaddr(const struct elf_file *f, __u64 off, __u64 *vaddr);

/*
 * Load bias of a mapping of this file at @start from file offset
 * @pgoff (as /proc/PID/maps says): ELF vaddr = address - bias.
 */
int elf_file_bias(const struct elf_file *f, __u64 start, __u64 pgoff,
		  __u64 *bias);

/* The GNU build-id (note sections, else PT_NOTE): length, 0 if none. */
size_t elf_file_build_id(const struct elf_file *f, const __u8 **id);

/*
 * The first section of type @type (SHT_NULL: any) named @name (NULL:
 * any), with its header in @sh (may be NULL). NULL when there is none.
 */
Elf_Scn *elf_file_scn(const struct elf_file *f, Elf64_Word type,
		      const char *name, GElf_Shdr *sh);

/* True when the file carries DWARF debug info (.debug_info with bytes). */
bool elf_file_has_dwarf(const struct elf_file *f);

/*
 * The .gnu_debuglink: the debug file's name (no '/', NUL-terminated
 * inside the section) and its CRC32. Returns 0 or -ENOENT.
 */
int elf_file_debuglink(const struct elf_file *f, const char **name,
		       __u32 *crc);

/* ---- function symbols ------------------------------------------------ */

#define ELF_SYMS_SYMTAB	(1U << 0)	/* .symtab */
#define ELF_SYMS_DYNSYM	(1U << 1)	/* .dynsym */

/* One STT_FUNC or STT_GNU_IFUNC symbol with a name. */
struct elf_sym {
	const char *name;	/* as stored: "foo", or (.symtab) "foo@@V1" */
	size_t baselen;		/* length of "foo" */
	const char *ver;	/* "V1", NULL when unversioned */
	bool deflt;		/* unversioned or the default version */
	__u64 value;		/* st_value */
	__u64 size;		/* st_size */
	unsigned char bind;	/* STB_* */
	bool defined;		/* has an address in this file */
	bool ifunc;		/* STT_GNU_IFUNC: value is the resolver's */
	bool dynsym;		/* from .dynsym */
};

struct elf_sym_iter;

/*
 * Iterate the function symbols of @tables (ELF_SYMS_*), .symtab before
 * .dynsym. Versions come from the name ("foo@@V1", .symver) or from
 * .gnu.version/.gnu.version_d. Strings point into @f and live as long
 * as it does. NULL with errno ENOMEM.
 */
struct elf_sym_iter *elf_sym_iter_new(struct elf_file *f, unsigned int tables);

/*
 * The next symbol into @out: 1, 0 at the end, or -EINTR when
 * stop_requested() said to give up (checked every few thousand).
 */
int elf_sym_iter_next(struct elf_sym_iter *it, struct elf_sym *out);

void elf_sym_iter_free(struct elf_sym_iter *it);

#endif /* SCRY_ELF_H */
