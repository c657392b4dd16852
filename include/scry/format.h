/* SPDX-License-Identifier: GPL-2.0 */
/*
 * format: the table of output formats. main.c's format options (--NAME),
 * its help, and -o FILE's extension dispatch all read this table, so a
 * new format is one printer file and one row here.
 */
#ifndef SCRY_FORMAT_H
#define SCRY_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

struct report;

struct format {
	const char *name;	/* --NAME selects it; "text" is the default */
	const char *ext;	/* -o FILE.EXT selects it; NULL: none */
	const char *help;	/* --help line: what it writes */
	int (*print)(FILE *f, const struct report *r);
	bool binary;		/* not text: refused on a terminal */
	bool mappings;		/* frames need their file and build-id */
};

/* The formats, "text" first; ends with a row whose name is NULL. */
extern const struct format format_table[];

/* The default: DTrace's printa layout (or the read/write file table). */
const struct format *format_text(void);

/* The format named @name ("json"), or NULL. */
const struct format *format_named(const char *name);

/* The format whose extension ends @path ("cpu.pb.gz"), or NULL. */
const struct format *format_for_path(const char *path);

#endif /* SCRY_FORMAT_H */
