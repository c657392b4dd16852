/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Report rows: the value printa orders by, the order itself, and freeing.
 */
#include <stdlib.h>
#include <string.h>

#include <scry/intern.h>
#include <scry/report.h>

const __u64 *report_row_slots(const struct report_row *row)
{
	static const __u64 none[SCRY_NBUCKETS];

	return row->val.slots ? row->val.slots : none;
}

__s64 report_row_value(const struct report *r, const struct report_row *row)
{
	const struct report_val *v = &row->val;

	switch (r->agg) {
	case SCRY_AGG_COUNT:
		return (__s64)v->count;
	case SCRY_AGG_MIN:
		return v->min;
	case SCRY_AGG_MAX:
		return v->max;
	case SCRY_AGG_AVG:
	case SCRY_AGG_STATS:
		/* An empty row has no average; 0 keeps it first, as DTrace. */
		return v->count ? v->sum / (__s64)v->count : 0;
	case SCRY_AGG_SUM:
	case SCRY_AGG_QUANTIZE:
	case SCRY_AGG_LQUANTIZE:
	default:
		return v->sum;
	}
}

__s64 report_left_out_value(const struct report *r)
{
	switch (r->agg) {
	case SCRY_AGG_COUNT:
		return (__s64)r->left_out.count;
	case SCRY_AGG_SUM:
	case SCRY_AGG_QUANTIZE:
	case SCRY_AGG_LQUANTIZE:
		return r->left_out.sum;
	default:
		return 0;	/* a min, max or average is no part of a whole */
	}
}

const struct report_key *report_key_find(const struct report_row *row,
					 enum scry_field field)
{
	int i;

	for (i = 0; i < row->nkeys && i < REPORT_MAX_KEYS; i++)
		if (row->keys[i].field == field)
			return &row->keys[i];
	return NULL;
}

const char *report_agg_name(enum scry_agg agg)
{
	switch (agg) {
	case SCRY_AGG_COUNT:
		return "count";
	case SCRY_AGG_SUM:
		return "sum";
	case SCRY_AGG_MIN:
		return "min";
	case SCRY_AGG_MAX:
		return "max";
	case SCRY_AGG_AVG:
		return "avg";
	case SCRY_AGG_QUANTIZE:
		return "quantize";
	case SCRY_AGG_LQUANTIZE:
		return "lquantize";
	case SCRY_AGG_STATS:
		return "stats";
	}
	return NULL;
}

static int cmp_s64(__s64 a, __s64 b)
{
	return (a > b) - (a < b);
}

static int cmp_u64(__u64 a, __u64 b)
{
	return (a > b) - (a < b);
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/*
 * Frames compare as printed: module, function, offset, inlining, line. A
 * frame nothing names compares by its address. So one call path is one
 * key, whichever raw addresses it had: in two processes of one program
 * (ASLR), walked by frame pointers once and by DWARF tables once.
 */
static int cmp_frame(const struct report_frame *a, const struct report_frame *b)
{
	int c;

	if (!a->module && !a->sym && !b->module && !b->sym)
		return cmp_u64(a->addr, b->addr);
	c = cmp_str(a->module, b->module);
	if (!c)
		c = cmp_str(a->sym, b->sym);
	if (!c)
		c = cmp_u64(a->off, b->off);
	if (!c)
		c = a->inlined - b->inlined;
	if (!c)
		c = cmp_str(a->file, b->file);
	if (!c)
		c = cmp_s64(a->line, b->line);
	/* unnamed in a known module: the offset into it is the name */
	if (!c && !a->sym)
		c = cmp_u64(a->off, b->off);
	return c;
}

/* Stacks order frame by frame from the leaf. */
static int cmp_stack(const struct report_stack *a,
		     const struct report_stack *b)
{
	int i, n = a->nr < b->nr ? a->nr : b->nr;
	int c;

	if (a->lost != b->lost)
		return a->lost - b->lost;
	for (i = 0; i < n; i++) {
		c = cmp_frame(&a->frames[i], &b->frames[i]);
		if (c)
			return c;
	}
	c = cmp_s64(a->nr, b->nr);
	if (c)
		return c;
	return a->truncated - b->truncated;
}

static int cmp_key(const struct report_key *a, const struct report_key *b)
{
	if (a->kind != b->kind)
		return cmp_s64(a->kind, b->kind);

	switch (a->kind) {
	case REPORT_KEY_KSTACK:
	case REPORT_KEY_USTACK:
		return cmp_stack(&a->stack, &b->stack);
	case REPORT_KEY_INT:
		return cmp_s64(a->i, b->i);
	case REPORT_KEY_STR:
	default:
		return cmp_str(a->s, b->s);
	}
}

static int cmp_keys(const struct report_row *a, const struct report_row *b)
{
	int i, n = a->nkeys < b->nkeys ? a->nkeys : b->nkeys;
	int c;

	for (i = 0; i < n; i++) {
		c = cmp_key(&a->keys[i], &b->keys[i]);
		if (c)
			return c;
	}
	return cmp_s64(a->nkeys, b->nkeys);
}

/*
 * Rows with equal keys should not exist; comparing the raw values as a
 * last resort still keeps qsort's unstable order out of the output.
 */
static int cmp_vals(const struct report_val *a, const struct report_val *b)
{
	int c;

	c = cmp_u64(a->count, b->count);
	if (!c)
		c = cmp_s64(a->sum, b->sum);
	if (!c)
		c = cmp_s64(a->min, b->min);
	if (!c)
		c = cmp_s64(a->max, b->max);
	return c;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct report *r = arg;
	const struct report_row *a = pa, *b = pb;
	int c;

	c = cmp_s64(report_row_value(r, a), report_row_value(r, b));
	if (!c)
		c = cmp_keys(a, b);
	if (!c)
		c = cmp_vals(&a->val, &b->val);
	return c;
}

static void sort_one(struct report *r)
{
	if (!r || !r->rows || r->nrows < 2)
		return;
	/* qsort_r: the comparator needs the aggregation, without a global. */
	qsort_r(r->rows, r->nrows, sizeof(*r->rows), cmp_rows, r);
}

static int cmp_rows_by_key(const void *pa, const void *pb)
{
	return cmp_keys(pa, pb);
}

static void row_free(struct report_row *row);

/*
 * @into += @v, as the kernel would have had they been one key. Rows of
 * one map hold slots alike (drain.c: its aggregation's); @v's, when
 * @into has none, are taken.
 */
void report_val_add(struct report_val *into, const struct report_val *v)
{
	into->count += v->count;
	into->sum += v->sum;
	if (v->min < into->min)
		into->min = v->min;
	if (v->max > into->max)
		into->max = v->max;
}

static void val_merge(struct report_val *into, struct report_val *v)
{
	int i;

	report_val_add(into, v);
	if (!v->slots)
		return;
	if (!into->slots) {
		into->slots = v->slots;
		v->slots = NULL;
		return;
	}
	for (i = 0; i < SCRY_NBUCKETS; i++)
		into->slots[i] += v->slots[i];
}

void report_merge(struct report *r)
{
	size_t i, n = 0;

	if (!r || !r->rows || r->nrows < 2)
		return;
	qsort(r->rows, r->nrows, sizeof(*r->rows), cmp_rows_by_key);
	for (i = 1; i < r->nrows; i++) {
		if (!cmp_keys(&r->rows[n], &r->rows[i])) {
			val_merge(&r->rows[n].val, &r->rows[i].val);
			row_free(&r->rows[i]);
			continue;
		}
		if (++n != i)
			r->rows[n] = r->rows[i];
	}
	r->nrows = n + 1;
}

void report_sort(struct report *r)
{
	size_t i;

	if (!r || !r->maps) {
		sort_one(r);
		return;
	}
	for (i = 0; i < r->nmaps; i++)
		sort_one(r->maps[i]);
}

void report_mapping_free(struct report_mapping *m)
{
	if (!m)
		return;
	free(m->file);
	free(m->build_id);
	free(m);
}

void report_stack_free(struct report_stack *st)
{
	int i;

	for (i = 0; st->frames && i < st->nr; i++) {
		intern_put(st->frames[i].module);
		intern_put(st->frames[i].sym);
		intern_put(st->frames[i].file);
		report_mapping_free(st->frames[i].map);
	}
	free(st->frames);
	st->frames = NULL;
	st->nr = 0;
}

static void row_free(struct report_row *row)
{
	int i;

	for (i = 0; i < row->nkeys && i < REPORT_MAX_KEYS; i++) {
		struct report_key *k = &row->keys[i];

		report_stack_free(&k->stack);
		free(k->s);
		k->s = NULL;
	}
	row->nkeys = 0;
	free(row->keys);
	row->keys = NULL;
	free(row->val.slots);
	row->val.slots = NULL;
	free(row->vstr);
	row->vstr = NULL;
}

static void rows_free(struct report *r)
{
	size_t i;

	for (i = 0; r->rows && i < r->nrows; i++)
		row_free(&r->rows[i]);
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
}

void report_clear(struct report *r)
{
	size_t i;

	if (!r)
		return;
	rows_free(r);
	for (i = 0; r->maps && i < r->nmaps; i++) {
		if (r->maps[i] == r)
			continue;
		rows_free(r->maps[i]);
		free(r->maps[i]);
	}
	free(r->maps);
	r->maps = NULL;
	r->nmaps = 0;
	/* what/fix are string literals; only the array is ours. */
	free(r->stats);
	r->stats = NULL;
	r->nstats = 0;
	memset(&r->left_out, 0, sizeof(r->left_out));
	memset(&r->left_out_failed, 0, sizeof(r->left_out_failed));
}

/* Totals only: slots are drawn per row, and a left-out row draws none. */
static void sum_left_out(struct report_val *into, const struct report_val *v)
{
	into->count += v->count;
	into->sum += v->sum;
}

static void keep_top(struct report *r, size_t n)
{
	size_t i, drop;

	if (!r)
		return;
	memset(&r->left_out, 0, sizeof(r->left_out));
	memset(&r->left_out_failed, 0, sizeof(r->left_out_failed));
	if (r->nrows <= n)
		return;
	/* sorted ascending: the largest rows are the last n */
	drop = r->nrows - n;
	for (i = 0; i < drop; i++) {
		const struct report_key *e = report_key_find(&r->rows[i],
							     SCRY_F_ERRNO);

		sum_left_out(&r->left_out, &r->rows[i].val);
		if (e && e->i)
			sum_left_out(&r->left_out_failed, &r->rows[i].val);
		row_free(&r->rows[i]);
	}
	memmove(r->rows, r->rows + drop, n * sizeof(*r->rows));
	r->nrows = n;
}

void report_keep_top(struct report *r, size_t n)
{
	size_t i;

	if (!r || !r->maps) {
		keep_top(r, n);
		return;
	}
	for (i = 0; i < r->nmaps; i++)
		keep_top(r->maps[i], n);
}
