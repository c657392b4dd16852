/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks, the input of flamegraph.pl and most flame graph tools:
 * "frame;frame;frame VALUE", one line per distinct path, root first.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* One distinct line: its path's text in the buffer, its rows' values. */
struct folded {
	size_t off, len;	/* the path in the memstream's buffer */
	struct report_row row;	/* the merged value (val only, no slots) */
	__s64 value;		/* report_row_value of the merged value */
	size_t first;		/* the first row of the line: its place */
};

struct folded_set {
	const char *buf;
	const struct report *r;
};

static int cmp_size(size_t a, size_t b)
{
	return (a > b) - (a < b);
}

static int cmp_text(const struct folded *a, const struct folded *b,
		    const char *buf)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(buf + a->off, buf + b->off, n);

	return c ? c : cmp_size(a->len, b->len);
}

/* by the line, then by row: a merged line keeps its first row's place */
static int cmp_by_text(const void *pa, const void *pb, void *arg)
{
	const struct folded *a = pa, *b = pb;
	int c = cmp_text(a, b, arg);

	return c ? c : cmp_size(a->first, b->first);
}

static int cmp_by_place(const void *pa, const void *pb)
{
	const struct folded *a = pa, *b = pb;

	return cmp_size(a->first, b->first);
}

/* printa's order again, ascending by value, once lines were merged */
static int cmp_by_value(const void *pa, const void *pb)
{
	const struct folded *a = pa, *b = pb;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return cmp_by_place(a, b);
}

/*
 * Every row's path as text, one after the other in @mem; @ls[i] where
 * row i's is. Names only, no offsets: rows that differ in offsets alone
 * (or in anything else the line does not show) are one line.
 */
static int fold_all(FILE *mem, const struct report *r, struct folded *ls)
{
	struct line l = { .f = mem };
	size_t i;
	long pos;
	int err;

	for (i = 0; i < r->nrows; i++) {
		pos = ftell(mem);
		l.empty = true;
		err = fold_row(&r->rows[i], put_step, &l);
		if (err)
			return err;
		ls[i].off = pos;
		ls[i].len = ftell(mem) - pos;
		ls[i].row.val = r->rows[i].val;
		ls[i].row.val.slots = NULL;
		ls[i].first = i;
	}
	return fflush(mem) ? -ENOMEM : 0;
}

/*
 * One line per distinct path: flamegraph.pl and its kin expect each
 * once, and --help promises it. Lines keep the rows' order (printa's,
 * from report_sort) unless some merged: then, their sums changed, they
 * are sorted by value again.
 */
int out_folded(FILE *f, const struct report *r)
{
	struct folded *ls = NULL;
	char *buf = NULL;
	size_t i, n = 0, size = 0;
	FILE *mem;
	int err = 0;
	__u64 v;

	if (r->nrows) {
		ls = calloc(r->nrows, sizeof(*ls));
		mem = ls ? open_memstream(&buf, &size) : NULL;
		if (!mem) {
			free(ls);
			return -ENOMEM;
		}
		err = fold_all(mem, r, ls);
		if (fclose(mem) && !err)
			err = -ENOMEM;
	}
	if (!err && r->nrows) {
		qsort_r(ls, r->nrows, sizeof(*ls), cmp_by_text, buf);
		for (i = 1; i < r->nrows; i++) {
			if (!cmp_text(&ls[n], &ls[i], buf))
				report_val_add(&ls[n].row.val, &ls[i].row.val);
			else
				ls[++n] = ls[i];
		}
		n++;
		for (i = 0; i < n; i++)
			ls[i].value = report_row_value(r, &ls[i].row);
		qsort(ls, n, sizeof(*ls), n < r->nrows ? cmp_by_value :
		      cmp_by_place);
	}
	for (i = 0; !err && i < n; i++) {
		if (!folded_value(r, &ls[i].row, &v))
			continue;
		if (fwrite(buf + ls[i].off, 1, ls[i].len, f) != ls[i].len ||
		    fprintf(f, " %llu\n", (unsigned long long)v) < 0)
			err = -EIO;
	}
	free(ls);
	free(buf);
	if (err)
		return err;
	/* Buffered streams fail late: flush so the error is ours to report. */
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
