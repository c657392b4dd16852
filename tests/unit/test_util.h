/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers the printer tests share: allocation that cannot fail quietly,
 * reading golden files, rendering a report into a string. */
#ifndef SCRY_TEST_UTIL_H
#define SCRY_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <unistd.h>
#include <scry/intern.h>
#include <scry/report.h>

typedef int (*printer_fn)(FILE *f, const struct report *r);

static inline char *xstrdup(const char *s)
{
	char *p;

	if (!s)
		return NULL;
	p = strdup(s);
	if (!p)
		abort();
	return p;
}

static inline void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		abort();
	return p;
}

static inline char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	if (!m)
		abort();
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

static inline char *render(printer_fn fn, const struct report *r, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		abort();
	*rc = fn(m, r);
	fclose(m);
	return buf;
}

/* Synthetic frames: strings are intern()ed as the drain's are, so
 * report_clear gives them back. */
struct fdesc {
	const char *module;
	const char *sym;
	__u64 off;
	__u64 addr;
	bool inlined;
};

static inline void set_stack_named(struct report_key *k, enum report_key_kind kind,
		      const char *name, const struct fdesc *fd, int n)
{
	int i;

	k->kind = kind;
	k->field = kind == REPORT_KEY_KSTACK ? SCRY_F_KSTACK : SCRY_F_USTACK;
	/* NULL: named after its kind */
	k->name = name ? name :
		  kind == REPORT_KEY_KSTACK ? "kstack" : "ustack";
	k->stack.nr = n;
	k->stack.frames = xcalloc(n, sizeof(*k->stack.frames));
	for (i = 0; i < n; i++) {
		struct report_frame *fr = &k->stack.frames[i];

		fr->module = fd[i].module ? intern(fd[i].module) : NULL;
		fr->sym = fd[i].sym ? intern(fd[i].sym) : NULL;
		fr->off = fd[i].off;
		fr->addr = fd[i].addr;
		fr->inlined = fd[i].inlined;
		fr->kernel = kind == REPORT_KEY_KSTACK;
	}
}

/* The typed column drain.c gives a key of this name (plan.c's fields). */
static inline enum scry_field field_named(const char *name)
{
	static const struct { const char *name; enum scry_field field; } f[] = {
		{ "pid", SCRY_F_PID }, { "tid", SCRY_F_TID },
		{ "uid", SCRY_F_UID }, { "cpu", SCRY_F_CPU },
		{ "comm", SCRY_F_COMM }, { "errno", SCRY_F_ERRNO },
		{ "fd.path", SCRY_F_FDPATH }, { "retval", SCRY_F_RETVAL },
		{ "arg0", SCRY_F_ARG0 }, { "arg1", SCRY_F_ARG1 },
		{ "latency", SCRY_F_LATENCY }, { "state", SCRY_F_STATE },
	};
	size_t i;

	for (i = 0; name && i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(name, f[i].name))
			return f[i].field;
	return SCRY_F_NONE;
}

static inline void set_int(struct report_key *k, const char *name, __s64 v)
{
	k->kind = REPORT_KEY_INT;
	k->field = field_named(name);
	k->name = name;
	k->i = v;
}

static inline void set_str(struct report_key *k, const char *name, const char *s)
{
	k->kind = REPORT_KEY_STR;
	k->field = field_named(name);
	k->name = name;
	k->s = xstrdup(s);
}

/* a row's aggregated value, as the drain would fill it */
static inline void set_val(struct report_row *row, __u64 count, __s64 sum,
			   __s64 min, __s64 max)
{
	row->val.count = count;
	row->val.sum = sum;
	row->val.min = min;
	row->val.max = max;
}

static inline void new_rows(struct report *r, enum scry_agg agg, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->agg = agg;
	r->nrows = n;
	r->rows = xcalloc(n, sizeof(*r->rows));
	while (n--)
		r->rows[n].keys = xcalloc(REPORT_MAX_KEYS,
					  sizeof(*r->rows[n].keys));
}

/*
 * What @fn(@arg) writes to stderr (diagnostics: log.c), as a string to
 * free. stderr goes to a temporary file meanwhile.
 */
static inline char *capture_stderr(void (*fn)(void *arg), void *arg)
{
	char path[] = "/tmp/scry-test-stderr.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	char *buf;

	if (fd < 0 || saved < 0)
		abort();
	fflush(stderr);
	dup2(fd, 2);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	buf = read_all(path);
	unlink(path);
	return buf ? buf : xstrdup("");
}

#endif /* SCRY_TEST_UTIL_H */
