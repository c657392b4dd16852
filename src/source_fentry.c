// SPDX-License-Identifier: GPL-2.0
/*
 * source_fentry: fentry:FUNC and fexit:FUNC (bpftrace's kfunc, kretfunc),
 * kernel functions through BPF trampolines: cheaper than kprobes, and
 * typed: args.NAME is the parameter of that name, as the kernel's BTF
 * has the function (args->file->f_path.dentry...). fexit has retval too.
 * One program per clause, its target set before load, so a clause probes
 * one function.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/hint.h>
#include <scry/list.h>
#include <scry/log.h>
#include <scry/plan.h>
#include <scry/source.h>

/* Type @id's name if it is a function, else NULL. */
static const char *func_name(const struct btf *btf, int id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	return btf_is_func(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
}

/* "; did you mean: vfs_read?" among the kernel's functions */
static const char *func_hint(const struct btf *btf, const char *func,
			     char *buf, size_t len)
{
	size_t l = strlen(func);
	struct hint h[3];
	int nh = 0, i, n = btf__type_cnt(btf);

	for (i = 1; i < n; i++) {
		const char *name = func_name(btf, i);

		if (!name)
			continue;
		hint_offer(h, &nh, 3, name, strlen(name),
			   hint_distance(func, l, name, strlen(name),
					 hint_limit(l)));
	}
	return hint_format(h, nh, buf, len);
}

/* btf_dump's output, into a buffer */
struct decl {
	char *buf;
	size_t len, off;
};

static void decl_printf(void *ctx, const char *fmt, va_list ap)
{
	struct decl *d = ctx;
	int n;

	if (d->off >= d->len)
		return;
	n = vsnprintf(d->buf + d->off, d->len - d->off, fmt, ap);
	if (n > 0)
		d->off += n;
}

static void decl_printf_s(struct decl *d, const char *s)
{
	snprintf(d->buf + (d->off < d->len ? d->off : d->len - 1),
		 d->off < d->len ? d->len - d->off : 1, "%s", s);
	d->off += strlen(s);
}

/* "struct file *file, char *buf, size_t count" of a FUNC_PROTO */
static void params(struct btf_dump *dump, const struct btf *btf,
		   const struct btf_type *proto, struct decl *d)
{
	const struct btf_param *prm = btf_params(proto);
	int i;

	for (i = 0; i < btf_vlen(proto); i++) {
		LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o,
			    .field_name = btf__name_by_offset(btf,
							      prm[i].name_off));

		if (i)
			decl_printf_s(d, ", ");
		if (!prm[i].type)
			decl_printf_s(d, "...");
		else
			btf_dump__emit_type_decl(dump, prm[i].type, &o);
	}
}

/*
 * `scry -l 'fentry:vfs_*'`: the kernel's functions as BTF has them, with
 * their parameters, which are args.NAME.
 */
static int btf_list(FILE *f, const char *kind, char *parts[], int nparts)
{
	const char *glob = nparts > 0 && *parts[nparts - 1] ?
			   parts[nparts - 1] : "*";
	struct btf *btf = plan_env_system.btf();
	struct btf_dump *dump;
	char args[512];
	struct decl d = { .buf = args, .len = sizeof(args) };
	int i, n, found = 0;

	if (!btf) {
		log_err("-l %s: this kernel has no BTF (/sys/kernel/btf/"
			"vmlinux)", kind);
		return 2;
	}
	dump = btf_dump__new(btf, decl_printf, &d, NULL);
	if (!dump)
		return 2;
	n = btf__type_cnt(btf);
	for (i = 1; i < n; i++) {
		const char *name = func_name(btf, i);

		if (!name || fnmatch(glob, name, 0))
			continue;
		d.off = 0;
		args[0] = '\0';
		params(dump, btf, btf__type_by_id(btf,
						  btf__type_by_id(btf, i)->type),
		       &d);
		list_line(f, kind, name, NULL, NULL, d.off ? args : NULL);
		found++;
	}
	btf_dump__free(dump);
	return found ? 0 : 1;
}

static int fentry_plan(struct plan *p, struct plan_probe *pp,
		       struct expr_error *err)
{
	const char *func = pp->target[pp->ntarget - 1];
	int col = pp->target_cols[pp->ntarget - 1];
	char hint[160];
	struct btf *btf;
	int i, id;

	if (!*func || strpbrk(func, "*?["))
		return plan_fail(err, col, "%s: name one kernel function (%s "
				 "globs are not supported)", pp->src->name,
				 pp->src->name);
	btf = p->env->btf ? p->env->btf() : NULL;
	if (!btf)
		return plan_fail(err, pp->ep->kind_col, "%s needs the kernel's "
				 "BTF (/sys/kernel/btf/vmlinux)", pp->src->name);
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id < 0)
		return plan_fail(err, col, "no kernel function '%s' in BTF "
				 "(inlined functions have no trampoline)%s",
				 func, func_hint(btf, func, hint,
						 sizeof(hint)));
	if (p->env->trampoline && p->env->trampoline(id) == -EPERM)
		return plan_fail(err, pp->ep->kind_col, "this kernel refuses "
				 "BPF trampolines (an fentry program on %s: "
				 "%s): %s cannot attach here; tracepoint:, "
				 "syscall:, offcpu and uprobe: do not need "
				 "them", func, strerror(EPERM), pp->src->name);
	/* the clause's one program attaches to one function */
	for (i = 0; i < p->nprobes; i++) {
		const struct plan_probe *o = &p->probes[i];

		if (o != pp && o->clause == pp->clause &&
		    (o->src == &source_fentry || o->src == &source_fexit ||
		     o->src == &source_kfunc || o->src == &source_kretfunc))
			return plan_fail(err, pp->ep->kind_col, "one fentry or "
					 "fexit function per clause: give %s "
					 "its own", func);
	}
	pp->target[0] = func;
	return 0;
}

static bool is_exit(const struct plan_probe *pp)
{
	return pp->src == &source_fexit || pp->src == &source_kretfunc;
}

static int fentry_prepare(struct attach *a, const struct plan_probe *pp)
{
	const char *name = is_exit(pp) ? "fexit" : "fentry";
	struct bpf_program *prog = attach_clause_prog(a, name, pp->clause);
	int err;

	if (!prog)
		return -ENOENT;
	bpf_program__set_autoload(prog, true);
	err = bpf_program__set_attach_target(prog, 0, pp->target[0]);
	if (err)
		log_err("%s:%s: %s", pp->src->name, pp->target[0],
			strerror(-err));
	return err;
}

static int fentry_attach(struct attach *a, const struct plan_probe *pp)
{
	struct bpf_program *prog = attach_clause_prog(a, is_exit(pp) ?
						      "fexit" : "fentry",
						      pp->clause);

	return prog ? attach_prog(a, prog) : -ENOENT;
}

#define FENTRY_KIND(var, kind, use, about, extra, flag)			\
static int var##_list(FILE *f, char *parts[], int nparts, int pid)	\
{ (void)pid; return btf_list(f, kind, parts, nparts); }		\
const struct source var = {						\
	.name = kind,							\
	.usage = use,							\
	.what = about,							\
	.min_parts = 1,							\
	.max_parts = 2,							\
	.fields = SOURCE_F_ARGS | SOURCE_F_FUNC | SOURCE_F_BTFARGS | extra, \
	.flags = flag,							\
	.plan = fentry_plan,						\
	.list = var##_list,						\
	.prepare = fentry_prepare,					\
	.attach = fentry_attach,					\
}

FENTRY_KIND(source_fentry, "fentry", "fentry:FUNC",
	    "entry of a kernel function, typed args.NAME (BPF trampoline)", 0,
	    0);
FENTRY_KIND(source_fexit, "fexit", "fexit:FUNC",
	    "return of a kernel function: args.NAME and retval", SOURCE_F_RETVAL,
	    SOURCE_RETURN);
FENTRY_KIND(source_kfunc, "kfunc", "kfunc:FUNC", "bpftrace's name of fentry",
	    0, 0);
FENTRY_KIND(source_kretfunc, "kretfunc", "kretfunc:FUNC",
	    "bpftrace's name of fexit", SOURCE_F_RETVAL, SOURCE_RETURN);
