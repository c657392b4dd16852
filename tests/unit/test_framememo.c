// SPDX-License-Identifier: GPL-2.0
/*
 * framememo: a drain's answers per file address, found again only under
 * the same key, handed out as copies with their own references.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scry/framememo.h>
#include <scry/intern.h>
#include <scry/report.h>
#include <scry/sym.h>
#include "check.h"

#define N 5000

static void clear(struct report_frame *fr, int n)
{
	while (n-- > 0)
		syms_frame_clear(&fr[n]);
}

int main(void)
{
	static const int objs[2];
	struct framememo *m = framememo_new();
	struct framememo_key k = {
		.obj = (const void *)&objs[0], .addr = 0x401136,
		.start = 0x400000, .end = 0x402000, .pgoff = 0,
		.module = "app", .max = 8,
	}, o;
	struct report_frame in[2], out[8];
	char name[32];
	int n, found, i;

	memset(in, 0, sizeof(in));
	in[0].module = intern("app");
	in[0].sym = intern("inner");
	in[0].inlined = true;
	in[0].file = intern("app.c");
	in[0].line = 12;
	in[0].addr = 0x401136;
	in[1].module = intern("app");
	in[1].sym = intern("outer");
	in[1].off = 0x16;
	in[1].addr = 0x401136;
	in[1].map = calloc(1, sizeof(*in[1].map));
	in[1].map->file = strdup("/usr/bin/app");
	in[1].map->build_id = strdup("abcd");
	in[1].map->start = 0x400000;

	CHECK(m, "framememo: made");
	CHECK_INT(framememo_get(m, &k, out), 0, "framememo: unknown key: 0");
	CHECK_INT(framememo_put(m, &k, in, 2), 0, "framememo: put");
	/* the caller's frames go; the memo keeps its own */
	clear(in, 2);
	memset(out, 0, sizeof(out));
	n = framememo_get(m, &k, out);
	CHECK_INT(n, 2, "framememo: the two frames back");
	CHECK_STR(out[0].sym, "inner", "framememo: inner frame's name");
	CHECK(out[0].inlined && out[0].line == 12 &&
	      !strcmp(out[0].file, "app.c"), "framememo: inlined, file:line");
	CHECK(out[1].off == 0x16 && out[1].addr == 0x401136 &&
	      !strcmp(out[1].module, "app"), "framememo: offset, address");
	CHECK(out[1].map && out[1].map != in[1].map &&
	      !strcmp(out[1].map->file, "/usr/bin/app") &&
	      !strcmp(out[1].map->build_id, "abcd") &&
	      out[1].map->start == 0x400000, "framememo: mapping copied");
	clear(out, n);
	n = framememo_get(m, &k, out);
	CHECK(n == 2 && !strcmp(out[0].sym, "inner"),
	      "framememo: the memo's strings outlive the copies handed out");
	clear(out, n);

	/* every field of the key counts */
	found = 0;
	for (i = 0; i < 7; i++) {
		o = k;
		switch (i) {
		case 0: o.obj = (const void *)&objs[1]; break;
		case 1: o.addr++; break;
		case 2: o.start -= 0x1000; break;
		case 3: o.end += 0x1000; break;
		case 4: o.pgoff += 0x1000; break;
		case 5: o.module = "app2"; break;
		case 6: o.max = 1; break;
		}
		found += framememo_get(m, &o, out) != 0;
	}
	CHECK_INT(found, 0, "framememo: a key differing in any field is not found");
	o = k;
	snprintf(name, sizeof(name), "%s", "app");
	o.module = name;	/* the same text elsewhere */
	n = framememo_get(m, &o, out);
	CHECK_INT(n, 2, "framememo: the module compared by its text");
	clear(out, n);

	/* more keys than the first table's slots: it grows */
	memset(in, 0, sizeof(in));
	for (i = 0; i < N; i++) {
		o = k;
		o.addr = 0x500000 + i;
		snprintf(name, sizeof(name), "f%d", i);
		in[0].sym = intern(name);
		in[0].addr = o.addr;
		framememo_put(m, &o, in, 1);
		syms_frame_clear(&in[0]);
	}
	for (found = 0, i = 0; i < N; i++) {
		o = k;
		o.addr = 0x500000 + i;
		snprintf(name, sizeof(name), "f%d", i);
		n = framememo_get(m, &o, out);
		found += n == 1 && !strcmp(out[0].sym, name) &&
			 out[0].addr == o.addr;
		clear(out, n);
	}
	CHECK_INT(found, N, "framememo: every key found again after growth");
	n = framememo_get(m, &k, out);
	CHECK_INT(n, 2, "framememo: the first key too");
	clear(out, n);
	CHECK_INT(framememo_put(m, &k, in, 0), -EINVAL,
		  "framememo: no frames: not remembered");
	/* what it holds goes with it (the ASan build's leak check) */
	framememo_free(m);
	framememo_free(NULL);
	return CHECK_DONE();
}
