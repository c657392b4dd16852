/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program's maps in the text and JSON outputs: each under its name, in
 * program order; variables with their values (numbers, strings); stats;
 * an empty named map left out; JSON's top level the main map, "maps" the
 * others, valid against docs/scry.schema.json.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scry/out.h>
#include <scry/report.h>
#include "check.h"
#include "test_util.h"

/* Three maps: @n (count by comm), @v (a variable of strings), @e (empty). */
static void three_maps(struct report *main, struct report **v,
		       struct report **e)
{
	new_rows(main, SCRY_AGG_COUNT, 2);
	main->map_name = "@n";
	set_str(&main->rows[0].keys[0], "comm", "bash");
	main->rows[0].nkeys = 1;
	set_val(&main->rows[0], 3, 0, 0, 0);
	set_str(&main->rows[1].keys[0], "comm", "sh");
	main->rows[1].nkeys = 1;
	set_val(&main->rows[1], 5, 0, 0, 0);

	*v = xcalloc(1, sizeof(**v));
	new_rows(*v, SCRY_AGG_SUM, 1);
	(*v)->map_name = "@v";
	(*v)->var = true;
	set_int(&(*v)->rows[0].keys[0], "pid", 42);
	(*v)->rows[0].nkeys = 1;
	set_val(&(*v)->rows[0], 1, 7, 7, 7);
	(*v)->rows[0].vstr = xstrdup("a\tb");

	*e = xcalloc(1, sizeof(**e));
	new_rows(*e, SCRY_AGG_COUNT, 0);
	(*e)->map_name = "@e";

	main->maps = xcalloc(3, sizeof(*main->maps));
	main->maps[0] = main;
	main->maps[1] = *v;
	main->maps[2] = *e;
	main->nmaps = 3;
}

static void text_maps(void)
{
	static const char want[] =
		"\n@n:\n"
		"  bash                                                              3\n"
		"  sh                                                                5\n"
		"\n@v:\n"
		"       42  a\\tb\n";
	struct report r, *v, *e;
	char *got;
	int rc;

	three_maps(&r, &v, &e);
	report_sort(&r);
	got = render(out_text, &r, &rc);
	CHECK_INT(rc, 0, "text maps: returns 0");
	CHECK_STR(got, want, "text maps: each under its name, the empty one left "
		  "out, a string value escaped");
	free(got);
	report_clear(&r);

	/* one anonymous map: printa's layout, no name, even empty */
	new_rows(&r, SCRY_AGG_COUNT, 0);
	r.map_name = "@";
	r.maps = xcalloc(1, sizeof(*r.maps));
	r.maps[0] = &r;
	r.nmaps = 1;
	got = render(out_text, &r, &rc);
	CHECK_STR(got, "\n", "text: one empty anonymous map prints printa's "
		  "newline");
	free(got);
	report_clear(&r);

	/* stats */
	new_rows(&r, SCRY_AGG_STATS, 1);
	set_val(&r.rows[0], 4, 10, 1, 5);
	r.rows[0].nkeys = 0;
	got = render(out_text, &r, &rc);
	CHECK_STR(got, "\n count 4, average 2, total 10\n", "text: stats");
	free(got);
	report_clear(&r);
}

static void json_maps(void)
{
	struct report r, *v, *e;
	char *got;
	int rc;

	three_maps(&r, &v, &e);
	r.question = "x";
	report_sort(&r);
	got = render(out_json, &r, &rc);
	CHECK_INT(rc, 0, "json maps: returns 0");
	CHECK(got && strstr(got, "\"aggregation\":\"count\",\"map\":\"@n\","
			    "\"rows\":[{\"keys\":{\"comm\":\"bash\"},\"value\":3"),
	      "json maps: the top level is the main map, by name");
	CHECK(got && strstr(got, "\"maps\":[{\"name\":\"@v\",\"aggregation\":"
			    "\"value\",\"unit\":null,\"rows\":[{\"keys\":"
			    "{\"pid\":42},\"value\":7,"),
	      "json maps: a variable in \"maps\", its value");
	CHECK(got && strstr(got, "\"string\":\"a\\u0009b\""),
	      "json maps: a string value as \"string\"");
	CHECK(got && strstr(got, "{\"name\":\"@e\",\"aggregation\":\"count\","
			    "\"unit\":null,\"rows\":[]}]"),
	      "json maps: an empty map, by name");
	CHECK(got && !strstr(got, "{\"name\":\"@n\""),
	      "json maps: the main map is not repeated in \"maps\"");
	free(got);
	report_clear(&r);
}

int main(void)
{
	text_maps();
	json_maps();
	return CHECK_DONE();
}
