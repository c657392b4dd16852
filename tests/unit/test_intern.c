// SPDX-License-Identifier: GPL-2.0
/* intern: one counted copy per distinct string, freed with the last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scry/intern.h>
#include "check.h"

#define N 5000

int main(void)
{
	static char *a[N], *b[N];
	char name[32], *x, *y, *t;
	int i, same = 0, distinct = 1;

	x = intern("malloc");
	y = intern("malloc");
	CHECK(x && x == y, "intern: equal strings, one copy");
	CHECK_STR(x, "malloc", "intern: the text kept");
	intern_put(x);
	CHECK_STR(y, "malloc", "intern: alive while a reference is left");
	intern_put(y);
	intern_put(NULL);

	/* more strings than the first table's buckets: it grows */
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		a[i] = intern(name);
	}
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		b[i] = intern_take(strdup(name));
		same += a[i] && a[i] == b[i] && !strcmp(a[i], name);
		distinct &= !i || a[i] != a[i - 1];
	}
	CHECK_INT(same, N, "intern: every string found again after growth");
	CHECK(distinct, "intern: different strings, different copies");
	t = intern_take(NULL);
	CHECK(!t, "intern_take: NULL (a failed strdup) is a failure");
	for (i = 0; i < N; i++) {
		intern_put(a[i]);
		intern_put(b[i]);
	}
	/* all given back: the table is gone, a new one starts */
	x = intern("again");
	CHECK_STR(x, "again", "intern: works after the table emptied");
	intern_put(x);
	return CHECK_DONE();
}
