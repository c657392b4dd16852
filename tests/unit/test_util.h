/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers the printer tests share: allocation that cannot fail quietly,
 * reading golden files, rendering a report into a string. */
#ifndef SCRY_TEST_UTIL_H
#define SCRY_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct report;

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

#endif /* SCRY_TEST_UTIL_H */
