/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output formats on synthetic reports, compared byte for byte with the
 * files in tests/golden/ (out_<case>.txt).
 *
 * Run:   test_out [GOLDEN_DIR]   (default "tests/golden": run from the root)
 *
 * Regenerate after an intended layout change:
 *        SCRY_GOLDEN_UPDATE=1 test_out tests/golden
 * then read every changed file against DTrace's layout (dt_consume.c)
 * before keeping it: the golden files are the specification here. The
 * quantize anchor below is written by hand and never regenerated.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <scry/out.h>
#include <scry/report.h>

#include "check.h"
#include "test_util.h"

static void set_stack(struct report_key *k, enum report_key_kind kind,
		      const struct fdesc *fd, int n)
{
	set_stack_named(k, kind, NULL, fd, n);
}

static const char *golden_dir = "tests/golden";

/* ---- helpers ---- */




static void check_golden(const char *name, const char *got)
{
	char path[512];
	char what[128];
	char *want;
	FILE *f;

	snprintf(path, sizeof(path), "%s/out_%s.txt", golden_dir, name);
	snprintf(what, sizeof(what), "golden %s", name);
	if (getenv("SCRY_GOLDEN_UPDATE")) {
		f = fopen(path, "w");
		CHECK(f && fputs(got, f) >= 0 && fclose(f) == 0, what);
		return;
	}
	want = read_all(path);
	CHECK_STR(got, want, what);
	free(want);
}



static void check_render(printer_fn fn, const struct report *r,
			 const char *name)
{
	char what[128];
	char *got;
	int rc;

	got = render(fn, r, &rc);
	snprintf(what, sizeof(what), "%s returns 0", name);
	CHECK_INT(rc, 0, what);
	check_golden(name, got);
	free(got);
}






static void set_count(struct report_row *row, __u64 count, __s64 sum)
{
	row->val.count = count;
	row->val.sum = sum;
}

/* ---- histograms ---- */

/*
 * The anchor: written by hand from dt_print_quantize/dt_print_quantline,
 * not produced by the code under test. One value of 5, ten times: slot 4
 * ([4, 8)) between its empty neighbours, the rows labelled 2 and 8.
 */
static const char quantize_anchor[] =
	"\n"
	"           value  ------------- Distribution ------------- count    \n"
	"               2 |                                         0        \n"
	"               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 10       \n"
	"               8 |                                         0        \n";

static char *render_hist(const __u64 *slots, bool linear, __s64 lo,
			 __s64 hi, __s64 step, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		abort();
	if (linear)
		*rc = out_lquantize(m, slots, lo, hi, step);
	else
		*rc = out_quantize(m, slots);
	fclose(m);
	return buf;
}

static void test_quantize_single(void)
{
	__u64 slots[SCRY_NBUCKETS] = { 0 };
	char *got;
	int rc;

	slots[4] = 10;
	got = render_hist(slots, false, 0, 0, 0, &rc);
	CHECK_INT(rc, 0, "quantize single returns 0");
	CHECK_STR(got, quantize_anchor, "quantize single bucket (by hand)");
	check_golden("quantize_single", got);
	free(got);
}

static void test_quantize_spread(void)
{
	__u64 slots[SCRY_NBUCKETS] = { 0 };
	char *got;
	int rc;

	slots[SCRY_QSLOT_NEG] = 1;	/* one negative value */
	slots[SCRY_QSLOT_ZERO] = 3;	/* three zeros */
	slots[3] = 5;			/* [2, 4) */
	slots[5] = 20;			/* [8, 16) */
	slots[7] = 1;			/* [32, 64) */
	got = render_hist(slots, false, 0, 0, 0, &rc);
	CHECK_INT(rc, 0, "quantize spread returns 0");
	check_golden("quantize_spread", got);
	free(got);
}

static void test_quantize_top(void)
{
	__u64 slots[SCRY_NBUCKETS] = { 0 };
	char *got;
	int rc;

	/* The last slot has no row after it; the label is 2^61. */
	slots[SCRY_NBUCKETS - 1] = 2;
	got = render_hist(slots, false, 0, 0, 0, &rc);
	CHECK_INT(rc, 0, "quantize top returns 0");
	check_golden("quantize_top", got);
	free(got);
}

static void test_quantize_empty(void)
{
	__u64 slots[SCRY_NBUCKETS] = { 0 };
	char *got;
	int rc;

	got = render_hist(slots, false, 0, 0, 0, &rc);
	CHECK_INT(rc, 0, "quantize empty returns 0");
	check_golden("quantize_empty", got);
	free(got);
}

/* Count the '@' of the row labelled @label. */
static int bar_of(const char *out, const char *label)
{
	char want[32];
	const char *p;
	int n = 0;

	snprintf(want, sizeof(want), "%16s |", label);
	p = strstr(out, want);
	if (!p)
		return -1;
	for (p += strlen(want); *p == '@'; p++)
		n++;
	return n;
}

static void test_bar_rounding(void)
{
	__u64 slots[SCRY_NBUCKETS] = { 0 };
	char *got;
	int rc;

	/* total 80: 1 -> 0.5 rounds up to 1; 79 -> 39.5 rounds up to 40 */
	slots[2] = 1;
	slots[3] = 79;
	got = render_hist(slots, false, 0, 0, 0, &rc);
	CHECK_INT(bar_of(got, "1"), 1, "bar 0.5 rounds up");
	CHECK_INT(bar_of(got, "2"), 40, "bar 39.5 rounds up");
	free(got);

	/* total 3: 1 -> 13.33 -> 13, 2 -> 26.67 -> 27 */
	memset(slots, 0, sizeof(slots));
	slots[2] = 1;
	slots[4] = 2;
	got = render_hist(slots, false, 0, 0, 0, &rc);
	CHECK_INT(rc, 0, "bar rounding returns 0");
	CHECK_INT(bar_of(got, "1"), 13, "bar 13.33 rounds down");
	CHECK_INT(bar_of(got, "2"), 0, "empty slot has no bar");
	CHECK_INT(bar_of(got, "4"), 27, "bar 26.67 rounds up");
	check_golden("bar_rounding", got);
	free(got);

	/* Huge counts must not overflow the arithmetic. */
	memset(slots, 0, sizeof(slots));
	slots[2] = ~0ULL / 2;
	slots[3] = ~0ULL / 2;
	got = render_hist(slots, false, 0, 0, 0, &rc);
	CHECK_INT(bar_of(got, "1"), 20, "bar of huge counts");
	free(got);
}

static void test_lquantize(void)
{
	__u64 slots[SCRY_NBUCKETS] = { 0 };
	char *got;
	int rc;

	/* lquantize(x, 0, 100, 10): 10 levels, slots 0..11 */
	slots[0] = 2;		/* < 0 */
	slots[1] = 5;		/* [0, 10) */
	slots[5] = 7;		/* [40, 50) */
	slots[11] = 3;		/* >= 100 */
	got = render_hist(slots, true, 0, 100, 10, &rc);
	CHECK_INT(rc, 0, "lquantize edges returns 0");
	check_golden("lquantize_edges", got);
	free(got);

	/* Negative range, only a middle slot: trimmed to its neighbours. */
	memset(slots, 0, sizeof(slots));
	slots[3] = 4;		/* [-30, -20) */
	got = render_hist(slots, true, -50, 50, 10, &rc);
	CHECK_INT(rc, 0, "lquantize trim returns 0");
	check_golden("lquantize_trim", got);
	free(got);

	got = render_hist(slots, true, 10, 0, 1, &rc);
	CHECK_INT(rc, -EINVAL, "lquantize high <= low is -EINVAL");
	free(got);
	got = render_hist(slots, true, 0, 10, 0, &rc);
	CHECK_INT(rc, -EINVAL, "lquantize step 0 is -EINVAL");
	free(got);
	got = render_hist(slots, true, 0, 1000, 1, &rc);
	CHECK_INT(rc, -EINVAL, "lquantize more levels than slots is -EINVAL");
	free(got);
}

/* ---- printa, scalar values ---- */

static void test_count_int_keys(void)
{
	struct report r;

	new_rows(&r, SCRY_AGG_COUNT, 3);
	set_int(&r.rows[0].keys[0], "pid", 1);
	set_int(&r.rows[0].keys[1], "arg0", -1);
	set_count(&r.rows[0], 2, 0);
	set_int(&r.rows[1].keys[0], "pid", 4242);
	set_int(&r.rows[1].keys[1], "arg0", 4096);
	set_count(&r.rows[1], 17, 0);
	set_int(&r.rows[2].keys[0], "pid", 31337);
	set_int(&r.rows[2].keys[1], "arg0", 0x7fffffffffffffffLL);
	set_count(&r.rows[2], 123456, 0);
	r.rows[0].nkeys = r.rows[1].nkeys = r.rows[2].nkeys = 2;
	check_render(out_text, &r, "count_int_keys");
	report_clear(&r);
}

static void test_sum_str_keys(void)
{
	struct report r;

	new_rows(&r, SCRY_AGG_SUM, 3);
	r.header = "Tracing read bytes by comm... Hit Ctrl-C to end.";
	set_str(&r.rows[0].keys[0], "comm", "sshd");
	set_count(&r.rows[0], 3, 512);
	set_str(&r.rows[1].keys[0], "comm", "evil\033[2Jcomm");
	set_count(&r.rows[1], 1, 4096);
	set_str(&r.rows[2].keys[0], "comm", "a-comm-longer-than-fifty-columns-"
		"which-pushes-the-value-right");
	set_count(&r.rows[2], 9, 1048576);
	r.rows[0].nkeys = r.rows[1].nkeys = r.rows[2].nkeys = 1;
	check_render(out_text, &r, "sum_str_keys");
	report_clear(&r);
}

static void test_avg_keys(void)
{
	struct report r;

	new_rows(&r, SCRY_AGG_AVG, 3);
	set_str(&r.rows[0].keys[0], "comm", "bash");
	set_int(&r.rows[0].keys[1], "tid", 100);
	set_count(&r.rows[0], 3, 10);		/* 3 */
	set_str(&r.rows[1].keys[0], "comm", "cc1");
	set_int(&r.rows[1].keys[1], "tid", 200);
	set_count(&r.rows[1], 4, -10);		/* -2: toward zero */
	set_str(&r.rows[2].keys[0], "comm", "idle");
	set_int(&r.rows[2].keys[1], "tid", 0);
	set_count(&r.rows[2], 0, 0);		/* empty: 0 */
	r.rows[0].nkeys = r.rows[1].nkeys = r.rows[2].nkeys = 2;
	CHECK_INT(report_row_value(&r, &r.rows[0]), 3, "avg 10/3");
	CHECK_INT(report_row_value(&r, &r.rows[1]), -2, "avg -10/4");
	CHECK_INT(report_row_value(&r, &r.rows[2]), 0, "avg of nothing");
	report_sort(&r);
	check_render(out_text, &r, "avg_keys");
	report_clear(&r);
}

static void test_no_keys(void)
{
	struct report r;

	new_rows(&r, SCRY_AGG_MAX, 1);
	r.rows[0].val.max = 987654321;
	check_render(out_text, &r, "max_no_keys");
	report_clear(&r);
}

/* ---- printa, stacks ---- */

static const struct fdesc kframes[] = {
	{ "vmlinux", "do_sys_openat2", 0x1a, 0xffffffff81401a1a, false },
	{ "vmlinux", "getname_flags", 0x4, 0xffffffff81402004, true },
	{ "ext4", NULL, 0, 0xffffffffc0123456, false },
	{ "vmlinux", "entry_SYSCALL_64", 0, 0xffffffff82000000, false },
};

static const struct fdesc uframes[] = {
	{ "libc.so.6", "__open64", 0x7b, 0x7f000001007b, false },
	{ NULL, NULL, 0, 0x401234, false },
	{ "cat", "main", 0x35, 0x555555555235, false },
};

static void test_stacks_count(void)
{
	struct report r;

	new_rows(&r, SCRY_AGG_COUNT, 2);
	set_stack(&r.rows[0].keys[0], REPORT_KEY_KSTACK, kframes, 4);
	set_stack(&r.rows[0].keys[1], REPORT_KEY_USTACK, uframes, 3);
	set_count(&r.rows[0], 42, 0);
	r.rows[0].nkeys = 2;
	set_stack(&r.rows[1].keys[0], REPORT_KEY_KSTACK, kframes + 3, 1);
	set_stack(&r.rows[1].keys[1], REPORT_KEY_USTACK, uframes + 2, 1);
	set_count(&r.rows[1], 7, 0);
	r.rows[1].nkeys = 2;
	report_sort(&r);
	check_render(out_text, &r, "stacks_count");
	report_clear(&r);
}

static void test_stack_quantize(void)
{
	struct report r;

	new_rows(&r, SCRY_AGG_QUANTIZE, 1);
	set_str(&r.rows[0].keys[0], "comm", "cat");
	set_stack(&r.rows[0].keys[1], REPORT_KEY_KSTACK, kframes, 2);
	r.rows[0].nkeys = 2;
	r.rows[0].val.count = 6;
	r.rows[0].val.sum = 3000;
	r.rows[0].val.slots = xcalloc(SCRY_NBUCKETS, sizeof(__u64));
	r.rows[0].val.slots[11] = 4;	/* [512, 1024) */
	r.rows[0].val.slots[12] = 2;	/* [1024, 2048) */
	check_render(out_text, &r, "stack_quantize");
	report_clear(&r);
}

static void test_stack_lost_truncated(void)
{
	struct report r;

	new_rows(&r, SCRY_AGG_COUNT, 2);
	/* A lost stack: no frames, one line. */
	r.rows[0].keys[0].kind = REPORT_KEY_KSTACK;
	r.rows[0].keys[0].name = "kstack";
	r.rows[0].keys[0].stack.lost = true;
	r.rows[0].nkeys = 1;
	set_count(&r.rows[0], 3, 0);
	/* A truncated stack: its frames, then the marker. */
	set_stack(&r.rows[1].keys[0], REPORT_KEY_USTACK, uframes, 2);
	r.rows[1].keys[0].stack.truncated = true;
	r.rows[1].nkeys = 1;
	set_count(&r.rows[1], 5, 0);
	check_render(out_text, &r, "stack_lost_truncated");
	report_clear(&r);
}

static void test_long_frame(void)
{
	struct report_frame fr = { 0 };
	struct report r;
	char *name, *got;
	int rc, n;

	name = xcalloc(5001, 1);
	memset(name, 'x', 5000);
	fr.module = "mod";
	fr.sym = name;
	fr.off = 0x10;
	n = out_frame_name(&fr, NULL, 0);
	CHECK_INT(n, 5000 + strlen("mod`+0x10"), "frame name length");

	new_rows(&r, SCRY_AGG_COUNT, 1);
	set_stack(&r.rows[0].keys[0], REPORT_KEY_USTACK,
		  &(struct fdesc){ "mod", name, 0x10, 1, false }, 1);
	r.rows[0].nkeys = 1;
	set_count(&r.rows[0], 1, 0);
	got = render(out_text, &r, &rc);
	CHECK_INT(rc, 0, "long frame returns 0");
	CHECK(strstr(got, name) && strstr(got, "+0x10\n"),
	      "long frame printed whole");
	free(got);
	got = render(out_folded, &r, &rc);
	CHECK(rc == 0 && strlen(got) == 5000 + strlen(" 1\n"),
	      "long frame folded whole");
	free(got);
	report_clear(&r);
	free(name);
}

static void test_frame_name(void)
{
	struct report_frame fr = { .module = "vmlinux", .sym = "vfs_read",
				   .off = 0x2f, .addr = 0xffffffff81234567 };
	char buf[64];

	out_frame_name(&fr, buf, sizeof(buf));
	CHECK_STR(buf, "vmlinux`vfs_read+0x2f", "frame module`sym+0xoff");
	fr.off = 0;
	out_frame_name(&fr, buf, sizeof(buf));
	CHECK_STR(buf, "vmlinux`vfs_read", "frame at symbol start");
	fr.sym = NULL;
	fr.kernel = true;
	out_frame_name(&fr, buf, sizeof(buf));
	CHECK_STR(buf, "vmlinux`0xffffffff81234567", "kernel frame, module only");
	fr = (struct report_frame){ .module = "redis-check-rdb", .off = 0x5de51,
				    .addr = 0x55679295de51 };
	out_frame_name(&fr, buf, sizeof(buf));
	CHECK_STR(buf, "redis-check-rdb`+0x5de51", "user frame, module only: "
		  "the offset in the file, the same every run");
	fr.module = NULL;
	out_frame_name(&fr, buf, sizeof(buf));
	CHECK_STR(buf, "[unknown]", "frame unknown");
}

/* ---- folded ---- */

static void test_folded(void)
{
	static const struct fdesc semi[] = {
		{ "libfoo.so", "operator;weird\nname", 0, 0x7f00, false },
		{ "libfoo.so", NULL, 0, 0x7f10, false },
	};
	struct report r;

	new_rows(&r, SCRY_AGG_SUM, 6);
	r.folded_div = 1000;

	/* comm + ustack + kstack: 2500 ns -> 3 us (half rounds up) */
	set_str(&r.rows[0].keys[0], "comm", "cat");
	set_stack(&r.rows[0].keys[1], REPORT_KEY_USTACK, uframes, 3);
	set_stack(&r.rows[0].keys[2], REPORT_KEY_KSTACK, kframes, 4);
	r.rows[0].nkeys = 3;
	set_count(&r.rows[0], 1, 2500);

	/* 2499 ns -> 2 us; frames with ';', a newline, no symbol */
	set_str(&r.rows[1].keys[0], "comm", "a;b");
	set_stack(&r.rows[1].keys[1], REPORT_KEY_USTACK, semi, 2);
	r.rows[1].nkeys = 2;
	set_count(&r.rows[1], 1, 2499);

	/* 499 ns rounds to 0: skipped */
	set_str(&r.rows[2].keys[0], "comm", "tiny");
	r.rows[2].nkeys = 1;
	set_count(&r.rows[2], 1, 499);

	/* no key at all: [total]; 500 -> 1 */
	r.rows[3].nkeys = 0;
	set_count(&r.rows[3], 1, 500);

	/* kstack then other columns as leaf-most frames; comm not first */
	set_int(&r.rows[4].keys[0], "pid", 4242);
	set_stack(&r.rows[4].keys[1], REPORT_KEY_KSTACK, kframes + 2, 2);
	set_str(&r.rows[4].keys[2], "path", "/tmp/x;y");
	set_str(&r.rows[4].keys[3], "comm", "sh");
	r.rows[4].nkeys = 4;
	set_count(&r.rows[4], 1, 1000000);

	/* truncated and lost stacks */
	set_stack(&r.rows[5].keys[0], REPORT_KEY_USTACK, uframes + 1, 2);
	r.rows[5].keys[0].stack.truncated = true;
	r.rows[5].keys[1].kind = REPORT_KEY_KSTACK;
	r.rows[5].keys[1].stack.lost = true;
	r.rows[5].nkeys = 2;
	set_count(&r.rows[5], 1, 7000);

	check_render(out_folded, &r, "folded");
	report_clear(&r);
}

static void test_folded_count(void)
{
	struct report r;

	/* folded_div 0 means 1; negative values are skipped */
	new_rows(&r, SCRY_AGG_COUNT, 2);
	set_str(&r.rows[0].keys[0], "comm", "bash");
	r.rows[0].nkeys = 1;
	set_count(&r.rows[0], 12, 0);
	r.rows[1].nkeys = 0;
	set_count(&r.rows[1], 3, 0);
	check_render(out_folded, &r, "folded_count");
	report_clear(&r);

	new_rows(&r, SCRY_AGG_MIN, 1);
	r.rows[0].val.min = -5;
	check_render(out_folded, &r, "folded_negative");
	report_clear(&r);
}

/* ---- stats ---- */

static void test_stats(void)
{
	struct report r;

	memset(&r, 0, sizeof(r));
	r.nstats = 4;
	r.stats = xcalloc(r.nstats, sizeof(*r.stats));
	r.stats[0] = (struct report_stat){ "aggregation drops",
					   "raise --max-keys", 37 };
	r.stats[1] = (struct report_stat){ "stack drops",
					   "raise --max-stacks", 0 };
	r.stats[2] = (struct report_stat){ "user stack faults", NULL, 5 };
	r.stats[3] = (struct report_stat){ "stack drops",
					   "raise --max-stacks", 1 };
	check_render(out_stats, &r, "stats");
	report_clear(&r);
	CHECK(!r.stats && !r.nstats, "report_clear frees stats");

	/* Nothing lost: nothing printed. */
	{
		char *got;
		int rc;

		got = render(out_stats, &r, &rc);
		CHECK(rc == 0 && got && !*got, "no stats, no output");
		free(got);
	}
}

/* ---- sort ---- */

static void test_sort(void)
{
	static const struct fdesc a[] = { { "m", "f", 0, 0x100, false } };
	static const struct fdesc b[] = { { "m", "g", 0, 0x200, false } };
	static const struct fdesc ab[] = {
		{ "m", "f", 0, 0x100, false }, { "m", "g", 0, 0x200, false },
	};
	struct report r;
	size_t i;

	new_rows(&r, SCRY_AGG_COUNT, 7);
	/* value 5, tie broken by int key */
	set_int(&r.rows[0].keys[0], "pid", 30);
	set_count(&r.rows[0], 5, 0);
	set_int(&r.rows[1].keys[0], "pid", -2);
	set_count(&r.rows[1], 5, 0);
	/* value 1 */
	set_int(&r.rows[2].keys[0], "pid", 99);
	set_count(&r.rows[2], 1, 0);
	/* value 9, tie broken by string key */
	set_str(&r.rows[3].keys[0], "comm", "zsh");
	set_count(&r.rows[3], 9, 0);
	set_str(&r.rows[4].keys[0], "comm", "bash");
	set_count(&r.rows[4], 9, 0);
	/* value 20, tie broken by stack frame addresses, then depth */
	set_stack(&r.rows[5].keys[0], REPORT_KEY_KSTACK, b, 1);
	set_count(&r.rows[5], 20, 0);
	set_stack(&r.rows[6].keys[0], REPORT_KEY_KSTACK, ab, 2);
	set_count(&r.rows[6], 20, 0);
	for (i = 0; i < r.nrows; i++)
		r.rows[i].nkeys = 1;

	report_sort(&r);
	CHECK_INT(r.rows[0].keys[0].i, 99, "sort: smallest value first");
	CHECK_INT(r.rows[1].keys[0].i, -2, "sort: int tie, -2 first");
	CHECK_INT(r.rows[2].keys[0].i, 30, "sort: int tie, 30 second");
	CHECK_STR(r.rows[3].keys[0].s, "bash", "sort: str tie, bash first");
	CHECK_STR(r.rows[4].keys[0].s, "zsh", "sort: str tie, zsh second");
	CHECK_INT(r.rows[5].keys[0].stack.nr, 2, "sort: stack tie by address");
	CHECK_INT(r.rows[6].keys[0].stack.frames[0].addr, 0x200,
		  "sort: stack 0x200 last");
	report_clear(&r);
	CHECK(!r.rows && !r.nrows, "report_clear frees rows");
	report_clear(&r);	/* twice is harmless */
	report_clear(NULL);

	/* stacks: same leaf, shorter first */
	new_rows(&r, SCRY_AGG_SUM, 2);
	set_stack(&r.rows[0].keys[0], REPORT_KEY_USTACK, ab, 2);
	set_stack(&r.rows[1].keys[0], REPORT_KEY_USTACK, a, 1);
	r.rows[0].nkeys = r.rows[1].nkeys = 1;
	report_sort(&r);
	CHECK_INT(r.rows[0].keys[0].stack.nr, 1, "sort: prefix stack first");
	report_clear(&r);

	/* quantize and lquantize order by sum */
	new_rows(&r, SCRY_AGG_QUANTIZE, 2);
	set_count(&r.rows[0], 1, 900);
	set_count(&r.rows[1], 100, 8);
	report_sort(&r);
	CHECK_INT(r.rows[0].val.sum, 8, "sort: quantize by sum");
	r.agg = SCRY_AGG_LQUANTIZE;
	CHECK_INT(report_row_value(&r, &r.rows[1]), 900,
		  "lquantize value is sum");
	report_clear(&r);
}

/* ---- write errors ---- */

static void test_write_error(void)
{
	__u64 slots[SCRY_NBUCKETS] = { 0 };
	struct report r;
	FILE *f;

	f = fopen("/dev/full", "w");
	if (!f) {
		CHECK(0, "open /dev/full");
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);

	new_rows(&r, SCRY_AGG_COUNT, 1);
	set_str(&r.rows[0].keys[0], "comm", "cat");
	set_stack(&r.rows[0].keys[1], REPORT_KEY_KSTACK, kframes, 4);
	r.rows[0].nkeys = 2;
	set_count(&r.rows[0], 1, 1);
	r.nstats = 1;
	r.stats = xcalloc(1, sizeof(*r.stats));
	r.stats[0] = (struct report_stat){ "aggregation drops",
					   "raise --max-keys", 1 };

	CHECK_INT(out_text(f, &r), -EIO, "out_text on /dev/full is -EIO");
	clearerr(f);
	CHECK_INT(out_folded(f, &r), -EIO, "out_folded on /dev/full is -EIO");
	clearerr(f);
	CHECK_INT(out_stats(f, &r), -EIO, "out_stats on /dev/full is -EIO");
	clearerr(f);
	slots[3] = 1;
	CHECK_INT(out_quantize(f, slots), -EIO,
		  "out_quantize on /dev/full is -EIO");
	clearerr(f);
	CHECK_INT(out_lquantize(f, slots, 0, 10, 1), -EIO,
		  "out_lquantize on /dev/full is -EIO");
	fclose(f);

	/* A buffer too small for the histogram: -EIO, not a silent cut. */
	{
		char small[64];

		f = fmemopen(small, sizeof(small), "w");
		if (f) {
			CHECK_INT(out_quantize(f, slots), -EIO,
				  "out_quantize into a full fmemopen is -EIO");
			fclose(f);
		}
	}

	/* Buffered: the failure shows when the printer flushes. */
	f = fopen("/dev/full", "w");
	if (f) {
		CHECK_INT(out_text(f, &r), -EIO,
			  "buffered out_text on /dev/full is -EIO");
		fclose(f);
	}
	report_clear(&r);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		golden_dir = argv[1];

	test_quantize_single();
	test_quantize_spread();
	test_quantize_top();
	test_quantize_empty();
	test_bar_rounding();
	test_lquantize();
	test_count_int_keys();
	test_sum_str_keys();
	test_avg_keys();
	test_no_keys();
	test_stacks_count();
	test_stack_quantize();
	test_stack_lost_truncated();
	test_long_frame();
	test_frame_name();
	test_folded();
	test_folded_count();
	test_stats();
	test_sort();
	test_write_error();
	return CHECK_DONE();
}
