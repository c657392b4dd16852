// SPDX-License-Identifier: GPL-2.0
/*
 * format: the output formats (include/scry/format.h).
 */
#include <string.h>
#include <scry/format.h>
#include <scry/out.h>
#include <scry/report.h>

/* Text: the read/write file table, or printa's layout. */
static int print_text(FILE *f, const struct report *r)
{
	if (r->files_verb)
		return out_files(f, r, r->files_verb);
	return out_text(f, r);
}

const struct format format_table[] = {
	{ "text", NULL, NULL, print_text, false, false },
	{ "folded", ".folded", "folded stacks for flamegraph.pl, one line "
	  "per stack", out_folded, false, false },
	{ "json", ".json", "one JSON document per run (per snapshot with "
	  "--interval); docs/JSON.md has the schema", out_json, false, false },
	{ "svg", ".svg", "an interactive flame graph (click to zoom, "
	  "Ctrl-F to search)", out_svg, false, false },
	{ NULL, NULL, NULL, NULL, false, false },
};

const struct format *format_text(void)
{
	return &format_table[0];
}

const struct format *format_named(const char *name)
{
	const struct format *fm;

	for (fm = format_table; fm->name; fm++)
		if (!strcmp(fm->name, name))
			return fm;
	return NULL;
}

const struct format *format_for_path(const char *path)
{
	size_t n = strlen(path), e;
	const struct format *fm;

	for (fm = format_table; fm->name; fm++) {
		if (!fm->ext)
			continue;
		e = strlen(fm->ext);
		/* "x.svg", not ".svg" alone: that is a hidden file's name */
		if (n > e && !strcmp(path + n - e, fm->ext) &&
		    path[n - e - 1] != '/')
			return fm;
	}
	return NULL;
}
