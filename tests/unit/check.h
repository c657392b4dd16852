/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal unit-test harness. Each CHECK prints one line, "ok - what" or
 * "FAIL - what (file:line): detail"; a check that cannot run here prints
 * "skip - what: why" through SKIP. tests/run counts those lines across
 * every binary and prints the closing "N passed, N failed, N skipped"
 * (in make test a skip is a failure: everything the tests need is there).
 */
#ifndef SCRY_CHECK_H
#define SCRY_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failed;

#define CHECK(cond, what) do {						\
	if (cond) {							\
		printf("ok - %s\n", what);				\
	} else {							\
		printf("FAIL - %s (%s:%d): %s\n", what, __FILE__,	\
		       __LINE__, #cond);				\
		check_failed++;						\
	}								\
} while (0)

#define CHECK_STR(got, want, what) do {					\
	const char *g_ = (got), *w_ = (want);				\
	if (g_ && w_ && !strcmp(g_, w_)) {				\
		printf("ok - %s\n", what);				\
	} else {							\
		printf("FAIL - %s (%s:%d):\n--- want\n%s\n--- got\n%s\n",\
		       what, __FILE__, __LINE__, w_ ? w_ : "(null)",	\
		       g_ ? g_ : "(null)");				\
		check_failed++;						\
	}								\
} while (0)

#define CHECK_INT(got, want, what) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	if (g_ == w_) {							\
		printf("ok - %s\n", what);				\
	} else {							\
		printf("FAIL - %s (%s:%d): got %lld, want %lld\n",	\
		       what, __FILE__, __LINE__, g_, w_);		\
		check_failed++;						\
	}								\
} while (0)

/*
 * A check this machine cannot run: never an "ok". WHY names what is
 * missing and how to get it, e.g. "no xmllint: apt-get install
 * libxml2-utils".
 */
#define SKIP(what, why) printf("skip - %s: %s\n", (what), (why))

#define CHECK_DONE() (check_failed ? 1 : 0)

#endif /* SCRY_CHECK_H */
