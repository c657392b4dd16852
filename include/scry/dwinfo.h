/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwinfo: what a file's DWARF says about a pc: the inlined functions it
 * lies in (innermost first), the out-of-line function around them, and
 * source lines (libdw).
 */
#ifndef SCRY_DWINFO_H
#define SCRY_DWINFO_H

#include <stdbool.h>
#include <linux/types.h>

struct elf_file;
struct dwinfo;

/* Inlining nests deeper than this are cut (the outer frames dropped). */
#define DWINFO_MAX_INLINE	32

struct dwinfo_func {
	const char *name;	/* linkage name if any, else DW_AT_name; may
				 * be NULL */
	bool inlined;		/* an inlined instance, else the subprogram */
	bool has_entry;
	__u64 entry;		/* the subprogram's entry pc */
	const char *file;	/* with @lines: source file, or NULL */
	int line;		/* with @lines: line, 0 if unknown */
};

/*
 * Open the DWARF of @f (borrowed: it must outlive the dwinfo) and index
 * its compile units. NULL with errno: ENOENT when @f has no DWARF,
 * EINTR when stop_requested(), ENOMEM.
 */
struct dwinfo *dwinfo_new(struct elf_file *f);
void dwinfo_free(struct dwinfo *d);

/*
 * The functions holding ELF vaddr @pc, innermost first: inlined
 * instances, then the subprogram; at most @max (<= DWINFO_MAX_INLINE).
 * With @lines, out[0] gets @pc's line and out[i] the line out[i-1] was
 * called from. @out has room for @max + 1: out[k] (k = the count) gets
 * the line of a frame the caller appends after them (name NULL).
 * Strings belong to the DWARF data. Returns the count (0 when no
 * function is known there), or -ENOENT when no compile unit covers @pc.
 */
int dwinfo_funcs(struct dwinfo *d, __u64 pc, struct dwinfo_func *out,
		 int max, bool lines);

#endif /* SCRY_DWINFO_H */
