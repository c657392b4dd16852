/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exited processes in the symbolizer (issue 14): their mappings are
 * evicted only when told they exited, old enough, and not kept by the
 * caller (a row refers to them); a pid told of again is live once more,
 * and adding an exited pid asks nothing of /proc.
 */
#include <errno.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include <scry/sym.h>

#include "check.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool keep_none(void *ctx, int pid)
{
	(void)ctx;
	(void)pid;
	return false;
}

static bool keep_all(void *ctx, int pid)
{
	(void)ctx;
	(void)pid;
	return true;
}

int main(void)
{
	struct syms *s = syms_new();
	int me = getpid();

	CHECK(s != NULL, "syms_new");
	if (!s)
		return CHECK_DONE();
	CHECK_INT(syms_add_pid(s, me), 0, "add own pid");
	CHECK_INT((int)syms_evict_exited(s, now_s() + 10, 0, keep_none, NULL),
		  0, "a live process is never evicted");
	syms_exited(s, me);
	CHECK_INT((int)syms_evict_exited(s, now_s(), 5, keep_none, NULL), 0,
		  "an exit younger than min_age is kept");
	CHECK_INT((int)syms_evict_exited(s, now_s() + 10, 5, keep_all, NULL),
		  0, "a process the caller keeps (a row holds it) is kept");
	CHECK(syms_addrspace(s, me) != NULL, "kept: its mappings are there");
	/* the drain adds every row's pid: an exited one stays exited */
	CHECK_INT(syms_add_pid(s, me), 0, "exited: add is answered as known");
	CHECK_INT(syms_notice_pid(s, me, 0, false), 0,
		  "told of again (a reused pid): read");
	CHECK_INT((int)syms_evict_exited(s, now_s() + 10, 0, keep_none, NULL),
		  0, "told of again: live, not evicted");
	syms_exited(s, me);
	CHECK_INT((int)syms_evict_exited(s, now_s() + 10, 5, keep_none, NULL),
		  1, "exited, old enough, no row: evicted");
	CHECK(syms_addrspace(s, me) == NULL, "evicted: no mappings left");
	/* never read (gone before its notice): known as gone from now on */
	syms_exited(s, 1 << 30);
	CHECK_INT(syms_add_pid(s, 1 << 30), -ESRCH,
		  "exited, never read: -ESRCH without asking /proc");
	CHECK_INT((int)syms_evict_exited(s, now_s() + 10, 0, keep_none, NULL),
		  1, "exited, never read: evicted like the others");
	syms_exited(NULL, me);
	CHECK_INT((int)syms_evict_exited(NULL, 0, 0, keep_none, NULL), 0,
		  "NULL syms: nothing");
	syms_free(s);
	return CHECK_DONE();
}
