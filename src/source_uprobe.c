// SPDX-License-Identifier: GPL-2.0
/*
 * source_uprobe: uprobe:LIB:FUNC, uretprobe:LIB:FUNC and
 * usdt:BIN:PROVIDER:NAME. LIB and FUNC are resolved here (resolve.c) so
 * errors name what the user wrote; the probes attach per traced process
 * when -p is given (other processes pay nothing), system-wide otherwise
 * (-c too, whose children are followed in the kernel's target filter).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/expr.h>
#include <scry/list.h>
#include <scry/log.h>
#include <scry/plan.h>
#include <scry/resolve.h>
#include <scry/session.h>
#include <scry/source.h>
#include "scry.skel.h"

/* FUNC names one function: globs are for listing, for now */
static int uprobe_plan(struct plan *p, struct plan_probe *pp,
		       struct expr_error *err)
{
	int i;

	(void)p;
	for (i = 0; i < pp->ntarget; i++) {
		if (!*pp->target[i])
			return plan_fail(err, pp->target_cols[i], "empty probe "
					 "part: %s probes are written %s",
					 pp->src->name, pp->src->usage);
		if (i && strpbrk(pp->target[i], "*?["))
			return plan_fail(err, pp->target_cols[i], "'%s' is a "
					 "glob: globs are for listing (scry -l "
					 "'%s:...'); name one probe",
					 pp->target[i], pp->src->name);
	}
	return 0;
}

static int uprobe_prepare(struct attach *a, const struct plan_probe *pp)
{
	int err;

	if (pp->src == &source_uprobe)
		return attach_want(a, "uprobe", pp->clause);
	if (pp->src == &source_usdt)
		return attach_want(a, "usdt", pp->clause);
	err = attach_want(a, "uprobe_park", pp->clause);
	return err ? : attach_want(a, "uretprobe", pp->clause);
}

/* Per-pid attachment only for -p; -c and system-wide use -1. */
static int attach_pids(const struct attach *a, int *pids)
{
	int i;

	if (a->follow_forks || a->npids == 0) {
		pids[0] = -1;
		return 1;
	}
	for (i = 0; i < a->npids; i++)
		pids[i] = a->pids[i];
	return a->npids;
}

static int keep(struct attach *a, struct bpf_link *l, const char *what,
		int pid)
{
	int err;

	if (!l) {
		err = -errno;
		if (pid > 0)
			log_err("%s: attach to pid %d failed: %s", what, pid,
				strerror(-err));
		else
			log_err("%s: attach failed: %s", what, strerror(-err));
		return err;
	}
	return attach_keep(a, l);
}

/* The probe as written: "uprobe:libc:malloc", for messages. */
static const char *probe_text(const struct plan_probe *pp, char *buf,
			      size_t len)
{
	int i, n = snprintf(buf, len, "%s", pp->src->name);

	for (i = 0; i < pp->ntarget && n < (int)len; i++)
		n += snprintf(buf + n, len - n, ":%s", pp->target[i]);
	return buf;
}

static int attach_func(struct attach *a, const struct plan_probe *pp,
		       const char *path, __u64 off, int pid)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = pp->cookie0);
	struct bpf_program *prog;
	struct bpf_link *l;
	char what[256];
	int err;

	probe_text(pp, what, sizeof(what));
	if (pp->src == &source_uprobe) {
		prog = attach_clause_prog(a, "uprobe", pp->clause);
		if (!prog)
			return -ENOENT;
		l = bpf_program__attach_uprobe_opts(prog, pid, path, off,
						    &opts);
		return keep(a, l, what, pid);
	}
	prog = attach_clause_prog(a, "uprobe_park", pp->clause);
	if (!prog)
		return -ENOENT;
	l = bpf_program__attach_uprobe_opts(prog, pid, path, off, &opts);
	err = keep(a, l, what, pid);
	if (err)
		return err;
	opts.retprobe = true;
	prog = attach_clause_prog(a, "uretprobe", pp->clause);
	if (!prog)
		return -ENOENT;
	l = bpf_program__attach_uprobe_opts(prog, pid, path, off, &opts);
	return keep(a, l, what, pid);
}

/*
 * LIB as the user means it: the file the traced process maps, else the
 * ld.so cache. For -p with several processes, each may map its own copy.
 */
static int lib_path(struct attach *a, const struct plan_probe *pp, int pid,
		    char *path, size_t len)
{
	char why[RESOLVE_ERR_LEN];
	int err;

	err = resolve_lib(pp->target[0], pid > 0 ? pid : -1, path, len,
			  why, sizeof(why));
	if (err) {
		log_err("%s", why);
		a->usage_error = true;
	}
	return err;
}

static int attach_uprobes(struct attach *a, const struct plan_probe *pp,
			  int pid)
{
	char path[PATH_MAX], why[RESOLVE_ERR_LEN];
	__u64 off;
	int err;

	err = lib_path(a, pp, pid, path, sizeof(path));
	if (err)
		return err;
	err = resolve_func(path, pp->target[1], &off, why, sizeof(why));
	if (err) {
		log_err("%s", why);
		a->usage_error = true;
		return err;
	}
	log_debug("%s: %s at file offset 0x%llx%s", pp->target[1], path,
		  (unsigned long long)off, pid > 0 ? "" : " (all processes)");
	return attach_func(a, pp, path, off, pid);
}

static int attach_usdt(struct attach *a, const struct plan_probe *pp, int pid)
{
	char path[PATH_MAX], why[RESOLVE_ERR_LEN], what[256];
	struct bpf_program *prog;
	struct bpf_link *l;
	int err;

	err = lib_path(a, pp, pid, path, sizeof(path));
	if (err)
		return err;
	err = resolve_usdt_check(path, pp->target[1], pp->target[2], why,
				 sizeof(why));
	if (err) {
		log_err("%s", why);
		a->usage_error = true;
		return err;
	}
	prog = attach_clause_prog(a, "usdt", pp->clause);
	if (!prog)
		return -ENOENT;
	l = bpf_program__attach_usdt(prog, pid, path, pp->target[1],
				     pp->target[2], NULL);
	return keep(a, l, probe_text(pp, what, sizeof(what)), pid);
}

static int uprobe_attach(struct attach *a, const struct plan_probe *pp)
{
	int pids[SCRY_MAX_TARGETS], n, i, err = 0;

	n = attach_pids(a, pids);
	for (i = 0; i < n && !err; i++) {
		if (pp->src == &source_usdt)
			err = attach_usdt(a, pp, pids[i]);
		else
			err = attach_uprobes(a, pp, pids[i]);
	}
	return err;
}

/* -l: LIB's path, as the probe would resolve it (for @pid when > 0) */
static int list_lib(const char *lib, int pid, char *path, size_t len)
{
	char why[RESOLVE_ERR_LEN];

	if (!resolve_lib(lib, pid, path, len, why, sizeof(why)))
		return 0;
	log_err("%s", why);
	return -ENOENT;
}

static int list_funcs(FILE *f, const char *kind, char *parts[], int nparts,
		      int pid)
{
	const char *glob = nparts > 1 && *parts[1] ? parts[1] : "*";
	char path[PATH_MAX];
	struct resolve_func *fn = NULL;
	size_t n = 0, i;
	int err;

	if (nparts < 1)
		return 2;
	if (list_lib(parts[0], pid, path, sizeof(path)))
		return 2;
	err = resolve_funcs(path, glob, &fn, &n);
	if (err) {
		log_err("%s: cannot read symbols: %s", path, strerror(-err));
		return 1;
	}
	for (i = 0; i < n; i++)
		list_line(f, kind, path, fn[i].name, NULL, NULL);
	resolve_funcs_free(fn, n);
	return n ? 0 : 1;
}

static int uprobe_list(FILE *f, char *parts[], int nparts, int pid)
{
	return list_funcs(f, "uprobe", parts, nparts, pid);
}

static int uretprobe_list(FILE *f, char *parts[], int nparts, int pid)
{
	return list_funcs(f, "uretprobe", parts, nparts, pid);
}

static int usdt_list(FILE *f, char *parts[], int nparts, int pid)
{
	const char *prov = nparts > 1 && *parts[1] ? parts[1] : "*";
	const char *name = nparts > 2 && *parts[2] ? parts[2] : "*";
	char path[PATH_MAX];
	struct resolve_usdt *u = NULL;
	size_t n = 0, i;
	int err;

	if (nparts < 1)
		return 2;
	if (list_lib(parts[0], pid, path, sizeof(path)))
		return 2;
	err = resolve_usdts(path, prov, name, &u, &n);
	if (err) {
		log_err("%s: cannot read USDT notes: %s", path, strerror(-err));
		return 1;
	}
	for (i = 0; i < n; i++)
		list_line(f, "usdt", path, u[i].provider, u[i].name,
			  *u[i].args ? u[i].args : NULL);
	resolve_usdts_free(u, n);
	return n ? 0 : 1;
}

const struct source source_uprobe = {
	.name = "uprobe",
	.usage = "uprobe:LIB:FUNC",
	.what = "entry of a user function; arg0..arg5",
	.min_parts = 2,
	.max_parts = 2,
	.fields = SOURCE_F_ARGS | SOURCE_F_FUNC,
	.flags = SOURCE_AT_ENTRY,
	.plan = uprobe_plan,
	.list = uprobe_list,
	.prepare = uprobe_prepare,
	.attach = uprobe_attach,
};

const struct source source_uretprobe = {
	.name = "uretprobe",
	.usage = "uretprobe:LIB:FUNC",
	.what = "return of a user function; retval, latency",
	.min_parts = 2,
	.max_parts = 2,
	.fields = SOURCE_F_ARGS | SOURCE_F_RETVAL | SOURCE_F_LATENCY |
		  SOURCE_F_FUNC,
	.flags = SOURCE_END,
	.plan = uprobe_plan,
	.list = uretprobe_list,
	.prepare = uprobe_prepare,
	.attach = uprobe_attach,
};

const struct source source_usdt = {
	.name = "usdt",
	.usage = "usdt:BIN:PROVIDER:NAME",
	.what = "a USDT probe; its arguments as arg0..",
	.min_parts = 3,
	.max_parts = 3,
	.fields = SOURCE_F_ARGS,
	.plan = uprobe_plan,
	.list = usdt_list,
	.prepare = uprobe_prepare,
	.attach = uprobe_attach,
};
