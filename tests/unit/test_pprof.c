/* SPDX-License-Identifier: GPL-2.0 */
/*
 * out_pprof's encoder, read back with a protobuf decoder written here
 * from the wire format (not from the encoder): the gzip stream, string
 * table, sample types, values, one location per inlined chain with its
 * lines innermost first, 64-bit kernel addresses, mappings with their
 * build-id and the main binary first. tests/root/pprof.sh reads real
 * profiles with Go's own pprof.
 *
 * Run:   test_pprof
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <scry/out.h>
#include <scry/report.h>

#include "check.h"
#include "test_util.h"

/* ---- a profile.proto reader: just enough wire format ---- */

struct msg {
	const unsigned char *p, *end;
};

static int varint(struct msg *m, __u64 *v)
{
	int shift = 0;

	*v = 0;
	while (m->p < m->end && shift < 64) {
		unsigned char b = *m->p++;

		*v |= (__u64)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/*
 * The next field: its number, and its value (varint: sub->p is NULL) or
 * its bytes in @sub (length-delimited). profile.proto uses no other wire
 * type.
 */
static int field(struct msg *m, int *num, __u64 *v, struct msg *sub)
{
	__u64 key, len;

	if (m->p >= m->end || varint(m, &key))
		return -1;
	*num = (int)(key >> 3);
	sub->p = sub->end = NULL;
	if ((key & 7) == 0)
		return varint(m, v);
	if ((key & 7) != 2 || varint(m, &len) || len > (__u64)(m->end - m->p))
		return -1;
	sub->p = m->p;
	sub->end = m->p + len;
	m->p += len;
	return 0;
}

/* Every value of field @num of @m (packed or not) into @out; their count. */
static int ints(struct msg m, int num, __u64 *out, int max)
{
	struct msg sub;
	int n = 0, f;
	__u64 v;

	while (!field(&m, &f, &v, &sub)) {
		if (f != num)
			continue;
		if (sub.p) {	/* packed: varints back to back */
			while (sub.p < sub.end && n < max && !varint(&sub, &out[n]))
				n++;
		} else if (n < max) {
			out[n++] = v;
		}
	}
	return n;
}

/* The @i-th (0-based) embedded message of field @num. */
static int nth(struct msg m, int num, int i, struct msg *out)
{
	struct msg sub;
	int f;
	__u64 v;

	while (!field(&m, &f, &v, &sub))
		if (f == num && i-- == 0) {
			*out = sub;
			return 0;
		}
	return -1;
}

static int count(struct msg m, int num)
{
	struct msg sub;
	int f, n = 0;
	__u64 v;

	while (!field(&m, &f, &v, &sub))
		n += f == num;
	return n;
}

static struct msg prof;

/* string_table[@i] as a C string (static buffer) */
static const char *str(__u64 i)
{
	static char buf[256];
	struct msg s;
	size_t n;

	if (nth(prof, 6, (int)i, &s))
		return "(no such string)";
	n = (size_t)(s.end - s.p);
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s.p, n);
	buf[n] = '\0';
	return buf;
}

static __u64 one(struct msg m, int num)
{
	__u64 v = 0;

	ints(m, num, &v, 1);
	return v;
}

/* Location @id's message (ids are 1-based, in table order here) */
static struct msg location(__u64 id)
{
	struct msg l = { 0 };

	nth(prof, 4, (int)id - 1, &l);
	return l;
}

/* The name of function @id */
static const char *func_name(__u64 id)
{
	struct msg f = { 0 };

	nth(prof, 5, (int)id - 1, &f);
	return str(one(f, 2));
}

/* A location's lines' function names, innermost first: "a,b" */
static const char *lines(struct msg l)
{
	static char buf[256];
	struct msg ln;
	int i;

	buf[0] = '\0';
	for (i = 0; !nth(l, 4, i, &ln); i++) {
		if (i)
			strcat(buf, ",");
		strncat(buf, func_name(one(ln, 1)), 100);
	}
	return buf;
}

/* ---- the report ---- */

static void set_map(struct report_frame *fr, const char *file,
		    const char *bid, __u64 start)
{
	fr->map = xcalloc(1, sizeof(*fr->map));
	fr->map->file = xstrdup(file);
	fr->map->build_id = xstrdup(bid);
	fr->map->start = start;
	fr->map->limit = start + 0x1000;
	fr->map->offset = 0x2000;
}

static unsigned char *gunzip(const char *gz, size_t len, size_t *out_len)
{
	static unsigned char out[1 << 16];
	z_stream z;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return NULL;
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = sizeof(out);
	if (inflate(&z, Z_FINISH) != Z_STREAM_END) {
		inflateEnd(&z);
		return NULL;
	}
	*out_len = sizeof(out) - z.avail_out;
	inflateEnd(&z);
	return out;
}

int main(void)
{
	static const struct fdesc u[] = {
		{ "libc.so.6", "malloc", 0, 0x7f0000001000, false },
		{ "app", "helper", 0, 0x401010, true },
		{ "app", "main", 16, 0x401010, false },
	};
	static const struct fdesc k[] = {
		{ "vmlinux", "schedule", 0x30, 0xffffffff81000030ULL, false },
	};
	static const struct fdesc evil[] = {
		{ "app", "f\033[2J", 0, 0x402000, false },
	};
	struct msg st, s, l, mp;
	__u64 ids[8], vals[4];
	unsigned char *pb;
	struct report r;
	size_t len = 0, pblen = 0;
	char *buf = NULL;
	FILE *m;
	int rc, n;

	new_rows(&r, SCRY_AGG_QUANTIZE, 3);
	r.unit = "bytes";
	r.count_label = "calls";
	r.sum_label = "bytes";
	set_str(&r.rows[0].keys[0], "comm", "app");
	set_stack_named(&r.rows[0].keys[1], REPORT_KEY_USTACK, NULL, u, 3);
	set_map(&r.rows[0].keys[1].stack.frames[0], "/usr/lib/libc.so.6", "c0ffee", 0x7f0000000000);
	set_map(&r.rows[0].keys[1].stack.frames[1], "/usr/bin/app", "abcd", 0x400000);
	set_map(&r.rows[0].keys[1].stack.frames[2], "/usr/bin/app", "abcd", 0x400000);
	r.rows[0].nkeys = 2;
	r.rows[0].val.count = 3;
	r.rows[0].val.sum = 300;
	/* a failed read-like row: negative bytes are no bytes */
	set_str(&r.rows[1].keys[0], "comm", "app");
	set_stack_named(&r.rows[1].keys[1], REPORT_KEY_KSTACK, NULL, k, 1);
	r.rows[1].nkeys = 2;
	r.rows[1].val.count = 2;
	r.rows[1].val.sum = -5;
	/* a name that would drive a terminal, as go tool pprof -top prints it */
	set_stack_named(&r.rows[2].keys[0], REPORT_KEY_USTACK, NULL, evil, 1);
	r.rows[2].nkeys = 1;
	r.rows[2].val.count = 1;

	m = open_memstream(&buf, &len);
	rc = out_pprof(m, &r);
	fclose(m);
	CHECK_INT(rc, 0, "pprof: returns 0");
	CHECK(len > 2 && (unsigned char)buf[0] == 0x1f &&
	      (unsigned char)buf[1] == 0x8b, "pprof: a gzip stream");
	pb = gunzip(buf, len, &pblen);
	CHECK(pb != NULL, "pprof: gunzips whole");
	if (!pb)
		return CHECK_DONE();
	prof = (struct msg){ pb, pb + pblen };

	CHECK_STR(str(0), "", "string_table[0] is empty");
	CHECK_INT(count(prof, 1), 2, "two sample types");
	nth(prof, 1, 0, &st);
	CHECK_STR(str(one(st, 1)), "calls", "sample type 0: calls");
	CHECK_STR(str(one(st, 2)), "count", "  ... in count");
	nth(prof, 1, 1, &st);
	CHECK_STR(str(one(st, 1)), "bytes", "sample type 1: bytes");
	CHECK_STR(str(one(st, 2)), "bytes", "  ... in bytes");
	CHECK_STR(str(one(prof, 14)), "bytes", "default sample type: bytes");

	CHECK_INT(count(prof, 2), 3, "one sample per row");
	nth(prof, 2, 0, &s);
	n = ints(s, 2, vals, 4);
	CHECK(n == 2 && vals[0] == 3 && vals[1] == 300, "sample 0: 3 calls, 300 bytes");
	n = ints(s, 1, ids, 8);
	CHECK_INT(n, 3, "sample 0: 3 locations (malloc, main with helper inlined, comm)");
	CHECK_STR(lines(location(ids[0])), "malloc", "leaf first: malloc");
	CHECK_STR(lines(location(ids[1])), "helper,main",
		  "inlined helper and main: one location, innermost line first");
	CHECK_INT(one(location(ids[1]), 3), 0x401010, "that location's address");
	CHECK_STR(lines(location(ids[2])), "app", "root: comm");
	CHECK_INT(one(location(ids[2]), 2), 0, "comm has no mapping");

	nth(prof, 2, 1, &s);
	n = ints(s, 2, vals, 4);
	CHECK(n == 2 && vals[0] == 2 && vals[1] == 0,
	      "sample 1: 2 calls, negative bytes count as 0");
	ints(s, 1, ids, 8);
	l = location(ids[0]);
	CHECK(one(l, 3) == 0xffffffff81000030ULL,
	      "kernel address: a 64-bit varint read back whole");
	CHECK_STR(lines(l), "schedule", "kernel function without _[k]");
	nth(prof, 3, (int)one(l, 2) - 1, &mp);
	CHECK_STR(str(one(mp, 5)), "[kernel.kallsyms]", "kernel mapping named as perf does");

	nth(prof, 2, 2, &s);
	ints(s, 1, ids, 8);
	CHECK_STR(lines(location(ids[0])), "f\\x1b[2J",
		  "a control character in a name is escaped (sane.h)");

	/* mappings: app (where stacks start) first, then libc, then kernel */
	CHECK_INT(count(prof, 3), 3, "three mappings");
	nth(prof, 3, 0, &mp);
	CHECK_INT(one(mp, 1), 1, "mapping 1 ...");
	CHECK_STR(str(one(mp, 5)), "/usr/bin/app", "... is the main binary");
	CHECK_STR(str(one(mp, 6)), "abcd", "... with its build-id");
	CHECK(one(mp, 2) == 0x400000 && one(mp, 3) == 0x401000 &&
	      one(mp, 4) == 0x2000, "... start, limit, offset");
	CHECK_INT(one(mp, 7), 1, "... has_functions: pprof must not symbolize");
	nth(prof, 2, 0, &s);
	ints(s, 1, ids, 8);
	CHECK_INT(one(location(ids[1]), 2), 1, "main's location is in mapping 1");
	nth(prof, 3, (int)one(location(ids[0]), 2) - 1, &mp);
	CHECK_STR(str(one(mp, 5)), "/usr/lib/libc.so.6", "malloc's location is in libc's");

	free(buf);
	report_clear(&r);
	return CHECK_DONE();
}
