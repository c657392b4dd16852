/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The format table (names, -o endings) and the row-to-frames walk that
 * folded, SVG and pprof share: order, names, marks, markers.
 *
 * Run:   test_format
 */
#include <stdlib.h>
#include <string.h>

#include <scry/fold.h>
#include <scry/format.h>
#include <scry/report.h>

#include "check.h"
#include "test_util.h"

static void test_table(void)
{
	const struct format *fm;

	CHECK_STR(format_text()->name, "text", "table: text is the default");
	CHECK(format_named("json") && format_named("json")->print,
	      "table: json by name");
	CHECK(!format_named("jsonx"), "table: unknown name");
	fm = format_for_path("/tmp/cpu.svg");
	CHECK_STR(fm ? fm->name : NULL, "svg", "table: .svg ending");
	fm = format_for_path("out.folded");
	CHECK_STR(fm ? fm->name : NULL, "folded", "table: .folded ending");
	CHECK(!format_for_path("out.txt"), "table: unknown ending is text");
	CHECK(!format_for_path("dir/.svg"), "table: a hidden name is no ending");
	for (fm = format_table; fm->name; fm++)
		CHECK(fm->print != NULL, fm->name);
}

/* Collects a row's path as "name|flags;name|flags", flags k, i, F (frame). */
struct collect {
	char buf[1024];
};

static int collect(void *ctx, const struct fold_step *st)
{
	struct collect *c = ctx;
	size_t n = strlen(c->buf);

	snprintf(c->buf + n, sizeof(c->buf) - n, "%s%s%s%s%s|%s%s%s%s",
		 n ? ";" : "", st->pre, st->text, st->post, st->mark,
		 st->kernel ? "k" : "", st->inlined ? "i" : "",
		 st->fr ? "F" : "", st->literal ? "L" : "");
	return 0;
}

static const char *walk(const struct report_row *row)
{
	static struct collect c;

	memset(&c, 0, sizeof(c));
	CHECK_INT(fold_row(row, collect, &c), 0, "walk: returns 0");
	return c.buf;
}

static void test_walk(void)
{
	/* leaf first, as drained: inlined helper in main's frame */
	static const struct fdesc ufr[] = {
		{ "app", "helper", 4, 0x1010, true },
		{ "app", "main", 16, 0x1010, false },
		{ "libc.so.6", NULL, 0x29d90, 0x7f0029d90, false },
		{ NULL, NULL, 0, 0x42, false },
	};
	static const struct fdesc kfr[] = {
		{ "vmlinux", "schedule", 0x30, 0xffffffff81000030, false },
		{ "vmlinux", "do_nanosleep", 0x10, 0xffffffff81000110, false },
	};
	struct report r;

	new_rows(&r, SCRY_AGG_COUNT, 3);
	/* the comm column is found by type wherever it stands */
	set_stack_named(&r.rows[0].keys[0], REPORT_KEY_KSTACK, NULL, kfr, 2);
	set_int(&r.rows[0].keys[1], "pid", 42);
	set_stack_named(&r.rows[0].keys[2], REPORT_KEY_USTACK, NULL, ufr, 4);
	set_str(&r.rows[0].keys[3], "comm", "a;b");
	r.rows[0].nkeys = 4;
	CHECK_STR(walk(&r.rows[0]),
		  "a;b|;[unknown]|FL;[libc.so.6]|F;main|F;helper_[i]|iF;"
		  "do_nanosleep_[k]|kF;schedule_[k]|kF;42|L",
		  "walk: comm, user root first, kernel, other keys");

	/* truncated and lost stacks; a comm-named key that is an int is a key */
	set_stack_named(&r.rows[1].keys[0], REPORT_KEY_USTACK, NULL, ufr + 1, 1);
	r.rows[1].keys[0].stack.truncated = true;
	set_stack_named(&r.rows[1].keys[1], REPORT_KEY_KSTACK, NULL, NULL, 0);
	r.rows[1].keys[1].stack.lost = true;
	r.rows[1].nkeys = 2;
	CHECK_STR(walk(&r.rows[1]), "[truncated]|L;main|F;[stack lost]|L",
		  "walk: markers where the lost frames would be");

	/* an empty stack alone still gives flamegraph.pl a frame */
	set_stack_named(&r.rows[2].keys[0], REPORT_KEY_USTACK, NULL, NULL, 0);
	r.rows[2].nkeys = 1;
	CHECK_STR(walk(&r.rows[2]), "[total]|L", "walk: [total] for no frame");
	CHECK(fold_has_stack(&r.rows[2]), "walk: an empty stack is a stack");
	report_clear(&r);
}

/* `read`'s @[path, errno]: "path bytes" for calls that worked, not "path;0" */
static void test_walk_errno(void)
{
	struct report r;

	new_rows(&r, SCRY_AGG_SUM, 3);
	set_str(&r.rows[0].keys[0], "fd.path", "/etc/hostname");
	set_int(&r.rows[0].keys[1], "errno", 0);
	r.rows[0].nkeys = 2;
	CHECK_STR(walk(&r.rows[0]), "/etc/hostname|",
		  "walk: errno 0 adds no frame");
	set_str(&r.rows[1].keys[0], "comm", "cat");
	set_int(&r.rows[1].keys[1], "errno", 21);
	r.rows[1].nkeys = 2;
	CHECK_STR(walk(&r.rows[1]), "cat|;EISDIR|L",
		  "walk: a failed call's frame is its errno's name");
	set_int(&r.rows[2].keys[0], "errno", 9999);
	r.rows[2].nkeys = 1;
	CHECK_STR(walk(&r.rows[2]), "errno 9999|L",
		  "walk: an errno without a name is its number");
	report_clear(&r);
}

static int stop_at_two(void *ctx, const struct fold_step *st)
{
	int *n = ctx;

	(void)st;
	return ++*n == 2 ? -5 : 0;
}

static void test_walk_stops(void)
{
	struct report r;
	int n = 0;

	new_rows(&r, SCRY_AGG_COUNT, 1);
	set_str(&r.rows[0].keys[0], "comm", "x");
	set_int(&r.rows[0].keys[1], "pid", 1);
	set_int(&r.rows[0].keys[2], "tid", 2);
	r.rows[0].nkeys = 3;
	CHECK_INT(fold_row(&r.rows[0], stop_at_two, &n), -5,
		  "walk: a callback's error ends the walk");
	CHECK_INT(n, 2, "walk: no call after the error");
	report_clear(&r);
}

int main(void)
{
	test_table();
	test_walk();
	test_walk_errno();
	test_walk_stops();
	return CHECK_DONE();
}
