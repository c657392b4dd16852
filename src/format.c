// SPDX-License-Identifier: GPL-2.0
/*
 * format: the output formats (include/scry/format.h).
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <scry/format.h>
#include <scry/out.h>
#include <scry/report.h>

/*
 * An --interval snapshot's first line says when it was taken (local
 * time), as the time() line bpftrace and DTrace interval scripts print
 * before each printa: "2026-11-30 16:18:31 (snapshot 3, 1.0 s)".
 */
static int time_line(FILE *f, const struct report *r)
{
	time_t t = (time_t)(r->time_ns / 1000000000);
	char when[32] = "unknown time";
	struct tm tm;

	if (r->time_ns > 0 && localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	return fprintf(f, "%s (snapshot %d, %.1f s)\n", when, r->snapshot,
		       r->duration_s) < 0 ? -EIO : 0;
}

/* Text: the snapshot's time, then the read/write file table or printa's. */
static int print_text(FILE *f, const struct report *r)
{
	if (r->snapshot && time_line(f, r))
		return -EIO;
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
	{ "pprof", ".pb.gz", "gzipped profile.proto for go tool pprof, "
	  "Pyroscope, Parca (docs/PPROF.md)", out_pprof, true, true },
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
