// SPDX-License-Identifier: GPL-2.0
/*
 * source_tracepoint: tracepoint:CATEGORY:NAME, either one a glob. One
 * generic program per clause reads its args.FIELD operands by offset
 * (from the event's format); every matching tracepoint attaches it with
 * its own cookie, which `probe` names. Attaching needs the event id from
 * tracefs, which scry mounts if it must.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/list.h>
#include <scry/log.h>
#include <scry/plan.h>
#include <scry/source.h>
#include <scry/expr.h>
#include <scry/hint.h>
#include <scry/tracefs.h>
#include "scry.skel.h"

struct tp_names {
	struct plan_probe *pp;
	int err;
};

static void tp_name_add(void *ctx, const char *cat, const char *name)
{
	struct tp_names *t = ctx;
	struct plan_probe *pp = t->pp;
	char **v;

	v = realloc(pp->names, (pp->nnames + 1) * sizeof(*v));
	if (!v) {
		t->err = -ENOMEM;
		return;
	}
	pp->names = v;
	if (asprintf(&pp->names[pp->nnames], "%s:%s", cat, name) < 0) {
		t->err = -ENOMEM;
		return;
	}
	pp->nnames++;
}

/*
 * CAT:NAME, either one a glob: the matching tracepoints, in name order,
 * each its own attachment, each its own `probe`.
 */
static int tp_plan(struct plan *p, struct plan_probe *pp,
		   struct expr_error *err)
{
	struct tp_names t = { .pp = pp };
	int i, n;

	for (i = 0; i < 2; i++)
		if (!*pp->target[i])
			return plan_fail(err, pp->target_cols[i], "empty probe "
					 "part: tracepoint probes are written "
					 "tracepoint:CAT:NAME");
	if (!strpbrk(pp->target[0], "*?[") && !strpbrk(pp->target[1], "*?[")) {
		tp_name_add(&t, pp->target[0], pp->target[1]);
		return t.err;
	}
	n = p->env->tp_glob(pp->target[0], pp->target[1], tp_name_add, &t);
	if (t.err)
		return t.err;
	if (n < 0)
		return plan_fail(err, pp->target_cols[0], "cannot list "
				 "tracepoints: %s", strerror(-n));
	if (!n)
		return plan_fail(err, pp->target_cols[0], "no tracepoint "
				 "matches %s:%s (scry -l 'tracepoint:...' lists "
				 "them)", pp->target[0], pp->target[1]);
	return 0;
}

static int tp_prepare(struct attach *a, const struct plan_probe *pp)
{
	return attach_want(a, "tp", pp->clause);
}

static void tp_print(void *ctx, const char *cat, const char *name)
{
	list_line(ctx, "tracepoint", cat, name, NULL, NULL);
}

/* the tracepoints tracefs has, by glob, in name order */
static int tp_list(FILE *f, char *parts[], int nparts, int pid)
{
	int n;

	(void)pid;
	n = plan_env_system.tp_glob(nparts > 0 && *parts[0] ? parts[0] : "*",
				    nparts > 1 && *parts[1] ? parts[1] : "*",
				    tp_print, f);
	if (n < 0) {
		log_err("cannot list tracepoints: %s", strerror(-n));
		return 2;
	}
	return n ? 0 : 1;
}

/* "; did you mean: sched:sched_switch?" for @want ("CAT:NAME"), or "" */
static const char *tp_hint(const char *want, char *buf, size_t len)
{
	struct plan_probe all = {};
	struct tp_names t = { .pp = &all };
	size_t wl = strlen(want);
	struct hint h[3];
	int nh = 0, i;

	/* every tracepoint tracefs has, collected as a glob's would be */
	plan_env_system.tp_glob("*", "*", tp_name_add, &t);
	for (i = 0; i < all.nnames; i++)
		hint_offer(h, &nh, 3, all.names[i], strlen(all.names[i]),
			   hint_distance(want, wl, all.names[i],
					 strlen(all.names[i]), hint_limit(wl)));
	hint_format(h, nh, buf, len);
	for (i = 0; i < all.nnames; i++)
		free(all.names[i]);
	free(all.names);
	return buf;
}

static int tp_attach(struct attach *a, const struct plan_probe *pp)
{
	struct bpf_program *prog = attach_clause_prog(a, "tp", pp->clause);
	struct bpf_link *l;
	char cat[256];
	const char *name;
	int err, i;

	if (!prog)
		return -ENOENT;
	err = tracefs_ensure();
	if (err)
		return err;
	for (i = 0; i < pp->nnames; i++) {
		LIBBPF_OPTS(bpf_tracepoint_opts, opts,
			    .bpf_cookie = pp->cookie0 + i);

		name = strchr(pp->names[i], ':');
		snprintf(cat, sizeof(cat), "%.*s", (int)(name - pp->names[i]),
			 pp->names[i]);
		name++;
		l = bpf_program__attach_tracepoint_opts(prog, cat, name, &opts);
		if (!l) {
			char hint[256] = "";

			err = -errno;
			if (err == -ENOENT)
				tp_hint(pp->names[i], hint, sizeof(hint));
			log_err("tracepoint:%s:%s: %s%s", cat, name,
				err == -ENOENT ? "no such tracepoint" :
				strerror(-err), hint);
			a->usage_error = err == -ENOENT;
			return err;
		}
		err = attach_keep(a, l);
		if (err)
			return err;
	}
	return 0;
}

const struct source source_tracepoint = {
	.name = "tracepoint",
	.alias = "t",
	.usage = "tracepoint:CAT:NAME",
	.what = "a kernel tracepoint; its fields as args.FIELD",
	.min_parts = 2,
	.max_parts = 2,
	.fields = SOURCE_F_TPARGS | SOURCE_F_FUNC,
	.flags = SOURCE_SLOW_DETACH,
	.plan = tp_plan,
	.list = tp_list,
	.prepare = tp_prepare,
	.attach = tp_attach,
};
