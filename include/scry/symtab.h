/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symtab: a sorted address -> name table with one name per address, as
 * symbolization needs it: the functions of one ELF file (its .symtab,
 * its debug file's, its .dynsym), or the kernel's (kallsyms).
 */
#ifndef SCRY_SYMTAB_H
#define SCRY_SYMTAB_H

#include <stddef.h>
#include <linux/types.h>

struct elf_file;

/* One symbol; after symtab_finish() only addr, size, name, mod matter. */
struct symtab_sym {
	__u64 addr;
	__u64 size;		/* 0: up to the next symbol */
	__u32 name;		/* offset into the table's names */
	__u32 seq;		/* input order, keeps sorting deterministic */
	__u8 rank;		/* 0 global, 1 weak, 2 local */
	__u8 us;		/* leading underscores, capped */
	__u16 mod;		/* caller's tag (kernel: module index) */
};

struct symtab {
	struct symtab_sym *v;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

/* Rank of an ELF binding: STB_GLOBAL/GNU_UNIQUE 0, WEAK 1, others 2. */
int symtab_bind_rank(unsigned char bind);

/* Append one symbol (@name[0..@len), copied). Returns 0 or -errno. */
int symtab_add(struct symtab *t, __u64 addr, __u64 size, const char *name,
	       size_t len, int rank, unsigned int mod);

/*
 * Append the defined function symbols of @f's @tables (ELF_SYMS_*),
 * names without their version. Returns 0, -ENOMEM, or -EINTR when
 * stop_requested().
 */
int symtab_add_elf(struct symtab *t, struct elf_file *f, unsigned int tables);

/*
 * Sort and keep one symbol per address: strongest binding, then fewest
 * leading underscores (malloc, not __libc_malloc), then input order; the
 * group's largest size is kept.
 */
void symtab_finish(struct symtab *t);

/* The symbol covering @addr (within its size, if it has one), or NULL. */
const struct symtab_sym *symtab_find(const struct symtab *t, __u64 addr);

/* The last symbol at or below @addr whatever its size (kallsyms), or NULL. */
const struct symtab_sym *symtab_floor(const struct symtab *t, __u64 addr);

static inline const char *symtab_name(const struct symtab *t,
				      const struct symtab_sym *s)
{
	return t->names + s->name;
}

/* Free the arrays (the struct itself is the caller's); NULL-safe. */
void symtab_clear(struct symtab *t);

#endif /* SCRY_SYMTAB_H */
