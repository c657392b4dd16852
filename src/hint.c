// SPDX-License-Identifier: GPL-2.0
/*
 * hint: the names closest to a misspelt one, for "did you mean" messages.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <scry/hint.h>

#define HINT_NAME_MAX	256	/* longer names are never suggested */

int hint_distance(const char *a, size_t al, const char *b, size_t bl,
		  int limit)
{
	int row[HINT_NAME_MAX + 1];
	size_t i, j;

	if (al > HINT_NAME_MAX || bl > HINT_NAME_MAX)
		return INT_MAX;
	if ((al > bl ? al - bl : bl - al) > (size_t)limit)
		return INT_MAX;
	for (j = 0; j <= bl; j++)
		row[j] = (int)j;
	for (i = 1; i <= al; i++) {
		int diag = row[0], best;

		row[0] = (int)i;
		best = row[0];
		for (j = 1; j <= bl; j++) {
			int up = row[j], v;

			v = diag + (tolower((unsigned char)a[i - 1]) !=
				    tolower((unsigned char)b[j - 1]));
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return INT_MAX;
	}
	return row[bl] > limit ? INT_MAX : row[bl];
}

int hint_limit(size_t len)
{
	size_t limit = len / 3 + 1;

	return limit > 4 ? 4 : (int)limit;
}

void hint_offer(struct hint *h, int *nh, int max, const char *name,
		size_t len, int dist)
{
	int i, j;

	if (dist == INT_MAX)
		return;
	for (i = 0; i < *nh; i++)
		if (h[i].len == len && !memcmp(h[i].name, name, len))
			return;
	for (i = 0; i < *nh; i++) {
		int c;

		if (dist != h[i].dist) {
			if (dist < h[i].dist)
				break;
			continue;
		}
		c = strncmp(name, h[i].name, len < h[i].len ? len : h[i].len);
		if (c < 0 || (c == 0 && len < h[i].len))
			break;
	}
	if (i >= max)
		return;
	if (*nh < max)
		(*nh)++;
	for (j = *nh - 1; j > i; j--)
		h[j] = h[j - 1];
	h[i].name = name;
	h[i].len = len;
	h[i].dist = dist;
}

const char *hint_format(const struct hint *h, int nh, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < nh && o < len; i++)
		o += snprintf(buf + o, len - o, "%s%.*s", i ? ", " : "; did "
			      "you mean: ", (int)h[i].len, h[i].name);
	if (nh && o < len)
		snprintf(buf + o, len - o, "?");
	return buf;
}
