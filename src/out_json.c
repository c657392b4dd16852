/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON output: one document per report, on one line, so --interval gives
 * JSON lines. docs/JSON.md and docs/scry.schema.json are the contract:
 * change them together with this file, and only by adding fields.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <scry/out.h>
#include <scry/report.h>
#include <scry/sane.h>

#define JSON_VERSION	1
#define NAME_LEN	64	/* generated key names: "kstack", "arg0_3" */

/*
 * The first failed write sticks: later writes are skipped and the printer
 * returns -EIO, so every write is checked without an `if` around each.
 */
struct json {
	FILE *f;
	int err;
};

__attribute__((format(printf, 2, 3)))
static void jprintf(struct json *j, const char *fmt, ...)
{
	va_list ap;

	if (j->err)
		return;
	va_start(ap, fmt);
	if (vfprintf(j->f, fmt, ap) < 0)
		j->err = -EIO;
	va_end(ap);
}

static void jwrite(struct json *j, const void *p, size_t n)
{
	if (!j->err && n && fwrite(p, 1, n, j->f) != n)
		j->err = -EIO;
}

static void jraw(struct json *j, const char *s)
{
	jwrite(j, s, strlen(s));
}

/* Bytes at @p that go out as they are: printable ASCII, valid UTF-8. */
static size_t plain_run(const unsigned char *p)
{
	unsigned int cp;
	size_t n = 0, l;

	for (;;) {
		if (p[n] >= 0x20 && p[n] < 0x7f && p[n] != '"' && p[n] != '\\')
			n++;
		else if (p[n] >= 0x80 && (l = sane_utf8_len(p + n, &cp)))
			n += l;
		else
			return n;
	}
}

/*
 * The inside of a JSON string (RFC 8259). Names and comm come from
 * untrusted binaries and processes: control characters become \u00XX,
 * and every byte that is not part of well-formed UTF-8 becomes U+FFFD,
 * so the document is always valid UTF-8.
 */
static void jchars(struct json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p && !j->err) {
		n = plain_run(p);
		jwrite(j, p, n);
		p += n;
		if (!*p)
			break;
		if (*p == '"' || *p == '\\')
			jprintf(j, "\\%c", *p);
		else if (*p < 0x80)
			jprintf(j, "\\u%04x", *p);
		else
			jraw(j, "\\ufffd");
		p++;
	}
}

/* A JSON string; NULL is null. */
static void jstr(struct json *j, const char *s)
{
	if (!s) {
		jraw(j, "null");
		return;
	}
	jraw(j, "\"");
	jchars(j, s);
	jraw(j, "\"");
}

/* "name": */
static void jkey(struct json *j, const char *name)
{
	jstr(j, name);
	jraw(j, ":");
}

static void jbool(struct json *j, bool b)
{
	jraw(j, b ? "true" : "false");
}

/*
 * Seconds with microsecond resolution, trailing zeros dropped, written
 * by hand: printf's %g would follow LC_NUMERIC and could print a comma,
 * or "nan", neither of which is JSON.
 */
static void jseconds(struct json *j, double s)
{
	long long us, frac;
	int digits = 6;

	if (!isfinite(s) || s < 0)
		s = 0;
	if (s > 9e12)
		s = 9e12;
	us = (long long)(s * 1e6 + 0.5);	/* no libm: s >= 0 */
	frac = us % 1000000;
	jprintf(j, "%lld", us / 1000000);
	if (!frac)
		return;
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	jprintf(j, ".%0*lld", digits, frac);
}


/* What a map's rows hold: an aggregation's name, or "value". */
static const char *map_kind(const struct report *r)
{
	return r->var ? "value" : report_agg_name(r->agg);
}

/* ---- keys ---- */

static bool is_stack(const struct report_key *k)
{
	return k->kind == REPORT_KEY_KSTACK || k->kind == REPORT_KEY_USTACK;
}

static const char *kind_name(const struct report_key *k)
{
	return k->kind == REPORT_KEY_KSTACK ? "kstack" : "ustack";
}

static bool name_taken(char names[][NAME_LEN], int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static bool shares_name(const struct report_row *row, int n, int col)
{
	const char *name = row->keys[col].name;
	int i;

	for (i = 0; name && i < n; i++)
		if (i != col && row->keys[i].name &&
		    !strcmp(row->keys[i].name, name))
			return true;
	return false;
}

/*
 * JSON object member names must be unique. "stack" is both the kernel
 * and the user stack, so stacks whose name is shared are called
 * "kstack"/"ustack"; any other clash (or a missing name) gets the column
 * number appended, which keeps the document valid whatever the plan.
 */
static void key_names(const struct report_row *row, int n,
		      char names[][NAME_LEN])
{
	const struct report_key *k;
	const char *base;
	int i;

	for (i = 0; i < n; i++) {
		k = &row->keys[i];
		base = k->name;
		if (!base || (is_stack(k) && shares_name(row, n, i)))
			base = is_stack(k) ? kind_name(k) : "key";
		snprintf(names[i], NAME_LEN, "%s", base);
		if (name_taken(names, i, names[i]))
			snprintf(names[i], NAME_LEN, "%.40s_%d", base, i);
	}
}

static void put_frame(struct json *j, const struct report_frame *fr,
		      bool kstack)
{
	jraw(j, "{\"module\":");
	jstr(j, fr->module);
	jraw(j, ",\"symbol\":");
	jstr(j, fr->sym);
	jprintf(j, ",\"offset\":%llu,\"address\":\"0x%llx\",\"kernel\":",
		(unsigned long long)fr->off, (unsigned long long)fr->addr);
	/* As folded: a kernel stack's frames are kernel frames. */
	jbool(j, kstack || fr->kernel);
	jraw(j, ",\"inlined\":");
	jbool(j, fr->inlined);
	/* only with --lines, so documents without it stay as they were */
	if (fr->file) {
		jraw(j, ",\"file\":");
		jstr(j, fr->file);
		jprintf(j, ",\"line\":%d", fr->line);
	}
	jraw(j, "}");
}

/* ,"<name>_<what>":true */
static void put_flag(struct json *j, const char *name, const char *what)
{
	jraw(j, ",\"");
	jchars(j, name);
	jprintf(j, "_%s\":true", what);
}

/* Leaf first, as captured; the flags follow as sibling members. */
static void put_stack(struct json *j, const struct report_key *k,
		      const char *name)
{
	const struct report_stack *st = &k->stack;
	int i;

	jkey(j, name);
	jraw(j, "[");
	for (i = 0; st->frames && i < st->nr; i++) {
		if (i)
			jraw(j, ",");
		put_frame(j, &st->frames[i], k->kind == REPORT_KEY_KSTACK);
	}
	jraw(j, "]");
	if (st->truncated)
		put_flag(j, name, "truncated");
	if (st->lost)
		put_flag(j, name, "lost");
}

static void put_keys(struct json *j, const struct report_row *row)
{
	char names[REPORT_MAX_KEYS][NAME_LEN];
	const struct report_key *k;
	int i, n = row->nkeys;

	if (n > REPORT_MAX_KEYS)
		n = REPORT_MAX_KEYS;
	if (n < 0)
		n = 0;
	key_names(row, n, names);
	jraw(j, "{");
	for (i = 0; i < n; i++) {
		k = &row->keys[i];
		if (i)
			jraw(j, ",");
		if (is_stack(k)) {
			put_stack(j, k, names[i]);
			continue;
		}
		jkey(j, names[i]);
		if (k->kind == REPORT_KEY_INT)
			jprintf(j, "%lld", (long long)k->i);
		else
			jstr(j, k->s);
	}
	jraw(j, "}");
}

/* ---- values ---- */

static void put_bucket(struct json *j, bool *first, bool has_low, __s64 low,
		       bool has_high, __s64 high, __u64 count)
{
	jraw(j, *first ? "{\"low\":" : ",{\"low\":");
	*first = false;
	if (has_low)
		jprintf(j, "%lld", (long long)low);
	else
		jraw(j, "null");
	jraw(j, ",\"high\":");
	if (has_high)
		jprintf(j, "%lld", (long long)high);
	else
		jraw(j, "null");
	jprintf(j, ",\"count\":%llu}", (unsigned long long)count);
}

/*
 * Power-of-two slots (abi.h): 0 holds negatives, 1 the value 0, slot
 * k + 1 is [2^(k-1), 2^k); the last slot is open above.
 */
static void put_quantize(struct json *j, const __u64 *slots)
{
	bool first = true;
	int i;

	for (i = 0; i < SCRY_NBUCKETS; i++) {
		if (!slots[i])
			continue;
		if (i == SCRY_QSLOT_NEG)
			put_bucket(j, &first, false, 0, true, 0, slots[i]);
		else if (i == SCRY_QSLOT_ZERO)
			put_bucket(j, &first, true, 0, true, 1, slots[i]);
		else
			put_bucket(j, &first, true, 1LL << (i - 2),
				   i < SCRY_NBUCKETS - 1, 1LL << (i - 1),
				   slots[i]);
	}
}

/*
 * Linear slots: 0 is below low, 1 + i is [low + i*step, low + (i+1)*step)
 * for i < levels, levels + 1 is at or above low + levels*step (which is
 * high when step divides the range, and is what the text output prints).
 * The arithmetic is unsigned: high - low may not fit in __s64.
 */
static void put_lquantize(struct json *j, const struct report *r,
			  const __u64 *slots, int levels)
{
	__u64 low = (__u64)r->lq_low, step = (__u64)r->lq_step;
	bool first = true;
	int i;

	if (slots[0])
		put_bucket(j, &first, false, 0, true, r->lq_low, slots[0]);
	for (i = 0; i < levels; i++)
		if (slots[i + 1])
			put_bucket(j, &first, true, (__s64)(low + i * step),
				   true, (__s64)(low + (i + 1) * step),
				   slots[i + 1]);
	if (slots[levels + 1])
		put_bucket(j, &first, true, (__s64)(low + levels * step),
			   false, 0, slots[levels + 1]);
}

static void put_nullable(struct json *j, bool has, __s64 v)
{
	if (has)
		jprintf(j, "%lld", (long long)v);
	else
		jraw(j, "null");
}

/* Truncated toward zero, as printa prints avg(); 0 if count is absurd. */
static __s64 avg(const struct report_val *v)
{
	if (!v->count || v->count > (__u64)INT64_MAX)
		return 0;
	return v->sum / (__s64)v->count;
}

static void put_row(struct json *j, const struct report *r,
		    const struct report_row *row, int levels)
{
	const struct report_val *v = &row->val;
	bool some = v->count > 0;

	jraw(j, "{\"keys\":");
	put_keys(j, row);
	jprintf(j, ",\"value\":%lld,\"count\":%llu,\"sum\":%lld,\"min\":",
		(long long)report_row_value(r, row),
		(unsigned long long)v->count, (long long)v->sum);
	put_nullable(j, some, v->min);
	jraw(j, ",\"max\":");
	put_nullable(j, some, v->max);
	jraw(j, ",\"avg\":");
	put_nullable(j, some, avg(v));
	if (r->var && row->vstr) {
		jraw(j, ",\"string\":");
		jstr(j, row->vstr);
	}
	if (r->var) {
		/* a variable: its value, no aggregation */
	} else if (r->agg == SCRY_AGG_QUANTIZE) {
		jraw(j, ",\"buckets\":[");
		put_quantize(j, report_row_slots(row));
		jraw(j, "]");
	} else if (r->agg == SCRY_AGG_LQUANTIZE) {
		jraw(j, ",\"buckets\":[");
		put_lquantize(j, r, report_row_slots(row), levels);
		jraw(j, "]");
	}
	jraw(j, "}");
}

static void put_losses(struct json *j, const struct report *r)
{
	const struct report_stat *st;
	bool first = true;
	size_t i;

	jraw(j, "[");
	for (i = 0; r->stats && i < r->nstats; i++) {
		st = &r->stats[i];
		if (!st->count)
			continue;
		jraw(j, first ? "{\"what\":" : ",{\"what\":");
		first = false;
		jstr(j, st->what ? st->what : "losses");
		jraw(j, ",\"fix\":");
		jstr(j, st->fix);
		jprintf(j, ",\"count\":%llu}", (unsigned long long)st->count);
	}
	jraw(j, "]");
}

/* lquantize levels as out_lquantize checks them; -EINVAL if malformed. */
static int lq_levels(const struct report *r)
{
	__u64 levels;

	if (r->lq_step <= 0 || r->lq_high <= r->lq_low)
		return -EINVAL;
	levels = ((__u64)r->lq_high - (__u64)r->lq_low) / (__u64)r->lq_step;
	if (levels < 1 || levels > SCRY_NBUCKETS - 2)
		return -EINVAL;
	return (int)levels;
}

/* RFC 3339 in UTC to the millisecond, "2026-11-30T16:18:31.434Z"; null unknown */
static void jtime(struct json *j, __s64 ns)
{
	time_t t = (time_t)(ns / 1000000000);
	char buf[32];
	struct tm tm;

	if (ns <= 0 || !gmtime_r(&t, &tm)) {
		jraw(j, "null");
		return;
	}
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	jprintf(j, "\"%s.%03dZ\"", buf, (int)(ns / 1000000 % 1000));
}

static void put_header(struct json *j, const struct report *r)
{
	jprintf(j, "{\"version\":%d,\"question\":", JSON_VERSION);
	jstr(j, r->name);
	jraw(j, ",\"expression\":");
	jstr(j, r->question);
	jraw(j, ",\"duration_s\":");
	jseconds(j, r->duration_s);
	jraw(j, ",\"time\":");
	jtime(j, r->time_ns);
	jprintf(j, ",\"snapshot\":%d,\"unit\":", r->snapshot);
	jstr(j, r->unit);
	jraw(j, ",\"value_name\":");
	jstr(j, r->value_name);
	jraw(j, ",\"aggregation\":");
	jstr(j, map_kind(r));
	if (r->agg == SCRY_AGG_LQUANTIZE && !r->var)
		jprintf(j, ",\"lquantize\":{\"low\":%lld,\"high\":%lld,\"step\":%lld}",
			(long long)r->lq_low, (long long)r->lq_high,
			(long long)r->lq_step);
}

static int put_rows(struct json *j, const struct report *r)
{
	int levels = 0;
	size_t i;

	if (!map_kind(r))
		return -EINVAL;
	if (r->agg == SCRY_AGG_LQUANTIZE && !r->var) {
		levels = lq_levels(r);
		if (levels < 0)
			return levels;
	}
	jraw(j, "[");
	for (i = 0; r->rows && i < r->nrows && !j->err; i++) {
		if (i)
			jraw(j, ",");
		put_row(j, r, &r->rows[i], levels);
	}
	jraw(j, "]");
	return 0;
}

/* "maps": the program's other maps, by name, in program order */
static int put_maps(struct json *j, const struct report *r)
{
	bool first = true;
	size_t i;
	int err = 0;

	jraw(j, ",\"maps\":[");
	for (i = 0; r->maps && i < r->nmaps && !err; i++) {
		const struct report *m = r->maps[i];

		if (m == r)
			continue;	/* the top level's */
		jraw(j, first ? "{\"name\":" : ",{\"name\":");
		first = false;
		jstr(j, m->map_name ? m->map_name : "@");
		jraw(j, ",\"aggregation\":");
		jstr(j, map_kind(m));
		if (m->agg == SCRY_AGG_LQUANTIZE && !m->var)
			jprintf(j, ",\"lquantize\":{\"low\":%lld,\"high\":"
				"%lld,\"step\":%lld}", (long long)m->lq_low,
				(long long)m->lq_high, (long long)m->lq_step);
		jraw(j, ",\"unit\":");
		jstr(j, m->unit);
		jraw(j, ",\"rows\":");
		err = put_rows(j, m);
		jraw(j, "}");
	}
	jraw(j, "]");
	return err;
}

int out_json(FILE *f, const struct report *r)
{
	struct json j = { .f = f };
	int err;

	if (!map_kind(r))
		return -EINVAL;
	put_header(&j, r);
	jraw(&j, ",\"map\":");
	jstr(&j, r->map_name ? r->map_name : "@");
	jraw(&j, ",\"rows\":");
	err = put_rows(&j, r);
	err = err ? : put_maps(&j, r);
	if (err)
		return err;
	jraw(&j, ",\"losses\":");
	put_losses(&j, r);
	jraw(&j, "}\n");
	if (j.err)
		return j.err;
	/* Buffered streams fail late: flush so the error is ours to report. */
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
