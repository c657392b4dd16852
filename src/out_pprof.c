// SPDX-License-Identifier: GPL-2.0
/*
 * pprof: the report as a gzipped profile.proto (github.com/google/pprof,
 * proto/profile.proto), the format go tool pprof, Pyroscope, Parca and
 * Grafana read. docs/PPROF.md says what each question's sample types are.
 *
 * Every row with events is one sample whose locations are its fold_row
 * path, leaf first: stack frames become locations with their mapping
 * (file, build-id) and functions (file:line under --lines); inlined
 * frames share their caller's location as extra lines, innermost first,
 * the way pprof models inlining; comm and other key columns become
 * locations of their own named after the value, so flame graphs drawn
 * from the profile split the same way scry's folded output does.
 *
 * The encoder is the few protobuf wire rules profile.proto needs: varints,
 * length-delimited fields and packed repeated integers. Field numbers are
 * profile.proto's. Fields may come in any order, so samples are written as
 * the rows are walked and the tables (strings, functions, mappings,
 * locations) after them. The whole message is built in memory, then
 * gzipped with zlib (header without a time stamp, so output is
 * reproducible).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <scry/array.h>
#include <scry/fold.h>
#include <scry/out.h>
#include <scry/report.h>
#include <scry/sane.h>

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING,
	PROFILE_LOCATION, PROFILE_FUNCTION, PROFILE_STRING_TABLE,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE,
	PROFILE_PERIOD, PROFILE_COMMENT, PROFILE_DEFAULT_SAMPLE_TYPE,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE,
	MAPPING_ID = 1, MAPPING_START, MAPPING_LIMIT, MAPPING_OFFSET,
	MAPPING_FILENAME, MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS,
	MAPPING_HAS_FILENAMES, MAPPING_HAS_LINE_NUMBERS,
	MAPPING_HAS_INLINE_FRAMES,
	LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE,
	LINE_FUNCTION_ID = 1, LINE_LINE,
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME,
};

#define WIRE_VARINT	0
#define WIRE_BYTES	2

/* x86_64's kernel half: where kernel frames' one mapping lies */
#define KERNEL_START	0xffff800000000000ULL

/* ---- bytes ---- */

/* A growing byte buffer; the first failure sticks. */
struct buf {
	unsigned char *p;
	size_t len, cap;
	int err;
};

static void b_put(struct buf *b, const void *d, size_t n)
{
	if (b->err)
		return;
	if (array_ensure(&b->p, &b->cap, 1, b->len + n)) {
		b->err = -ENOMEM;
		return;
	}
	if (n)
		memcpy(b->p + b->len, d, n);
	b->len += n;
}

/* Base 128, low group first, the top bit saying "more follows". */
static void pb_varint(struct buf *b, __u64 v)
{
	unsigned char out[10];
	int n = 0;

	do {
		out[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	b_put(b, out, (size_t)n);
}

static void pb_key(struct buf *b, int field, int wire)
{
	pb_varint(b, (__u64)field << 3 | (__u64)wire);
}

/* An integer field; zero is proto3's default and is left out. int64
 * fields take the two's complement, as the wire format says. */
static void pb_int(struct buf *b, int field, __u64 v)
{
	if (!v)
		return;
	pb_key(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct buf *b, int field, const void *d, size_t n)
{
	pb_key(b, field, WIRE_BYTES);
	pb_varint(b, n);
	b_put(b, d, n);
}

/* An embedded message built in @sub, which is emptied for reuse. */
static void pb_msg(struct buf *b, int field, struct buf *sub)
{
	if (sub->err && !b->err)
		b->err = sub->err;
	pb_bytes(b, field, sub->p, sub->len);
	sub->len = 0;
}

/* A packed repeated integer field: one length, then the varints. */
static void pb_packed(struct buf *b, int field, const __u64 *v, size_t n,
		      struct buf *tmp)
{
	size_t i;

	for (i = 0; i < n; i++)
		pb_varint(tmp, v[i]);
	pb_msg(b, field, tmp);
}

/* ---- interning: each distinct key gets the next index ---- */

struct ient {
	void *key;
	size_t len;
};

struct itab {
	struct ient *e;
	size_t n, cap;
	size_t *slot;		/* open addressing: index + 1, 0 empty */
	size_t nslot;		/* a power of two, at least twice n */
};

static __u64 hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	__u64 h = 14695981039346656037ULL;	/* FNV-1a 64 */

	while (len--)
		h = (h ^ *p++) * 1099511628211ULL;
	return h;
}

static int rehash(struct itab *t)
{
	size_t n = t->nslot ? t->nslot * 2 : 64, i, h;
	size_t *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		h = hash(t->e[i].key, t->e[i].len) & (n - 1);
		while (slot[h])
			h = (h + 1) & (n - 1);
		slot[h] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = n;
	return 0;
}

/* The index of @key in @t, added if new; -ENOMEM on failure. */
static long long intern(struct itab *t, const void *key, size_t len)
{
	struct ient *e;
	size_t h, i;

	if ((t->n + 1) * 2 > t->nslot && rehash(t))
		return -ENOMEM;
	for (h = hash(key, len) & (t->nslot - 1); t->slot[h];
	     h = (h + 1) & (t->nslot - 1)) {
		e = &t->e[t->slot[h] - 1];
		if (e->len == len && !memcmp(e->key, key, len))
			return (long long)(t->slot[h] - 1);
	}
	if (array_ensure(&t->e, &t->cap, sizeof(*t->e), t->n + 1))
		return -ENOMEM;
	i = t->n;
	t->e[i].key = malloc(len ? len : 1);
	if (!t->e[i].key)
		return -ENOMEM;
	memcpy(t->e[i].key, key, len);
	t->e[i].len = len;
	t->n++;
	t->slot[h] = i + 1;
	return (long long)i;
}

static void itab_free(struct itab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->e[i].key);
	free(t->e);
	free(t->slot);
}

/* ---- the profile's tables ---- */

struct pfunc {
	__s64 name, file;
};

struct pmap {
	__u64 start, limit, offset;
	__s64 file, build_id;
};

/* A location's key: mapping, address, then its lines innermost first. */
#define MAX_LINES 16
struct pline {
	__u64 func;
	__s64 line;
};

struct ploc {
	__u64 map, addr;
	struct pline line[MAX_LINES];
};

/* One frame of a row's path, as the profile sees it. */
struct pstep {
	__u64 func, map, addr;
	__s64 line;
	bool frame, inlined;
};

struct pprof {
	const struct report *r;
	struct itab strs, funcs, maps, locs;
	struct buf out, tmp, tmp2;
	struct pstep *steps;
	size_t nsteps, capsteps;
	/* pprof takes the first mapping for the main binary: the one most
	 * stacks start in (_start's) goes first */
	size_t *roots;		/* per mapping: user stacks rooted there */
	size_t caproots;
	size_t main_map;	/* its id, 0 if none */
	bool root_seen;		/* this row's first user frame was counted */
	int err;
};

static __s64 str_id(struct pprof *p, const char *s)
{
	long long i = intern(&p->strs, s, strlen(s));

	if (i < 0 && !p->err)
		p->err = (int)i;
	return i < 0 ? 0 : i;
}

/* Table ids start at 1: 0 means "none" in profile.proto. */
static __u64 tab_id(struct pprof *p, struct itab *t, const void *k,
		    size_t len)
{
	long long i = intern(t, k, len);

	if (i < 0 && !p->err)
		p->err = (int)i;
	return i < 0 ? 0 : (__u64)i + 1;
}

/* The frame's name with scry's brackets ("[libc.so.6]"): the function */
static __u64 func_id(struct pprof *p, const struct fold_step *st)
{
	struct pfunc f = { 0 };
	char *name = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&name, &len);

	if (!m) {
		p->err = -ENOMEM;
		return 0;
	}
	/* names come from traced processes: pprof's viewers print them to
	 * terminals and pages as they are, so they go through sane.h */
	fputs(st->pre, m);
	sane_fputs(m, st->text, 0, NULL);
	fputs(st->post, m);
	if (fclose(m) || !name) {
		free(name);
		p->err = -ENOMEM;
		return 0;
	}
	f.name = str_id(p, name);
	free(name);
	if (st->fr && st->fr->file)
		f.file = str_id(p, st->fr->file);
	return tab_id(p, &p->funcs, &f, sizeof(f));
}

static __u64 map_id(struct pprof *p, const struct report_frame *fr,
		    bool kernel)
{
	struct pmap m = { 0 };

	if (kernel) {
		/* perf's name for the kernel; modules keep theirs */
		m.file = str_id(p, !fr->module || !strcmp(fr->module, "vmlinux") ?
				"[kernel.kallsyms]" : fr->module);
		m.start = KERNEL_START;
		m.limit = ~0ULL;
	} else if (fr->map) {
		m.start = fr->map->start;
		m.limit = fr->map->limit;
		m.offset = fr->map->offset;
		m.file = str_id(p, fr->map->file ? fr->map->file : "");
		if (fr->map->build_id)
			m.build_id = str_id(p, fr->map->build_id);
	} else {
		return 0;
	}
	return tab_id(p, &p->maps, &m, sizeof(m));
}

/* A user stack's root frame is in mapping @id: count it. */
static void count_root(struct pprof *p, __u64 id)
{
	size_t old = p->caproots;

	if (array_ensure(&p->roots, &p->caproots, sizeof(*p->roots), id)) {
		p->err = -ENOMEM;
		return;
	}
	memset(p->roots + old, 0, (p->caproots - old) * sizeof(*p->roots));
	p->roots[id - 1]++;
}

/* Mapping ids as written: the main binary's is 1, the others keep order. */
static __u64 map_out(const struct pprof *p, __u64 id)
{
	if (!id || !p->main_map || id > p->main_map)
		return id;
	return id == p->main_map ? 1 : id + 1;
}

static int add_step(void *ctx, const struct fold_step *st)
{
	struct pprof *p = ctx;
	struct pstep *s;

	if (array_ensure(&p->steps, &p->capsteps, sizeof(*p->steps),
			 p->nsteps + 1))
		return -ENOMEM;
	s = &p->steps[p->nsteps++];
	memset(s, 0, sizeof(*s));
	s->func = func_id(p, st);
	if (st->fr) {
		s->frame = true;
		s->inlined = st->inlined;
		s->addr = st->fr->addr;
		s->line = st->fr->line;
		s->map = map_id(p, st->fr, st->kernel);
		/* the walk is root first: the row's first user frame */
		if (!st->kernel && s->map && !p->root_seen)
			count_root(p, s->map);
		p->root_seen |= !st->kernel;
	}
	return p->err;
}

/*
 * The location that starts at steps[@i] (walking leaf first, so @i goes
 * down): an inlined frame and the frames it is inlined into, up to the
 * real function at the same address, are one location whose lines are
 * innermost first. Returns the location id; *@next is the step after it.
 */
static __u64 location(struct pprof *p, long i, long *next)
{
	const struct pstep *s = &p->steps[i];
	struct ploc l;
	int n = 0;

	memset(&l, 0, sizeof(l));
	l.map = s->map;
	l.addr = s->addr;
	for (;;) {
		l.line[n].func = p->steps[i].func;
		l.line[n].line = p->steps[i].line;
		n++;
		if (!p->steps[i].inlined || i == 0 || n == MAX_LINES)
			break;
		s = &p->steps[i - 1];
		if (!s->frame || s->addr != l.addr || s->map != l.map)
			break;
		i--;
	}
	*next = i - 1;
	return tab_id(p, &p->locs, &l, sizeof(l));
}

/* ---- sample types and values ---- */

/* "off-CPU time" -> "off_cpu_time": pprof's type names are identifiers */
static void type_name(char *buf, size_t len, const char *s)
{
	size_t n = 0;
	bool sep = false;

	for (; *s && n + 2 < len; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')) {
			if (sep && n)
				buf[n++] = '_';
			buf[n++] = *s;
			sep = false;
		} else if (*s >= 'A' && *s <= 'Z') {
			if (sep && n)
				buf[n++] = '_';
			buf[n++] = (char)(*s - 'A' + 'a');
			sep = false;
		} else {
			sep = true;
		}
	}
	buf[n] = '\0';
}

static const char *unit_name(const char *unit)
{
	if (!unit)
		return "count";
	if (!strcmp(unit, "ns"))
		return "nanoseconds";
	return unit;
}


static void value_type(struct pprof *p, int field, const char *type,
		       const char *unit)
{
	char name[64];

	type_name(name, sizeof(name), type);
	pb_int(&p->tmp, VALUETYPE_TYPE, (__u64)str_id(p, name));
	pb_int(&p->tmp, VALUETYPE_UNIT, (__u64)str_id(p, unit));
	pb_msg(&p->out, field, &p->tmp);
}

/*
 * count(): the count, and with a sampling period (profile) the CPU time
 * it stands for, as Go's CPU profiles have. Other aggregations: the
 * number of events and the aggregated value (sum; min/max/avg as is).
 */
static int sample_types(struct pprof *p)
{
	const struct report *r = p->r;
	const char *vname;
	char name[64];

	if (r->agg == SCRY_AGG_COUNT) {
		value_type(p, PROFILE_SAMPLE_TYPE,
			   r->value_name ? r->value_name : "count", "count");
		if (!r->period_ns)
			return 1;
		value_type(p, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
		value_type(p, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
		pb_int(&p->out, PROFILE_PERIOD, r->period_ns);
		type_name(name, sizeof(name), "cpu");
	} else {
		/* quantize and lquantize values are sums */
		vname = r->sum_label ? r->sum_label : r->value_name ?
			r->value_name : r->agg == SCRY_AGG_MIN ||
			r->agg == SCRY_AGG_MAX || r->agg == SCRY_AGG_AVG ?
			report_agg_name(r->agg) : "sum";
		value_type(p, PROFILE_SAMPLE_TYPE,
			   r->count_label ? r->count_label : "count", "count");
		value_type(p, PROFILE_SAMPLE_TYPE, vname, unit_name(r->unit));
		type_name(name, sizeof(name), vname);
	}
	/* the value, not the count, is what a viewer shows first */
	pb_int(&p->out, PROFILE_DEFAULT_SAMPLE_TYPE, (__u64)str_id(p, name));
	return 2;
}

static void row_values(const struct pprof *p, const struct report_row *row,
		       __u64 v[2])
{
	const struct report *r = p->r;
	__s64 x = report_row_value(r, row);

	v[0] = row->val.count;
	if (r->agg == SCRY_AGG_COUNT) {
		v[1] = row->val.count * r->period_ns;
		return;
	}
	/* failed read()s sum negative errnos: no bytes moved */
	if (x < 0 && r->unit && !strcmp(r->unit, "bytes"))
		x = 0;
	v[1] = (__u64)x;
}

/* ---- rows ---- */

static void put_sample(struct pprof *p, const struct report_row *row,
		       int ntypes)
{
	__u64 *ids, v[2];
	size_t n = 0;
	long i;

	p->nsteps = 0;
	p->root_seen = false;
	if (fold_row(row, add_step, p) && !p->err)
		p->err = -ENOMEM;
	if (p->err)
		return;
	ids = calloc(p->nsteps ? p->nsteps : 1, sizeof(*ids));
	if (!ids) {
		p->err = -ENOMEM;
		return;
	}
	for (i = (long)p->nsteps - 1; i >= 0 && !p->err;)
		ids[n++] = location(p, i, &i);
	row_values(p, row, v);
	pb_packed(&p->tmp, SAMPLE_LOCATION_ID, ids, n, &p->tmp2);
	pb_packed(&p->tmp, SAMPLE_VALUE, v, (size_t)ntypes, &p->tmp2);
	pb_msg(&p->out, PROFILE_SAMPLE, &p->tmp);
	free(ids);
}

/* ---- tables ---- */

static void put_tables(struct pprof *p)
{
	const struct pfunc *f;
	const struct pmap *m;
	const struct ploc *l;
	size_t i, most = 0;
	int k;

	for (i = 0; i < p->caproots; i++) {
		if (p->roots[i] > most) {
			most = p->roots[i];
			p->main_map = i + 1;
		}
	}
	for (i = 0; i < p->maps.n; i++) {
		/* main first: 1 is its id, then the others in id order */
		size_t j = !p->main_map ? i : i == 0 ? p->main_map - 1 :
			   i < p->main_map ? i - 1 : i;

		m = p->maps.e[j].key;
		pb_int(&p->tmp, MAPPING_ID, map_out(p, j + 1));
		pb_int(&p->tmp, MAPPING_START, m->start);
		pb_int(&p->tmp, MAPPING_LIMIT, m->limit);
		pb_int(&p->tmp, MAPPING_OFFSET, m->offset);
		pb_int(&p->tmp, MAPPING_FILENAME, (__u64)m->file);
		pb_int(&p->tmp, MAPPING_BUILD_ID, (__u64)m->build_id);
		/* names are resolved: pprof must not symbolize again */
		pb_int(&p->tmp, MAPPING_HAS_FUNCTIONS, 1);
		pb_int(&p->tmp, MAPPING_HAS_INLINE_FRAMES, 1);
		pb_msg(&p->out, PROFILE_MAPPING, &p->tmp);
	}
	for (i = 0; i < p->locs.n; i++) {
		l = p->locs.e[i].key;
		pb_int(&p->tmp, LOCATION_ID, i + 1);
		pb_int(&p->tmp, LOCATION_MAPPING_ID, map_out(p, l->map));
		pb_int(&p->tmp, LOCATION_ADDRESS, l->addr);
		for (k = 0; k < MAX_LINES && l->line[k].func; k++) {
			pb_int(&p->tmp2, LINE_FUNCTION_ID, l->line[k].func);
			pb_int(&p->tmp2, LINE_LINE, (__u64)l->line[k].line);
			pb_msg(&p->tmp, LOCATION_LINE, &p->tmp2);
		}
		pb_msg(&p->out, PROFILE_LOCATION, &p->tmp);
	}
	for (i = 0; i < p->funcs.n; i++) {
		f = p->funcs.e[i].key;
		pb_int(&p->tmp, FUNCTION_ID, i + 1);
		pb_int(&p->tmp, FUNCTION_NAME, (__u64)f->name);
		pb_int(&p->tmp, FUNCTION_SYSTEM_NAME, (__u64)f->name);
		pb_int(&p->tmp, FUNCTION_FILENAME, (__u64)f->file);
		pb_msg(&p->out, PROFILE_FUNCTION, &p->tmp);
	}
	/* last: every string is interned by now; [0] is "" */
	for (i = 0; i < p->strs.n; i++)
		pb_bytes(&p->out, PROFILE_STRING_TABLE, p->strs.e[i].key,
			 p->strs.e[i].len);
}

static void put_header(struct pprof *p)
{
	const struct report *r = p->r;
	__s64 dur = (__s64)(r->duration_s * 1e9);
	char comment[512];

	if (dur < 0)
		dur = 0;
	pb_int(&p->out, PROFILE_DURATION_NANOS, (__u64)dur);
	/* the profile starts when collecting did */
	if (r->time_ns > dur)
		pb_int(&p->out, PROFILE_TIME_NANOS, (__u64)(r->time_ns - dur));
	snprintf(comment, sizeof(comment), "scry %s%s%s",
		 r->name ? r->name : "", r->name ? ": " : "",
		 r->question ? r->question : "");
	pb_int(&p->out, PROFILE_COMMENT, (__u64)str_id(p, comment));
}

/* ---- gzip ---- */

static int gzip_to(FILE *f, const unsigned char *d, size_t len)
{
	unsigned char chunk[16384];
	z_stream z;
	int zr, err = 0;
	size_t n;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)d;
	z.avail_in = (uInt)len;		/* a profile is far below 4 GiB */
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, Z_FINISH);
		n = sizeof(chunk) - z.avail_out;
		if (zr == Z_STREAM_ERROR)
			err = -EIO;
		else if (n && fwrite(chunk, 1, n, f) != n)
			err = -EIO;
	} while (!err && zr != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}

int out_pprof(FILE *f, const struct report *r)
{
	struct pprof p = { .r = r };
	int ntypes, err;
	size_t i;

	str_id(&p, "");		/* string_table[0] must be "" */
	ntypes = sample_types(&p);
	for (i = 0; r->rows && i < r->nrows && !p.err; i++) {
		/* a profile's values add up: empty rows add nothing */
		if (r->rows[i].val.count)
			put_sample(&p, &r->rows[i], ntypes);
	}
	put_header(&p);
	put_tables(&p);
	err = p.err ? p.err : p.out.err ? p.out.err : p.tmp.err ? p.tmp.err :
	      p.tmp2.err;
	if (!err && p.out.len > 0xffffffffU)
		err = -EFBIG;
	if (!err)
		err = gzip_to(f, p.out.p, p.out.len);
	/* Buffered streams fail late: flush so the error is ours to report. */
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
	itab_free(&p.strs);
	itab_free(&p.funcs);
	itab_free(&p.maps);
	itab_free(&p.locs);
	free(p.out.p);
	free(p.tmp.p);
	free(p.tmp2.p);
	free(p.steps);
	free(p.roots);
	return err;
}
