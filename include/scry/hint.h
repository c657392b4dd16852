/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hint: "did you mean ...?" for a misspelt name: the closest names by
 * edit distance, for functions, USDT probes, syscalls, fields, probe kinds.
 */
#ifndef SCRY_HINT_H
#define SCRY_HINT_H

#include <stddef.h>

struct hint {
	const char *name;	/* not owned, not NUL-terminated at len */
	size_t len;
	int dist;
};

/*
 * Case-insensitive Levenshtein distance between a[0..al) and b[0..bl),
 * or INT_MAX when it exceeds @limit (or a name is too long to bother).
 */
int hint_distance(const char *a, size_t al, const char *b, size_t bl,
		  int limit);

/* How far a name of @len may be from a suggestion: len / 3 + 1, at most 4. */
int hint_limit(size_t len);

/*
 * Keep the @max closest names in h[0..*nh), by distance then name, each
 * name once. @dist INT_MAX (too far) is never kept.
 */
void hint_offer(struct hint *h, int *nh, int max, const char *name,
		size_t len, int dist);

/*
 * "; did you mean: a, b?" of h[0..nh) into @buf (len > 0), or "" when
 * there is none; returns @buf.
 */
const char *hint_format(const struct hint *h, int nh, char *buf, size_t len);

#endif /* SCRY_HINT_H */
