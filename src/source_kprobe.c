// SPDX-License-Identifier: GPL-2.0
/*
 * source_kprobe: kprobe:FUNC[+OFFSET], kretprobe:FUNC, DTrace's
 * fbt::FUNC:entry and fbt::FUNC:return. libbpf attaches through the
 * kprobe PMU (perf_event_open), with a cookie for `probe`. A kernel built
 * without CONFIG_KPROBES has neither the PMU nor kprobe_events: plan says
 * so, and names the kinds that do work.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/log.h>
#include <scry/plan.h>
#include <scry/source.h>

static int kprobe_plan(struct plan *p, struct plan_probe *pp,
		       struct expr_error *err)
{
	const char *func = pp->target[0];
	int col = pp->target_cols[0];

	if (pp->ntarget == 3) {		/* DTrace: fbt:MODULE:FUNC:SITE */
		func = pp->target[1];
		col = pp->target_cols[1];
		if (!strcmp(pp->target[2], "return")) {
			pp->has_end = true;
			pp->dtrace_return = 2;
		}
		else if (strcmp(pp->target[2], "entry"))
			return plan_fail(err, pp->target_cols[2], "DTrace fbt "
					 "probes end in :entry or :return");
	} else if (pp->ntarget != 1) {
		return plan_fail(err, pp->target_cols[pp->ntarget - 1],
				 "%s probes are written %s", pp->src->name,
				 pp->src->usage);
	}
	if (!*func || strpbrk(func, "*?["))
		return plan_fail(err, col, "%s: name one kernel function (%s "
				 "globs are not supported)", pp->src->name,
				 pp->src->name);
	if (p->env->has_kprobes && !p->env->has_kprobes())
		return plan_fail(err, pp->ep->kind_col, "this kernel has no "
				 "kprobes (built without CONFIG_KPROBES): %s "
				 "cannot attach here; tracepoint:, syscall:, "
				 "offcpu and uprobe: work", pp->src->name);
	/* the function to probe, without its +offset */
	pp->target[0] = func;
	return 0;
}

static int kprobe_prepare(struct attach *a, const struct plan_probe *pp)
{
	int err;

	if (!pp->has_end)
		return attach_want(a, "kprobe", pp->clause);
	err = attach_want(a, "kprobe_park", pp->clause);
	return err ? : attach_want(a, "kretprobe", pp->clause);
}

/* FUNC+0x10: the function and the offset into it */
static void split_offset(const char *spec, char *func, size_t len,
			 unsigned long *off)
{
	const char *plus = strchr(spec, '+');

	*off = plus ? strtoul(plus + 1, NULL, 0) : 0;
	snprintf(func, len, "%.*s", plus ? (int)(plus - spec) :
		 (int)strlen(spec), spec);
}

static int attach_one(struct attach *a, const struct plan_probe *pp,
		      const char *name, bool retprobe)
{
	struct bpf_program *prog = attach_clause_prog(a, name, pp->clause);
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = pp->cookie0,
		    .retprobe = retprobe);
	struct bpf_link *l;
	char func[256];
	int err;

	if (!prog)
		return -ENOENT;
	split_offset(pp->target[0], func, sizeof(func), &opts.offset);
	l = bpf_program__attach_kprobe_opts(prog, func, &opts);
	if (!l) {
		err = -errno;
		log_err("%s:%s: %s%s", pp->src->name, pp->target[0],
			strerror(-err), err == -ENOENT ? " (no such kernel "
			"function, or it cannot be probed: scry -l "
			"'kprobe:...' does not list kernel functions yet; see "
			"/proc/kallsyms)" : "");
		a->usage_error = err == -ENOENT || err == -EINVAL;
		return err;
	}
	return attach_keep(a, l);
}

static int kprobe_attach(struct attach *a, const struct plan_probe *pp)
{
	int err;

	if (!pp->has_end)
		return attach_one(a, pp, "kprobe", false);
	err = attach_one(a, pp, "kprobe_park", false);
	return err ? : attach_one(a, pp, "kretprobe", true);
}

const struct source source_kprobe = {
	.name = "kprobe",
	.alias = "k",
	.usage = "kprobe:FUNC[+OFFSET]",
	.what = "entry of a kernel function; arg0..arg5 (needs CONFIG_KPROBES)",
	.min_parts = 1,
	.max_parts = 3,
	.fields = SOURCE_F_ARGS | SOURCE_F_FUNC,
	.flags = SOURCE_SLOW_DETACH,
	.plan = kprobe_plan,
	.prepare = kprobe_prepare,
	.attach = kprobe_attach,
};

const struct source source_kretprobe = {
	.name = "kretprobe",
	.alias = "kr",
	.usage = "kretprobe:FUNC",
	.what = "return of a kernel function; retval, latency, arg0..arg5",
	.min_parts = 1,
	.max_parts = 1,
	.fields = SOURCE_F_ARGS | SOURCE_F_RETVAL | SOURCE_F_LATENCY |
		  SOURCE_F_FUNC,
	.flags = SOURCE_END | SOURCE_SLOW_DETACH,
	.plan = kprobe_plan,
	.prepare = kprobe_prepare,
	.attach = kprobe_attach,
};

/* DTrace's function boundary tracing: fbt::FUNC:entry, fbt::FUNC:return */
const struct source source_fbt = {
	.name = "fbt",
	.usage = "fbt::FUNC:entry|return",
	.what = "DTrace's kprobe: entry or return of a kernel function",
	.min_parts = 3,
	.max_parts = 3,
	.fields = SOURCE_F_ARGS | SOURCE_F_RETVAL | SOURCE_F_LATENCY |
		  SOURCE_F_FUNC,
	.flags = SOURCE_SLOW_DETACH,
	.plan = kprobe_plan,
	.prepare = kprobe_prepare,
	.attach = kprobe_attach,
};
