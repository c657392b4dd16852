/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks, the input of flamegraph.pl and most flame graph tools:
 * "frame;frame;frame VALUE", one line per row, root first.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <scry/fold.h>
#include <scry/out.h>
#include <scry/report.h>
#include <scry/sane.h>

/* One output line being built: a ';' goes before every frame but the first. */
struct line {
	FILE *f;
	bool empty;
};

/* One frame of the row's path: a ';' before every frame but the first. */
static int put_step(void *ctx, const struct fold_step *st)
{
	struct line *l = ctx;
	bool first = l->empty;

	l->empty = false;
	if (!first && fputc(';', l->f) == EOF)
		return -EIO;
	if (fputs(st->pre, l->f) == EOF)
		return -EIO;
	/* names come from untrusted binaries and processes (sane.h) */
	if (sane_fputs(l->f, st->text, SANE_FOLDED, NULL))
		return -EIO;
	if (fputs(st->post, l->f) == EOF)
		return -EIO;
	/*
	 * --lines: where in the source, as perf's srcline does: a function
	 * splits into one frame per line it was at ("take_555 (f.c:15)")
	 */
	if (st->fr && st->fr->file && st->fr->line > 0) {
		const char *base = strrchr(st->fr->file, '/');

		if (fputs(" (", l->f) == EOF ||
		    sane_fputs(l->f, base ? base + 1 : st->fr->file,
			       SANE_FOLDED, NULL) ||
		    fprintf(l->f, ":%d)", st->fr->line) < 0)
			return -EIO;
	}
	if (fputs(st->mark, l->f) == EOF)
		return -EIO;
	return 0;
}

/*
 * The row's value scaled by folded_div, rounded to nearest (half up).
 * flamegraph.pl reads only non-negative integers and ignores zero-sample
 * lines anyway, so rows that come out <= 0 are skipped: returns false.
 */
static bool folded_value(const struct report *r, const struct report_row *row,
			 __u64 *out)
{
	__s64 v = report_row_value(r, row);
	__u64 div = r->folded_div ? r->folded_div : 1;
	__u64 q, rem;

	if (v <= 0)
		return false;
	q = (__u64)v / div;
	rem = (__u64)v % div;
	if (rem >= div - rem)
		q++;
	*out = q;
	return q > 0;
}

static int put_row(FILE *f, const struct report *r,
		   const struct report_row *row)
{
	struct line l = { .f = f, .empty = true };
	int err;
	__u64 v;

	if (!folded_value(r, row, &v))
		return 0;
	err = fold_row(row, put_step, &l);
	if (!err && fprintf(f, " %llu\n", (unsigned long long)v) < 0)
		err = -EIO;
	return err;
}

int out_folded(FILE *f, const struct report *r)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < r->nrows; i++)
		err = put_row(f, r, &r->rows[i]);
	if (err)
		return err;
	/* Buffered streams fail late: flush so the error is ours to report. */
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
