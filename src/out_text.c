/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text output in DTrace's printa layout (libdtrace dt_consume.c): key
 * columns, then the value or a quantize/lquantize histogram, and the
 * loss report. Every write is checked; a failed stream gives -EIO.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <scry/out.h>
#include <scry/report.h>
#include <scry/sane.h>

#define STACK_INDENT	14	/* DTrace's default stackindent */
#define STR_WIDTH	50	/* printa's width for string keys */
#define BAR_LEN		40	/* histogram bar at 100% */
#define LABEL_LEN	32	/* fits ">= " and any __s64 */

static const char bar_ats[BAR_LEN + 1] =
	"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";

__attribute__((format(printf, 2, 3)))
static int put(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n < 0 ? -EIO : 0;
}

/* Buffered streams fail late: flush so the error is ours to report. */
static int done(FILE *f)
{
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}

/*
 * Write @s escaped (sane.h), padded with spaces to @width: a process
 * picks its own comm and file names, and must not drive the terminal or
 * forge a row.
 */
static int put_clean(FILE *f, const char *s, int width)
{
	size_t cols;
	int err = sane_fputs(f, s, 0, &cols);

	if (!err && (size_t)width > cols)
		err = put(f, "%*s", (int)((size_t)width - cols), "");
	return err;
}

/* ---- histograms ---- */

struct hist {
	const __u64 *slots;
	int nslots;
	bool linear;		/* lquantize: low/step give the labels */
	__s64 low, step;
};

static void slot_label(const struct hist *h, int i, char *buf, size_t len)
{
	if (!h->linear) {
		if (i == SCRY_QSLOT_NEG)
			snprintf(buf, len, "< 0");
		else if (i == SCRY_QSLOT_ZERO)
			snprintf(buf, len, "0");
		else
			snprintf(buf, len, "%lld", 1LL << (i - 2));
		return;
	}
	/* DTrace labels the overflow row low + levels * step. */
	if (i == 0)
		snprintf(buf, len, "< %lld", (long long)h->low);
	else if (i == h->nslots - 1)
		snprintf(buf, len, ">= %lld",
			 (long long)(h->low + (__s64)(i - 1) * h->step));
	else
		snprintf(buf, len, "%lld",
			 (long long)(h->low + (__s64)(i - 1) * h->step));
}

/* round(count * 40 / total), exactly, as DTrace's (uint)(f + 0.5). */
static int bar_depth(__u64 count, unsigned __int128 total)
{
	unsigned __int128 d;

	if (!total)
		return 0;
	d = ((unsigned __int128)count * 2 * BAR_LEN + total) / (2 * total);
	return d > BAR_LEN ? BAR_LEN : (int)d;
}

static int hist_header(FILE *f)
{
	return put(f, "\n%16s %41s %-9s\n", "value",
		   "------------- Distribution -------------", "count");
}

static int hist_line(FILE *f, const char *label, __u64 count,
		     unsigned __int128 total)
{
	int depth = bar_depth(count, total);

	return put(f, "%16s |%.*s%*s %-9llu\n", label, depth, bar_ats,
		   BAR_LEN - depth, "", (unsigned long long)count);
}

/*
 * Rows from the first to the last non-zero slot, with one empty row on
 * each side when there is one; an empty histogram shows its first three
 * slots ("< 0", 0, 1 for quantize), as DTrace does.
 */
static void hist_range(const struct hist *h, int *first, int *last)
{
	int lo = 0, hi = h->nslots - 1;

	while (lo < h->nslots && !h->slots[lo])
		lo++;
	if (lo == h->nslots) {
		*first = 0;
		*last = h->nslots < 3 ? h->nslots - 1 : 2;
		return;
	}
	while (!h->slots[hi])
		hi--;
	*first = lo > 0 ? lo - 1 : lo;
	*last = hi < h->nslots - 1 ? hi + 1 : hi;
}

static int hist_print(FILE *f, const struct hist *h)
{
	unsigned __int128 total = 0;
	char label[LABEL_LEN];
	int i, first, last, err;

	hist_range(h, &first, &last);
	for (i = first; i <= last; i++)
		total += h->slots[i];

	err = hist_header(f);
	for (i = first; !err && i <= last; i++) {
		slot_label(h, i, label, sizeof(label));
		err = hist_line(f, label, h->slots[i], total);
	}
	return err;
}

int out_quantize(FILE *f, const __u64 slots[SCRY_NBUCKETS])
{
	struct hist h = { .slots = slots, .nslots = SCRY_NBUCKETS };
	int err = hist_print(f, &h);

	return err ? err : done(f);
}

int out_lquantize(FILE *f, const __u64 slots[SCRY_NBUCKETS],
		  __s64 low, __s64 high, __s64 step)
{
	struct hist h = { .slots = slots, .linear = true,
			  .low = low, .step = step };
	__u64 levels;
	int err;

	if (step <= 0 || high <= low)
		return -EINVAL;
	/* The distance in unsigned: high - low may not fit in __s64. */
	levels = ((__u64)high - (__u64)low) / (__u64)step;
	if (levels < 1 || levels > SCRY_NBUCKETS - 2)
		return -EINVAL;
	h.nslots = (int)levels + 2;

	err = hist_print(f, &h);
	return err ? err : done(f);
}

/* ---- keys ---- */

int out_frame_name(const struct report_frame *fr, char *buf, size_t len)
{
	unsigned long long off = fr->off;
	int n;

	if (fr->sym && fr->module && off)
		n = snprintf(buf, len, "%s`%s+0x%llx", fr->module, fr->sym,
			     off);
	else if (fr->sym && fr->module)
		n = snprintf(buf, len, "%s`%s", fr->module, fr->sym);
	else if (fr->sym && off)
		n = snprintf(buf, len, "%s+0x%llx", fr->sym, off);
	else if (fr->sym)
		n = snprintf(buf, len, "%s", fr->sym);
	else if (fr->module && fr->kernel)
		n = snprintf(buf, len, "%s`0x%llx", fr->module,
			     (unsigned long long)fr->addr);
	else if (fr->module)	/* stable across runs, unlike the address */
		n = snprintf(buf, len, "%s`+0x%llx", fr->module, off);
	else
		n = snprintf(buf, len, "[unknown]");
	return n < 0 ? -EINVAL : n;
}

static int put_stack_line(FILE *f, const char *text)
{
	return put(f, "%*s%s\n", STACK_INDENT, "", text);
}

/* Names have no length limit: a short one fits on the stack, else malloc. */
static int put_frame(FILE *f, const struct report_frame *fr)
{
	char small[256];
	char *name = small;
	int n, err;

	n = out_frame_name(fr, small, sizeof(small));
	if (n < 0)
		return n;
	if ((size_t)n >= sizeof(small)) {
		name = malloc((size_t)n + 1);
		if (!name)
			return -ENOMEM;
		out_frame_name(fr, name, (size_t)n + 1);
	}
	err = put(f, "%*s", STACK_INDENT, "");
	if (!err)
		err = put_clean(f, name, 0);
	if (!err)
		err = put(f, "%s", fr->inlined ? " [inlined]" : "");
	if (!err && fr->file)
		err = put(f, " (");
	if (!err && fr->file)
		err = put_clean(f, fr->file, 0);
	if (!err && fr->file)
		err = put(f, ":%d)", fr->line);
	if (!err)
		err = put(f, "\n");
	if (name != small)
		free(name);
	return err;
}

/* Like dt_print_stack: a newline, then one indented frame per line. */
int out_stack(FILE *f, const struct report_stack *st)
{
	int i, err;

	err = put(f, "\n");
	if (!err && st->lost)
		return put_stack_line(f, "[stack lost: raise --max-stacks]");
	for (i = 0; !err && i < st->nr; i++)
		err = put_frame(f, &st->frames[i]);
	if (!err && st->truncated)
		err = put_stack_line(f, "[truncated]");
	return err;
}

/* DTrace prints 32-bit keys (pid_t, id_t, uid_t, processorid_t) in 8. */
static int int_width(enum scry_field field)
{
	switch (field) {
	case SCRY_F_PID:
	case SCRY_F_TID:
	case SCRY_F_UID:
	case SCRY_F_CPU:
		return 8;
	default:
		return 16;
	}
}

static int put_key(FILE *f, const struct report_key *k)
{
	int err;

	switch (k->kind) {
	case REPORT_KEY_KSTACK:
	case REPORT_KEY_USTACK:
		return out_stack(f, &k->stack);
	case REPORT_KEY_INT:
		return put(f, " %*lld", int_width(k->field), (long long)k->i);
	case REPORT_KEY_STR:
		err = put(f, "  ");
		return err ? err : put_clean(f, k->s ? k->s : "", STR_WIDTH);
	}
	return -EINVAL;
}

/* ---- values ---- */

static int put_value(FILE *f, const struct report *r,
		     const struct report_row *row)
{
	const struct report_val *v = &row->val;
	int err;

	if (r->var && row->vstr) {
		err = put(f, "  ");
		return err ? err : put_clean(f, row->vstr, 0);
	}
	switch (r->agg) {
	case SCRY_AGG_STATS:
		/* bpftrace's stats(): count, average, total */
		return put(f, " count %llu, average %lld, total %lld",
			   (unsigned long long)v->count,
			   (long long)report_row_value(r, row),
			   (long long)v->sum);
	case SCRY_AGG_COUNT:
	case SCRY_AGG_SUM:
	case SCRY_AGG_MIN:
	case SCRY_AGG_MAX:
	case SCRY_AGG_AVG:
		return put(f, " %16lld", (long long)report_row_value(r, row));
	case SCRY_AGG_QUANTIZE:
		return out_quantize(f, report_row_slots(row));
	case SCRY_AGG_LQUANTIZE:
		return out_lquantize(f, report_row_slots(row), r->lq_low,
				     r->lq_high, r->lq_step);
	}
	return -EINVAL;
}

void out_human(__u64 v, char *buf, size_t len)
{
	static const char *units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double d = v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return;
	}
	while (d >= 1024 && u < 4) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", d, units[u]);
}

/* "calls: 100, bytes: 4800 (4.7 KiB)", for rows and for the totals */
static int put_totals(FILE *f, const struct report *r, const char *lead,
		      __u64 count, __s64 sum)
{
	char human[32];

	out_human(sum < 0 ? 0 : (__u64)sum, human, sizeof(human));
	return put(f, "%s%s: %llu, %s: %lld (%s)\n", lead, r->count_label,
		   (unsigned long long)count, r->sum_label, (long long)sum,
		   human);
}

static int put_row(FILE *f, const struct report *r,
		   const struct report_row *row)
{
	int i, err = 0;

	for (i = 0; !err && i < row->nkeys && i < REPORT_MAX_KEYS; i++)
		err = put_key(f, &row->keys[i]);
	if (!err && r->count_label && r->sum_label)
		err = put_totals(f, r, "\n  ", row->val.count, row->val.sum);
	if (!err)
		err = put_value(f, r, row);
	return err ? err : put(f, "\n");
}

static int put_grand_total(FILE *f, const struct report *r)
{
	__u64 count = 0;
	__s64 sum = 0;
	size_t i;

	if (!r->count_label || !r->sum_label)
		return 0;
	/* every row counts, also those --top does not show */
	count = r->left_out.count;
	sum = r->left_out.sum;
	for (i = 0; i < r->nrows; i++) {
		count += r->rows[i].val.count;
		sum += r->rows[i].val.sum;
	}
	return put_totals(f, r, "total ", count, sum);
}

/*
 * One map: printa's layout, which opens with a newline as dt_consume does
 * before the walk; under its name (bpftrace's) when @label.
 */
static int put_map(FILE *f, const struct report *r, bool label)
{
	size_t i;
	int err;

	err = put(f, "\n");
	if (!err && label)
		err = put(f, "%s:\n", r->map_name);
	for (i = 0; !err && i < r->nrows; i++)
		err = put_row(f, r, &r->rows[i]);
	if (!err)
		err = put_grand_total(f, r);
	return err;
}

/* A program's maps, each under its name; one anonymous map as printa. */
int out_text(FILE *f, const struct report *r)
{
	bool label;
	size_t i;
	int err = 0;

	if (r->header)
		err = put(f, "%s\n", r->header);
	if (!r->maps) {
		err = err ? : put_map(f, r, false);
		return err ? err : done(f);
	}
	label = r->nmaps > 1 || (r->nmaps == 1 && r->map_name &&
				 strcmp(r->map_name, "@"));
	for (i = 0; !err && i < r->nmaps; i++) {
		/* an empty map, named or among several, is noise (bpftrace) */
		if (label && !r->maps[i]->nrows)
			continue;
		err = put_map(f, r->maps[i], label);
	}
	return err ? err : done(f);
}

int out_stats(FILE *f, const struct report *r)
{
	const struct report_stat *st;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < r->nstats; i++) {
		st = &r->stats[i];
		if (!st->count)
			continue;
		if (st->fix)
			err = put(f, "%llu %s: %s\n",
				  (unsigned long long)st->count,
				  st->what ? st->what : "losses", st->fix);
		else
			err = put(f, "%llu %s\n",
				  (unsigned long long)st->count,
				  st->what ? st->what : "losses");
	}
	return err ? err : done(f);
}

/* ---- scry read / write: bytes by file ---- */

static __s64 row_errno(const struct report_row *row)
{
	const struct report_key *k = report_key_find(row, SCRY_F_ERRNO);

	return k ? k->i : 0;
}

static const char *row_path(const struct report_row *row)
{
	const struct report_key *k = report_key_find(row, SCRY_F_FDPATH);

	return k && k->s ? k->s : "[unknown]";
}

/* "4.0 KiB", and "512 B" below a KiB, so the column is always two words */
static void human2(__u64 v, char *buf, size_t len)
{
	if (v < 1024)
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	else
		out_human(v, buf, len);
}

static int file_line(FILE *f, __u64 bytes, __u64 calls, __u64 total,
		     const char *path)
{
	char human[32];

	int err;

	human2(bytes, human, sizeof(human));
	err = put(f, "%11llu %11s %8llu %5.1f%%  ", (unsigned long long)bytes,
		  human, (unsigned long long)calls,
		  total ? 100.0 * bytes / total : 0.0);
	err = err ? : put_clean(f, path, 0);
	return err ? : put(f, "\n");
}

static int failed_lines(FILE *f, const struct report *r, const char *what)
{
	const struct report_row *row;
	char name[32];
	const char *en;
	int err = 0, any = 0;
	size_t i;

	for (i = 0; !err && i < r->nrows; i++) {
		row = &r->rows[i];
		if (!row_errno(row))
			continue;
		if (!any++)
			err = put(f, "\nfailed %ss:\n%11s  %-8s %s\n", what,
				  "CALLS", "ERRNO", "PATH");
		en = strerrorname_np(row_errno(row));
		if (!en) {
			snprintf(name, sizeof(name), "%lld",
				 (long long)row_errno(row));
			en = name;
		}
		if (!err)
			err = put(f, "%11llu  %-8s ",
				  (unsigned long long)row->val.count, en);
		if (!err)
			err = put_clean(f, row_path(row), 0);
		if (!err)
			err = put(f, "\n");
	}
	return err;
}

int out_files(FILE *f, const struct report *r, const char *what)
{
	/* SHARE is of every file read, also those --top does not show */
	__u64 total = r->left_out.sum - r->left_out_failed.sum;
	__u64 calls = r->left_out.count - r->left_out_failed.count;
	size_t i;
	int err;

	for (i = 0; i < r->nrows; i++) {
		if (row_errno(&r->rows[i]))
			continue;
		total += r->rows[i].val.sum;
		calls += r->rows[i].val.count;
	}
	err = put(f, "bytes %s by file:\n\n%11s %11s %8s %6s  %s\n",
		  strcmp(what, "write") ? what : "written",
		  "BYTES", "HUMAN", "CALLS", "SHARE", "PATH");
	/* rows come sorted ascending: the biggest file is printed last */
	for (i = 0; !err && i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];

		if (!row_errno(row))
			err = file_line(f, row->val.sum, row->val.count, total,
					row_path(row));
	}
	if (!err)
		err = file_line(f, total, calls, total, "total");
	if (!err)
		err = failed_lines(f, r, what);
	return err ? err : done(f);
}
