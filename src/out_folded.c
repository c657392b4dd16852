/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks, the input of flamegraph.pl and most flame graph tools:
 * "frame;frame;frame VALUE", one line per row, root first.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <scry/out.h>
#include <scry/report.h>

/* One output line being built: a ';' goes before every frame but the first. */
struct line {
	FILE *f;
	bool empty;
};

/*
 * ';' separates frames and a newline ends the line, so neither may appear
 * inside one; other control characters become '?' as well, since symbol
 * names and comm come from untrusted binaries and processes.
 */
static bool is_bad(unsigned char c)
{
	return c == ';' || c < 0x20 || c == 0x7f;
}

static int put_sane(FILE *f, const char *s)
{
	size_t n;

	while (*s) {
		for (n = 0; s[n] && !is_bad(s[n]); n++)
			;
		if (n && fwrite(s, 1, n, f) != n)
			return -EIO;
		s += n;
		if (!*s)
			break;
		if (fputc(*s == ';' ? ':' : '?', f) == EOF)
			return -EIO;
		s++;
	}
	return 0;
}

static int begin_frame(struct line *l)
{
	bool first = l->empty;

	l->empty = false;
	if (!first && fputc(';', l->f) == EOF)
		return -EIO;
	return 0;
}

/* A frame of plain text: comm, a path, a marker; NULL or "" is unknown. */
static int put_text(struct line *l, const char *s)
{
	int err = begin_frame(l);

	if (err)
		return err;
	return put_sane(l->f, s && *s ? s : "[unknown]");
}

static int put_int(struct line *l, __s64 v)
{
	int err = begin_frame(l);

	if (err)
		return err;
	return fprintf(l->f, "%lld", (long long)v) < 0 ? -EIO : 0;
}

/* "[module]" for an address with no symbol: still groups by binary. */
static int put_module(FILE *f, const char *module)
{
	int err;

	if (fputc('[', f) == EOF)
		return -EIO;
	err = put_sane(f, module);
	if (!err && fputc(']', f) == EOF)
		err = -EIO;
	return err;
}

/* Symbol name only: modules and offsets would split one function. */
static int put_frame(struct line *l, const struct report_frame *fr,
		     bool kernel)
{
	const char *suffix = fr->inlined ? "_[i]" : kernel ? "_[k]" : "";
	int err = begin_frame(l);

	if (err)
		return err;
	if (fr->sym)
		err = put_sane(l->f, fr->sym);
	else if (fr->module)
		err = put_module(l->f, fr->module);
	else
		err = fputs("[unknown]", l->f) < 0 ? -EIO : 0;
	if (!err && fputs(suffix, l->f) < 0)
		err = -EIO;
	return err;
}

/*
 * Stacks are stored leaf first; folded wants the root first. A truncated
 * walk lost its root-most frames, so the marker goes where they would be.
 */
static int put_stack(struct line *l, const struct report_key *k)
{
	const struct report_stack *st = &k->stack;
	bool kstack = k->kind == REPORT_KEY_KSTACK;
	int i, err = 0;

	if (st->lost)
		return put_text(l, "[stack lost]");
	if (st->truncated)
		err = put_text(l, "[truncated]");
	for (i = st->nr - 1; !err && i >= 0; i--)
		err = put_frame(l, &st->frames[i],
				kstack || st->frames[i].kernel);
	return err;
}

static int find_comm(const struct report_row *row)
{
	int i;

	for (i = 0; i < row->nkeys && i < REPORT_MAX_KEYS; i++)
		if (row->keys[i].kind == REPORT_KEY_STR &&
		    row->keys[i].name && !strcmp(row->keys[i].name, "comm"))
			return i;
	return -1;
}

static int put_stacks(struct line *l, const struct report_row *row,
		      enum report_key_kind kind)
{
	int i, err = 0;

	for (i = 0; !err && i < row->nkeys && i < REPORT_MAX_KEYS; i++)
		if (row->keys[i].kind == kind)
			err = put_stack(l, &row->keys[i]);
	return err;
}

static int put_others(struct line *l, const struct report_row *row, int comm)
{
	const struct report_key *k;
	int i, err = 0;

	for (i = 0; !err && i < row->nkeys && i < REPORT_MAX_KEYS; i++) {
		k = &row->keys[i];
		if (i == comm)
			continue;
		if (k->kind == REPORT_KEY_INT)
			err = put_int(l, k->i);
		else if (k->kind == REPORT_KEY_STR)
			err = put_text(l, k->s);
	}
	return err;
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
	int comm, err = 0;
	__u64 v;

	if (!folded_value(r, row, &v))
		return 0;

	comm = find_comm(row);
	if (comm >= 0)
		err = put_text(&l, row->keys[comm].s);
	if (!err)
		err = put_stacks(&l, row, REPORT_KEY_USTACK);
	if (!err)
		err = put_stacks(&l, row, REPORT_KEY_KSTACK);
	if (!err)
		err = put_others(&l, row, comm);
	/* flamegraph.pl needs a frame: keyless rows and empty stacks get one. */
	if (!err && l.empty)
		err = put_text(&l, "[total]");
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
