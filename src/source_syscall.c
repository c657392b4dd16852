// SPDX-License-Identifier: GPL-2.0
/*
 * source_syscall: syscall:NAME[,NAME...]. raw_syscalls' sys_enter and
 * sys_exit as raw tracepoints (no tracefs, no per-syscall event ids); the
 * engine keeps only the numbers in the plan's bitmap, in the kernel.
 */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <scry/abi.h>
#include <scry/attach.h>
#include <scry/expr.h>
#include <scry/list.h>
#include <scry/hint.h>
#include <scry/log.h>
#include <scry/plan.h>
#include <scry/source.h>
#include "scry.skel.h"

#define SYSCALL_HINTS	3

/* "unknown syscall 'reed'; did you mean: read, readv?" */
static int unknown_syscall(const char *name, int col, struct expr_error *err)
{
	struct hint h[SYSCALL_HINTS];
	char hints[96];
	const char *s;
	size_t len = strlen(name);
	int i, nh = 0;

	for (i = 0; (s = plan_syscall_name(i)); i++)
		hint_offer(h, &nh, SYSCALL_HINTS, s, strlen(s),
			   hint_distance(name, len, s, strlen(s),
					 hint_limit(len)));
	return plan_fail(err, col, "unknown syscall '%s'%s (scry -l "
			 "'syscall:*' lists them)", name,
			 hint_format(h, nh, hints, sizeof(hints)));
}

/* Every syscall matching @glob into the bitmap; how many. */
static int syscall_glob(struct plan_probe *pp, const char *glob)
{
	const char *name;
	int i, nr, n = 0;

	for (i = 0; (name = plan_syscall_name(i)); i++) {
		if (fnmatch(glob, name, 0))
			continue;
		nr = plan_syscall_nr(name);
		if (nr < 0 || nr >= 512)
			continue;
		pp->syscall_set[nr / 64] |= 1ULL << (nr % 64);
		n++;
	}
	return n;
}

/* io_uring completions, counted as io_uring_read, io_uring_write (abi.h) */
static bool wants_uring(const struct plan_probe *pp)
{
	return pp->syscall_set[SCRY_SYSCALL_URING_READ / 64] &
	       (3ULL << (SCRY_SYSCALL_URING_READ % 64));
}

/*
 * NAME[,NAME...] -> the probe's bitmap of syscall numbers. A NAME may be
 * a glob (syscall:*read*). DTrace's syscall::NAME:entry and :return are
 * written here too: entry fires at entry (no retval, latency); return is
 * scry's syscall:NAME.
 */
static int syscall_plan(struct plan *p, struct plan_probe *pp,
			struct expr_error *err)
{
	const char *list = pp->target[0], *c = list;
	int col = pp->target_cols[0];
	char name[64];
	size_t n;
	int nr;

	(void)p;
	if (pp->ntarget == 3) {		/* DTrace: syscall:MODULE:NAME:SITE */
		if (!strcmp(pp->target[2], "entry"))
			pp->syscall_entry = true;
		else if (strcmp(pp->target[2], "return"))
			return plan_fail(err, pp->target_cols[2], "DTrace "
					 "syscall probes end in :entry or "
					 ":return");
		list = *pp->target[1] ? pp->target[1] : "*";
		col = pp->target_cols[1];
		c = list;
		pp->has_end = !pp->syscall_entry;
		pp->dtrace_return = pp->has_end;
	} else if (pp->ntarget != 1) {
		return plan_fail(err, pp->target_cols[pp->ntarget - 1],
				 "syscall probes are written syscall:NAME"
				 "[,NAME...] or, as DTrace, syscall::NAME:"
				 "entry");
	}
	while (*c) {
		n = strcspn(c, ",");
		if (!n || n >= sizeof(name))
			return plan_fail(err, col + (int)(c - list),
					 "expected a syscall name");
		memcpy(name, c, n);
		name[n] = '\0';
		if (strpbrk(name, "*?[")) {
			if (!syscall_glob(pp, name))
				return plan_fail(err, col + (int)(c - list),
						 "no syscall matches '%s'",
						 name);
		} else {
			nr = plan_syscall_nr(name);
			if (nr < 0 || nr >= 512)
				return unknown_syscall(name, col +
						       (int)(c - list), err);
			pp->syscall_set[nr / 64] |= 1ULL << (nr % 64);
		}
		c += n + (c[n] == ',');
	}
	/*
	 * the completion program (raw_tp/io_uring_complete) is not known
	 * to run in a task: the maps stay preallocated
	 */
	pp->outside_task = wants_uring(pp);
	return 0;
}

static int syscall_list(FILE *f, char *parts[], int nparts, int pid)
{
	const char *glob = nparts > 0 && *parts[0] ? parts[0] : "*";
	const char *name;
	int i, found = 0;

	(void)pid;
	for (i = 0; (name = plan_syscall_name(i)); i++) {
		if (fnmatch(glob, name, 0))
			continue;
		list_line(f, "syscall", name, NULL, NULL, NULL);
		found++;
	}
	return found ? 0 : 1;
}

/*
 * The engine's syscall programs for @pp's clause: the builds without the
 * user stack walk (bpf/scry.bpf.c: on_sys_enter) unless it takes one.
 */
static bool user_stacks(const struct attach *a, const struct plan_probe *pp)
{
	return a->plan->clauses[pp->clause].flags & SCRY_CL_USTACK;
}

static const char *enter_prog(const struct attach *a,
			      const struct plan_probe *pp)
{
	return user_stacks(a, pp) ? "sys_enter" : "sys_enter_nu";
}

static const char *exit_prog(const struct attach *a,
			     const struct plan_probe *pp)
{
	return user_stacks(a, pp) ? "sys_exit" : "sys_exit_nu";
}

static int syscall_prepare(struct attach *a, const struct plan_probe *pp)
{
	int err = attach_want(a, enter_prog(a, pp), pp->clause);

	if (!err && wants_uring(pp))
		err = attach_want(a, "uring_done", pp->clause);
	if (err || pp->syscall_entry)
		return err;
	return attach_want(a, exit_prog(a, pp), pp->clause);
}

/* One pair of programs serves every syscall probe of a clause. */
static int syscall_attach(struct attach *a, const struct plan_probe *pp)
{
	const struct plan_clause *cl = &a->plan->clauses[pp->clause];
	struct bpf_program *enter, *exit;
	struct bpf_link *uring;
	int err;

	if (pp != &a->plan->probes[cl->first_probe])
		return 0;
	enter = attach_clause_prog(a, enter_prog(a, pp), pp->clause);
	exit = attach_clause_prog(a, exit_prog(a, pp), pp->clause);
	if (!enter || !exit)
		return -ENOENT;
	err = attach_prog(a, enter);
	err = err ? : attach_prog(a, exit);
	if (err || !wants_uring(pp))
		return err;
	/* a kernel without io_uring (or its tracepoint) still counts syscalls */
	uring = bpf_program__attach(attach_clause_prog(a, "uring_done",
						       pp->clause));
	if (!uring) {
		log_info("io_uring completions are not counted: %s",
			 strerror(errno));
		return 0;
	}
	return attach_keep(a, uring);
}

const struct source source_syscall = {
	.name = "syscall",
	.usage = "syscall:NAME[,NAME...]",
	.what = "a syscall's return; args, retval, errno, latency, fd.path",
	.min_parts = 1,
	.max_parts = 3,
	.fields = SOURCE_F_ARGS | SOURCE_F_RETVAL | SOURCE_F_LATENCY |
		  SOURCE_F_ERRNO | SOURCE_F_FDPATH | SOURCE_F_FUNC,
	.flags = SOURCE_END | SOURCE_IN_TASK,
	.plan = syscall_plan,
	.list = syscall_list,
	.prepare = syscall_prepare,
	.attach = syscall_attach,
};
