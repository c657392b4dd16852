/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --folded prints one line per distinct path: rows whose folded text is
 * the same (frames that differ only in offsets, which folded does not
 * print) are one line, their values summed before scaling, and the lines
 * in printa's order of the merged values.
 */
#include <scry/out.h>
#include <scry/report.h>

#include "check.h"
#include "test_util.h"

static void row_of(struct report_row *row, const struct fdesc *fd, int n,
		   __u64 count, __s64 sum)
{
	row->keys = xcalloc(REPORT_MAX_KEYS, sizeof(*row->keys));
	set_stack_named(&row->keys[0], REPORT_KEY_USTACK, NULL, fd, n);
	row->nkeys = 1;
	row->val.count = count;
	row->val.sum = sum;
	row->val.min = sum;
	row->val.max = sum;
}

static char *folded(struct report *r)
{
	int rc;
	char *got = render(out_folded, r, &rc);

	CHECK(rc == 0, "out_folded returns 0");
	return got;
}

/* leaf first, as captured: hot_a at two offsets, then main */
static const struct fdesc a1[] = {
	{ "cpu", "hot_a", 0x10, 0x1010, false },
	{ "cpu", "main", 0x5, 0x1105, false },
};
static const struct fdesc a2[] = {
	{ "cpu", "hot_a", 0x24, 0x1024, false },
	{ "cpu", "main", 0x5, 0x1105, false },
};
static const struct fdesc b[] = {
	{ "cpu", "hot_b", 0x8, 0x1208, false },
	{ "cpu", "main", 0x9, 0x1109, false },
};

static void test_count(void)
{
	struct report r = { .agg = SCRY_AGG_COUNT };
	char *got;

	/* sorted as report_sort leaves them: ascending by value */
	r.rows = xcalloc(3, sizeof(*r.rows));
	r.nrows = 3;
	row_of(&r.rows[0], a1, 2, 1, 0);
	row_of(&r.rows[1], b, 2, 5, 0);
	row_of(&r.rows[2], a2, 2, 16, 0);
	got = folded(&r);
	CHECK_STR(got, "main;hot_b 5\nmain;hot_a 17\n",
		  "folded: hot_a at two offsets is one line of 1 + 16");
	free(got);
	report_clear(&r);
}

static void test_reorder(void)
{
	struct report r = { .agg = SCRY_AGG_COUNT };
	char *got;

	/* 3 + 3 passes hot_b's 5: the merged line goes after it */
	r.rows = xcalloc(3, sizeof(*r.rows));
	r.nrows = 3;
	row_of(&r.rows[0], a1, 2, 3, 0);
	row_of(&r.rows[1], a2, 2, 3, 0);
	row_of(&r.rows[2], b, 2, 5, 0);
	got = folded(&r);
	CHECK_STR(got, "main;hot_b 5\nmain;hot_a 6\n",
		  "folded: merged lines in ascending order of their sums");
	free(got);
	report_clear(&r);
}

static void test_scaled(void)
{
	struct report r = { .agg = SCRY_AGG_SUM, .folded_div = 1000 };
	char *got;

	/* 600 ns + 600 ns: 1.2 us is 1, not two lines of 1 */
	r.rows = xcalloc(2, sizeof(*r.rows));
	r.nrows = 2;
	row_of(&r.rows[0], a1, 2, 1, 600);
	row_of(&r.rows[1], a2, 2, 1, 600);
	got = folded(&r);
	CHECK_STR(got, "main;hot_a 1\n",
		  "folded: merged values summed before ns -> us");
	free(got);
	report_clear(&r);
}

int main(void)
{
	test_count();
	test_reorder();
	test_scaled();
	return CHECK_DONE();
}
