// SPDX-License-Identifier: GPL-2.0
/*
 * plan: give a parsed program its meaning for the engine.
 *
 * Each clause compiles into two programs of prog_abi.h's instructions:
 *
 *   begin: the predicate's top-level '&&' conjuncts that read only what
 *          an event knows when it begins (pid, comm, args, state...) and
 *          have no effect; an event they reject costs no stack walk, no
 *          map update, and for probes with an end, no parking.
 *   body:  the other conjuncts (latency, retval, maps, time) then
 *          "JZ end", the stack walk if the clause uses stacks, and the
 *          statements.
 *
 * Types are known here, statically: every value is a number (with a
 * meaning for printing: a symbol, a probe name, a stack id...), a string
 * (in a string slot) or an aggregation. Maps, self-> variables and their
 * types are declared by their first assignment anywhere in the program,
 * so a first pass over every clause collects the declarations and a
 * second compiles against them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <scry/expr.h>
#include <scry/hint.h>
#include <scry/plan.h>
#include <scry/source.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int plan_fail(struct expr_error *err, int col, const char *fmt, ...)
{
	va_list ap;

	err->col = col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#define fail plan_fail

static const struct plan_type T_INT = { .kind = PLAN_V_INT };
static const struct plan_type T_STR = { .kind = PLAN_V_STR };

/* ---- builtins ---------------------------------------------------------- */

struct builtin {
	const char *name;
	enum scry_field field;
	enum plan_vkind kind;
	enum plan_vfmt fmt;
	unsigned need;		/* SOURCE_F_* the probe must give; 0: every */
	bool at_end;		/* known only when the event ends */
	bool begin_ok;		/* a begin conjunct may test it */
	const char *unit;
};

static const struct builtin builtins[] = {
	{ "pid",      SCRY_F_PID,      PLAN_V_INT, 0, 0, false, true, NULL },
	{ "tid",      SCRY_F_TID,      PLAN_V_INT, 0, 0, false, true, NULL },
	{ "uid",      SCRY_F_UID,      PLAN_V_INT, 0, 0, false, true, NULL },
	{ "gid",      SCRY_F_GID,      PLAN_V_INT, 0, 0, false, true, NULL },
	{ "cpu",      SCRY_F_CPU,      PLAN_V_INT, 0, 0, false, true, NULL },
	{ "comm",     SCRY_F_COMM,     PLAN_V_STR, PLAN_F_COMM, 0, false, true,
	  NULL },
	{ "execname", SCRY_F_COMM,     PLAN_V_STR, PLAN_F_COMM, 0, false, true,
	  NULL },
	{ "arg0",     SCRY_F_ARG0,     PLAN_V_INT, 0, SOURCE_F_ARGS, false,
	  true, NULL },
	{ "arg1",     SCRY_F_ARG1,     PLAN_V_INT, 0, SOURCE_F_ARGS, false,
	  true, NULL },
	{ "arg2",     SCRY_F_ARG2,     PLAN_V_INT, 0, SOURCE_F_ARGS, false,
	  true, NULL },
	{ "arg3",     SCRY_F_ARG3,     PLAN_V_INT, 0, SOURCE_F_ARGS, false,
	  true, NULL },
	{ "arg4",     SCRY_F_ARG4,     PLAN_V_INT, 0, SOURCE_F_ARGS, false,
	  true, NULL },
	{ "arg5",     SCRY_F_ARG5,     PLAN_V_INT, 0, SOURCE_F_ARGS, false,
	  true, NULL },
	{ "retval",   SCRY_F_RETVAL,   PLAN_V_INT, 0, SOURCE_F_RETVAL, true,
	  false, NULL },
	{ "errno",    SCRY_F_ERRNO,    PLAN_V_INT, PLAN_F_ERRNO, SOURCE_F_ERRNO,
	  true, false, NULL },
	{ "fd.path",  SCRY_F_FDPATH,   PLAN_V_INT, PLAN_F_STRID,
	  SOURCE_F_FDPATH, false, false, NULL },
	/* the file a syscall reads from, writes to (copy_file_range...) */
	{ "src.path", SCRY_F_FDPATH,   PLAN_V_INT, PLAN_F_STRID,
	  SOURCE_F_FDPATH, false, false, NULL },
	{ "dst.path", SCRY_F_FDPATH,   PLAN_V_INT, PLAN_F_STRID,
	  SOURCE_F_FDPATH, false, false, NULL },
	{ "latency",  SCRY_F_LATENCY,  PLAN_V_INT, 0, SOURCE_F_LATENCY, true,
	  false, "ns" },
	{ "state",    SCRY_F_STATE,    PLAN_V_INT, 0, SOURCE_F_STATE, false,
	  true, NULL },
	{ "kstack",   SCRY_F_KSTACK,   PLAN_V_INT, PLAN_F_KSTACK, 0, false,
	  false, NULL },
	{ "ustack",   SCRY_F_USTACK,   PLAN_V_INT, PLAN_F_USTACK, 0, false,
	  false, NULL },
	{ "nsecs",    SCRY_F_NSECS,    PLAN_V_INT, 0, 0, false, false, "ns" },
	{ "timestamp", SCRY_F_NSECS,   PLAN_V_INT, 0, 0, false, false, "ns" },
	{ "elapsed",  SCRY_F_ELAPSED,  PLAN_V_INT, 0, 0, false, false, "ns" },
	{ "walltimestamp", SCRY_F_WALLTIME, PLAN_V_INT, 0, 0, false, false,
	  "ns" },
	{ "cpid",     SCRY_F_CPID,     PLAN_V_INT, 0, 0, false, true, NULL },
	{ "rand",     SCRY_F_RAND,     PLAN_V_INT, 0, 0, false, false, NULL },
	{ "cgroup",   SCRY_F_CGROUP,   PLAN_V_INT, 0, 0, false, true, NULL },
	{ "curtask",  SCRY_F_CURTASK,  PLAN_V_INT, 0, 0, false, false, NULL },
	{ "curthread", SCRY_F_CURTASK, PLAN_V_INT, 0, 0, false, false, NULL },
	{ "ppid",     SCRY_F_PPID,     PLAN_V_INT, 0, 0, false, false, NULL },
	{ "probe",    SCRY_F_PROBE,    PLAN_V_INT, PLAN_F_PROBE, 0, false,
	  false, NULL },
	{ "func",     SCRY_F_PROBE,    PLAN_V_INT, PLAN_F_FUNC, SOURCE_F_FUNC,
	  false, false, NULL },
	{ "probefunc", SCRY_F_PROBE,   PLAN_V_INT, PLAN_F_FUNC, SOURCE_F_FUNC,
	  false, false, NULL },
};

static const struct builtin *builtin_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

/* "; did you mean: pid, tid?" into @buf, or "" */
static const char *suggest(const char *name, const char *const *names,
			   size_t n, char *buf, size_t len)
{
	struct hint h[3];
	size_t i, l = strlen(name);
	int nh = 0;

	for (i = 0; i < n; i++)
		if (names[i])
			hint_offer(h, &nh, 3, names[i], strlen(names[i]),
				   hint_distance(name, l, names[i],
						 strlen(names[i]),
						 hint_limit(l)));
	return hint_format(h, nh, buf, len);
}

static const char *const function_names[] = {
	"count", "sum", "min", "max", "avg", "stats", "hist", "lhist",
	"quantize", "lquantize", "str", "ksym", "usym", "kstack", "ustack",
	"stack", "ntop", "printf", "print", "printa", "trace", "clear",
	"zero", "delete", "exit", "time", "join", "signal", "raise",
	"copyinstr", "stringof",
};

/* ---- probes ------------------------------------------------------------ */

static int unknown_kind(const struct expr_probe *pr, struct expr_error *err)
{
	const char *names[32];
	char hints[96], kinds[256] = "";
	size_t n = 0, k = 0;
	int i;

	for (i = 0; sources[i] && n < ARRAY_SIZE(names); i++) {
		names[n++] = sources[i]->name;
		k += snprintf(kinds + k, sizeof(kinds) - k, "%s%s",
			      i ? " " : "", sources[i]->name);
	}
	return fail(err, pr->kind_col, "unknown probe kind '%s'%s (%s)",
		    pr->kind, suggest(pr->kind, names, n, hints,
				      sizeof(hints)), kinds);
}

/* One probe as written: its source checks and records its parts. */
static int plan_probe(struct plan *p, int ci, const struct expr_probe *pr,
		      struct expr_error *err)
{
	const struct source *src = source_find(pr->kind);
	/* DTrace's tick-1sec, profile-997: profile:::tick-1sec */
	bool bare = !src && strchr(pr->kind, '-');
	struct plan_probe *pp;
	int i, ret;

	if (bare)
		src = &source_profile;
	if (!src)
		return unknown_kind(pr, err);
	if (bare && pr->nparts)
		return fail(err, pr->part_cols[0], "%s: DTrace's profile "
			    "probes are written %s or profile:::%s",
			    pr->kind, pr->kind, pr->kind);
	if (!bare &&
	    (pr->nparts < src->min_parts || pr->nparts > src->max_parts))
		return fail(err, pr->nparts > src->max_parts ?
			    pr->part_cols[src->max_parts] : pr->kind_col,
			    "%s probes are written %s", src->name, src->usage);
	if (p->nprobes >= PLAN_MAX_PROBES)
		return fail(err, pr->kind_col, "too many probes (at most %d)",
			    PLAN_MAX_PROBES);
	pp = &p->probes[p->nprobes++];
	memset(pp, 0, sizeof(*pp));
	pp->src = src;
	pp->ep = pr;
	pp->clause = ci;
	pp->ntarget = pr->nparts;
	for (i = 0; i < pr->nparts; i++) {
		pp->target[i] = pr->parts[i];
		pp->target_cols[i] = pr->part_cols[i];
	}
	if (bare) {
		pp->ntarget = 3;
		for (i = 0; i < 3; i++) {
			pp->target[i] = i < 2 ? "" : pr->kind;
			pp->target_cols[i] = pr->kind_col;
		}
	}
	pp->has_end = src->flags & SOURCE_END;
	pp->special = src->flags & SOURCE_SPECIAL;
	ret = src->plan ? src->plan(p, pp, err) : 0;
	if (ret)
		return ret;
	for (i = 0; i < pr->nparts && !src->plan; i++)
		if (!*pr->parts[i])
			return fail(err, pr->part_cols[i], "empty probe part: "
				    "%s probes are written %s", src->name,
				    src->usage);
	return 0;
}

/*
 * A clause's probes must fire alike (all with an end or none, BEGIN/END
 * alone): its one program runs for all of them, and sees the fields
 * they all give.
 */
static int plan_clause_probes(struct plan *p, int ci, struct expr_error *err)
{
	struct plan_clause *cl = &p->clauses[ci];
	const struct expr_clause *ec = cl->ec;
	struct plan_probe *first;
	int i, ret;

	cl->first_probe = p->nprobes;
	cl->fields = ~0u;
	for (i = 0; i < ec->nprobes; i++) {
		ret = plan_probe(p, ci, &ec->probes[i], err);
		if (ret)
			return ret;
	}
	cl->nprobes = p->nprobes - cl->first_probe;
	first = &p->probes[cl->first_probe];
	for (i = 0; i < cl->nprobes; i++) {
		struct plan_probe *pp = &p->probes[cl->first_probe + i];

		if (i && (pp->has_end != first->has_end || pp->special ||
			  first->special))
			return fail(err, pp->ep->kind_col, "%s and %s probes "
				    "fire differently: give each its own "
				    "clause", first->src->name, pp->src->name);
		cl->fields &= pp->src->fields;
		/* an entry (fbt:::entry, syscall::X:entry) has no return */
		if (!pp->has_end && !(pp->src->flags & SOURCE_RETURN))
			cl->fields &= ~(SOURCE_F_RETVAL | SOURCE_F_LATENCY |
					SOURCE_F_ERRNO);
	}
	cl->special = first->special;
	if (first->has_end)
		cl->flags |= SCRY_CL_END;
	if (first->syscall_entry)
		cl->flags |= SCRY_CL_ENTRY;
	if (first->src->flags & SOURCE_STACKS_AT_BEGIN)
		cl->flags |= SCRY_CL_STACKS_AT_BEGIN;
	if (first->src->flags & SOURCE_SWITCH_END)
		cl->flags |= SCRY_CL_SWITCH_END;
	if (first->one_cpu)
		cl->flags |= SCRY_CL_ANY_TASK;
	return 0;
}

/* ---- the compiler -------------------------------------------------------- */

struct cc {
	struct plan *p;
	struct plan_clause *cl;
	int ci;
	struct scry_insn *code;
	int n, max;
	int sp;			/* values on the stack at this point */
	int slot;		/* next free temporary string slot */
	int nslots;		/* slots temporaries may use (locals above) */
	bool uses_end;		/* read what only the end knows */
	bool impure;		/* not a begin conjunct: maps, time, calls */
	bool declare;		/* first pass: undeclared maps are fine */
	struct expr_error *err;
};

static int emit(struct cc *c, int col, enum scry_op op, int a, int b,
		int cc_, __u32 d, __s64 imm, int pops, int pushes)
{
	struct scry_insn *in;

	/* the last slot stays SCRY_OP_END */
	if (c->n >= c->max - 1)
		return fail(c->err, col, "clause too long: at most %d "
			    "operations%s", c->max - 1, c->max ==
			    SCRY_MAX_BEGIN_INSNS ? " run at the begin of an "
			    "event" : "");
	if (c->sp < pops)
		return fail(c->err, col, "internal error: stack underflow");
	c->sp += pushes - pops;
	if (c->sp > SCRY_VSTACK)
		return fail(c->err, col, "expression too deep: at most %d "
			    "values pending at once", SCRY_VSTACK);
	in = &c->code[c->n++];
	memset(in, 0, sizeof(*in));
	in->op = op;
	in->a = a;
	in->b = b;
	in->c = cc_;
	in->d = d;
	in->imm = imm;
	return 0;
}

/* A temporary string slot, freed when its value is consumed. */
static int slot_get(struct cc *c, int col)
{
	if (c->slot >= c->nslots)
		return fail(c->err, col, "too many strings at once: at most "
			    "%d in one statement", c->nslots);
	return c->slot++;
}

/* The string value on top was consumed: its slot is free again. */
static void slot_put(struct cc *c, const struct plan_type *t)
{
	if (t->kind == PLAN_V_STR && c->slot > 0)
		c->slot--;
}

static int compile_expr(struct cc *c, const struct expr_node *n,
			struct plan_type *t);

/* ---- names: fields, tracepoint args, variables ------------------------- */

/*
 * @name is at different places in the clause's tracepoints: the clause
 * is planned again as one clause per place (plan_build), as if written
 * once per tracepoint layout, so opensnoop's `sys_enter_open,
 * sys_enter_openat { ... args->filename ... }` runs as bpftrace runs it.
 * -EAGAIN asks for that; an error when the clause is split already.
 */
static int split_by(struct cc *c, const char *name, int col,
		    const char *differs, struct expr_error *err)
{
	struct plan_split *sp = &c->p->splits[c->cl->ec - c->p->expr->clauses];
	int i;

	for (i = 0; i < sp->nfields; i++)
		if (!strcmp(sp->fields[i], name))
			break;
	if (i == sp->nfields && sp->nfields < SCRY_NARGS) {
		sp->fields[sp->nfields++] = name;
		return -EAGAIN;
	}
	return fail(err, col, "args.%s is not at the same place in every "
		    "tracepoint of the clause (%s differs): give them their "
		    "own clauses", name, differs);
}

static bool number_type(struct cc *c, const char *ty, unsigned int *size,
			bool *sgn);

/*
 * A field is as wide and as signed as its declared C type, as bpftrace
 * reads it: a syscall tracepoint stores every argument in 8 bytes, so
 * "int dfd" (size 8, signed 0) holds AT_FDCWD as 0x00000000ffffff9c, and
 * its low 4 bytes, signed, are the -100 the program meant. A type of the
 * format's own size keeps the format's sign (the kernel's is_signed_type).
 */
static void tp_field_declared(struct cc *c, struct plan_tp_field *tf)
{
	unsigned int size;
	bool sgn;

	if (!tf->ctype[0] || tf->is_string || tf->data_loc ||
	    strchr(tf->ctype, '*') || strchr(tf->ctype, '[') ||
	    !number_type(c, tf->ctype, &size, &sgn) || size >= tf->size)
		return;
	tf->size = size;
	tf->is_signed = sgn;
}

/* args.FIELD (or args->FIELD) of the clause's tracepoints */
static int tp_field(struct cc *c, const char *name, int col, int *idx,
		    struct expr_error *err)
{
	struct plan_clause *cl = c->cl;
	struct plan_tp_field tf;
	char why[sizeof(err->msg)];
	int i, k, ret;

	for (i = 0; i < cl->ntp_fields; i++)
		if (!strcmp(cl->tp_fields[i].name, name))
			break;
	if (i < cl->ntp_fields) {
		*idx = i;
		return 0;
	}
	if (i >= SCRY_NARGS)
		return fail(err, col, "at most %d tracepoint fields in a "
			    "clause", SCRY_NARGS);
	/* every tracepoint of the clause must have it, at the same place */
	for (k = 0; k < cl->nprobes; k++) {
		const struct plan_probe *pp = &c->p->probes[cl->first_probe + k];
		int j;

		for (j = 0; j < pp->nnames; j++) {
			char cat[256];
			const char *ev = strchr(pp->names[j], ':');
			struct plan_tp_field other;

			snprintf(cat, sizeof(cat), "%.*s",
				 (int)(ev - pp->names[j]), pp->names[j]);
			ret = c->p->env->tp_field(cat, ev + 1, name,
						  k || j ? &other : &tf, why,
						  sizeof(why));
			if (ret)
				return fail(err, col, "%s", why);
			tp_field_declared(c, k || j ? &other : &tf);
			if ((k || j) && (other.offset != tf.offset ||
					 other.size != tf.size ||
					 other.is_string != tf.is_string))
				return split_by(c, name, col, pp->names[j],
						err);
		}
	}
	tf.name = name;
	cl->tp_fields[i] = tf;
	cl->ntp_fields++;
	*idx = i;
	return 0;
}

static int unknown_name(struct cc *c, const char *name, int col)
{
	const char *names[ARRAY_SIZE(builtins)];
	char hints[96];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(function_names); i++)
		if (!strcmp(name, function_names[i]))
			return fail(c->err, col, "'%s' is a function: write "
				    "%s(...)", name, name);
	for (i = 0; i < ARRAY_SIZE(builtins); i++)
		names[i] = builtins[i].name;
	return fail(c->err, col, "unknown field '%s'%s (fields: pid tid comm "
		    "cpu uid arg0..arg5 retval latency nsecs elapsed probe "
		    "func kstack ustack args.FIELD ...; see docs/LANGUAGE.md)",
		    name, suggest(name, names, ARRAY_SIZE(names), hints,
				  sizeof(hints)));
}

/*
 * fd.path, src.path, dst.path: which fd of each traced syscall the path
 * resolves. An event has room for one path, and every syscall of the
 * clause must have that file: src.path of write() is a mistake.
 */
static int fd_role(struct cc *c, const char *name, int col)
{
	enum plan_fd_role role = !strcmp(name, "src.path") ? PLAN_FD_SRC :
				 !strcmp(name, "dst.path") ? PLAN_FD_DST :
							     PLAN_FD_ARG0;
	const struct plan_probe *pp;
	int i, nr;

	if ((c->cl->flags & SCRY_CL_FDPATH) && c->cl->fd_role != role)
		return fail(c->err, col, "one path per clause: fd.path, "
			    "src.path or dst.path");
	for (i = 0; i < c->cl->nprobes; i++) {
		pp = &c->p->probes[c->cl->first_probe + i];
		for (nr = 0; nr < 512; nr++) {
			if (!(pp->syscall_set[nr / 64] & (1ULL << (nr % 64))) ||
			    plan_syscall_fd_arg(nr, role) >= 0)
				continue;
			return fail(c->err, col, "syscall '%s' %s no file of "
				    "its own: %s is the file %s",
				    plan_syscall_name_of(nr), role ==
				    PLAN_FD_SRC ? "reads" : "writes", name,
				    role == PLAN_FD_SRC ? "read from (read, "
				    "pread64, readv, preadv, preadv2, "
				    "copy_file_range, splice, sendfile, "
				    "io_uring_read)" : "written to (write, "
				    "pwrite64, writev, pwritev, pwritev2, "
				    "copy_file_range, splice, sendfile, "
				    "io_uring_write)");
		}
	}
	c->cl->flags |= SCRY_CL_FDPATH;
	c->cl->fd_role = role;
	return 0;
}

/* Why a field is not there: "'retval' needs a probe with a return" */
static int missing_field(struct cc *c, const struct builtin *b, int col)
{
	const struct plan_probe *pp = &c->p->probes[c->cl->first_probe];

	if (b->need & (SOURCE_F_RETVAL | SOURCE_F_LATENCY))
		return fail(c->err, col, "'%s' needs a probe with %s: use "
			    "uretprobe (or kretprobe, %ssyscall:NAME)",
			    b->name, b->need & SOURCE_F_LATENCY ? "an entry "
			    "and a return" : "a return", b->need &
			    SOURCE_F_LATENCY ? "" : "fexit, ");
	return fail(c->err, col, "'%s' does not exist for %s probes",
		    b->name, pp->src->name);
}

static int compile_btf_arg(struct cc *c, const char *name, int col,
			   struct plan_type *t);

static int btf_pointee_named(const struct btf *btf, const char *ty);

/*
 * A pointer field the format types ("struct __kernel_timespec * rqtp")
 * is an address of that type, as a cast would make it, so ->, [i] and *
 * read through it: naptime.bt's args->rqtp->tv_sec. A syscall's pointer
 * is the caller's: read from user memory only, as bpftrace 0.17 reads it
 * (probe_read_user), so a kernel address a process passes reads nothing;
 * other tracepoints' pointers are read as their address says. Without
 * BTF, or for a type it lacks, the field stays a number (and -> says so).
 */
/* Are the clause's tracepoints all syscalls' (whose pointers are __user)? */
static bool syscall_tps(struct cc *c)
{
	const struct plan_clause *cl = c->cl;
	int k, j;

	for (k = 0; k < cl->nprobes; k++) {
		const struct plan_probe *pp = &c->p->probes[cl->first_probe + k];

		for (j = 0; j < pp->nnames; j++)
			if (strncmp(pp->names[j], "syscalls:", 9))
				return false;
	}
	return true;
}

static void tp_field_pointee(struct cc *c, const struct plan_tp_field *tf,
			     struct plan_type *t)
{
	const struct btf *btf;
	int id;

	if (!strchr(tf->ctype, '*') || !c->p->env->btf ||
	    !(btf = c->p->env->btf()))
		return;
	id = btf_pointee_named(btf, tf->ctype);
	if (id > 0) {
		t->btf = id;
		t->user = syscall_tps(c);
	}
}

/* A tracepoint field as a value: a number, a string, or a char *. */
static int compile_tp_arg(struct cc *c, const char *field, int col,
			  struct plan_type *t)
{
	const struct plan_tp_field *tf;
	int idx, slot, ret;

	if (c->cl->fields & SOURCE_F_BTFARGS)
		return compile_btf_arg(c, field, col, t);
	if (!(c->cl->fields & SOURCE_F_TPARGS))
		return fail(c->err, col, "args.%s: only tracepoints have "
			    "args (arg0..arg5 are this probe's arguments)",
			    field);
	ret = tp_field(c, field, col, &idx, c->err);
	if (ret)
		return ret;
	tf = &c->cl->tp_fields[idx];
	if (tf->is_string) {
		slot = slot_get(c, col);
		if (slot < 0)
			return slot;
		c->impure = true;	/* read from the event lazily */
		*t = T_STR;
		return emit(c, col, SCRY_OP_STP, slot, 0, idx, 0, 0, 0, 1);
	}
	*t = T_INT;
	if (tf->is_charptr)
		t->fmt = PLAN_F_CHARPTR;
	else
		tp_field_pointee(c, tf, t);
	return emit(c, col, SCRY_OP_FIELD, SCRY_F_ARG0 + idx, 0, 0, 0, 0, 0,
		    1);
}

static bool is_charptr(const struct plan_type *t)
{
	return t->kind == PLAN_V_INT && t->fmt == PLAN_F_CHARPTR;
}

static int compile_curtask(struct cc *c, int col, struct plan_type *t);
static int btf_value(struct cc *c, __u32 id, int col, struct plan_type *t);

/*
 * In DTrace's syscall::X:return, arg0 and arg1 are the return value; in
 * fbt::X:return arg1 is (arg0 is the return's offset in the function).
 * A one-liner written for DTrace means that: retval stands in. Probes of
 * one clause must agree on what arg0 is.
 */
static int dtrace_return_arg(struct cc *c, const struct builtin **b, int col)
{
	const struct plan_probe *pp = &c->p->probes[c->cl->first_probe];
	int arg = (*b)->field - SCRY_F_ARG0, i;

	if (arg < 0 || arg > 1)
		return 0;
	for (i = 1; i < c->cl->nprobes; i++)
		if (pp[i].dtrace_return != pp->dtrace_return)
			return fail(c->err, col, "%s is the return value in "
				    "DTrace's :return probes, an argument in "
				    "the others: give them separate clauses",
				    (*b)->name);
	if (!pp->dtrace_return || (pp->dtrace_return == 2 && arg == 1)) {
		if (pp->dtrace_return)
			*b = builtin_find("retval");
		return 0;
	}
	if (pp->dtrace_return == 2)
		return fail(c->err, col, "arg0 of fbt::%s:return is the "
			    "return's offset in the function, which scry does "
			    "not know: arg1 (retval) is the return value",
			    pp->target[0]);
	*b = builtin_find("retval");
	return 0;
}

static int compile_builtin(struct cc *c, const struct builtin *b, int col,
			   struct plan_type *t)
{
	int slot, ret;

	if (b->field == SCRY_F_CURTASK && c->p->env->btf)
		return compile_curtask(c, col, t);
	ret = dtrace_return_arg(c, &b, col);
	if (ret)
		return ret;
	if (b->need & ~c->cl->fields)
		return missing_field(c, b, col);
	c->uses_end |= b->at_end;
	c->impure |= !b->begin_ok;
	memset(t, 0, sizeof(*t));
	t->kind = b->kind;
	t->fmt = b->fmt;
	if (b->field == SCRY_F_KSTACK || b->field == SCRY_F_USTACK) {
		if (c->p->probes[c->cl->first_probe].src->flags &
		    SOURCE_NO_STACKS)
			return fail(c->err, col, "%s: %s probes run in no "
				    "task's context: there is no stack",
				    b->name, c->p->probes[c->cl->first_probe]
				    .src->name);
		c->cl->flags |= b->field == SCRY_F_KSTACK ? SCRY_CL_KSTACK :
				SCRY_CL_USTACK;
	}
	if (b->field == SCRY_F_FDPATH) {
		ret = fd_role(c, b->name, col);
		if (ret)
			return ret;
	}
	if (b->kind == PLAN_V_STR) {	/* comm */
		slot = slot_get(c, col);
		if (slot < 0)
			return slot;
		c->cl->flags |= SCRY_CL_COMM;
		return emit(c, col, SCRY_OP_SCOMM, slot, 0, 0, 0, 0, 0, 1);
	}
	/* a key column's FIELD is dropped after this: the flag stays */
	if (b->field == SCRY_F_UID || b->field == SCRY_F_GID)
		c->cl->flags |= SCRY_CL_UGID;
	if (b->field == SCRY_F_PROBE)
		c->cl->flags |= SCRY_CL_PROBE;
	return emit(c, col, SCRY_OP_FIELD, b->field, 0, 0, 0, 0, 0, 1);
}

/*
 * The kernel's constants a bpftrace tool names after its #include lines
 * (bpftrace runs them through clang; scry reads no headers: the lines are
 * comments): an enumerator of the kernel's BTF (TCP_SYN_SENT, from
 * tcplife.bt's net/tcp_states.h), else one of the #define'd macros BTF
 * cannot hold, from this table. Values as on every kernel scry runs on
 * (5.17 and later; the task states from include/linux/sched.h, the
 * address families from include/linux/socket.h). docs/LANGUAGE.md lists
 * them.
 */
static const struct {
	const char *name;
	__s64 value;
} kernel_macros[] = {
	{ "TASK_RUNNING", 0x0 }, { "TASK_INTERRUPTIBLE", 0x1 },
	{ "TASK_UNINTERRUPTIBLE", 0x2 }, { "__TASK_STOPPED", 0x4 },
	{ "__TASK_TRACED", 0x8 }, { "EXIT_DEAD", 0x10 },
	{ "EXIT_ZOMBIE", 0x20 }, { "EXIT_TRACE", 0x30 },
	{ "TASK_PARKED", 0x40 }, { "TASK_DEAD", 0x80 },
	{ "TASK_WAKEKILL", 0x100 }, { "TASK_WAKING", 0x200 },
	{ "TASK_NOLOAD", 0x400 }, { "TASK_NEW", 0x800 },
	{ "TASK_KILLABLE", 0x102 }, { "TASK_STOPPED", 0x104 },
	{ "TASK_TRACED", 0x8 }, { "TASK_IDLE", 0x402 },
	{ "TASK_NORMAL", 0x3 },
	{ "AF_UNSPEC", 0 }, { "AF_UNIX", 1 }, { "AF_LOCAL", 1 },
	{ "AF_INET", 2 }, { "AF_INET6", 10 }, { "AF_NETLINK", 16 },
	{ "AF_PACKET", 17 }, { "AF_VSOCK", 40 }, { "AF_XDP", 44 },
};

static bool kernel_const(struct cc *c, const char *name, __s64 *v)
{
	const struct btf *btf;
	__u32 id, n;
	size_t i;
	int k;

	for (i = 0; i < ARRAY_SIZE(kernel_macros); i++)
		if (!strcmp(name, kernel_macros[i].name)) {
			*v = kernel_macros[i].value;
			return true;
		}
	if (!c->p->env->btf || !(btf = c->p->env->btf()))
		return false;
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			for (k = 0; k < btf_vlen(t); k++, e++)
				if (!strcmp(btf__name_by_offset(btf,
								e->name_off),
					    name)) {
					*v = btf_kflag(t) ? e->val :
					     (__s64)(__u32)e->val;
					return true;
				}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (k = 0; k < btf_vlen(t); k++, e++)
				if (!strcmp(btf__name_by_offset(btf,
								e->name_off),
					    name)) {
					*v = (__s64)btf_enum64_value(e);
					return true;
				}
		}
	}
	return false;
}

/* A name in capitals that is no constant scry knows: say what it looks for. */
static bool looks_const(const char *name)
{
	return name[strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")] ==
	       '\0' && strpbrk(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
}

static int compile_ident(struct cc *c, const struct expr_node *n,
			 struct plan_type *t)
{
	const struct builtin *b = builtin_find(n->name);

	if (!strncmp(n->name, "args.", 5))
		return compile_tp_arg(c, n->name + 5, n->col, t);
	if (!b && !strcmp(n->name, "stack"))
		return fail(c->err, n->col, "'stack' is both stacks: use it as "
			    "a key (@[stack]), or write kstack or ustack");
	if (!b) {
		__s64 v;

		if (kernel_const(c, n->name, &v)) {
			*t = T_INT;
			return emit(c, n->col, SCRY_OP_IMM, 0, 0, 0, 0, v, 0,
				    1);
		}
		if (looks_const(n->name))
			return fail(c->err, n->col, "unknown constant '%s': "
				    "no enumerator of the kernel's BTF and no "
				    "macro scry knows (docs/LANGUAGE.md lists "
				    "them): write its value", n->name);
		return unknown_name(c, n->name, n->col);
	}
	return compile_builtin(c, b, n->col, t);
}

/* ---- variables ----------------------------------------------------------- */

static int local_find(const struct plan_clause *cl, const char *name)
{
	int i;

	for (i = 0; i < cl->nlocals; i++)
		if (!strcmp(cl->local_names[i], name))
			return i;
	return -1;
}

static int tls_find(const struct plan *p, const char *name)
{
	int i;

	for (i = 0; i < p->ntls; i++)
		if (!strcmp(p->tls_names[i], name))
			return i;
	return -1;
}

/* "$x" or "this->x": one namespace of clause-local variables */
static const char *local_key(const struct expr_node *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", n->kind == EXPR_VAR ? "$" : "this->",
		 n->name);
	return buf;
}

static int compile_local(struct cc *c, const struct expr_node *n,
			 struct plan_type *t)
{
	char key[80];
	int i = local_find(c->cl, local_key(n, key, sizeof(key))), slot;

	if (i < 0)
		return fail(c->err, n->col, "%s is used before it is "
			    "assigned", key);
	*t = c->cl->local_types[i];
	if (t->kind == PLAN_V_STR) {
		/* a copy: the value is consumed like any temporary */
		slot = slot_get(c, n->col);
		if (slot < 0)
			return slot;
		return emit(c, n->col, SCRY_OP_SCOPY, slot,
			    c->cl->local_slots[i], 0, 0, 0, 0, 1);
	}
	return emit(c, n->col, SCRY_OP_LDL, i, 0, 0, 0, 0, 0, 1);
}

static int compile_tls(struct cc *c, const struct expr_node *n,
		       struct plan_type *t)
{
	int i = tls_find(c->p, n->name), slot;

	c->impure = true;
	if (i < 0) {
		if (c->declare) {	/* declared by a later clause? */
			*t = T_INT;
			return emit(c, n->col, SCRY_OP_IMM, 0, 0, 0, 0, 0, 0,
				    1);
		}
		return fail(c->err, n->col, "self->%s is never assigned",
			    n->name);
	}
	*t = c->p->tls_types[i];
	c->p->uses_tls = true;
	if (emit(c, n->col, SCRY_OP_LDT, i, 0, 0, 0, 0, 0, 1))
		return -EINVAL;
	if (t->kind != PLAN_V_STR)
		return 0;
	/* strings are kept by their store id */
	slot = slot_get(c, n->col);
	if (slot < 0)
		return slot;
	return emit(c, n->col, SCRY_OP_SFROMID, slot, 0, 0, 0, 0, 1, 1);
}

/* ---- maps ------------------------------------------------------------- */

static int map_find_name(const struct plan *p, const char *name)
{
	int i;

	for (i = 0; i < p->nmaps; i++)
		if (!strcmp(p->maps[i].name + 1, name))
			return i;
	return -1;
}

int plan_map_find(const struct plan *p, const char *name)
{
	return map_find_name(p, name[0] == '@' ? name + 1 : name);
}

static int map_new(struct cc *c, const struct expr_node *n)
{
	struct plan_map *m;

	if (c->p->nmaps >= SCRY_MAX_MAPS)
		return fail(c->err, n->col, "too many maps (at most %d)",
			    SCRY_MAX_MAPS);
	m = &c->p->maps[c->p->nmaps];
	memset(m, 0, sizeof(*m));
	if (asprintf(&m->name, "@%s", n->name) < 0) {
		m->name = NULL;
		return -ENOMEM;
	}
	m->col = n->col;
	m->nkeys = -1;		/* keys unknown until its first use */
	return c->p->nmaps++;
}

static bool type_eq(const struct plan_type *a, const struct plan_type *b)
{
	return a->kind == b->kind && a->fmt == b->fmt;
}

static const char *type_name(const struct plan_type *t)
{
	static const char *const fmts[] = {
		[PLAN_F_PLAIN] = "a number", [PLAN_F_STRID] = "a string",
		[PLAN_F_KSTACK] = "a kernel stack",
		[PLAN_F_USTACK] = "a user stack",
		[PLAN_F_KSYM] = "a kernel symbol",
		[PLAN_F_USYM] = "a user symbol", [PLAN_F_PROBE] = "a probe",
		[PLAN_F_FUNC] = "a function", [PLAN_F_INET] = "an address",
		[PLAN_F_ERRNO] = "a number", [PLAN_F_COMM] = "a string",
	};

	if (t->kind == PLAN_V_STR)
		return "a string";
	if (t->kind == PLAN_V_AGG)
		return "an aggregation";
	if (t->kind == PLAN_V_NONE)
		return "nothing";
	if (is_charptr(t))
		return "a char * pointer";
	return (unsigned)t->fmt < ARRAY_SIZE(fmts) ? fmts[t->fmt] : "a value";
}

/* What a key column holds, as a map declares it. */
static bool is_stack(const struct plan_type *t)
{
	return t->kind == PLAN_V_INT &&
	       (t->fmt == PLAN_F_KSTACK || t->fmt == PLAN_F_USTACK);
}

/*
 * The key columns of one map access: each one read straight from the
 * event when it is a plain field (no instruction at all), else computed
 * onto the stack. Strings go in by their store id (comm in place), stacks
 * in their own columns. The first use declares the map's columns; later
 * ones must match.
 */
struct keycol {
	struct plan_type type;
	__u8 src;		/* field read directly, or 0 */
	__u8 dst;
	int arg;		/* which key expression, -1: implied */
	const char *name;	/* a name of its own ("stack" is two) */
};

/* A key column's name: the expression as it formats ("comm", "arg0 / 1024") */
static void key_text(const struct expr_node *k, char *buf, size_t len)
{
	if (expr_format_node(k, buf, len) < 0)
		snprintf(buf, len, "key");
}

/* Key column @k: direct from the event, or compiled. */
static int key_column(struct cc *c, const struct expr_node *k,
		      const struct builtin *b, struct keycol *col)
{
	if (b && b->kind == PLAN_V_INT) {
		/*
		 * compile_builtin checks the field and marks what the
		 * clause must gather (stacks, fd.path); the FIELD it emits
		 * is dropped: the map instruction reads it in place.
		 */
		int ret = compile_builtin(c, b, k->col, &col->type);

		if (ret)
			return ret;
		/* what it read: retval, for DTrace's arg1 at fbt's :return */
		col->src = c->code[c->n - 1].a;
		c->n--;
		c->sp--;
		return 0;
	}
	if (b && b->field == SCRY_F_COMM) {
		col->type = (struct plan_type){ .kind = PLAN_V_STR,
						.fmt = PLAN_F_COMM };
		col->src = SCRY_F_COMM;
		return 0;
	}
	return compile_expr(c, k, &col->type);
}

/* Where each column goes in struct scry_key. */
static int key_places(struct cc *c, const struct expr_node *mn,
		      struct keycol *cols, int *ncols, bool *has_pid)
{
	bool comm = false, kst = false, ust = false;
	int i, nints = 0;

	*has_pid = false;
	for (i = 0; i < *ncols; i++) {
		struct keycol *col = &cols[i];

		if (col->type.kind == PLAN_V_AGG ||
		    col->type.kind == PLAN_V_NONE)
			return fail(c->err, mn->col, "a key must be a value, "
				    "not %s", type_name(&col->type));
		if (is_charptr(&col->type))
			return fail(c->err, mn->col, "a key is a char * "
				    "pointer: use str() for the string it "
				    "points to");
		if (col->type.fmt == PLAN_F_KSTACK && !kst) {
			col->dst = SCRY_KC_KSTACK;
			kst = true;
		} else if (col->type.fmt == PLAN_F_USTACK && !ust) {
			col->dst = SCRY_KC_USTACK;
			ust = *has_pid = true;
		} else if (col->type.kind == PLAN_V_STR &&
			   col->type.fmt == PLAN_F_COMM && !comm) {
			col->dst = SCRY_KC_COMM;
			comm = true;
		} else if (is_stack(&col->type)) {
			return fail(c->err, mn->col, "one kernel and one user "
				    "stack per key at most");
		} else {
			if (nints >= SCRY_MAX_INTKEYS)
				return fail(c->err, mn->col, "too many numeric "
					    "and string keys (at most %d, "
					    "besides comm and the stacks)",
					    SCRY_MAX_INTKEYS);
			col->dst = (col->type.kind == PLAN_V_STR ?
				    SCRY_KC_STR0 : SCRY_KC_INT0) + nints++;
			if (col->type.kind == PLAN_V_STR)
				c->p->uses_strings = true;
		}
	}
	/* a user address needs its process to be named */
	for (i = 0; i < *ncols && !*has_pid; i++) {
		if (cols[i].type.fmt != PLAN_F_USYM)
			continue;
		if (*ncols >= SCRY_MAX_KEYCOLS)
			return fail(c->err, mn->col, "too many keys");
		cols[(*ncols)++] = (struct keycol){ T_INT, SCRY_F_PID,
						    SCRY_KC_PID, -1, "pid" };
		*has_pid = true;
	}
	return 0;
}

/* The first use declares the map's columns; the others must match. */
static int key_declare(struct cc *c, struct plan_map *m,
		       const struct expr_node *mn, const struct keycol *cols,
		       int ncols, bool has_pid)
{
	char name[96];
	bool same;
	int i;

	if (m->nkeys < 0) {
		m->nkeys = ncols;
		m->has_pid = has_pid;
		for (i = 0; i < ncols; i++) {
			m->keys[i] = cols[i].type;
			m->key_dst[i] = cols[i].dst;
			m->key_field[i] = cols[i].src;
			if (cols[i].name)
				snprintf(name, sizeof(name), "%s",
					 cols[i].name);
			else
				key_text(mn->args[cols[i].arg], name,
					 sizeof(name));
			m->key_names[i] = strdup(name);
			if (!m->key_names[i])
				return -ENOMEM;
		}
		return 0;
	}
	same = m->nkeys == ncols;
	for (i = 0; same && i < ncols; i++)
		same = m->key_dst[i] == cols[i].dst &&
		       (type_eq(&m->keys[i], &cols[i].type) ||
			(m->keys[i].kind == PLAN_V_INT &&
			 cols[i].type.kind == PLAN_V_INT &&
			 m->key_dst[i] < SCRY_KC_STR0));
	if (!same)
		return fail(c->err, mn->col, "%s is used with other keys than "
			    "at column %d: every use of a map takes the same "
			    "keys", m->name, m->col);
	return 0;
}

/*
 * Compile @mn's keys for map @mi: the computed columns are pushed (their
 * count in *pushed, their string slots in *strs), the rest recorded in
 * keyspec *spec for the map instruction, which pops them all.
 */
static int compile_keys(struct cc *c, struct plan_map *m, int mi,
			const struct expr_node *mn, int *spec, int *pushed,
			int *strs)
{
	struct keycol cols[SCRY_MAX_KEYCOLS];
	struct scry_keyspec *ks;
	int ncols = 0, i, j, ret;
	bool has_pid;

	for (i = 0; i < mn->nargs; i++) {
		const struct expr_node *k = mn->args[i];
		const struct builtin *b = k->kind == EXPR_IDENT ?
					  builtin_find(k->name) : NULL;
		bool both = k->kind == EXPR_IDENT && !strcmp(k->name, "stack");

		for (j = 0; j <= both; j++) {
			struct keycol *col = &cols[ncols];

			if (ncols >= SCRY_MAX_KEYCOLS - 1)
				return fail(c->err, k->col, "too many keys (at "
					    "most %d)", SCRY_MAX_KEYCOLS - 1);
			memset(col, 0, sizeof(*col));
			col->arg = i;
			if (both) {
				b = builtin_find(j ? "ustack" : "kstack");
				col->name = b->name;
			}
			ret = key_column(c, k, b, col);
			if (ret)
				return ret;
			ncols++;
		}
	}
	ret = key_places(c, mn, cols, &ncols, &has_pid);
	ret = ret ? : key_declare(c, m, mn, cols, ncols, has_pid);
	if (ret)
		return ret;
	if (c->p->nkeyspecs >= SCRY_MAX_KEYSPECS)
		return fail(c->err, mn->col, "too many map accesses (at most "
			    "%d)", SCRY_MAX_KEYSPECS);
	*spec = c->p->nkeyspecs++;
	ks = &c->p->keyspecs[*spec];
	memset(ks, 0, sizeof(*ks));
	ks->ncols = ncols;
	ks->map = mi;
	*pushed = *strs = 0;
	for (i = 0; i < ncols; i++) {
		ks->src[i] = cols[i].src;
		ks->dst[i] = cols[i].dst;
		if (cols[i].src && cols[i].dst == SCRY_KC_COMM)
			c->cl->flags |= SCRY_CL_COMM;	/* read from the event */
		if (cols[i].src == SCRY_F_PROBE)
			c->cl->flags |= SCRY_CL_PROBE;
		*pushed += !cols[i].src;
		*strs += !cols[i].src && cols[i].type.kind == PLAN_V_STR;
	}
	return 0;
}

/*
 * A map instruction popping @pops values; @strs string slots among them
 * (and the value's, when it is a string) are free after it.
 */
static int emit_map(struct cc *c, int col, enum scry_op op, int mi, int spec,
		    int pops, int strs, int pushes)
{
	int ret = emit(c, col, op, mi, spec, 0, 0, 0, pops, pushes);

	c->slot -= strs;
	return ret;
}

/* The map @n names, declared now when @declare and it is new. */
static int map_get(struct cc *c, const struct expr_node *n, bool declare)
{
	int mi = map_find_name(c->p, n->name);

	if (mi >= 0 || !declare)
		return mi;
	return map_new(c, n);
}

/* Reading @m[k]: its value (0 when the key is absent). */
static int compile_map_read(struct cc *c, const struct expr_node *n,
			    struct plan_type *t)
{
	int mi = map_get(c, n, false), spec, ret, slot, pushed, strs;
	struct plan_map *m;

	c->impure = true;
	if (mi < 0 && c->declare) {
		*t = T_INT;	/* declared by a later clause, maybe */
		return emit(c, n->col, SCRY_OP_IMM, 0, 0, 0, 0, 0, 0, 1);
	}
	if (mi < 0)
		return fail(c->err, n->col, "@%s is read but never assigned",
			    n->name);
	m = &c->p->maps[mi];
	if (m->kind == PLAN_MAP_AGG)
		return fail(c->err, n->col, "%s is an aggregation: it prints, "
			    "but cannot be read (keep a count in a variable: "
			    "@%s_n[...]++)", m->name, n->name);
	ret = compile_keys(c, m, mi, n, &spec, &pushed, &strs);
	ret = ret ? : emit_map(c, n->col, SCRY_OP_MLOAD, mi, spec, pushed,
			       strs, 1);
	if (ret)
		return ret;
	*t = m->val;
	c->p->uses_vars = true;
	if (t->kind != PLAN_V_STR)
		return 0;
	slot = slot_get(c, n->col);
	if (slot < 0)
		return slot;
	return emit(c, n->col, SCRY_OP_SFROMID, slot, 0, 0, 0, 0, 1, 1);
}

/* ---- expressions ------------------------------------------------------ */

static const __u8 bin_ops[EXPR_NOPS] = {
	[EXPR_LOR] = SCRY_OP_LOR, [EXPR_LAND] = SCRY_OP_LAND,
	[EXPR_BOR] = SCRY_OP_BOR, [EXPR_BXOR] = SCRY_OP_BXOR,
	[EXPR_BAND] = SCRY_OP_BAND, [EXPR_EQ] = SCRY_OP_EQ,
	[EXPR_NE] = SCRY_OP_NE, [EXPR_LT] = SCRY_OP_LT,
	[EXPR_LE] = SCRY_OP_LE, [EXPR_GT] = SCRY_OP_GT,
	[EXPR_GE] = SCRY_OP_GE, [EXPR_SHL] = SCRY_OP_SHL,
	[EXPR_SHR] = SCRY_OP_SHR, [EXPR_ADD] = SCRY_OP_ADD,
	[EXPR_SUB] = SCRY_OP_SUB, [EXPR_MUL] = SCRY_OP_MUL,
	[EXPR_DIV] = SCRY_OP_DIV, [EXPR_MOD] = SCRY_OP_MOD,
};

/* A number is expected: say what was given instead, and the fix. */
static int want_int(struct cc *c, const struct plan_type *t, int col,
		    const char *what)
{
	if (t->kind == PLAN_V_INT)
		return 0;
	if (t->kind == PLAN_V_STR)
		return fail(c->err, col, "%s needs a number, not a string",
			    what);
	return fail(c->err, col, "%s needs a number, not %s", what,
		    type_name(t));
}

/*
 * A string is expected. A string-store id (fd.path, a stored string)
 * becomes its string; a char * pointer is the one mistake to name.
 */
static int want_str(struct cc *c, struct plan_type *t, int col,
		    const char *what)
{
	int slot;

	if (t->kind == PLAN_V_STR)
		return 0;
	if (t->kind == PLAN_V_INT && t->fmt == PLAN_F_STRID) {
		slot = slot_get(c, col);
		if (slot < 0)
			return slot;
		*t = T_STR;
		return emit(c, col, SCRY_OP_SFROMID, slot, 0, 0, 0, 0, 1, 1);
	}
	if (is_charptr(t))
		return fail(c->err, col, "%s needs a string, and this is a "
			    "char * pointer: use str() to read the string it "
			    "points to", what);
	return fail(c->err, col, "%s needs a string, not %s%s", what,
		    type_name(t), t->kind == PLAN_V_INT && !t->fmt ?
		    " (str(ADDR) reads a string from memory)" : "");
}

/*
 * probe == "NAME", func == "NAME": the value is a probe's index, so the
 * name becomes the index it has in this clause (-1 when none has it).
 * The string just compiled is dropped.
 */
static int compare_label(struct cc *c, const struct expr_node *n,
			 const struct plan_type *l, struct plan_type *t)
{
	const struct plan_clause *cl = c->cl;
	const char *want = n->right->sval;
	bool func = l->fmt == PLAN_F_FUNC;
	__s64 id = -1;
	int i, nr;

	c->n--;			/* the SLIT of the string */
	c->sp--;
	c->slot--;
	if (cl->by_syscall) {
		const char *name = func ? want :
				   !strncmp(want, "syscall:", 8) ? want + 8 :
				   NULL;

		nr = name ? plan_syscall_nr(name) : -1;
		if (nr >= 0)
			id = (__s64)c->ci << 32 | nr;
	} else {
		for (i = 0; i < cl->nlabels; i++)
			if (!strcmp(func ? cl->funcs[i] : cl->labels[i], want))
				id = (__s64)c->ci << 32 | i;
	}
	*t = T_INT;
	return emit(c, n->right->col, SCRY_OP_IMM, 0, 0, 0, 0, id, 0, 1) ? :
	       emit(c, n->col, bin_ops[n->op], 0, 0, 0, 0, 0, 2, 1);
}

static int compile_binary(struct cc *c, const struct expr_node *n,
			  struct plan_type *t)
{
	struct plan_type l, r;
	char what[64];
	int ret;

	snprintf(what, sizeof(what), "'%s'", expr_op_name(n->op));
	ret = compile_expr(c, n->left, &l);
	if (ret)
		return ret;
	/* a stored string (fd.path) compared: its bytes, before the right */
	if ((n->op == EXPR_EQ || n->op == EXPR_NE) &&
	    (l.fmt == PLAN_F_STRID || is_charptr(&l))) {
		ret = want_str(c, &l, n->left->col, what);
		if (ret)
			return ret;
	}
	ret = compile_expr(c, n->right, &r);
	if (ret)
		return ret;
	if ((l.fmt == PLAN_F_PROBE || l.fmt == PLAN_F_FUNC) &&
	    n->right->kind == EXPR_STR && (n->op == EXPR_EQ ||
					   n->op == EXPR_NE))
		return compare_label(c, n, &l, t);
	if ((l.kind == PLAN_V_STR || r.kind == PLAN_V_STR ||
	     is_charptr(&r)) && (n->op == EXPR_EQ || n->op == EXPR_NE)) {
		/* a string comparison: both sides strings */
		if (l.kind != PLAN_V_STR)
			return fail(c->err, n->col, "%s compares a number "
				    "with a string", what);
		ret = want_str(c, &r, n->right->col, what);
		if (ret)
			return ret;
		slot_put(c, &r);
		slot_put(c, &l);
		*t = T_INT;
		return emit(c, n->col, SCRY_OP_SCMP, 0, 0, n->op == EXPR_NE,
			    0, 0, 2, 1);
	}
	if (l.kind == PLAN_V_STR || r.kind == PLAN_V_STR)
		return fail(c->err, n->col, "strings compare with == and != "
			    "only");
	ret = want_int(c, &l, n->left->col, what);
	ret = ret ? : want_int(c, &r, n->right->col, what);
	if (ret)
		return ret;
	*t = T_INT;
	return emit(c, n->col, bin_ops[n->op], 0, 0, 0, 0, 0, 2, 1);
}

static int compile_unary(struct cc *c, const struct expr_node *n,
			 struct plan_type *t)
{
	static const __u8 ops[] = {
		[EXPR_NOT] = SCRY_OP_LNOT, [EXPR_BNOT] = SCRY_OP_BNOT,
		[EXPR_NEG] = SCRY_OP_NEG,
	};
	char what[8];
	int ret = compile_expr(c, n->left, t);

	if (ret)
		return ret;
	snprintf(what, sizeof(what), "'%s'", expr_op_name(n->op));
	ret = want_int(c, t, n->col, what);
	if (ret)
		return ret;
	if (n->op == EXPR_DEREF) {
		/* *ptr: a typed pointer reads what it points to */
		if (t->btf && !t->array)
			return btf_value(c, t->btf, n->col, t);
		*t = T_INT;
		c->impure = true;
		return emit(c, n->col, SCRY_OP_READ, 8, 0, 1, 0, 0, 1, 1);
	}
	*t = T_INT;
	return emit(c, n->col, ops[n->op], 0, 0, 0, 0, 0, 1, 1);
}

/* c ? a : b, both branches of one type (a string: in one slot) */
static int compile_cond(struct cc *c, const struct expr_node *n,
			struct plan_type *t)
{
	struct plan_type ct, a, b;
	int ret, jz, jmp, slot0;

	ret = compile_expr(c, n->left, &ct);
	ret = ret ? : want_int(c, &ct, n->left->col, "'?:'");
	if (ret)
		return ret;
	jz = c->n;
	ret = emit(c, n->col, SCRY_OP_JZ, 0, 0, 0, 0, 0, 1, 0);
	slot0 = c->slot;
	ret = ret ? : compile_expr(c, n->right, &a);
	if (ret)
		return ret;
	jmp = c->n;
	if (emit(c, n->col, SCRY_OP_JMP, 0, 0, 0, 0, 0, 0, 0))
		return -EINVAL;
	/* the other branch starts where this one did */
	c->sp--;
	c->slot = slot0;
	c->code[jz].d = c->n;
	ret = compile_expr(c, n->other, &b);
	if (ret)
		return ret;
	c->code[jmp].d = c->n;
	if (!type_eq(&a, &b) && !(a.kind == PLAN_V_INT &&
				  b.kind == PLAN_V_INT))
		return fail(c->err, n->other->col, "the two sides of '?:' "
			    "differ: %s and %s", type_name(&a),
			    type_name(&b));
	*t = type_eq(&a, &b) ? a : T_INT;
	return 0;
}

/* ---- calls ------------------------------------------------------------- */

static int nargs_is(struct cc *c, const struct expr_node *n, int lo, int hi,
		    const char *usage)
{
	if (n->nargs >= lo && n->nargs <= hi)
		return 0;
	return fail(c->err, n->col, "%s() is written %s", n->name, usage);
}

static int const_int(struct cc *c, const struct expr_node *n, __s64 *v,
		     const char *what)
{
	if (n->kind == EXPR_INT) {
		*v = n->ival;
		return 0;
	}
	if (n->kind == EXPR_IDENT && !builtin_find(n->name) &&
	    kernel_const(c, n->name, v))
		return 0;
	if (n->kind == EXPR_UNARY && n->op == EXPR_NEG &&
	    n->left->kind == EXPR_INT && n->left->ival != INT64_MIN) {
		*v = -n->left->ival;
		return 0;
	}
	return fail(c->err, n->col, "%s must be a number", what);
}

/* str(ADDR [, LEN]), copyinstr(ADDR), stringof(X) */
static int compile_str(struct cc *c, const struct expr_node *n,
		       struct plan_type *t)
{
	struct plan_type a;
	__s64 len = 0;
	int ret, slot;

	ret = nargs_is(c, n, 1, 2, "str(ADDR) or str(ADDR, LENGTH)");
	if (!ret && n->nargs == 2) {
		ret = const_int(c, n->args[1], &len, "str()'s length");
		if (!ret && (len < 1 || len > SCRY_PATH_MAX - 1))
			ret = fail(c->err, n->args[1]->col, "str()'s length "
				   "must be 1 to %d", SCRY_PATH_MAX - 1);
	}
	ret = ret ? : compile_expr(c, n->args[0], &a);
	if (ret)
		return ret;
	/* already a string (stringof(comm)), or one by id */
	if (a.kind == PLAN_V_STR || (a.kind == PLAN_V_INT &&
				     a.fmt == PLAN_F_STRID)) {
		*t = a;
		return want_str(c, t, n->col, "str()");
	}
	ret = want_int(c, &a, n->args[0]->col, "str()");
	if (ret)
		return ret;
	slot = slot_get(c, n->col);
	if (slot < 0)
		return slot;
	c->impure = true;
	*t = T_STR;
	return emit(c, n->col, SCRY_OP_SREAD, slot, 0, 0, len, 0, 1, 1);
}

/* A number printed another way: ksym(), usym(), ntop() */
static int compile_fmt_call(struct cc *c, const struct expr_node *n,
			    enum plan_vfmt fmt, struct plan_type *t)
{
	const struct expr_node *v = n->args[n->nargs - 1];
	int ret;

	if (fmt == PLAN_F_INET) {
		ret = nargs_is(c, n, 1, 2, "ntop(ADDR) or ntop(AF_INET, ADDR)");
		if (!ret && n->nargs == 2) {
			__s64 af;

			ret = const_int(c, n->args[0], &af, "ntop()'s family");
			if (!ret && af != 2)
				ret = fail(c->err, n->args[0]->col, "ntop(): "
					   "only AF_INET (2) addresses, as a "
					   "number, for now");
		}
	} else {
		ret = nargs_is(c, n, 1, 1, fmt == PLAN_F_KSYM ? "ksym(ADDR)" :
			       "usym(ADDR)");
	}
	ret = ret ? : compile_expr(c, v, t);
	ret = ret ? : want_int(c, t, v->col, n->name);
	if (ret)
		return ret;
	*t = T_INT;
	t->fmt = fmt;
	return 0;
}

/* kstack, ustack, kstack(N), ustack(N), stack() (DTrace's kernel stack) */
static int compile_stack_call(struct cc *c, const struct expr_node *n,
			      bool user, struct plan_type *t)
{
	__s64 limit = 0;
	int ret;

	ret = nargs_is(c, n, 0, 1, user ? "ustack() or ustack(FRAMES)" :
		       "kstack() or kstack(FRAMES)");
	if (!ret && n->nargs) {
		ret = const_int(c, n->args[0], &limit, "the number of frames");
		if (!ret && (limit < 1 || limit > SCRY_MAX_FRAMES))
			ret = fail(c->err, n->args[0]->col, "frames: 1 to %d",
				   SCRY_MAX_FRAMES);
	}
	ret = ret ? : compile_builtin(c, builtin_find(user ? "ustack" :
						      "kstack"), n->col, t);
	t->limit = limit;
	return ret;
}

static int compile_call(struct cc *c, const struct expr_node *n,
			struct plan_type *t)
{
	const char *f = n->name;
	char hints[96];

	if (!strcmp(f, "str") || !strcmp(f, "copyinstr") ||
	    !strcmp(f, "stringof"))
		return compile_str(c, n, t);
	if (!strcmp(f, "ksym"))
		return compile_fmt_call(c, n, PLAN_F_KSYM, t);
	if (!strcmp(f, "usym"))
		return compile_fmt_call(c, n, PLAN_F_USYM, t);
	if (!strcmp(f, "ntop"))
		return compile_fmt_call(c, n, PLAN_F_INET, t);
	if (!strcmp(f, "kstack") || !strcmp(f, "stack"))
		return compile_stack_call(c, n, false, t);
	if (!strcmp(f, "ustack"))
		return compile_stack_call(c, n, true, t);
	if (!strcmp(f, "count") || !strcmp(f, "sum") || !strcmp(f, "min") ||
	    !strcmp(f, "max") || !strcmp(f, "avg") || !strcmp(f, "stats") ||
	    !strcmp(f, "hist") || !strcmp(f, "lhist") ||
	    !strcmp(f, "quantize") || !strcmp(f, "lquantize"))
		return fail(c->err, n->col, "%s() aggregates into a map: "
			    "@name[keys] = %s(...)", f, f);
	if (!strcmp(f, "printf") || !strcmp(f, "print") ||
	    !strcmp(f, "printa") || !strcmp(f, "trace") ||
	    !strcmp(f, "clear") || !strcmp(f, "zero") ||
	    !strcmp(f, "delete") || !strcmp(f, "exit") ||
	    !strcmp(f, "time") || !strcmp(f, "join") ||
	    !strcmp(f, "signal") || !strcmp(f, "raise"))
		return fail(c->err, n->col, "%s() is a statement, not a "
			    "value", f);
	return fail(c->err, n->col, "unknown function '%s'%s", f,
		    suggest(f, function_names, ARRAY_SIZE(function_names),
			    hints, sizeof(hints)));
}

/* ---- kernel structs through BTF ------------------------------------- */

static struct btf *kernel_btf(struct cc *c, int col)
{
	struct btf *btf = c->p->env->btf ? c->p->env->btf() : NULL;

	if (!btf)
		fail(c->err, col, "this kernel has no BTF (/sys/kernel/btf/"
		     "vmlinux): kernel structs cannot be read");
	return btf;
}

/* Through typedefs, const, volatile, restrict, type tags. */
static const struct btf_type *btf_real(const struct btf *btf, __u32 *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t) ||
		     btf_kind(t) == BTF_KIND_TYPE_TAG)) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

/*
 * Member @name of struct/union @id, looking into anonymous members (the
 * kernel's unions): its type and byte offset. Bitfields say so.
 */
static int btf_member(const struct btf *btf, __u32 id, const char *name,
		      __u32 *mid, __u32 *off, bool *bitfield)
{
	const struct btf_type *t = btf_real(btf, &id);
	const struct btf_member *m;
	__u32 sub;
	int i;

	if (!t || !btf_is_composite(t))
		return -EINVAL;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		__u32 bits = btf_member_bit_offset(t, i);

		if (mn && *mn) {
			if (strcmp(mn, name))
				continue;
			*mid = m->type;
			*off = bits / 8;
			*bitfield = btf_member_bitfield_size(t, i) || bits % 8;
			return 0;
		}
		/* an anonymous struct or union: its members are ours */
		if (!btf_member(btf, m->type, name, mid, &sub, bitfield)) {
			*off = bits / 8 + sub;
			return 0;
		}
	}
	return -ENOENT;
}

static const char *btf_type_name(const struct btf *btf, __u32 id, char *buf,
				 size_t len)
{
	const struct btf_type *t = btf_real(btf, &id);
	const char *n = t ? btf__name_by_offset(btf, t->name_off) : NULL;

	snprintf(buf, len, "%s%s", t && btf_is_struct(t) ? "struct " :
		 t && btf_is_union(t) ? "union " : "", n && *n ? n : "?");
	return buf;
}

/* What a pointer @bt points to: a string (char *), or a typed address. */
static void btf_pointee(const struct btf *btf, const struct btf_type *bt,
			struct plan_type *t)
{
	__u32 eid = bt->type;
	const struct btf_type *et = btf_real(btf, &eid);

	if (et && btf_is_int(et) && et->size == 1)
		t->fmt = PLAN_F_CHARPTR;
	else if (et && (btf_is_composite(et) || btf_is_ptr(et) ||
			btf_is_int(et) || btf_is_enum(et) || btf_is_array(et)))
		t->btf = eid;
}

/*
 * The pointee of a pointer type as C writes it ("struct path *", "const
 * struct __kernel_timespec *", "int *"): its BTF id, -ENOENT when the
 * kernel has no such type, -EINVAL when @ty is no pointer to one.
 */
static int btf_pointee_named(const struct btf *btf, const char *ty)
{
	const char *star = strchr(ty, '*');
	char name[128];
	int kind = 0, id, len;

	if (!star || star != strrchr(ty, '*') || star[strspn(star + 1, " ") +
						       1])
		return -EINVAL;
	while (!strncmp(ty, "const ", 6) || !strncmp(ty, "volatile ", 9))
		ty += ty[0] == 'c' ? 6 : 9;
	if (!strncmp(ty, "struct ", 7)) {
		kind = BTF_KIND_STRUCT;
		ty += 7;
	} else if (!strncmp(ty, "union ", 6)) {
		kind = BTF_KIND_UNION;
		ty += 6;
	} else if (!strncmp(ty, "enum ", 5)) {
		kind = BTF_KIND_ENUM;
		ty += 5;
	}
	len = star - ty;
	while (len && ty[len - 1] == ' ')
		len--;
	if (len > 6 && !strncmp(ty + len - 6, " const", 6))
		len -= 6;
	if (!len || len >= (int)sizeof(name) || memchr(ty, ' ', len) ||
	    !strncmp(ty, "void", len))
		return -EINVAL;
	snprintf(name, sizeof(name), "%.*s", len, ty);
	if (kind) {
		id = btf__find_by_name_kind(btf, name, kind);
		if (id < 0 && kind == BTF_KIND_ENUM)
			id = btf__find_by_name_kind(btf, name, BTF_KIND_ENUM64);
		return id < 0 ? -ENOENT : id;
	}
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		id = btf__find_by_name_kind(btf, name, BTF_KIND_INT);
	return id < 0 ? -ENOENT : id;
}

/*
 * A value of BTF type @id whose address is on the stack, as the language
 * sees it: a number (read, signed or not), a pointer (read: an address
 * of what it points to), a char array or char * (a string, by str()), an
 * embedded struct or an array (the address stays, typed).
 */
static int btf_value(struct cc *c, __u32 id, int col, struct plan_type *t)
{
	const struct btf *btf = c->p->env->btf();
	const struct btf_type *bt = btf_real(btf, &id), *et;
	const struct btf_array *arr;
	bool user = t->user;	/* what it reads, and reaches, is user's */
	__u32 eid;
	int sz;

	*t = T_INT;
	t->user = user;
	if (!bt)
		return fail(c->err, col, "a kernel type BTF does not know");
	if (btf_is_composite(bt)) {
		t->btf = id;		/* embedded: its address */
		return 0;
	}
	if (btf_is_array(bt)) {
		arr = btf_array(bt);
		eid = arr->type;
		et = btf_real(btf, &eid);
		if (et && btf_is_int(et) && et->size == 1) {
			/* char name[N]: its string */
			int slot = slot_get(c, col);

			if (slot < 0)
				return slot;
			*t = T_STR;
			return emit(c, col, SCRY_OP_SREAD, slot, 0, 0,
				    arr->nelems ? arr->nelems : 1, 0, 1, 1);
		}
		t->btf = eid;
		t->array = true;
		return 0;
	}
	if (btf_is_ptr(bt)) {
		btf_pointee(btf, bt, t);
		c->impure = true;
		return emit(c, col, SCRY_OP_READ, 8, user, 0, 0, 0, 1, 1);
	}
	if (btf_is_int(bt) || btf_is_enum(bt) || btf_is_enum64(bt)) {
		sz = btf_is_int(bt) ? bt->size : bt->size;
		if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
			return fail(c->err, col, "a %d-byte number: scry reads "
				    "1, 2, 4 or 8", sz);
		c->impure = true;
		return emit(c, col, SCRY_OP_READ, sz, user,
			    btf_is_int(bt) &&
			    (btf_int_encoding(bt) & BTF_INT_SIGNED), 0, 0, 1, 1);
	}
	return fail(c->err, col, "a kernel value of a kind scry does not "
		    "read (a function, a float)");
}

/*
 * X->member, X.member, for X an address of a kernel struct: add the
 * member's offset, then read it as btf_value() says. A dotted name
 * ("f_path.dentry") is a chain of members.
 */
static int btf_members_of(struct cc *c, const char *path, int col,
			  struct plan_type *t)
{
	const struct btf *btf = c->p->env->btf();
	char name[128], tn[128];
	__u32 mid, off;
	bool bitfield;
	const char *dot;
	int ret;

	for (;;) {
		dot = strchr(path, '.');
		snprintf(name, sizeof(name), "%.*s", dot ? (int)(dot - path) :
			 (int)strlen(path), path);
		if (!t->btf || t->array)
			return fail(c->err, col, "'%s': not a struct: %s",
				    name, type_name(t));
		ret = btf_member(btf, t->btf, name, &mid, &off, &bitfield);
		if (ret)
			return fail(c->err, col, "%s has no member '%s'",
				    btf_type_name(btf, t->btf, tn,
						  sizeof(tn)), name);
		if (bitfield)
			return fail(c->err, col, "'%s' is a bitfield: scry "
				    "does not read those", name);
		if (off && (emit(c, col, SCRY_OP_IMM, 0, 0, 0, 0, off, 0, 1) ||
			    emit(c, col, SCRY_OP_ADD, 0, 0, 0, 0, 0, 2, 1)))
			return -EINVAL;
		ret = btf_value(c, mid, col, t);
		if (ret || !dot)
			return ret;
		path = dot + 1;
	}
}

/* curtask: the current task_struct, typed */
static int compile_curtask(struct cc *c, int col, struct plan_type *t)
{
	struct btf *btf = kernel_btf(c, col);
	int id;

	if (!btf)
		return -EINVAL;
	id = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	if (id < 0)
		return fail(c->err, col, "BTF has no struct task_struct");
	c->impure = true;
	*t = T_INT;
	t->btf = id;
	return emit(c, col, SCRY_OP_FIELD, SCRY_F_CURTASK, 0, 0, 0, 0, 0, 1);
}


/*
 * The value on the stack as a C integer of @size bytes: sign-extended
 * from its width when @sgn, else its low bytes. 8 bytes: as it is.
 */
static int emit_narrow(struct cc *c, int col, unsigned int size, bool sgn)
{
	int bits;

	if (size >= 8)
		return 0;
	bits = 64 - 8 * size;
	if (sgn)
		return emit(c, col, SCRY_OP_IMM, 0, 0, 0, 0, bits, 0, 1) ||
		       emit(c, col, SCRY_OP_SHL, 0, 0, 0, 0, 0, 2, 1) ||
		       emit(c, col, SCRY_OP_IMM, 0, 0, 0, 0, bits, 0, 1) ||
		       emit(c, col, SCRY_OP_SHR, 0, 0, 0, 0, 0, 2, 1) ?
		       -EINVAL : 0;
	return emit(c, col, SCRY_OP_IMM, 0, 0, 0, 0,
		    (__s64)(~0ull >> bits), 0, 1) ||
	       emit(c, col, SCRY_OP_BAND, 0, 0, 0, 0, 0, 2, 1) ? -EINVAL : 0;
}

/*
 * args.NAME of fentry/fexit: the parameter NAME of the function, as BTF
 * has its prototype. The trampoline saves whole registers: a narrower
 * number is cut to its width (and sign) here, a pointer keeps its
 * pointee's type for ->.
 */
static int compile_btf_arg(struct cc *c, const char *name, int col,
			   struct plan_type *t)
{
	const char *func = c->p->probes[c->cl->first_probe].target[0];
	const char *names[16] = { 0 };
	const struct btf_param *prm;
	const struct btf_type *ft, *bt;
	struct btf *btf = kernel_btf(c, col);
	char hints[128];
	__u32 id;
	int fid, i, n, ret;

	if (!btf)
		return -EINVAL;
	fid = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	ft = fid > 0 ? btf__type_by_id(btf, fid) : NULL;
	ft = ft ? btf__type_by_id(btf, ft->type) : NULL;
	if (!ft || !btf_is_func_proto(ft))
		return fail(c->err, col, "BTF has no prototype of %s", func);
	prm = btf_params(ft);
	n = btf_vlen(ft);
	for (i = 0; i < n; i++) {
		const char *pn = btf__name_by_offset(btf, prm[i].name_off);

		if (i < (int)ARRAY_SIZE(names))
			names[i] = pn;
		if (pn && !strcmp(pn, name))
			break;
	}
	if (i == n)
		return fail(c->err, col, "%s has no parameter '%s'%s", func,
			    name, suggest(name, names, ARRAY_SIZE(names),
					  hints, sizeof(hints)));
	if (i >= SCRY_NARGS)
		return fail(c->err, col, "args.%s is %s's parameter %d: scry "
			    "reads the first %d", name, func, i + 1,
			    SCRY_NARGS);
	ret = emit(c, col, SCRY_OP_FIELD, SCRY_F_ARG0 + i, 0, 0, 0, 0, 0, 1);
	if (ret)
		return ret;
	*t = T_INT;
	id = prm[i].type;
	bt = btf_real(btf, &id);
	if (bt && btf_is_ptr(bt)) {
		btf_pointee(btf, bt, t);
		return 0;
	}
	if (!bt || !(btf_is_int(bt) || btf_is_enum(bt) || btf_is_enum64(bt)))
		return fail(c->err, col, "args.%s: a parameter passed by value "
			    "that is no number or pointer", name);
	return emit_narrow(c, col, bt->size, btf_is_int(bt) &&
			   (btf_int_encoding(bt) & BTF_INT_SIGNED));
}

/* args->f, args.f of tracepoints; else a kernel struct's member */
static int compile_member(struct cc *c, const struct expr_node *n,
			  struct plan_type *t)
{
	int ret;

	if (n->left->kind == EXPR_IDENT && !strcmp(n->left->name, "args") &&
	    !strchr(n->name, '.'))
		return compile_tp_arg(c, n->name, n->col, t);
	ret = compile_expr(c, n->left, t);
	if (ret)
		return ret;
	if (!t->btf || t->array)
		return fail(c->err, n->col, "'%s%s': %s is no kernel struct "
			    "(curtask is one; cast an address: (struct path *)"
			    "arg0)", n->arrow ? "->" : ".", n->name,
			    type_name(t));
	return btf_members_of(c, n->name, n->col, t);
}

/* X[i] for X a kernel array or pointer: element i */
static int compile_index(struct cc *c, const struct expr_node *n,
			 struct plan_type *t)
{
	const struct btf *btf;
	struct plan_type it;
	__s64 size;
	__u32 id;
	int ret;

	ret = compile_expr(c, n->left, t);
	if (ret)
		return ret;
	if (!t->btf)
		return fail(c->err, n->col, "'[]': %s is no kernel array or "
			    "pointer", type_name(t));
	btf = c->p->env->btf();
	id = t->btf;
	size = btf__resolve_size(btf, id);
	if (size <= 0)
		return fail(c->err, n->col, "'[]': elements of unknown size");
	ret = compile_expr(c, n->right, &it);
	ret = ret ? : want_int(c, &it, n->right->col, "an index");
	ret = ret ? : emit(c, n->col, SCRY_OP_IMM, 0, 0, 0, 0, size, 0, 1);
	ret = ret ? : emit(c, n->col, SCRY_OP_MUL, 0, 0, 0, 0, 0, 2, 1);
	ret = ret ? : emit(c, n->col, SCRY_OP_ADD, 0, 0, 0, 0, 0, 2, 1);
	return ret ? : btf_value(c, id, n->col, t);
}

/*
 * The width and signedness of a number type as written, as on x86-64:
 * bpftrace's and C's names, and the kernel's typedefs that syscall
 * tracepoints declare their arguments with. False for any other name,
 * which the kernel's BTF may still know (number_type()).
 */
static bool number_type_named(const char *ty, unsigned int *size, bool *sgn)
{
	static const struct {
		const char *name;
		unsigned char size;
		bool sgn;
	} types[] = {
		{ "u8", 1, false }, { "uint8", 1, false },
		{ "uint8_t", 1, false }, { "__u8", 1, false },
		{ "unsigned char", 1, false }, { "bool", 1, false },
		{ "s8", 1, true }, { "int8", 1, true }, { "int8_t", 1, true },
		{ "__s8", 1, true }, { "char", 1, true },
		{ "signed char", 1, true },
		{ "u16", 2, false }, { "uint16", 2, false },
		{ "uint16_t", 2, false }, { "__u16", 2, false },
		{ "unsigned short", 2, false },
		{ "unsigned short int", 2, false }, { "umode_t", 2, false },
		{ "s16", 2, true }, { "int16", 2, true }, { "int16_t", 2, true },
		{ "__s16", 2, true }, { "short", 2, true },
		{ "short int", 2, true }, { "signed short", 2, true },
		{ "u32", 4, false }, { "uint32", 4, false },
		{ "uint32_t", 4, false }, { "__u32", 4, false },
		{ "unsigned", 4, false }, { "unsigned int", 4, false },
		{ "uint", 4, false }, { "uid_t", 4, false },
		{ "gid_t", 4, false }, { "qid_t", 4, false },
		{ "dev_t", 4, false }, { "mode_t", 4, false },
		{ "gfp_t", 4, false },
		{ "s32", 4, true }, { "int32", 4, true }, { "int32_t", 4, true },
		{ "__s32", 4, true }, { "int", 4, true }, { "signed", 4, true },
		{ "signed int", 4, true }, { "pid_t", 4, true },
		{ "clockid_t", 4, true }, { "timer_t", 4, true },
		{ "mqd_t", 4, true }, { "key_t", 4, true },
		{ "key_serial_t", 4, true }, { "rwf_t", 4, true },
		{ "u64", 8, false }, { "uint64", 8, false },
		{ "uint64_t", 8, false }, { "__u64", 8, false },
		{ "size_t", 8, false }, { "uintptr_t", 8, false },
		{ "s64", 8, true }, { "int64", 8, true }, { "int64_t", 8, true },
		{ "__s64", 8, true }, { "ssize_t", 8, true },
		{ "loff_t", 8, true }, { "off_t", 8, true },
		{ "intptr_t", 8, true },
	};
	static const char *const words[] = {
		"unsigned", "signed", "long", "int", "short", "char",
	};
	const char *w = ty;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (!strcmp(ty, types[i].name)) {
			*size = types[i].size;
			*sgn = types[i].sgn;
			return true;
		}
	/* 64-bit: the other combinations of C's words (long, long long) */
	while (*w) {
		size_t n = strcspn(w, " ");

		for (i = 0; i < ARRAY_SIZE(words); i++)
			if (strlen(words[i]) == n && !strncmp(w, words[i], n))
				break;
		if (i == ARRAY_SIZE(words))
			return false;
		w += n + (w[n] == ' ');
	}
	*size = 8;
	*sgn = !strstr(ty, "unsigned");
	return true;
}

/*
 * number_type_named(), else a typedef or enum of the kernel's BTF
 * ("enum landlock_rule_type", "aio_context_t"), through to its integer.
 */
static bool number_type(struct cc *c, const char *ty, unsigned int *size,
			bool *sgn)
{
	const struct btf_type *bt;
	const struct btf *btf;
	bool is_enum;
	int id;
	__u32 uid;

	while (!strncmp(ty, "const ", 6) || !strncmp(ty, "volatile ", 9))
		ty += ty[0] == 'c' ? 6 : 9;
	if (number_type_named(ty, size, sgn))
		return true;
	is_enum = !strncmp(ty, "enum ", 5);
	if (is_enum)
		ty += 5;
	if (!*ty || ty[strspn(ty, "abcdefghijklmnopqrstuvwxyz"
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")] ||
	    !c->p->env->btf || !(btf = c->p->env->btf()))
		return false;
	id = btf__find_by_name_kind(btf, ty, is_enum ? BTF_KIND_ENUM :
				    BTF_KIND_TYPEDEF);
	if (id < 0 && is_enum)
		id = btf__find_by_name_kind(btf, ty, BTF_KIND_ENUM64);
	if (id < 0)
		return false;
	uid = id;
	bt = btf_real(btf, &uid);
	if (!bt || !(btf_is_int(bt) || btf_is_any_enum(bt)) ||
	    (bt->size != 1 && bt->size != 2 && bt->size != 4 &&
	     bt->size != 8))
		return false;
	*size = bt->size;
	*sgn = btf_is_int(bt) ? !!(btf_int_encoding(bt) & BTF_INT_SIGNED) :
	       btf_kflag(bt);
	return true;
}

/*
 * (struct path *)X: X is the address of a struct path; (char *)X a
 * string's; number types leave X as it is.
 */
static int compile_cast(struct cc *c, const struct expr_node *n,
			struct plan_type *t)
{
	const char *ty = n->name;
	struct btf *btf;
	int ret, id, kind;

	ret = compile_expr(c, n->left, t);
	ret = ret ? : want_int(c, t, n->left->col, "a cast");
	if (ret)
		return ret;
	if (!strcmp(ty, "char *") || !strcmp(ty, "const char *")) {
		*t = T_INT;
		t->fmt = PLAN_F_CHARPTR;
		return 0;
	}
	if (!strchr(ty, '*')) {
		unsigned int size;
		bool sgn;

		/* as C converts: (u8)0x1ff is 255, (int8)255 is -1 */
		if (!number_type(c, ty, &size, &sgn)) {
			if (strstr(ty, "struct") || strstr(ty, "union") ||
			    strstr(ty, "void"))
				return fail(c->err, n->col, "(%s): not a number "
					    "type scry knows (u8..u64, s8..s64, "
					    "int8...uint64, char..long long, "
					    "size_t, bool)", ty);
			/* a name no one knows: 64-bit, as before */
			size = 8;
			sgn = true;
		}
		*t = T_INT;
		if (!strcmp(ty, "bool") || !strcmp(ty, "const bool"))
			return emit(c, n->col, SCRY_OP_IMM, 0, 0, 0, 0, 0, 0,
				    1) ||
			       emit(c, n->col, SCRY_OP_NE, 0, 0, 0, 0, 0, 2,
				    1) ? -EINVAL : 0;
		return emit_narrow(c, n->col, size, sgn);
	}
	kind = !strncmp(ty, "struct ", 7) ? BTF_KIND_STRUCT :
	       !strncmp(ty, "union ", 6) ? BTF_KIND_UNION : 0;
	if (!kind || strchr(ty, '*') != strrchr(ty, '*'))
		return fail(c->err, n->col, "casts are to (struct NAME *), "
			    "(union NAME *), (char *) or a number type");
	btf = kernel_btf(c, n->col);
	if (!btf)
		return -EINVAL;
	id = btf_pointee_named(btf, ty);
	if (id < 0)
		return fail(c->err, n->col, "the kernel has no %.*s (BTF)",
			    (int)(strcspn(ty, "*") - (strstr(ty, " *") != NULL)),
			    ty);
	*t = T_INT;
	t->btf = id;
	return 0;
}

static int compile_expr(struct cc *c, const struct expr_node *n,
			struct plan_type *t)
{
	int slot;

	switch (n->kind) {
	case EXPR_INT:
		*t = T_INT;
		return emit(c, n->col, SCRY_OP_IMM, 0, 0, 0, 0, n->ival, 0, 1);
	case EXPR_STR: {
		int li;

		if (strlen(n->sval) >= SCRY_LIT_MAX)
			return fail(c->err, n->col, "string longer than %d "
				    "bytes", SCRY_LIT_MAX - 1);
		for (li = 0; li < c->p->nlits; li++)
			if (!strcmp(c->p->lits[li], n->sval))
				break;
		if (li == c->p->nlits) {
			if (li >= SCRY_MAX_LITS)
				return fail(c->err, n->col, "too many strings "
					    "(at most %d)", SCRY_MAX_LITS);
			strcpy(c->p->lits[c->p->nlits++], n->sval);
		}
		slot = slot_get(c, n->col);
		if (slot < 0)
			return slot;
		*t = T_STR;
		return emit(c, n->col, SCRY_OP_SLIT, slot, 0, 0, 0, li, 0, 1);
	}
	case EXPR_IDENT:
		return compile_ident(c, n, t);
	case EXPR_BINARY:
		return compile_binary(c, n, t);
	case EXPR_UNARY:
		return compile_unary(c, n, t);
	case EXPR_COND:
		return compile_cond(c, n, t);
	case EXPR_CALL:
		return compile_call(c, n, t);
	case EXPR_MAP:
		return compile_map_read(c, n, t);
	case EXPR_VAR:
	case EXPR_CLAUSE_VAR:
		return compile_local(c, n, t);
	case EXPR_TLS:
		return compile_tls(c, n, t);
	case EXPR_MEMBER:
		return compile_member(c, n, t);
	case EXPR_INDEX:
		return compile_index(c, n, t);
	case EXPR_CAST:
		return compile_cast(c, n, t);
	}
	return fail(c->err, n->col, "internal error: unknown node");
}

/* ---- aggregations ------------------------------------------------------ */

struct agg_def {
	const char *name;
	enum scry_agg agg;
	int nargs;
};

static const struct agg_def aggs[] = {
	{ "count",     SCRY_AGG_COUNT,     0 },
	{ "sum",       SCRY_AGG_SUM,       1 },
	{ "min",       SCRY_AGG_MIN,       1 },
	{ "max",       SCRY_AGG_MAX,       1 },
	{ "avg",       SCRY_AGG_AVG,       1 },
	{ "stats",     SCRY_AGG_STATS,     1 },
	{ "quantize",  SCRY_AGG_QUANTIZE,  1 },
	{ "hist",      SCRY_AGG_QUANTIZE,  1 },
	{ "lquantize", SCRY_AGG_LQUANTIZE, 4 },
	{ "lhist",     SCRY_AGG_LQUANTIZE, 4 },
};

static const struct agg_def *agg_find(const struct expr_node *n)
{
	size_t i;

	if (n->kind != EXPR_CALL)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(aggs); i++)
		if (!strcmp(aggs[i].name, n->name))
			return &aggs[i];
	return NULL;
}

/*
 * DTrace's lquantize: levels = (high - low) / step whole steps, slot 0
 * for v < low, 1 + i for [low + i*step, low + (i+1)*step), levels + 1
 * for v >= low + levels*step. The distance is taken in unsigned, where
 * high - low always fits (it may not in __s64).
 */
static int plan_lquantize(struct cc *c, const struct expr_node *call,
			  struct plan_map *m)
{
	__s64 low, high, step;
	__u64 levels;
	int ret;

	ret = const_int(c, call->args[1], &low, "lquantize low");
	ret = ret ? : const_int(c, call->args[2], &high, "lquantize high");
	ret = ret ? : const_int(c, call->args[3], &step, "lquantize step");
	if (ret)
		return ret;
	if (step <= 0)
		return fail(c->err, call->args[3]->col, "lquantize step must "
			    "be positive");
	if (high <= low)
		return fail(c->err, call->args[2]->col, "lquantize high must "
			    "be above low");
	levels = ((__u64)high - (__u64)low) / (__u64)step;
	if (levels < 1)
		return fail(c->err, call->args[3]->col, "lquantize step is "
			    "larger than high - low: no bucket fits; lower "
			    "the step");
	if (levels > SCRY_NBUCKETS - 2)
		return fail(c->err, call->args[3]->col, "lquantize has at "
			    "most %d steps, (high - low) / step is %llu: "
			    "raise the step", SCRY_NBUCKETS - 2,
			    (unsigned long long)levels);
	if (m->lq_levels && (m->lq_low != low || m->lq_step != step ||
			     m->lq_high != high))
		return fail(c->err, call->col, "%s has other lquantize "
			    "parameters elsewhere", m->name);
	m->lq_low = low;
	m->lq_high = high;
	m->lq_step = step;
	m->lq_levels = levels;
	return 0;
}

/* The unit of an aggregated value, when it is a plain field: "ns" */
static const char *value_unit(const struct expr_node *v)
{
	const struct builtin *b;

	if (v->kind != EXPR_IDENT)
		return NULL;
	b = builtin_find(v->name);
	return b ? b->unit : NULL;
}

/* @m[keys] = AGG(args) */
static int compile_agg(struct cc *c, const struct expr_node *target,
		       const struct expr_node *call, const struct agg_def *ad)
{
	struct plan_map *m;
	struct plan_type v = T_INT;
	int mi, spec, ret, pushed, strs;

	if (call->nargs != ad->nargs)
		return fail(c->err, call->col, "%s() takes %d argument%s",
			    ad->name, ad->nargs, ad->nargs == 1 ? "" : "s");
	mi = map_get(c, target, true);
	if (mi < 0)
		return mi;
	m = &c->p->maps[mi];
	if (m->nkeys < 0 && m->val.kind == PLAN_V_NONE) {
		m->kind = PLAN_MAP_AGG;
		m->agg = ad->agg;
		m->val = (struct plan_type){ .kind = PLAN_V_AGG };
		m->unit = ad->nargs ? value_unit(call->args[0]) : NULL;
	} else if (m->kind != PLAN_MAP_AGG || m->agg != ad->agg) {
		return fail(c->err, call->col, "%s is %s at column %d: one "
			    "map, one kind of value", m->name,
			    m->kind == PLAN_MAP_VAR ? "a variable" :
			    "another aggregation", m->col);
	}
	if (ad->agg == SCRY_AGG_LQUANTIZE) {
		ret = plan_lquantize(c, call, m);
		if (ret)
			return ret;
	}
	ret = compile_keys(c, m, mi, target, &spec, &pushed, &strs);
	if (ret)
		return ret;
	if (ad->nargs) {
		ret = compile_expr(c, call->args[0], &v);
		ret = ret ? : want_int(c, &v, call->args[0]->col, ad->name);
		if (ret)
			return ret;
	} else if (emit(c, call->col, SCRY_OP_IMM, 0, 0, 0, 0, 1, 0, 1)) {
		return -EINVAL;
	}
	c->impure = true;
	return emit_map(c, call->col, SCRY_OP_MAGG, mi, spec, pushed + 1,
			strs, 0);
}

/* ---- printf ------------------------------------------------------------- */

static char *xstrndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* Can a value of type @t print with %s? (as its string, symbol, name) */
static bool prints_as_string(const struct plan_type *t)
{
	if (t->kind == PLAN_V_STR)
		return true;
	if (t->kind != PLAN_V_INT || is_charptr(t))
		return false;
	return t->fmt == PLAN_F_STRID || t->fmt == PLAN_F_KSTACK ||
	       t->fmt == PLAN_F_USTACK || t->fmt == PLAN_F_KSYM ||
	       t->fmt == PLAN_F_USYM || t->fmt == PLAN_F_PROBE ||
	       t->fmt == PLAN_F_FUNC || t->fmt == PLAN_F_INET;
}

/*
 * Split a printf format into its conversions: the literal text before
 * each, its spec rewritten for how the value arrives (%lld for numbers,
 * %s for strings, symbols, names), the type it wants. %% is a '%'.
 */
static int parse_format(struct cc *c, struct plan_out *o, const char *fmt,
			int col)
{
	char text[512], spec[32];
	size_t t = 0, i = 0, s0;
	const char *conv;

	while (fmt[i]) {
		if (fmt[i] != '%' || fmt[i + 1] == '%') {
			if (t + 1 >= sizeof(text))
				return fail(c->err, col, "printf format too "
					    "long");
			text[t++] = fmt[i];
			i += fmt[i] == '%' ? 2 : 1;
			continue;
		}
		s0 = i++;
		i += strspn(fmt + i, "-+ #0");
		i += strspn(fmt + i, "0123456789");
		if (fmt[i] == '.') {
			i++;
			i += strspn(fmt + i, "0123456789");
		}
		if (i - s0 > 16)
			return fail(c->err, col, "printf: conversion '%.*s' "
				    "too long", (int)(i - s0 + 1), fmt + s0);
		/* length modifiers mean nothing: values are 64-bit */
		i += strspn(fmt + i, "hlLjzt");
		conv = fmt[i] && fmt[i] != '\n' ?
		       strchr("diouxXcsp", fmt[i]) : NULL;
		if (!conv)
			return fail(c->err, col, "printf: unknown conversion "
				    "'%.*s' (d i u o x X c s p, with flags, "
				    "width, precision)", (int)(i - s0 +
				    (fmt[i] ? 1 : 0)), fmt + s0);
		if (o->nconvs >= SCRY_MAX_OUT_ARGS)
			return fail(c->err, col, "printf: at most %d values",
				    SCRY_MAX_OUT_ARGS);
		/* the spec without length modifiers */
		snprintf(spec, sizeof(spec), "%%%.*s", (int)strcspn(fmt + s0 + 1,
			 "hlLqjztdiouxXcsp"), fmt + s0 + 1);
		text[t] = '\0';
		o->convs[o->nconvs].text = strdup(text);
		switch (*conv) {
		case 's':
			strcat(spec, "s");
			o->convs[o->nconvs].type = T_STR;
			break;
		case 'c':
			strcat(spec, "c");
			o->convs[o->nconvs].type = T_INT;
			break;
		case 'p':
			/* "%p": 0x and lower-case hex, as glibc */
			snprintf(spec, sizeof(spec), "0x%%llx");
			o->convs[o->nconvs].type = T_INT;
			break;
		default:
			strcat(spec, *conv == 'd' || *conv == 'i' ? "lld" :
			       *conv == 'u' ? "llu" : *conv == 'o' ? "llo" :
			       *conv == 'x' ? "llx" : "llX");
			o->convs[o->nconvs].type = T_INT;
			break;
		}
		o->convs[o->nconvs].spec = strdup(spec);
		if (!o->convs[o->nconvs].text || !o->convs[o->nconvs].spec)
			return -ENOMEM;
		o->nconvs++;
		t = 0;
		i++;
	}
	o->tail = xstrndup(text, t);
	return o->tail ? 0 : -ENOMEM;
}

static struct plan_out *out_new(struct cc *c, enum plan_out_kind kind,
				int col)
{
	struct plan_out *o;

	if (c->p->nouts >= SCRY_MAX_OUTS) {
		fail(c->err, col, "too many printf and actions (at most %d)",
		     SCRY_MAX_OUTS);
		return NULL;
	}
	o = &c->p->outs[c->p->nouts++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->map = -1;
	c->p->has_events = true;
	return o;
}

/* The record: the header, then each value, a number or a string slot. */
static int out_emit(struct cc *c, struct plan_out *o, int col, int nvals,
		    const struct plan_type *types, int strs)
{
	size_t size = sizeof(struct scry_out_hdr);
	int i;

	o->def.kind = o->kind == PLAN_OUT_PRINTF || o->kind ==
		      PLAN_OUT_VALUE || o->kind == PLAN_OUT_JOIN ?
		      SCRY_OUT_PRINTF : SCRY_OUT_ACTION;
	o->def.nargs = nvals;
	for (i = 0; i < nvals; i++) {
		o->def.args[i] = types[i].kind == PLAN_V_STR ? SCRY_OUT_STR :
				 SCRY_OUT_INT;
		size += types[i].kind == PLAN_V_STR ?
			sizeof(struct scry_path) : sizeof(__s64);
	}
	o->def.size = size;
	c->impure = true;
	if (emit(c, col, SCRY_OP_OUT, 0, 0, 0, 0, o - c->p->outs, nvals, 0))
		return -EINVAL;
	c->slot -= strs;
	return 0;
}

/* printf(FORMAT, values...) */
static int compile_printf(struct cc *c, const struct expr_node *n)
{
	struct plan_type types[SCRY_MAX_OUT_ARGS];
	struct plan_out *o;
	int i, ret, strs = 0;

	if (n->nargs < 1 || n->args[0]->kind != EXPR_STR)
		return fail(c->err, n->col, "printf() is written printf(\"FORMAT"
			    "\", values...) with the format a string");
	o = out_new(c, PLAN_OUT_PRINTF, n->col);
	if (!o)
		return -EINVAL;
	o->fmt = strdup(n->args[0]->sval);
	if (!o->fmt)
		return -ENOMEM;
	ret = parse_format(c, o, o->fmt, n->args[0]->col);
	if (ret)
		return ret;
	if (o->nconvs != n->nargs - 1)
		return fail(c->err, n->col, "printf: the format has %d "
			    "conversion%s, and %d value%s follow%s it",
			    o->nconvs, o->nconvs == 1 ? "" : "s", n->nargs - 1,
			    n->nargs == 2 ? "" : "s", n->nargs == 2 ? "s" : "");
	for (i = 0; i < o->nconvs; i++) {
		const struct expr_node *a = n->args[i + 1];
		struct plan_conv *cv = &o->convs[i];
		char what[48];

		ret = compile_expr(c, a, &types[i]);
		if (ret)
			return ret;
		snprintf(what, sizeof(what), "printf's %s", cv->spec);
		if (cv->type.kind == PLAN_V_STR) {
			if (!prints_as_string(&types[i]))
				return want_str(c, &types[i], a->col, "%s");
		} else {
			ret = want_int(c, &types[i], a->col, what);
			if (ret)
				return ret;
		}
		strs += types[i].kind == PLAN_V_STR;
		/* how user space prints it: the value's own type */
		cv->type = types[i];
	}
	return out_emit(c, o, n->col, o->nconvs, types, strs);
}

/* print(@m), printa(@m), clear(@m), zero(@m): done by scry in order */
static int compile_map_action(struct cc *c, const struct expr_node *n,
			      enum plan_out_kind kind)
{
	const struct expr_node *a = n->nargs ? n->args[n->nargs - 1] : NULL;
	const struct expr_node *top = NULL;
	struct plan_out *o;
	int mi;

	/* bpftrace's print(@map, N): its N largest rows */
	if (kind == PLAN_OUT_PRINT && n->nargs == 2 &&
	    n->args[0]->kind == EXPR_MAP) {
		a = n->args[0];
		top = n->args[1];
		if (top->kind != EXPR_INT || top->ival < 0)
			return fail(c->err, top->col, "print(@map, N): N is a "
				    "number of rows, written as a number");
	}
	if (!a || a->kind != EXPR_MAP || a->has_keys || n->nargs > 2)
		return fail(c->err, n->col, "%s() is written %s(@map)%s",
			    n->name, n->name, kind == PLAN_OUT_PRINT ?
			    " or print(@map, N)" : "");
	mi = map_get(c, a, false);
	if (mi < 0 && !c->declare)
		return fail(c->err, a->col, "@%s is never assigned", a->name);
	o = out_new(c, kind, n->col);
	if (!o)
		return -EINVAL;
	o->map = mi;
	o->top = top ? top->ival : 0;
	if (kind == PLAN_OUT_PRINT && mi >= 0)
		c->p->maps[mi].printed = true;
	return out_emit(c, o, n->col, 0, NULL, 0);
}

/* print(value), trace(value): the value on a line */
static int compile_print_value(struct cc *c, const struct expr_node *n)
{
	struct plan_type t;
	struct plan_out *o;
	int ret;

	if (n->nargs != 1)
		return fail(c->err, n->col, "%s() is written %s(@map) or "
			    "%s(value)", n->name, n->name, n->name);
	o = out_new(c, PLAN_OUT_VALUE, n->col);
	if (!o)
		return -EINVAL;
	ret = compile_expr(c, n->args[0], &t);
	if (ret)
		return ret;
	if (t.kind != PLAN_V_STR && t.kind != PLAN_V_INT)
		return fail(c->err, n->args[0]->col, "%s() prints a value "
			    "or a map, not %s", n->name, type_name(&t));
	o->nconvs = 1;
	o->convs[0].text = strdup("");
	o->convs[0].spec = strdup(prints_as_string(&t) ? "%s" : "%lld");
	o->convs[0].type = t;
	o->tail = strdup("\n");
	if (!o->convs[0].text || !o->convs[0].spec || !o->tail)
		return -ENOMEM;
	return out_emit(c, o, n->col, 1, &t, t.kind == PLAN_V_STR);
}

static int compile_exit(struct cc *c, const struct expr_node *n)
{
	struct plan_out *o;

	if (n->nargs > 1)
		return fail(c->err, n->col, "exit() is written exit()");
	o = out_new(c, PLAN_OUT_EXIT, n->col);
	return o ? out_emit(c, o, n->col, 0, NULL, 0) : -EINVAL;
}

static int compile_time(struct cc *c, const struct expr_node *n)
{
	struct plan_out *o;

	if (n->nargs > 1 || (n->nargs && n->args[0]->kind != EXPR_STR))
		return fail(c->err, n->col, "time() is written time() or "
			    "time(\"STRFTIME FORMAT\")");
	o = out_new(c, PLAN_OUT_TIME, n->col);
	if (!o)
		return -EINVAL;
	o->fmt = strdup(n->nargs ? n->args[0]->sval : "%H:%M:%S\n");
	if (!o->fmt)
		return -ENOMEM;
	return out_emit(c, o, n->col, 0, NULL, 0);
}

/* signal(SIG), raise(SIG): destructive, only with --unsafe */
static int compile_signal(struct cc *c, const struct expr_node *n)
{
	static const struct { const char *name; int nr; } sigs[] = {
		{ "HUP", 1 }, { "INT", 2 }, { "QUIT", 3 }, { "ILL", 4 },
		{ "TRAP", 5 }, { "ABRT", 6 }, { "BUS", 7 }, { "FPE", 8 },
		{ "KILL", 9 }, { "USR1", 10 }, { "SEGV", 11 }, { "USR2", 12 },
		{ "PIPE", 13 }, { "ALRM", 14 }, { "TERM", 15 }, { "CHLD", 17 },
		{ "CONT", 18 }, { "STOP", 19 }, { "TSTP", 20 },
	};
	const struct expr_node *a = n->nargs == 1 ? n->args[0] : NULL;
	struct plan_type t;
	__s64 nr = -1;
	size_t i;
	int ret;

	if (!a)
		return fail(c->err, n->col, "%s() is written %s(SIGNAL), "
			    "e.g. %s(\"SIGKILL\") or %s(9)", n->name, n->name,
			    n->name, n->name);
	if (!c->p->unsafe)
		return fail(c->err, n->col, "%s() sends signals to traced "
			    "processes: allow it with --unsafe (bpftrace's "
			    "--unsafe, DTrace's -w)", n->name);
	c->p->uses_signal = true;
	c->impure = true;
	if (a->kind == EXPR_STR) {
		const char *s = a->sval + (strncmp(a->sval, "SIG", 3) ? 0 : 3);

		for (i = 0; i < ARRAY_SIZE(sigs); i++)
			if (!strcmp(s, sigs[i].name))
				nr = sigs[i].nr;
		if (nr < 0)
			return fail(c->err, a->col, "unknown signal '%s'",
				    a->sval);
		ret = emit(c, a->col, SCRY_OP_IMM, 0, 0, 0, 0, nr, 0, 1);
	} else {
		ret = compile_expr(c, a, &t);
		ret = ret ? : want_int(c, &t, a->col, n->name);
	}
	return ret ? : emit(c, n->col, SCRY_OP_SIGNAL, 0, 0, 0, 0, 0, 1, 0);
}

/* join(ARGV [, SEP]): execve's argv on a line, SEP between (" ") */
static int compile_join(struct cc *c, const struct expr_node *n)
{
	struct plan_type t;
	struct plan_out *o;
	int ret;

	if (n->nargs < 1 || n->nargs > 2 ||
	    (n->nargs == 2 && n->args[1]->kind != EXPR_STR))
		return fail(c->err, n->col, "join() is written join(ARGV) or "
			    "join(ARGV, \"SEPARATOR\")");
	ret = compile_expr(c, n->args[0], &t);
	ret = ret ? : want_int(c, &t, n->args[0]->col, "join()");
	if (ret)
		return ret;
	o = out_new(c, PLAN_OUT_JOIN, n->col);
	if (!o)
		return -EINVAL;
	o->sep = strdup(n->nargs == 2 ? n->args[1]->sval : " ");
	if (!o->sep)
		return -ENOMEM;
	o->def.kind = SCRY_OUT_JOIN;
	o->def.size = sizeof(struct scry_out_hdr) + sizeof(__u64) +
		      SCRY_JOIN_ARGS * SCRY_JOIN_LEN;
	c->impure = true;
	return emit(c, n->col, SCRY_OP_JOIN, 0, 0, 0, 0, o - c->p->outs, 1, 0);
}

/* delete(@m[k]), and newer bpftrace's delete(@m, k) */
static int compile_delete(struct cc *c, const struct expr_node *n)
{
	const struct expr_node *a = n->nargs ? n->args[0] : NULL;
	struct expr_node keyed;
	int mi, spec, pushed, strs, ret;

	if (a && a->kind == EXPR_MAP && !a->has_keys && n->nargs == 2) {
		keyed = *a;
		keyed.has_keys = true;
		keyed.args = &n->args[1];
		keyed.nargs = 1;
		a = &keyed;
	}
	if (!a || a->kind != EXPR_MAP || n->nargs != 1 + (a == &keyed))
		return fail(c->err, n->col, "delete() is written "
			    "delete(@map[key]) or delete(@map, key)");
	mi = map_get(c, a, false);
	c->impure = true;
	if (mi < 0) {
		if (c->declare)
			return 0;
		return fail(c->err, a->col, "@%s is never assigned", a->name);
	}
	if (c->p->maps[mi].kind == PLAN_MAP_AGG)
		return fail(c->err, a->col, "%s is an aggregation: clear(%s) "
			    "empties it", c->p->maps[mi].name,
			    c->p->maps[mi].name);
	ret = compile_keys(c, &c->p->maps[mi], mi, a, &spec, &pushed, &strs);
	return ret ? : emit_map(c, n->col, SCRY_OP_MDEL, mi, spec, pushed,
				strs, 0);
}

/* A call as a statement: printf() and the other actions. */
static int compile_call_stmt(struct cc *c, const struct expr_node *n)
{
	const char *f = n->name;

	if (!strcmp(f, "printf"))
		return compile_printf(c, n);
	if ((!strcmp(f, "print") || !strcmp(f, "trace")) && n->nargs == 1 &&
	    !(n->args[0]->kind == EXPR_MAP && !n->args[0]->has_keys &&
	      !strcmp(f, "print")))
		return compile_print_value(c, n);
	if (!strcmp(f, "print") || !strcmp(f, "printa"))
		return compile_map_action(c, n, PLAN_OUT_PRINT);
	if (!strcmp(f, "clear") || !strcmp(f, "trunc"))
		return compile_map_action(c, n, PLAN_OUT_CLEAR);
	if (!strcmp(f, "zero"))
		return compile_map_action(c, n, PLAN_OUT_ZERO);
	if (!strcmp(f, "delete"))
		return compile_delete(c, n);
	if (!strcmp(f, "exit"))
		return compile_exit(c, n);
	if (!strcmp(f, "time"))
		return compile_time(c, n);
	if (!strcmp(f, "signal") || !strcmp(f, "raise"))
		return compile_signal(c, n);
	if (!strcmp(f, "join"))
		return compile_join(c, n);
	if (agg_find(n))
		return fail(c->err, n->col, "%s() aggregates into a map: "
			    "@name[keys] = %s(...)", f, f);
	return fail(c->err, n->col, "%s(): a value, not a statement (assign "
		    "it: @x = ..., $x = ...)", f);
}

/* ---- statements ------------------------------------------------------- */

static int compile_block(struct cc *c, const struct expr_block *b);

/* $x = v, this->x = v: declared by the first assignment */
static int assign_local(struct cc *c, const struct expr_node *target,
			const struct plan_type *t, int col)
{
	struct plan_clause *cl = c->cl;
	char key[80];
	int i = local_find(cl, local_key(target, key, sizeof(key)));

	if (i < 0) {
		if (cl->nlocals >= SCRY_MAX_LOCALS)
			return fail(c->err, col, "too many variables (at most "
				    "%d)", SCRY_MAX_LOCALS);
		i = cl->nlocals++;
		cl->local_names[i] = strdup(key);
		if (!cl->local_names[i])
			return -ENOMEM;
		cl->local_types[i] = *t;
		if (t->kind == PLAN_V_STR) {
			if (c->nslots <= c->slot)
				return fail(c->err, col, "too many strings: "
					    "at most %d", SCRY_NSLOTS);
			cl->local_slots[i] = --c->nslots;
		}
	} else if (!type_eq(&cl->local_types[i], t) &&
		   !(cl->local_types[i].kind == PLAN_V_INT &&
		     t->kind == PLAN_V_INT)) {
		return fail(c->err, col, "%s holds %s, not %s", key,
			    type_name(&cl->local_types[i]), type_name(t));
	}
	if (t->kind == PLAN_V_STR) {
		slot_put(c, t);
		return emit(c, col, SCRY_OP_SSTORE, cl->local_slots[i], 0, 0,
			    0, 0, 1, 0);
	}
	return emit(c, col, SCRY_OP_STL, i, 0, 0, 0, 0, 1, 0);
}

/* self->x = v: strings kept by their store id */
static int assign_tls(struct cc *c, const struct expr_node *target,
		      const struct plan_type *t, int col)
{
	struct plan *p = c->p;
	int i = tls_find(p, target->name), ret;

	if (i < 0) {
		if (p->ntls >= SCRY_MAX_TLS)
			return fail(c->err, col, "too many self-> variables "
				    "(at most %d)", SCRY_MAX_TLS);
		i = p->ntls++;
		p->tls_names[i] = strdup(target->name);
		if (!p->tls_names[i])
			return -ENOMEM;
		p->tls_types[i] = *t;
	} else if (!type_eq(&p->tls_types[i], t) &&
		   !(p->tls_types[i].kind == PLAN_V_INT &&
		     t->kind == PLAN_V_INT)) {
		return fail(c->err, col, "self->%s holds %s, not %s",
			    target->name, type_name(&p->tls_types[i]),
			    type_name(t));
	}
	p->uses_tls = true;
	c->impure = true;
	if (t->kind == PLAN_V_STR) {
		p->uses_strings = true;
		slot_put(c, t);
		ret = emit(c, col, SCRY_OP_SID, 0, 0, 0, 0, 0, 1, 1);
		if (ret)
			return ret;
	}
	return emit(c, col, SCRY_OP_STT, i, 0, 0, 0, 0, 1, 0);
}

/* @m[k] = v: a variable map holding v's type */
static int assign_map(struct cc *c, const struct expr_stmt *s)
{
	const struct expr_node *target = s->target;
	struct plan_type t;
	struct plan_map *m;
	int mi, spec, pushed, strs, ret;

	mi = map_get(c, target, true);
	if (mi < 0)
		return mi;
	m = &c->p->maps[mi];
	if (m->val.kind == PLAN_V_AGG)
		return fail(c->err, s->col, "%s is an aggregation (column "
			    "%d): it takes count(), sum() ..., not a value",
			    m->name, m->col);
	ret = compile_keys(c, m, mi, target, &spec, &pushed, &strs);
	if (ret)
		return ret;
	if (s->op != EXPR_NOPS) {	/* @m[k] OP= v, without += and -= */
		int spec2, p2, s2;

		if (m->val.kind != PLAN_V_INT && m->val.kind != PLAN_V_NONE)
			return fail(c->err, s->col, "%s holds %s: '%s=' needs "
				    "a number", m->name, type_name(&m->val),
				    expr_op_name(s->op));
		ret = compile_keys(c, m, mi, target, &spec2, &p2, &s2);
		ret = ret ? : emit_map(c, s->col, SCRY_OP_MLOAD, mi, spec2, p2,
				       s2, 1);
		ret = ret ? : compile_expr(c, s->value, &t);
		ret = ret ? : want_int(c, &t, s->value->col, "the value");
		ret = ret ? : emit(c, s->col, bin_ops[s->op], 0, 0, 0, 0, 0, 2,
				   1);
		if (ret)
			return ret;
		t = T_INT;
	} else {
		ret = compile_expr(c, s->value, &t);
		if (ret)
			return ret;
	}
	if (t.kind == PLAN_V_AGG || t.kind == PLAN_V_NONE)
		return fail(c->err, s->value->col, "not a value");
	/*
	 * A char * is stored as its address, as bpftrace does: opensnoop's
	 * @filename[tid] = args->filename at entry, str() of it at return,
	 * when the kernel has read the string.
	 */
	if (is_charptr(&t))
		t = T_INT;
	if (m->val.kind == PLAN_V_NONE) {
		m->kind = PLAN_MAP_VAR;
		m->val = t;
	} else if (!type_eq(&m->val, &t) && !(m->val.kind == PLAN_V_INT &&
					      t.kind == PLAN_V_INT)) {
		return fail(c->err, s->value->col, "%s holds %s (column %d), "
			    "not %s", m->name, type_name(&m->val), m->col,
			    type_name(&t));
	}
	c->impure = true;
	c->p->uses_vars = true;
	if (t.kind == PLAN_V_STR)
		c->p->uses_strings = true;
	ret = emit(c, s->col, SCRY_OP_MSTORE, mi, spec, t.kind == PLAN_V_STR,
		   0, 0, pushed + 1, 0);
	c->slot -= strs + (t.kind == PLAN_V_STR);
	return ret;
}

/* @m[k] += v, @m[k]++ : an atomic add */
static int add_map(struct cc *c, const struct expr_node *target,
		   const struct expr_node *value, bool negate, int col)
{
	struct plan_type t = T_INT;
	struct plan_map *m;
	int mi, spec, pushed, strs, ret;

	mi = map_get(c, target, true);
	if (mi < 0)
		return mi;
	m = &c->p->maps[mi];
	if (m->val.kind == PLAN_V_NONE) {
		m->kind = PLAN_MAP_VAR;
		m->val = T_INT;
	} else if (m->val.kind != PLAN_V_INT) {
		return fail(c->err, col, "%s holds %s: it does not add up",
			    m->name, type_name(&m->val));
	}
	ret = compile_keys(c, m, mi, target, &spec, &pushed, &strs);
	if (ret)
		return ret;
	if (value) {
		ret = compile_expr(c, value, &t);
		ret = ret ? : want_int(c, &t, value->col, "the value");
	} else {
		ret = emit(c, col, SCRY_OP_IMM, 0, 0, 0, 0, 1, 0, 1);
	}
	if (!ret && negate)
		ret = emit(c, col, SCRY_OP_NEG, 0, 0, 0, 0, 0, 1, 1);
	if (ret)
		return ret;
	c->impure = true;
	c->p->uses_vars = true;
	return emit_map(c, col, SCRY_OP_MADD, mi, spec, pushed + 1, strs, 0);
}

/* $x OP= v, self->x OP= v, $x++ */
static int update_scalar(struct cc *c, const struct expr_stmt *s)
{
	struct plan_type t, v = T_INT;
	int ret;

	ret = compile_expr(c, s->target, &t);
	ret = ret ? : want_int(c, &t, s->target->col, s->kind ==
			       EXPR_STMT_INCR ? "'++'" : "the variable");
	if (s->kind == EXPR_STMT_INCR)
		ret = ret ? : emit(c, s->col, SCRY_OP_IMM, 0, 0, 0, 0, 1, 0, 1);
	else
		ret = ret ? : compile_expr(c, s->value, &v);
	ret = ret ? : want_int(c, &v, s->col, "the value");
	ret = ret ? : emit(c, s->col, bin_ops[s->op], 0, 0, 0, 0, 0, 2, 1);
	if (ret)
		return ret;
	t = T_INT;
	if (s->target->kind == EXPR_TLS)
		return assign_tls(c, s->target, &t, s->col);
	return assign_local(c, s->target, &t, s->col);
}

static int compile_assign(struct cc *c, const struct expr_stmt *s)
{
	const struct agg_def *ad = agg_find(s->value);
	struct plan_type t;
	int ret;

	if (s->target->kind == EXPR_MAP) {
		if (ad && s->op == EXPR_NOPS)
			return compile_agg(c, s->target, s->value, ad);
		if (ad)
			return fail(c->err, s->col, "an aggregation is "
				    "assigned with '=': @m = %s(...)",
				    ad->name);
		if (s->op == EXPR_ADD || s->op == EXPR_SUB)
			return add_map(c, s->target, s->value,
				       s->op == EXPR_SUB, s->col);
		return assign_map(c, s);
	}
	if (ad)
		return fail(c->err, s->value->col, "%s() aggregates into a "
			    "map: @name[keys] = %s(...)", ad->name, ad->name);
	if (s->op != EXPR_NOPS)
		return update_scalar(c, s);
	ret = compile_expr(c, s->value, &t);
	if (ret)
		return ret;
	if (t.kind == PLAN_V_NONE || t.kind == PLAN_V_AGG)
		return fail(c->err, s->value->col, "not a value");
	if (is_charptr(&t))
		t.fmt = PLAN_F_PLAIN;	/* a pointer: as a number */
	if (s->target->kind == EXPR_TLS)
		return assign_tls(c, s->target, &t, s->col);
	return assign_local(c, s->target, &t, s->col);
}

static int compile_if(struct cc *c, const struct expr_stmt *s)
{
	struct plan_type t;
	int ret, jz, jmp;

	ret = compile_expr(c, s->value, &t);
	ret = ret ? : want_int(c, &t, s->value->col, "if");
	if (ret)
		return ret;
	slot_put(c, &t);
	jz = c->n;
	ret = emit(c, s->col, SCRY_OP_JZ, 0, 0, 0, 0, 0, 1, 0);
	ret = ret ? : compile_block(c, &s->then);
	if (ret)
		return ret;
	if (!s->has_else) {
		c->code[jz].d = c->n;
		return 0;
	}
	jmp = c->n;
	ret = emit(c, s->col, SCRY_OP_JMP, 0, 0, 0, 0, 0, 0, 0);
	c->code[jz].d = c->n;
	ret = ret ? : compile_block(c, &s->other);
	c->code[jmp].d = c->n;
	return ret;
}

static int compile_stmt(struct cc *c, const struct expr_stmt *s)
{
	int sp0 = c->sp, slot0 = c->slot, ret;

	switch (s->kind) {
	case EXPR_STMT_EXPR:
		if (s->value->kind != EXPR_CALL)
			return fail(c->err, s->col, "this statement does "
				    "nothing: assign it (@x = ...) or print "
				    "it (printf, print)");
		ret = compile_call_stmt(c, s->value);
		break;
	case EXPR_STMT_ASSIGN:
		ret = compile_assign(c, s);
		break;
	case EXPR_STMT_INCR:
		if (s->target->kind == EXPR_MAP)
			ret = add_map(c, s->target, NULL, s->op == EXPR_SUB,
				      s->col);
		else
			ret = update_scalar(c, s);
		break;
	case EXPR_STMT_IF:
		ret = compile_if(c, s);
		break;
	default:
		ret = fail(c->err, s->col, "internal error: statement");
	}
	if (!ret && (c->sp != sp0 || c->slot != slot0))
		return fail(c->err, s->col, "internal error: unbalanced "
			    "statement (%d values, %d strings left)",
			    c->sp - sp0, c->slot - slot0);
	return ret;
}

static int compile_block(struct cc *c, const struct expr_block *b)
{
	int i, ret;

	for (i = 0; i < b->n; i++) {
		ret = compile_stmt(c, b->stmts[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- clauses ---------------------------------------------------------- */

/*
 * Append program @src[0..n) to @dst at *at, moving its jump targets;
 * "&& previous" when something was there already.
 */
static int append(struct cc *dst, const struct scry_insn *src, int n,
		  int col)
{
	int i, base = dst->n;

	if (dst->n + n + (base > 0) >= dst->max)
		return fail(dst->err, col, "clause too long: at most %d "
			    "operations%s", dst->max - 1, dst->max ==
			    SCRY_MAX_BEGIN_INSNS ? " run at the begin of an "
			    "event" : "");
	for (i = 0; i < n; i++) {
		dst->code[dst->n] = src[i];
		if (src[i].op == SCRY_OP_JMP || src[i].op == SCRY_OP_JZ)
			dst->code[dst->n].d += base;
		dst->n++;
	}
	if (base > 0) {
		memset(&dst->code[dst->n], 0, sizeof(dst->code[dst->n]));
		dst->code[dst->n++].op = SCRY_OP_LAND;
	}
	return 0;
}

/*
 * One conjunct of the predicate: compiled alone to learn whether it
 * needs only what an event knows when it begins, then placed in the
 * begin program or at the top of the body.
 */
static int place_conjunct(struct cc *body, struct cc *begin,
			  const struct expr_node *n, int *nbody)
{
	struct scry_insn tmp[SCRY_MAX_INSNS];
	struct cc one = *body;
	struct plan_type t;
	int ret;

	one.code = tmp;
	one.n = 0;
	one.max = SCRY_MAX_INSNS;
	one.sp = 0;
	one.slot = 0;
	one.uses_end = one.impure = false;
	ret = compile_expr(&one, n, &t);
	ret = ret ? : want_int(&one, &t, n->col, "a predicate");
	if (ret)
		return ret;
	if (!one.uses_end && !one.impure && !body->cl->special) {
		begin->sp = 1;
		return append(begin, tmp, one.n, n->col);
	}
	ret = append(body, tmp, one.n, n->col);
	if (!ret)
		(*nbody)++;
	body->sp = 1;
	return ret;
}

static int split_conjuncts(struct cc *body, struct cc *begin,
			   const struct expr_node *n, int *nbody)
{
	int ret;

	if (n->kind != EXPR_BINARY || n->op != EXPR_LAND)
		return place_conjunct(body, begin, n, nbody);
	ret = split_conjuncts(body, begin, n->left, nbody);
	return ret ? : split_conjuncts(body, begin, n->right, nbody);
}

static void clause_reset(struct plan_clause *cl)
{
	int i;

	for (i = 0; i < cl->nlocals; i++)
		free(cl->local_names[i]);
	cl->nlocals = 0;
	cl->nbegin = cl->nbody = 0;
	cl->ntp_fields = 0;
	memset(cl->begin, 0, sizeof(cl->begin));
	memset(cl->body, 0, sizeof(cl->body));
	cl->flags &= ~(SCRY_CL_KSTACK | SCRY_CL_USTACK | SCRY_CL_FDPATH |
		       SCRY_CL_COMM | SCRY_CL_UGID | SCRY_CL_PROBE);
}

static int compile_clause(struct plan *p, int ci, bool declare,
			  struct expr_error *err)
{
	struct plan_clause *cl = &p->clauses[ci];
	const struct expr_clause *ec = cl->ec;
	struct cc body = {
		.p = p, .cl = cl, .ci = ci, .code = cl->body,
		.max = SCRY_MAX_INSNS, .nslots = SCRY_NSLOTS,
		.declare = declare, .err = err,
	};
	struct cc begin = body;
	int ret, jz = -1, nbody = 0;

	begin.code = cl->begin;
	begin.max = SCRY_MAX_BEGIN_INSNS;
	clause_reset(cl);
	if (ec->pred) {
		ret = split_conjuncts(&body, &begin, ec->pred, &nbody);
		if (ret)
			return ret;
		if (nbody) {
			jz = body.n;
			ret = emit(&body, cl->col, SCRY_OP_JZ, 0, 0, 0, 0, 0,
				   1, 0);
			if (ret)
				return ret;
		}
	}
	/* stacks once the predicate passed (at begin: the adapter's) */
	body.sp = 0;
	if (ec->has_body) {
		ret = compile_block(&body, &ec->body);
		if (ret)
			return ret;
	} else if (!declare || true) {
		/* a bare probe counts its firings: @ = count() */
		struct expr_node at = { .kind = EXPR_MAP, .col = cl->col,
					.name = (char *)"" };
		struct expr_node cnt = { .kind = EXPR_CALL, .col = cl->col,
					 .name = (char *)"count" };

		ret = compile_agg(&body, &at, &cnt, agg_find(&cnt));
		if (ret)
			return ret;
	}
	if (cl->flags & (SCRY_CL_KSTACK | SCRY_CL_USTACK) &&
	    !(cl->flags & SCRY_CL_STACKS_AT_BEGIN)) {
		/* the walk goes right after the predicate's jump */
		int at = jz + 1, i;

		if (body.n >= body.max - 1)
			return fail(err, cl->col, "clause too long: at most "
				    "%d operations", body.max - 1);
		memmove(&cl->body[at + 1], &cl->body[at],
			(body.n - at) * sizeof(cl->body[0]));
		memset(&cl->body[at], 0, sizeof(cl->body[at]));
		cl->body[at].op = SCRY_OP_STACKS;
		body.n++;
		for (i = 0; i < body.n; i++)
			if ((cl->body[i].op == SCRY_OP_JMP ||
			     cl->body[i].op == SCRY_OP_JZ) &&
			    (int)cl->body[i].d >= at && i != jz)
				cl->body[i].d++;
	}
	if (jz >= 0)
		cl->body[jz].d = body.n;	/* the END */
	cl->nbegin = begin.n;
	cl->nbody = body.n;
	return 0;
}

/* What `probe` and `func` say for each of the clause's probes. */
static int clause_labels(struct plan *p, int ci)
{
	struct plan_clause *cl = &p->clauses[ci];
	int i, j, n = 0;
	char buf[512];

	for (i = 0; i < cl->nprobes; i++)
		n += p->probes[cl->first_probe + i].nnames ?
		     p->probes[cl->first_probe + i].nnames : 1;
	cl->labels = calloc(n, sizeof(*cl->labels));
	cl->funcs = calloc(n, sizeof(*cl->funcs));
	if (!cl->labels || !cl->funcs)
		return -ENOMEM;
	for (i = 0; i < cl->nprobes; i++) {
		struct plan_probe *pp = &p->probes[cl->first_probe + i];
		const struct expr_probe *ep = pp->ep;
		const char *kind;

		pp->cookie0 = cl->nlabels;
		if (pp->src == &source_syscall)
			cl->by_syscall = true;
		/* as bpftrace names it: t:sched:x is tracepoint:sched:x */
		kind = pp->src->alias && !strcmp(ep->kind, pp->src->alias) ?
		       pp->src->name : ep->kind;
		for (j = 0; j < (pp->nnames ? pp->nnames : 1); j++) {
			const char *func;

			if (pp->nnames) {
				snprintf(buf, sizeof(buf), "%s:%s", kind,
					 pp->names[j]);
				func = strchr(pp->names[j], ':') + 1;
			} else {
				int k, o = snprintf(buf, sizeof(buf), "%s",
						    kind);

				for (k = 0; k < ep->nparts && o < (int)sizeof(buf);
				     k++)
					o += snprintf(buf + o, sizeof(buf) - o,
						      ":%s", ep->parts[k]);
				func = ep->nparts ? ep->parts[ep->nparts - 1] :
				       ep->kind;
			}
			cl->labels[cl->nlabels] = strdup(buf);
			cl->funcs[cl->nlabels] = strdup(func);
			if (!cl->labels[cl->nlabels] ||
			    !cl->funcs[cl->nlabels])
				return -ENOMEM;
			cl->nlabels++;
		}
	}
	return 0;
}

const char *plan_probe_label(const struct plan *p, __u64 v, bool func,
			     char *buf, size_t len)
{
	unsigned ci = v >> 32, i = (__u32)v;
	const struct plan_clause *cl;
	const char *name;

	if (ci >= (unsigned)p->nclauses) {
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
	cl = &p->clauses[ci];
	if (cl->by_syscall) {
		name = plan_syscall_name_of(i);
		if (!name) {
			snprintf(buf, len, "syscall_%u", i);
			name = buf;
		}
		if (func)
			return name;
		snprintf(buf, len, "syscall:%s", name);
		return buf;
	}
	if (i >= (unsigned)cl->nlabels) {
		snprintf(buf, len, "?");
		return buf;
	}
	return func ? cl->funcs[i] : cl->labels[i];
}

/* ---- the program ------------------------------------------------------ */

const char *plan_what(const struct plan *p)
{
	static char buf[32];
	int i, j, n = 0;

	/* probes as written: a split clause's parts are one (split_clause) */
	for (i = 0; i < p->nprobes; i++) {
		for (j = 0; j < i && p->probes[j].ep != p->probes[i].ep; j++)
			;
		n += j == i;
	}
	if (n == 1)
		return p->probes[0].src->name;
	snprintf(buf, sizeof(buf), "%d probes", n);
	return buf;
}

bool plan_in_task(const struct plan *p)
{
	int i;

	for (i = 0; i < p->nprobes; i++)
		if (!(p->probes[i].src->flags & SOURCE_IN_TASK) ||
		    p->probes[i].outside_task)
			return false;
	return true;
}

bool plan_fills_warm(const struct plan *p)
{
	const struct plan_clause *cl = NULL;
	int i, j, naggs = 0;

	for (i = 0; i < p->nprobes; i++) {
		if ((p->probes[i].src->flags & SOURCE_IN_TASK) &&
		    !p->probes[i].outside_task)
			continue;
		if (cl || !(p->probes[i].src->flags & SOURCE_IRQS_OFF))
			return false;
		cl = &p->clauses[p->probes[i].clause];
	}
	if (!cl)
		return false;
	for (j = 0; j < cl->nbody; j++)
		naggs += cl->body[j].op == SCRY_OP_MAGG;
	return naggs <= 1;
}

size_t plan_key_size(const struct plan *p)
{
	size_t n = offsetof(struct scry_key, ints), end;
	int i, j;

	for (i = 0; i < p->nkeyspecs; i++) {
		const struct scry_keyspec *ks = &p->keyspecs[i];

		for (j = 0; j < ks->ncols && j < SCRY_MAX_KEYCOLS; j++) {
			if (ks->dst[j] == SCRY_KC_COMM)
				return sizeof(struct scry_key);
			if (ks->dst[j] >= SCRY_KC_COMM)
				continue;	/* kstack, ustack, pid */
			/* ints[dst & 3], as the engine places them */
			end = offsetof(struct scry_key, ints) +
			      ((ks->dst[j] & 3) + 1) * sizeof(__s64);
			if (end > n)
				n = end;
		}
	}
	return n;
}

int plan_main_map(const struct plan *p)
{
	int i;

	for (i = 0; i < p->nmaps; i++)
		if (p->maps[i].kind == PLAN_MAP_AGG)
			return i;
	return p->nmaps ? 0 : -1;
}

/* Drop what the first pass compiled, keeping its declarations. */
static void reset_for_compile(struct plan *p)
{
	int i, j;

	for (i = 0; i < p->nouts; i++) {
		struct plan_out *o = &p->outs[i];

		for (j = 0; j < o->nconvs; j++) {
			free(o->convs[j].text);
			free(o->convs[j].spec);
		}
		free(o->fmt);
		free(o->tail);
		free(o->sep);
	}
	p->nouts = 0;
	p->nkeyspecs = 0;
	p->nlits = 0;
	p->has_events = false;
}

static bool user_fmt(const struct plan_type *t)
{
	return t->fmt == PLAN_F_USYM || t->fmt == PLAN_F_USTACK;
}

/* A usym() or ustack in a map's key or value, or a printf's argument */
static bool names_user(const struct plan *p)
{
	int i, j;

	for (i = 0; i < p->nmaps; i++) {
		for (j = 0; j < p->maps[i].nkeys; j++)
			if (user_fmt(&p->maps[i].keys[j]))
				return true;
		if (user_fmt(&p->maps[i].val))
			return true;
	}
	for (i = 0; i < p->nouts; i++)
		for (j = 0; j < p->outs[i].nconvs; j++)
			if (user_fmt(&p->outs[i].convs[j].type))
				return true;
	return false;
}

static void summarize(struct plan *p)
{
	bool entry = true;
	int i;

	for (i = 0; i < p->nclauses; i++) {
		const struct plan_clause *cl = &p->clauses[i];
		const struct source *src = p->probes[cl->first_probe].src;

		p->key_kstack |= cl->flags & SCRY_CL_KSTACK;
		if (cl->flags & SCRY_CL_USTACK) {
			p->key_ustack = true;
			entry &= !!(src->flags & SOURCE_AT_ENTRY);
		}
		p->has_end |= cl->flags & SCRY_CL_END;
		if (cl->flags & SCRY_CL_FDPATH)
			p->uses_strings = true;
	}
	p->ustack_at_entry = p->key_ustack && entry;
	p->names_user = p->key_ustack || names_user(p);
	i = plan_main_map(p);
	p->unit = i >= 0 ? p->maps[i].unit : NULL;
}

static int plan_try(const struct expr *e, struct plan *p,
		    const struct plan_env *env, bool unsafe,
		    struct plan_split *splits, struct expr_error *err);

int plan_build(const struct expr *e, struct plan *p,
	       const struct plan_env *env, bool unsafe,
	       struct expr_error *err)
{
	int ret;

	struct plan_split *splits = calloc(e->nclauses ? e->nclauses : 1,
					   sizeof(*splits));

	if (!splits)
		return fail(err, 1, "out of memory");
	/* again while a clause asks to be split (split_by): a few times */
	for (;;) {
		ret = plan_try(e, p, env, unsafe, splits, err);
		if (ret != -EAGAIN)
			break;
		plan_free(p);
	}
	if (ret)
		plan_free(p);
	else
		p->splits = NULL;
	free(splits);
	return ret;
}

/*
 * @ci's tracepoints by where the split's fields are in them: one plan
 * clause each, @ci the first, the others right after it (clauses of one
 * probe run in the order written). Each keeps the expression clause.
 */
static int split_clause(struct plan *p, int ci, const struct plan_split *sp,
			struct expr_error *err)
{
	struct plan_clause *cl = &p->clauses[ci];
	struct plan_probe orig[PLAN_MAX_PROBES];
	char keys[PLAN_MAX_PROBES * 8][64];
	const char *names[PLAN_MAX_PROBES * 8];
	int owner[PLAN_MAX_PROBES * 8];
	int n = 0, norig = cl->nprobes, i, j, k, g, ngroups = 0, ret = 0;
	char **names_k;
	bool placed[PLAN_MAX_PROBES * 8] = { false };

	if (!sp->nfields)
		return 0;
	memcpy(orig, &p->probes[cl->first_probe], norig * sizeof(*orig));
	for (i = 0; i < norig; i++)
		for (j = 0; j < orig[i].nnames; j++) {
			if (n == (int)ARRAY_SIZE(names))
				return fail(err, cl->col, "too many "
					    "tracepoints to split the clause "
					    "by their fields' places");
			names[n] = orig[i].names[j];
			owner[n] = i;
			/* the key: each field's place, or that it has none */
			keys[n][0] = '\0';
			for (k = 0; k < sp->nfields; k++) {
				struct plan_tp_field tf;
				char why[128], cat[256];
				const char *ev = strchr(names[n], ':');
				size_t o = strlen(keys[n]);

				snprintf(cat, sizeof(cat), "%.*s",
					 (int)(ev - names[n]), names[n]);
				if (p->env->tp_field(cat, ev + 1, sp->fields[k],
						     &tf, why, sizeof(why)))
					tf = (struct plan_tp_field){
						.offset = -1 };
				snprintf(keys[n] + o, sizeof(keys[n]) - o,
					 "%d/%d/%d,", tf.offset, tf.size,
					 tf.is_string);
			}
			n++;
		}
	/* the names move to the groups' probes */
	p->nprobes = cl->first_probe;
	for (i = 0; i < n && !ret; i++) {
		struct plan_clause *gc;

		if (placed[i])
			continue;
		g = ngroups == 0 ? ci : ci + ngroups;
		if (ngroups) {
			if (p->nclauses >= SCRY_MAX_CLAUSES) {
				ret = fail(err, cl->col, "too many clauses "
					   "(at most %d) once this one is "
					   "split by its tracepoints' "
					   "fields", SCRY_MAX_CLAUSES);
				break;
			}
			/* room right after the last group */
			memmove(&p->clauses[g + 1], &p->clauses[g],
				(p->nclauses - g) * sizeof(p->clauses[0]));
			p->nclauses++;
			p->clauses[g] = *cl;
		}
		ngroups++;
		gc = &p->clauses[g];
		gc->first_probe = p->nprobes;
		for (k = 0; k < norig && !ret; k++) {
			struct plan_probe *pp;

			for (j = i; j < n; j++)
				if (!placed[j] && owner[j] == k &&
				    !strcmp(keys[j], keys[i]))
					break;
			if (j == n)
				continue;
			if (p->nprobes >= PLAN_MAX_PROBES) {
				ret = fail(err, cl->col, "too many probes "
					   "(at most %d)", PLAN_MAX_PROBES);
				break;
			}
			names_k = calloc(orig[k].nnames, sizeof(*names_k));
			if (!names_k) {
				ret = fail(err, cl->col, "out of memory");
				break;
			}
			pp = &p->probes[p->nprobes++];
			*pp = orig[k];
			pp->clause = g;
			pp->names = names_k;
			pp->nnames = 0;
			for (; j < n; j++)
				if (!placed[j] && owner[j] == k &&
				    !strcmp(keys[j], keys[i])) {
					pp->names[pp->nnames++] =
						(char *)names[j];
					placed[j] = true;
				}
		}
		gc->nprobes = p->nprobes - gc->first_probe;
	}
	/* a failure: what no group took is freed here, the rest by plan_free */
	for (i = 0; i < n; i++)
		if (!placed[i])
			free((char *)names[i]);
	for (i = 0; i < norig; i++)
		free(orig[i].names);	/* the array; the names moved */
	return ret;
}

static int plan_try(const struct expr *e, struct plan *p,
		    const struct plan_env *env, bool unsafe,
		    struct plan_split *splits, struct expr_error *err)
{
	int i, ci, first, ret, pass;

	memset(p, 0, sizeof(*p));
	p->expr = e;
	p->env = env;
	p->unsafe = unsafe;
	p->splits = splits;
	for (i = 0; i < e->nclauses; i++) {
		if (p->nclauses >= SCRY_MAX_CLAUSES)
			return fail(err, e->clauses[i].probes[0].kind_col,
				    "too many clauses (at most %d)",
				    SCRY_MAX_CLAUSES);
		first = ci = p->nclauses++;
		p->clauses[ci].ec = &e->clauses[i];
		p->clauses[ci].col = e->clauses[i].probes[0].kind_col;
		ret = plan_clause_probes(p, ci, err);
		ret = ret ? : split_clause(p, ci, &splits[i], err);
		for (ci = first; !ret && ci < p->nclauses; ci++)
			ret = clause_labels(p, ci);
		if (ret)
			return ret;
	}
	/* declarations first (maps, self->), then the code against them */
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			reset_for_compile(p);
		for (i = 0; i < p->nclauses; i++) {
			ret = compile_clause(p, i, !pass, err);
			if (ret)
				return ret;
		}
	}
	for (i = 0; i < p->nmaps; i++)
		if (p->maps[i].nkeys < 0)
			p->maps[i].nkeys = 0;
	summarize(p);
	return 0;
}

void plan_free(struct plan *p)
{
	int i, j;

	if (!p)
		return;
	reset_for_compile(p);
	for (i = 0; i < p->nmaps; i++) {
		free(p->maps[i].name);
		for (j = 0; j < SCRY_MAX_KEYCOLS; j++)
			free(p->maps[i].key_names[j]);
	}
	for (i = 0; i < p->ntls; i++)
		free(p->tls_names[i]);
	for (i = 0; i < p->nclauses; i++) {
		struct plan_clause *cl = &p->clauses[i];

		clause_reset(cl);
		for (j = 0; j < cl->nlabels; j++) {
			free(cl->labels[j]);
			free(cl->funcs[j]);
		}
		free(cl->labels);
		free(cl->funcs);
	}
	for (i = 0; i < p->nprobes; i++) {
		for (j = 0; j < p->probes[i].nnames; j++)
			free(p->probes[i].names[j]);
		free(p->probes[i].names);
	}
	memset(p, 0, sizeof(*p));
}
