/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON and SVG flame graph output on synthetic reports.
 *
 * Run:   test_json_svg [GOLDEN_DIR]   (default "tests/golden": run from the root)
 *
 * JSON is compared byte for byte with tests/golden/json_<case>.json and
 * validated against docs/scry.schema.json by tests/schema_check.py when
 * python3 has the jsonschema module. Regenerate the golden files after an
 * intended change with SCRY_GOLDEN_UPDATE=1, then read every changed line
 * against docs/JSON.md before keeping it. The SVG is checked for its
 * properties (xmllint parses it, frames, widths, order, escaping, colours).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <scry/out.h>
#include <scry/report.h>

#include "check.h"
#include "test_util.h"

static const char *golden_dir = "tests/golden";
static char root[256];		/* the repository: golden_dir/../.. */

/* ---- helpers ---- */






/* Into a temporary file for an outside checker; the caller unlinks it. */
static void to_file(const char *text, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/scry-test-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
}

/* Our stdout is counted by tests/run: a child writes to a log instead. */
static int run(const char *fmt, const char *arg)
{
	char cmd[4096];
	int rc;

	snprintf(cmd, sizeof(cmd), fmt, arg);
	fflush(stdout);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static bool have(const char *probe)
{
	return run("%s >/dev/null 2>&1", probe) == 0;
}






/* ---- JSON ---- */

static bool have_jsonschema(void)
{
	static int known = -1;

	if (known < 0)
		known = have("python3 -c 'import jsonschema'");
	return known;
}

/*
 * tests/schema_check.py's exit status on @text: 0 when every document
 * passes. Its report goes to a fresh file, removed here; with @show a
 * failure's report is printed as "# " comments.
 */
static int schema_rc(const char *text, bool show)
{
	char path[64], log[64], cmd[1024];
	char *out, *line, *save = NULL;
	int rc;

	to_file(text, path, sizeof(path));
	to_file("", log, sizeof(log));
	snprintf(cmd, sizeof(cmd),
		 "python3 %s/tests/schema_check.py %s/docs/scry.schema.json %%s "
		 ">%s 2>&1", root, root, log);
	rc = run(cmd, path);
	out = show && rc ? read_all(log) : NULL;
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
	free(out);
	unlink(path);
	unlink(log);
	return rc;
}

static void check_schema(const char *text, const char *name)
{
	char what[128];

	snprintf(what, sizeof(what), "%s valid per docs/scry.schema.json",
		 name);
	if (!have_jsonschema()) {
		SKIP(what, "no jsonschema: apt-get install python3-jsonschema");
		return;
	}
	CHECK_INT(schema_rc(text, true), 0, what);
}

static void check_golden(const char *name, const char *got)
{
	char path[512], what[128];
	char *want;
	FILE *f;

	snprintf(path, sizeof(path), "%s/json_%s.json", golden_dir, name);
	snprintf(what, sizeof(what), "golden json_%s", name);
	if (getenv("SCRY_GOLDEN_UPDATE")) {
		f = fopen(path, "w");
		CHECK(f && fputs(got, f) >= 0 && fclose(f) == 0, what);
		return;
	}
	want = read_all(path);
	CHECK_STR(got, want, what);
	free(want);
}

static void check_json(const struct report *r, const char *name)
{
	char what[128];
	char *got;
	int rc;

	got = render(out_json, r, &rc);
	snprintf(what, sizeof(what), "json %s returns 0", name);
	CHECK_INT(rc, 0, what);
	snprintf(what, sizeof(what), "json %s is one line", name);
	CHECK(got && strchr(got, '\n') == got + strlen(got) - 1, what);
	check_golden(name, got);
	snprintf(what, sizeof(what), "json %s", name);
	check_schema(got, what);
	free(got);
}

static const struct fdesc kframes[] = {
	{ "kernel", "schedule", 0x2d, 0xffffffff81a0c12dULL, false },
	{ "kernel", "do_nanosleep", 0x41, 0xffffffff81a10441ULL, false },
	{ NULL, NULL, 0, 0xffffffffc0001000ULL, false },
};

static const struct fdesc uframes[] = {
	{ "libc.so.6", "clock_nanosleep", 0x6b, 0x7f00000e1a6bULL, false },
	{ "app", "tick", 0, 0x401136, true },
	{ "app", NULL, 0x1200, 0x401200, false },
	{ "app", "main", 0x1f, 0x40121f, false },
};

/* Two keys called "stack", a comm that needs escaping, flags, losses. */
static void json_stacks(void)
{
	static struct report_stat stats[] = {
		{ "aggregation drops", "raise --max-keys", 3 },
		{ "kernel stack errors", NULL, 1 },
		{ "user stack faults", "never printed", 0 },
	};
	struct report r;

	new_rows(&r, SCRY_AGG_SUM, 2);
	r.name = "offcpu";
	r.question = "offcpu { @[stack, comm] = sum(latency) }";
	r.unit = "ns";
	r.value_name = "off-CPU time";
	r.duration_s = 1.5;
	r.snapshot = 2;
	r.stats = stats;
	r.nstats = 3;

	set_stack_named(&r.rows[0].keys[0], REPORT_KEY_KSTACK, "stack", kframes, 3);
	set_stack_named(&r.rows[0].keys[1], REPORT_KEY_USTACK, "stack", uframes, 4);
	r.rows[0].keys[1].stack.truncated = true;
	set_str(&r.rows[0].keys[2], "comm", "a\"b\\c\t\x01\x7f caf\xc3\xa9 \xff\xc3");
	r.rows[0].nkeys = 3;
	set_val(&r.rows[0], 4, 1000000, 1000, 700000);

	set_stack_named(&r.rows[1].keys[0], REPORT_KEY_KSTACK, "stack", NULL, 0);
	r.rows[1].keys[0].stack.lost = true;
	set_stack_named(&r.rows[1].keys[1], REPORT_KEY_USTACK, "stack", uframes + 3, 1);
	set_str(&r.rows[1].keys[2], "comm", "app");
	r.rows[1].nkeys = 3;
	set_val(&r.rows[1], 1, 42, 42, 42);

	check_json(&r, "stacks");
	/* Stack memory is the report's; the stats array is static. */
	r.stats = NULL;
	r.nstats = 0;
	report_clear(&r);
}

static void json_quantize(void)
{
	struct report r;

	new_rows(&r, SCRY_AGG_QUANTIZE, 1);
	r.question = "uprobe:app:read { @[pid, retval] = quantize(arg2) }";
	r.duration_s = 10;
	set_int(&r.rows[0].keys[0], "pid", 1234);
	set_int(&r.rows[0].keys[1], "retval", -9223372036854775807LL - 1);
	r.rows[0].nkeys = 2;
	set_val(&r.rows[0], 8, 4100, -5, 4096);
	r.rows[0].val.slots = xcalloc(SCRY_NBUCKETS, sizeof(__u64));
	r.rows[0].val.slots[SCRY_QSLOT_NEG] = 1;
	r.rows[0].val.slots[SCRY_QSLOT_ZERO] = 2;
	r.rows[0].val.slots[2] = 1;		/* [1, 2) */
	r.rows[0].val.slots[14] = 3;		/* [4096, 8192) */
	r.rows[0].val.slots[SCRY_NBUCKETS - 1] = 1;	/* >= 2^61 */
	check_json(&r, "quantize");
	report_clear(&r);
}

static void json_lquantize(void)
{
	struct report r;

	new_rows(&r, SCRY_AGG_LQUANTIZE, 2);
	r.question = "@[cpu] = lquantize(latency, 0, 100, 10)";
	r.lq_low = 0;
	r.lq_high = 100;
	r.lq_step = 10;
	r.duration_s = 0.25;
	set_int(&r.rows[0].keys[0], "cpu", 0);
	r.rows[0].nkeys = 1;
	set_val(&r.rows[0], 4, 165, -3, 120);
	r.rows[0].val.slots = xcalloc(SCRY_NBUCKETS, sizeof(__u64));
	r.rows[0].val.slots[0] = 1;		/* < 0 */
	r.rows[0].val.slots[1] = 1;		/* [0, 10) */
	r.rows[0].val.slots[5] = 1;		/* [40, 50) */
	r.rows[0].val.slots[11] = 1;		/* >= 100 */
	set_int(&r.rows[1].keys[0], "cpu", 1);
	r.rows[1].nkeys = 1;			/* count 0: min/max/avg null */
	check_json(&r, "lquantize");
	report_clear(&r);
}

/*
 * The anchor, written by hand from docs/JSON.md rather than produced by
 * the code under test: a keyless count and no losses.
 */
static void json_count_only(void)
{
	static const char want[] =
		"{\"version\":1,\"question\":null,"
		"\"expression\":\"tracepoint:x { @ = count() }\\u0009\\u000a\","
		"\"duration_s\":2.000125,\"time\":\"2025-11-30T16:38:31.434Z\","
		"\"snapshot\":0,\"unit\":null,"
		"\"value_name\":\"calls\",\"aggregation\":\"count\","
		"\"map\":\"@\",\"rows\":[{\"keys\":{},\"value\":7,\"count\":7,"
		"\"sum\":0,\"min\":0,\"max\":0,\"avg\":0}],\"maps\":[],"
		"\"losses\":[]}\n";
	struct report r;
	char *got;
	int rc;

	new_rows(&r, SCRY_AGG_COUNT, 1);
	r.question = "tracepoint:x { @ = count() }\t\n";
	r.value_name = "calls";
	r.duration_s = 2.000125;
	/* milliseconds are cut, not rounded: .434999999 is .434 */
	r.time_ns = 1764520711434999999LL;
	set_val(&r.rows[0], 7, 0, 0, 0);
	got = render(out_json, &r, &rc);
	CHECK_INT(rc, 0, "json count-only returns 0");
	CHECK_STR(got, want, "json count-only, hand-written");
	check_schema(got, "json count-only");
	free(got);
	report_clear(&r);
}

/* The schema check must be able to fail, or passing it means nothing. */
static void json_schema_rejects(void)
{
	static const char bad_field[] =
		"{\"version\":1,\"question\":null,\"expression\":\"x\","
		"\"duration_s\":1,\"time\":null,\"snapshot\":0,\"unit\":null,"
		"\"value_name\":null,\"aggregation\":\"count\",\"map\":\"@\","
		"\"rows\":[{\"keys\":{},\"value\":1,\"count\":1,\"sum\":0,"
		"\"min\":0,\"max\":0,\"avg\":0,\"buckets\":[]}],"
		"\"maps\":[],\"losses\":[]}\n";
	static const char not_json[] = "{\"version\":1,}\n";

	if (!have_jsonschema()) {
		SKIP("schema rejects bad documents",
		     "no jsonschema: apt-get install python3-jsonschema");
		return;
	}
	CHECK_INT(schema_rc(bad_field, false), 1,
		  "schema rejects buckets on a count aggregation");
	CHECK_INT(schema_rc(not_json, false), 1,
		  "schema check rejects broken JSON");
}

/* Key names must be unique members; a bad lquantize is refused. */
static void json_edges(void)
{
	static const struct fdesc one[] = { { "kernel", "f", 0, 0x10, false } };
	struct report r;
	char *got;
	int rc;

	new_rows(&r, SCRY_AGG_COUNT, 1);
	r.question = "x";
	set_int(&r.rows[0].keys[0], "arg0", 1);
	set_int(&r.rows[0].keys[1], "arg0", 2);
	set_int(&r.rows[0].keys[2], NULL, 3);
	set_stack_named(&r.rows[0].keys[3], REPORT_KEY_KSTACK, "kstack", one, 1);
	r.rows[0].nkeys = 4;
	set_val(&r.rows[0], 1, 0, 0, 0);
	got = render(out_json, &r, &rc);
	CHECK(got && strstr(got, "\"keys\":{\"arg0\":1,\"arg0_1\":2,\"key\":3,"
			    "\"kstack\":[{\"module\":\"kernel\",\"symbol\":\"f\","
			    "\"offset\":0,\"address\":\"0x10\",\"kernel\":true,"
			    "\"inlined\":false}]}"),
	      "json duplicate and missing key names made unique");
	check_schema(got, "json unique key names");
	free(got);

	r.agg = SCRY_AGG_LQUANTIZE;
	r.lq_low = 10;
	r.lq_high = 0;
	r.lq_step = 1;
	got = render(out_json, &r, &rc);
	CHECK_INT(rc, -EINVAL, "json lquantize with high < low is -EINVAL");
	free(got);
	report_clear(&r);

	new_rows(&r, SCRY_AGG_MAX, 0);
	got = render(out_json, &r, &rc);
	CHECK(rc == 0 && got && strstr(got, "\"aggregation\":\"max\","
					  "\"map\":\"@\",\"rows\":[],"
					  "\"maps\":[],\"losses\":[]}\n"),
	      "json zero rows");
	check_schema(got, "json zero rows");
	free(got);
	report_clear(&r);
}

/* ---- SVG ---- */

static bool have_xmllint(void)
{
	static int known = -1;

	if (known < 0)
		known = have("command -v xmllint");
	return known;
}

static void check_xml(const char *svg, const char *name)
{
	char path[64], what[128];

	snprintf(what, sizeof(what), "%s parses (xmllint --noout)", name);
	if (!have_xmllint()) {
		SKIP(what, "no xmllint: apt-get install libxml2-utils");
		return;
	}
	to_file(svg, path, sizeof(path));
	CHECK_INT(run("xmllint --noout %s", path), 0, what);
	unlink(path);
}

/* The <g> of the frame whose title starts "NAME (", or NULL. */
static const char *find_frame(const char *svg, const char *name)
{
	char needle[256];
	const char *t;

	snprintf(needle, sizeof(needle), "<title>%s (", name);
	t = strstr(svg, needle);
	if (!t)
		return NULL;
	while (t > svg && strncmp(t, "<g ", 3))
		t--;
	return t;
}

/* A numeric attribute of the frame's rect, -1 if missing. */
static double rect_attr(const char *svg, const char *name, const char *attr)
{
	const char *g = find_frame(svg, name), *rect, *a;
	char needle[32];

	if (!g || !(rect = strstr(g, "<rect ")))
		return -1;
	snprintf(needle, sizeof(needle), " %s=\"", attr);
	a = strstr(rect, needle);
	return a ? strtod(a + strlen(needle), NULL) : -1;
}

static bool rect_fill(const char *svg, const char *name, int rgb[3])
{
	const char *g = find_frame(svg, name), *fill;

	if (!g || !(fill = strstr(g, "fill=\"rgb(")))
		return false;
	return sscanf(fill, "fill=\"rgb(%d,%d,%d)", &rgb[0], &rgb[1],
		      &rgb[2]) == 3;
}

static void add_row(struct report_row *row, const char *comm,
		    const struct fdesc *ufr, int nu, const struct fdesc *kfr,
		    int nk, __u64 count)
{
	int n = 0;

	if (comm)
		set_str(&row->keys[n++], "comm", comm);
	if (nu)
		set_stack_named(&row->keys[n++], REPORT_KEY_USTACK, "ustack", ufr, nu);
	if (nk)
		set_stack_named(&row->keys[n++], REPORT_KEY_KSTACK, "kstack", kfr, nk);
	row->nkeys = n;
	set_val(row, count, 0, 0, 0);
}

/* zed_hot : abc_cold = 3 : 1 under main, the row order the reverse. */
static void svg_ratio(void)
{
	static const struct fdesc hot[] = {
		{ "app", "zed_hot", 4, 0x1004, false },
		{ "app", "main", 9, 0x2009, false },
	};
	static const struct fdesc cold[] = {
		{ "app", "abc_cold", 0, 0x3000, false },
		{ "app", "main", 0x11, 0x2011, false },
	};
	double wh, wc, xh, xc, xm;
	struct report r;
	char *svg;
	int rc;

	new_rows(&r, SCRY_AGG_COUNT, 2);
	r.name = "profile";
	r.question = "profile:99 { @[ustack, comm] = count() }";
	r.value_name = "samples";
	r.duration_s = 2.5;
	add_row(&r.rows[0], "app", hot, 2, NULL, 0, 300);
	add_row(&r.rows[1], "app", cold, 2, NULL, 0, 100);
	svg = render(out_svg, &r, &rc);
	CHECK_INT(rc, 0, "svg returns 0");
	check_xml(svg, "svg ratio");
	CHECK(strstr(svg, "<title>all (400 samples, 100.00%)</title>"),
	      "svg root frame title");
	CHECK(strstr(svg, "<title>app (400 samples, 100.00%)</title>"),
	      "svg comm is the root's child");
	CHECK(strstr(svg, "<title>main (400 samples, 100.00%)</title>"),
	      "svg main merged from both rows");
	CHECK(strstr(svg, "<title>zed_hot (300 samples, 75.00%)</title>"),
	      "svg zed_hot title");
	CHECK(strstr(svg, "<title>abc_cold (100 samples, 25.00%)</title>"),
	      "svg abc_cold title");
	CHECK(strstr(svg, "profile (2.5 s)"), "svg title: question, duration");
	CHECK(strstr(svg, ">samples: profile:99 { @[ustack, comm] = count() }<"),
	      "svg subtitle: value name and expression");
	wh = rect_attr(svg, "zed_hot", "width");
	wc = rect_attr(svg, "abc_cold", "width");
	CHECK(wc > 0 && wh / wc > 3 * 0.99 && wh / wc < 3 * 1.01,
	      "svg widths 3:1 within 1%");
	CHECK(rect_attr(svg, "all", "width") == 1180, "svg root spans 1180 px");
	xh = rect_attr(svg, "zed_hot", "x");
	xc = rect_attr(svg, "abc_cold", "x");
	xm = rect_attr(svg, "main", "x");
	CHECK(xc == xm && xh > xc, "svg siblings sorted alphabetically");
	CHECK(rect_attr(svg, "main", "y") > rect_attr(svg, "zed_hot", "y"),
	      "svg root at the bottom");
	CHECK(strstr(svg, "Reset Zoom") && strstr(svg, "Search") &&
	      strstr(svg, "<![CDATA[") && strstr(svg, "Matched: "),
	      "svg has controls and its script");
	free(svg);
	report_clear(&r);
}

/*
 * --top 2 of a profile: 400 samples shown, 100 in the keys it left out.
 * The graph is of every sample, as the text's total and SHARE are: the
 * left-out samples are one frame of their own, and each title's share is
 * of all 500.
 */
static void svg_top(void)
{
	static const struct fdesc hot[] = {
		{ "app", "zed_hot", 4, 0x1004, false },
		{ "app", "main", 9, 0x2009, false },
	};
	static const struct fdesc cold[] = {
		{ "app", "abc_cold", 0, 0x3000, false },
		{ "app", "main", 0x11, 0x2011, false },
	};
	struct report r;
	char *svg;
	int rc;

	new_rows(&r, SCRY_AGG_COUNT, 2);
	r.value_name = "samples";
	add_row(&r.rows[0], "app", hot, 2, NULL, 0, 300);
	add_row(&r.rows[1], "app", cold, 2, NULL, 0, 100);
	r.left_out.count = 100;
	r.left_out.sum = 7;	/* a count's graph draws counts */
	svg = render(out_svg, &r, &rc);
	CHECK_INT(rc, 0, "svg --top returns 0");
	check_xml(svg, "svg top");
	CHECK(strstr(svg, "<title>all (500 samples, 100.00%)</title>"),
	      "svg --top: the root is every sample, shown or not");
	CHECK(strstr(svg, "<title>zed_hot (300 samples, 60.00%)</title>"),
	      "svg --top: zed_hot's share is of all 500 samples");
	CHECK(strstr(svg, "<title>app (400 samples, 80.00%)</title>"),
	      "svg --top: what is shown is 80% of the samples");
	CHECK(strstr(svg, "<title>[left out by --top] (100 samples, 20.00%)"
		      "</title>"),
	      "svg --top: the left-out samples are one frame, named");
	CHECK(rect_attr(svg, "[left out by --top]", "width") == 236,
	      "svg --top: the left-out frame is 1/5 of 1180 px");
	free(svg);
	/* a sum's graph draws sums: the left-out sum */
	r.agg = SCRY_AGG_SUM;
	r.rows[0].val.sum = 30;
	r.rows[1].val.sum = 10;
	r.left_out.sum = 60;
	svg = render(out_svg, &r, &rc);
	CHECK_INT(rc, 0, "svg --top sum returns 0");
	CHECK(svg && strstr(svg, "<title>zed_hot (30 samples, 30.00%)</title>"),
	      "svg --top sum: zed_hot's share is of the whole sum, 100");
	CHECK(svg && strstr(svg, "<title>[left out by --top] (60 samples, "
			    "60.00%)</title>"),
	      "svg --top sum: the left-out sum is its frame");
	free(svg);
	report_clear(&r);
}

/* comm;user root..leaf;kernel root..leaf, with folded's names. */
static void svg_order_names(void)
{
	struct report r;
	double yk0, yk1, yu;
	char *svg;
	int rc;

	new_rows(&r, SCRY_AGG_SUM, 1);
	r.question = "x";
	r.unit = "ns";
	r.value_name = "off-CPU time";
	r.palette = REPORT_PALETTE_BLUE;
	add_row(&r.rows[0], "app", uframes, 4, kframes, 3, 1);
	r.rows[0].val.sum = 1500000;
	svg = render(out_svg, &r, &rc);
	CHECK_INT(rc, 0, "svg stacks returns 0");
	check_xml(svg, "svg stacks");
	CHECK(strstr(svg, "<title>all (1.5 ms, 100.00%)</title>"),
	      "svg ns shown as ms");
	CHECK(find_frame(svg, "schedule_[k]") &&
	      find_frame(svg, "tick_[i]") &&
	      find_frame(svg, "[app]") && find_frame(svg, "[unknown]_[k]"),
	      "svg frame names as folded: _[k], _[i], [module], [unknown]");
	yk0 = rect_attr(svg, "[unknown]_[k]", "y");
	yk1 = rect_attr(svg, "schedule_[k]", "y");
	yu = rect_attr(svg, "clock_nanosleep", "y");
	CHECK(yk0 > 0 && yu > yk0 && yk0 > yk1,
	      "svg user frames under kernel frames, each root first");
	CHECK(rect_attr(svg, "app", "y") > rect_attr(svg, "main", "y"),
	      "svg comm under the user root");
	free(svg);
	report_clear(&r);
}

static void svg_escape(void)
{
	static const struct fdesc bad[] = {
		{ "app", "a<b>&\"c'", 0, 0x10, false },
		{ "app", "op;er\x01\xff\xef\xbf\xbe", 0, 0x20, false },
	};
	struct report r;
	char *svg;
	int rc;

	new_rows(&r, SCRY_AGG_COUNT, 1);
	r.name = "q<&>";
	r.question = "e\x1b]0;x";
	add_row(&r.rows[0], "c\x02m\xc3", bad, 2, NULL, 0, 1);
	svg = render(out_svg, &r, &rc);
	CHECK_INT(rc, 0, "svg escape returns 0");
	check_xml(svg, "svg escape");
	CHECK(strstr(svg, "<title>a&lt;b&gt;&amp;&quot;c&#39; ("),
	      "svg escapes <&>\"' in names");
	CHECK(strstr(svg, "<title>op:er\\x01\\xff\\xef\\xbf\\xbe ("),
	      "svg: ';' as folded, control and non-XML bytes escaped (sane.h)");
	CHECK(strstr(svg, "q&lt;&amp;&gt; (0.0 s)"), "svg escapes the title");
	free(svg);
	report_clear(&r);
}

static void svg_empty(void)
{
	struct report r;
	char *svg;
	int rc;

	new_rows(&r, SCRY_AGG_COUNT, 0);
	r.question = "x";
	svg = render(out_svg, &r, &rc);
	CHECK_INT(rc, 0, "svg zero rows returns 0");
	check_xml(svg, "svg zero rows");
	CHECK(strstr(svg, ">nothing to draw</text>"),
	      "svg zero rows says nothing to draw");
	CHECK(!strstr(svg, "<title>"), "svg zero rows has no frames");
	free(svg);
	report_clear(&r);

	/*
	 * Rows without a stack key are their keys' frames, as --folded
	 * prints them for flamegraph.pl (scry read -o r.svg: the paths).
	 */
	new_rows(&r, SCRY_AGG_COUNT, 1);
	set_int(&r.rows[0].keys[0], "pid", 1);
	r.rows[0].nkeys = 1;
	set_val(&r.rows[0], 5, 0, 0, 0);
	svg = render(out_svg, &r, &rc);
	CHECK(rc == 0 && !strstr(svg, ">nothing to draw</text>") &&
	      strstr(svg, "<title>1 (5 samples, 100.00%)</title>"),
	      "svg rows without stacks: the key is the frame");
	free(svg);
	report_clear(&r);
}

/* A frame under 0.1 px is not drawn, but its parent keeps its width. */
static void svg_narrow(void)
{
	static const struct fdesc big[] = { { "a", "big", 0, 1, false } };
	static const struct fdesc tiny[] = { { "a", "tiny", 0, 2, false } };
	struct report r;
	char *svg;
	int rc;

	new_rows(&r, SCRY_AGG_SUM, 2);
	r.unit = "bytes";
	r.palette = REPORT_PALETTE_GREEN;
	add_row(&r.rows[0], NULL, big, 1, NULL, 0, 1);
	r.rows[0].val.sum = 1572864 - 1;
	add_row(&r.rows[1], NULL, tiny, 1, NULL, 0, 1);
	r.rows[1].val.sum = 1;
	svg = render(out_svg, &r, &rc);
	CHECK_INT(rc, 0, "svg narrow returns 0");
	CHECK(!find_frame(svg, "tiny"), "svg frame under 0.1 px elided");
	CHECK(strstr(svg, "<title>all (1.5 MiB, 100.00%)</title>"),
	      "svg elided frame counted in its parent (bytes as MiB)");
	free(svg);
	report_clear(&r);
}

static void svg_palettes(void)
{
	static const struct fdesc st[] = { { "app", "main", 0, 1, false } };
	static const struct fdesc ks[] = { { "kernel", "vfs_read", 0, 2, false } };
	int hot[3], blue[3], kern[3];
	struct report r;
	char *svg;
	int rc;

	new_rows(&r, SCRY_AGG_COUNT, 1);
	add_row(&r.rows[0], NULL, st, 1, ks, 1, 10);
	svg = render(out_svg, &r, &rc);
	CHECK(rc == 0 && rect_fill(svg, "main", hot) &&
	      rect_fill(svg, "vfs_read_[k]", kern), "svg hot fills found");
	free(svg);
	r.palette = REPORT_PALETTE_BLUE;
	svg = render(out_svg, &r, &rc);
	CHECK(rc == 0 && rect_fill(svg, "main", blue), "svg blue fill found");
	free(svg);
	CHECK(hot[0] >= 205 && hot[2] <= 55, "svg HOT user frame is red-yellow");
	CHECK(blue[2] >= 190 && blue[0] <= 140, "svg BLUE user frame is blue");
	CHECK(kern[0] <= 110 && kern[1] >= 165 && kern[2] >= 165,
	      "svg HOT kernel frame in another family (aqua)");
	report_clear(&r);
}

/* ---- failures ---- */

static void write_errors(void)
{
	static const struct fdesc st[] = { { "app", "main", 0, 1, false } };
	char small[64];
	struct report r;
	FILE *f;

	new_rows(&r, SCRY_AGG_COUNT, 1);
	r.question = "x";
	add_row(&r.rows[0], "app", st, 1, NULL, 0, 3);

	f = fmemopen(small, sizeof(small), "w");
	CHECK(f, "fmemopen");
	if (f) {
		CHECK_INT(out_json(f, &r), -EIO, "json write failure is -EIO");
		fclose(f);
	}
	f = fmemopen(small, sizeof(small), "w");
	if (f) {
		CHECK_INT(out_svg(f, &r), -EIO, "svg write failure is -EIO");
		fclose(f);
	}
	report_clear(&r);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		golden_dir = argv[1];
	snprintf(root, sizeof(root), "%s/../..", golden_dir);

	json_stacks();
	json_quantize();
	json_lquantize();
	json_count_only();
	json_schema_rejects();
	json_edges();

	svg_ratio();
	svg_top();
	svg_order_names();
	svg_escape();
	svg_empty();
	svg_narrow();
	svg_palettes();

	write_errors();
	return CHECK_DONE();
}
