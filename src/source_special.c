// SPDX-License-Identifier: GPL-2.0
/*
 * source_special: BEGIN and END (DTrace's dtrace:::BEGIN too). Not
 * attached anywhere: attach.c runs BEGIN's program once before any other
 * probe is attached, END's once after every probe is detached, before
 * the maps print, each as scry's own event (BPF_PROG_TEST_RUN).
 */
#include <scry/attach.h>
#include <scry/plan.h>
#include <scry/source.h>

static int begin_plan(struct plan *p, struct plan_probe *pp,
		      struct expr_error *err)
{
	(void)p;
	(void)err;
	pp->special = true;
	return 0;
}

static int end_plan(struct plan *p, struct plan_probe *pp,
		    struct expr_error *err)
{
	(void)p;
	(void)err;
	pp->special = true;
	pp->at_end = true;
	return 0;
}

static int special_prepare(struct attach *a, const struct plan_probe *pp)
{
	return attach_want(a, "special", pp->clause);
}

const struct source source_begin = {
	.name = "BEGIN",
	.usage = "BEGIN",
	.what = "once, before any other probe fires",
	.flags = SOURCE_SPECIAL | SOURCE_NO_STACKS,
	.plan = begin_plan,
	.prepare = special_prepare,
};

const struct source source_end = {
	.name = "END",
	.usage = "END",
	.what = "once, after tracing stops and before the maps print",
	.flags = SOURCE_SPECIAL | SOURCE_NO_STACKS,
	.plan = end_plan,
	.prepare = special_prepare,
};
