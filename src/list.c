// SPDX-License-Identifier: GPL-2.0
/*
 * list: `scry -l`. The probe kinds come from the sources table; what a
 * kind lists under it (functions, USDT probes, syscalls, tracepoints) is
 * its source's list hook, filtered with fnmatch globs. Symbol names, USDT
 * notes and paths are whatever a binary says: the hooks print each probe
 * with list_line(), through the sanitizer (sane.h), one per line.
 */
#include <fnmatch.h>
#include <string.h>
#include <scry/list.h>
#include <scry/log.h>
#include <scry/sane.h>
#include <scry/source.h>

static int list_kinds(FILE *f, const char *glob)
{
	int i, found = 0;

	for (i = 0; sources[i]; i++) {
		const char *usage = sources[i]->usage;

		if (glob && fnmatch(glob, usage, 0) &&
		    strncmp(glob, usage, strlen(glob)))
			continue;
		fprintf(f, "%-24s %s\n", usage, sources[i]->what);
		found++;
	}
	return found ? 0 : 1;
}

void list_line(FILE *f, const char *kind, const char *a, const char *b,
	       const char *c, const char *args)
{
	const char *parts[] = { a, b, c };
	size_t i;

	fputs(kind, f);
	for (i = 0; i < 3 && parts[i]; i++) {
		fputc(':', f);
		sane_fputs(f, parts[i], 0, NULL);
	}
	if (args) {
		fputs("  # args: ", f);
		sane_fputs(f, args, 0, NULL);
	}
	fputc('\n', f);
}

/* Split "a:b:c" into at most @max parts, in place. */
static int split(char *s, char **parts, int max)
{
	int n = 0;

	parts[n++] = s;
	while (n < max && (s = strchr(s, ':'))) {
		*s++ = '\0';
		parts[n++] = s;
	}
	return n;
}

int list_probes(FILE *f, const char *pattern, int pid)
{
	const struct source *src;
	char buf[1024], *p[4] = {};
	int n, ret;

	if (!pattern || !*pattern)
		return list_kinds(f, NULL);
	if (strlen(pattern) >= sizeof(buf)) {
		log_err("-l: pattern too long");
		return 2;
	}
	strcpy(buf, pattern);
	n = split(buf, p, 4);
	src = source_find(p[0]);
	if (src && src->list && n >= 2)
		ret = src->list(f, p + 1, n - 1, pid);
	else
		ret = list_kinds(f, pattern);
	if (ret == 1)
		log_err("-l: nothing matches '%s'", pattern);
	return ret;
}
