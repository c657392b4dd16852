/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writes the SVG flame graph of a fixed report to stdout, for the
 * browser test (tests/tool/browser.sh): widths and percentages are known
 * exactly. 1000 samples:
 *
 *   all 1000 -> app 950 -> main 950 -> a 800 -> hot_a 600
 *                                             -> hot_b 200
 *                                   -> b 150
 *            -> other 50 -> x<&> 50
 */
#include <stdio.h>
#include <scry/out.h>
#include <scry/report.h>

#include "test_util.h"

static void row(struct report_row *row, const char *comm,
		const struct fdesc *leaf_first, int n, __u64 count)
{
	set_str(&row->keys[0], "comm", comm);
	set_stack_named(&row->keys[1], REPORT_KEY_USTACK, NULL, leaf_first, n);
	row->nkeys = 2;
	row->val.count = count;
}

int main(void)
{
	static const struct fdesc hot_a[] = {
		{ "app", "hot_a", 1, 0x1100, false }, { "app", "a", 2, 0x1200, false },
		{ "app", "main", 3, 0x1300, false },
	};
	static const struct fdesc hot_b[] = {
		{ "app", "hot_b", 1, 0x1400, false }, { "app", "a", 5, 0x1205, false },
		{ "app", "main", 3, 0x1300, false },
	};
	static const struct fdesc b[] = {
		{ "app", "b", 1, 0x1500, false }, { "app", "main", 9, 0x1309, false },
	};
	static const struct fdesc x[] = { { "other", "x<&>", 0, 0x10, false } };
	struct report r;
	int err;

	new_rows(&r, SCRY_AGG_COUNT, 4);
	r.name = "profile";
	r.question = "profile:99 { @[kstack, ustack, comm] = count() }";
	r.value_name = "samples";
	r.duration_s = 1;
	row(&r.rows[0], "app", hot_a, 3, 600);
	row(&r.rows[1], "app", hot_b, 3, 200);
	row(&r.rows[2], "app", b, 2, 150);
	row(&r.rows[3], "other", x, 1, 50);
	err = out_svg(stdout, &r);
	report_clear(&r);
	return err ? 1 : 0;
}
