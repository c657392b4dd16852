// SPDX-License-Identifier: GPL-2.0
/*
 * source_special: BEGIN and END (DTrace's dtrace:::BEGIN too). Not
 * attached anywhere: attach.c runs BEGIN's program once before any other
 * probe is attached, END's once after every probe is detached, before
 * the maps print, each as scry's own event (BPF_PROG_TEST_RUN).
 */
#include <string.h>
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

/* DTrace's full names, dtrace:::BEGIN and dtrace:::END */
static int dtrace_plan(struct plan *p, struct plan_probe *pp,
		       struct expr_error *err)
{
	if (*pp->target[0] || *pp->target[1] ||
	    (strcmp(pp->target[2], "BEGIN") && strcmp(pp->target[2], "END")))
		return plan_fail(err, pp->ep->kind_col, "dtrace probes are "
				 "written dtrace:::BEGIN or dtrace:::END");
	pp->src = !strcmp(pp->target[2], "END") ? &source_end : &source_begin;
	return pp->src->plan(p, pp, err);
}

static int special_prepare(struct attach *a, const struct plan_probe *pp)
{
	return attach_want(a, "special", pp->clause);
}

const struct source source_begin = {
	.name = "BEGIN",
	.usage = "BEGIN",
	.what = "once, before any other probe fires",
	.flags = SOURCE_SPECIAL | SOURCE_NO_STACKS | SOURCE_IN_TASK,
	.plan = begin_plan,
	.prepare = special_prepare,
};

const struct source source_end = {
	.name = "END",
	.usage = "END",
	.what = "once, after tracing stops and before the maps print",
	.flags = SOURCE_SPECIAL | SOURCE_NO_STACKS | SOURCE_IN_TASK,
	.plan = end_plan,
	.prepare = special_prepare,
};

const struct source source_dtrace = {
	.name = "dtrace",
	.usage = "dtrace:::BEGIN|END",
	.what = "DTrace's names of BEGIN and END",
	.min_parts = 3,
	.max_parts = 3,
	.flags = SOURCE_SPECIAL | SOURCE_NO_STACKS | SOURCE_IN_TASK,
	.plan = dtrace_plan,
	.prepare = special_prepare,
};
