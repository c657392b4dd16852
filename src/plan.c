// SPDX-License-Identifier: GPL-2.0
/*
 * plan: give a parsed expression its meaning for the engine.
 *
 * The predicate is split at its top-level '&&' into conjuncts. Those that
 * read only fields known when an event begins (pid, comm, args, state...)
 * go to the begin program, so a filtered-out event costs no stack walk and
 * no map update; the rest (latency, retval) run at the end.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <scry/expr.h>
#include <scry/hint.h>
#include <scry/plan.h>
#include <scry/source.h>

enum field_type { FT_INT, FT_STR, FT_STACK, FT_PATH, FT_STRID };

struct field_def {
	const char *name;
	enum scry_field field;
	enum field_type type;
	unsigned need;		/* SOURCE_F_* the probe must give; 0: every probe */
	bool at_end;		/* known only when the event ends */
	const char *unit;
};

static const struct field_def fields[] = {
	{ "pid",     SCRY_F_PID,     FT_INT,   0, false, NULL },
	{ "tid",     SCRY_F_TID,     FT_INT,   0, false, NULL },
	{ "uid",     SCRY_F_UID,     FT_INT,   0, false, NULL },
	{ "cpu",     SCRY_F_CPU,     FT_INT,   0, false, NULL },
	{ "comm",    SCRY_F_COMM,    FT_STR,   0, false, NULL },
	{ "arg0",    SCRY_F_ARG0,    FT_INT,   SOURCE_F_ARGS, false, NULL },
	{ "arg1",    SCRY_F_ARG1,    FT_INT,   SOURCE_F_ARGS, false, NULL },
	{ "arg2",    SCRY_F_ARG2,    FT_INT,   SOURCE_F_ARGS, false, NULL },
	{ "arg3",    SCRY_F_ARG3,    FT_INT,   SOURCE_F_ARGS, false, NULL },
	{ "arg4",    SCRY_F_ARG4,    FT_INT,   SOURCE_F_ARGS, false, NULL },
	{ "arg5",    SCRY_F_ARG5,    FT_INT,   SOURCE_F_ARGS, false, NULL },
	{ "retval",  SCRY_F_RETVAL,  FT_INT,   SOURCE_F_RETVAL, true, NULL },
	{ "errno",   SCRY_F_ERRNO,   FT_INT,   SOURCE_F_ERRNO, true, NULL },
	{ "fd.path", SCRY_F_FDPATH,  FT_PATH,  SOURCE_F_FDPATH, false, NULL },
	{ "latency", SCRY_F_LATENCY, FT_INT,   SOURCE_F_LATENCY, true, "ns" },
	{ "state",   SCRY_F_STATE,   FT_INT,   SOURCE_F_STATE, false, NULL },
	{ "kstack",  SCRY_F_KSTACK,  FT_STACK, 0, false, NULL },
	{ "ustack",  SCRY_F_USTACK,  FT_STACK, 0, false, NULL },
	{ "stack",   SCRY_F_KSTACK,  FT_STACK, 0, false, NULL },
};

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
	{ "quantize",  SCRY_AGG_QUANTIZE,  1 },
	{ "lquantize", SCRY_AGG_LQUANTIZE, 4 },
};

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

bool plan_has_strings(const struct plan *p)
{
	int i;

	for (i = 0; i < p->nkeys; i++)
		if (p->keys[i].string_id)
			return true;
	return false;
}

static const struct field_def *field_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if (!strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

/*
 * args.FIELD of a tracepoint: its format gives offset and size; it is read
 * into one args[] slot (strings as string-store ids, usable as keys).
 */
static int tp_field_get(struct plan *p, const char *name, int col,
			struct field_def *def, struct expr_error *err)
{
	struct plan_tp_field tf;
	char why[sizeof(err->msg)];
	int i;

	for (i = 0; i < p->ntp_fields; i++)
		if (!strcmp(p->tp_fields[i].name, name + 5))
			break;
	if (i == p->ntp_fields) {
		if (i >= SCRY_NARGS)
			return plan_fail(err, col, "at most %d tracepoint fields",
					 SCRY_NARGS);
		if (p->env->tp_field(p->target[0], p->target[1], name + 5, &tf,
				     why, sizeof(why)))
			return plan_fail(err, col, "%s", why);
		tf.name = name + 5;
		p->tp_fields[p->ntp_fields++] = tf;
	}
	*def = (struct field_def){
		.name = name, .field = SCRY_F_ARG0 + i,
		.type = p->tp_fields[i].is_string ? FT_STRID : FT_INT,
		.need = SOURCE_F_TPARGS,
	};
	return 0;
}

/* "unknown field 'pdi'; did you mean: pid?" with the fields there are. */
static int unknown_field(const char *name, int col, struct expr_error *err)
{
	struct hint h[3];
	char hints[64] = "";
	size_t i, len = strlen(name);
	int nh = 0, n = 0;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		hint_offer(h, &nh, 3, fields[i].name, strlen(fields[i].name),
			   hint_distance(name, len, fields[i].name,
					 strlen(fields[i].name),
					 hint_limit(len)));
	for (i = 0; i < (size_t)nh; i++)
		n += snprintf(hints + n, sizeof(hints) - n, "%s%.*s",
			      i ? ", " : "; did you mean: ", (int)h[i].len,
			      h[i].name);
	return plan_fail(err, col, "unknown field '%s'%s%s (fields: pid tid uid "
			 "comm cpu arg0..arg5 retval latency state errno fd.path "
			 "args.FIELD)", name, hints, nh ? "?" : "");
}

/* Look a field up and check the probe provides it. */
static int field_get(struct plan *p, const char *name, int col,
		     const struct field_def **out, struct expr_error *err)
{
	const struct field_def *f = field_find(name);
	int ret;
	/* each caller reads the definition before the next lookup */
	static struct field_def tp_def;

	if (!f && (p->src->fields & SOURCE_F_TPARGS) &&
	    !strncmp(name, "args.", 5)) {
		ret = tp_field_get(p, name, col, &tp_def, err);
		*out = &tp_def;
		return ret;
	}

	if (!f)
		return unknown_field(name, col, err);
	if (f->need & ~p->src->fields) {
		if (f->field == SCRY_F_RETVAL || f->field == SCRY_F_LATENCY)
			return plan_fail(err, col, "'%s' needs a probe with a return: "
					 "use uretprobe", name);
		return plan_fail(err, col, "field '%s' does not exist for %s probes",
				 name, p->src->name);
	}
	*out = f;
	return 0;
}

/* ---- predicate compilation --------------------------------------- */

struct emitter {
	struct scry_pred_insn *prog;
	int n;
	bool uses_end;
};

/*
 * A program has SCRY_MAX_PRED slots, the last kept for SCRY_OP_END. The
 * conjuncts that run at begin (or at end) share one program, joined by
 * one '&&' operation each: the limit counts those too, whichever way the
 * predicate is written.
 */
#define PRED_MAX_OPS	(SCRY_MAX_PRED - 1)

static int too_long(const struct expr_node *n, struct expr_error *err)
{
	return plan_fail(err, n->col, "predicate too long: at most %d operations "
			 "(fields, numbers, operators) run at the begin of an "
			 "event and %d at its end", PRED_MAX_OPS, PRED_MAX_OPS);
}

static int emit(struct emitter *em, const struct expr_node *n, __u8 op,
		__u8 field, __s64 imm, struct expr_error *err)
{
	if (em->n >= PRED_MAX_OPS)
		return too_long(n, err);
	em->prog[em->n].op = op;
	em->prog[em->n].field = field;
	em->prog[em->n].imm = imm;
	em->n++;
	return 0;
}

static int string_index(struct plan *p, const struct expr_node *n,
			struct expr_error *err)
{
	int i;

	if (strlen(n->sval) >= SCRY_COMM_LEN)
		return plan_fail(err, n->col, "string longer than a comm (%d "
				 "characters): comm can never equal it",
				 SCRY_COMM_LEN - 1);
	for (i = 0; i < p->nstrs; i++)
		if (!strcmp(p->strs[i], n->sval))
			return i;
	if (p->nstrs >= SCRY_MAX_STRS)
		return plan_fail(err, n->col, "too many strings (at most %d)",
				 SCRY_MAX_STRS);
	strcpy(p->strs[p->nstrs], n->sval);
	return p->nstrs++;
}

static int compile(struct plan *p, struct emitter *em,
		   const struct expr_node *n, struct expr_error *err);

static int compile_operand(struct plan *p, struct emitter *em,
			   const struct expr_node *n, struct expr_error *err)
{
	const struct field_def *f;
	int ret;

	switch (n->kind) {
	case EXPR_INT:
		return emit(em, n, SCRY_OP_IMM, 0, n->ival, err);
	case EXPR_STR:
		return plan_fail(err, n->col, "a string can only be compared "
				 "with comm");
	case EXPR_IDENT:
		ret = field_get(p, n->name, n->col, &f, err);
		if (ret)
			return ret;
		if (f->type == FT_STACK || f->type == FT_PATH ||
		    f->type == FT_STRID)
			return plan_fail(err, n->col, "'%s' is a key, not a value "
					 "a predicate can test", n->name);
		if (f->type == FT_STR)
			return plan_fail(err, n->col, "compare comm with a string: "
					 "comm == \"name\"");
		em->uses_end |= f->at_end;
		return emit(em, n, SCRY_OP_FIELD, f->field, 0, err);
	default:
		return compile(p, em, n, err);
	}
}

static const __u8 cmp_ops[] = {
	[EXPR_EQ] = SCRY_OP_EQ, [EXPR_NE] = SCRY_OP_NE,
	[EXPR_LT] = SCRY_OP_LT, [EXPR_LE] = SCRY_OP_LE,
	[EXPR_GT] = SCRY_OP_GT, [EXPR_GE] = SCRY_OP_GE,
};

static bool is_comm(const struct expr_node *n)
{
	return n->kind == EXPR_IDENT && !strcmp(n->name, "comm");
}

static int compile_strcmp(struct plan *p, struct emitter *em,
			  const struct expr_node *n, struct expr_error *err)
{
	const struct expr_node *s = is_comm(n->left) ? n->right : n->left;
	int idx;

	if (s->kind != EXPR_STR)
		return plan_fail(err, s->col, "comm can only be compared with a "
				 "string");
	if (n->op != EXPR_EQ && n->op != EXPR_NE)
		return plan_fail(err, n->col, "strings compare with == and != only");
	idx = string_index(p, s, err);
	if (idx < 0)
		return idx;
	if (emit(em, n, n->op == EXPR_EQ ? SCRY_OP_STREQ : SCRY_OP_STRNE,
		 0, 0, err))
		return -EINVAL;
	em->prog[em->n - 1].str = idx;
	return 0;
}

static int compile(struct plan *p, struct emitter *em,
		   const struct expr_node *n, struct expr_error *err)
{
	int ret;

	switch (n->kind) {
	case EXPR_CMP:
		if (is_comm(n->left) || is_comm(n->right))
			return compile_strcmp(p, em, n, err);
		ret = compile_operand(p, em, n->left, err);
		ret = ret ? : compile_operand(p, em, n->right, err);
		return ret ? : emit(em, n, cmp_ops[n->op], 0, 0, err);
	case EXPR_AND:
	case EXPR_OR:
		ret = compile(p, em, n->left, err);
		ret = ret ? : compile(p, em, n->right, err);
		return ret ? : emit(em, n, n->kind == EXPR_AND ? SCRY_OP_AND :
				    SCRY_OP_OR, 0, 0, err);
	case EXPR_NOT:
		ret = compile(p, em, n->left, err);
		return ret ? : emit(em, n, SCRY_OP_NOT, 0, 0, err);
	default:
		return compile_operand(p, em, n, err);
	}
}

/* Append one conjunct to the begin or the end program. */
static int place_conjunct(struct plan *p, struct emitter *begin,
			  struct emitter *end, const struct expr_node *n,
			  struct expr_error *err)
{
	struct scry_pred_insn tmp[SCRY_MAX_PRED] = {};
	struct emitter one = { .prog = tmp };
	struct emitter *dst;
	int ret, i;

	ret = compile(p, &one, n, err);
	if (ret)
		return ret;
	dst = (one.uses_end && p->has_end) ? end : begin;
	/* conjuncts after the first are joined with AND */
	if (dst->n + one.n + (dst->n > 0) > PRED_MAX_OPS)
		return too_long(n, err);
	for (i = 0; i < one.n; i++)
		dst->prog[dst->n++] = tmp[i];
	if (dst->n > one.n)
		dst->prog[dst->n++].op = SCRY_OP_AND;
	return 0;
}

static int split_conjuncts(struct plan *p, struct emitter *begin,
			   struct emitter *end, const struct expr_node *n,
			   struct expr_error *err)
{
	int ret;

	if (n->kind != EXPR_AND)
		return place_conjunct(p, begin, end, n, err);
	ret = split_conjuncts(p, begin, end, n->left, err);
	return ret ? : split_conjuncts(p, begin, end, n->right, err);
}

/* ---- keys and aggregation ------------------------------------------ */

static int add_key(struct plan *p, const char *name, int col,
		   struct expr_error *err)
{
	const struct field_def *f;
	struct plan_key *k;
	int ret, i, nints = 0;

	ret = field_get(p, name, col, &f, err);
	if (ret)
		return ret;
	for (i = 0; i < p->nkeys; i++)
		if (!strcmp(p->keys[i].name, name))
			return plan_fail(err, col, "key '%s' given twice", name);
	k = &p->keys[p->nkeys++];
	k->name = f->name;
	k->field = f->field;
	k->slot = -1;
	switch (f->type) {
	case FT_STACK:
		if (!strcmp(name, "stack") || !strcmp(name, "kstack"))
			p->key_kstack = true;
		if (!strcmp(name, "stack") || !strcmp(name, "ustack"))
			p->key_ustack = true;
		if (!strcmp(name, "ustack"))
			k->field = SCRY_F_USTACK;
		break;
	case FT_STR:
		p->key_comm = true;
		break;
	case FT_PATH:
		p->key_fdpath = true;
		/* fall through */
	case FT_STRID:
		/* a string id takes a numeric slot */
		k->string_id = true;
		/* fall through */
	case FT_INT:
		for (i = 0; i < SCRY_MAX_INTKEYS; i++)
			if (p->key_ints[i] != SCRY_F_NONE)
				nints++;
		if (nints >= SCRY_MAX_INTKEYS)
			return plan_fail(err, col, "too many numeric keys (at most "
					 "%d)", SCRY_MAX_INTKEYS);
		p->key_ints[nints] = f->field;
		k->slot = nints;
		break;
	}
	return 0;
}

static int const_arg(const struct expr_node *n, const char *what, __s64 *v,
		     struct expr_error *err)
{
	if (n->kind != EXPR_INT)
		return plan_fail(err, n->col, "lquantize %s must be a number", what);
	*v = n->ival;
	return 0;
}

/*
 * DTrace's lquantize: levels = (high - low) / step whole steps, slot 0
 * for v < low, 1 + i for [low + i*step, low + (i+1)*step), levels + 1
 * for v >= low + levels*step. The distance is taken in unsigned, where
 * high - low always fits (it may not in __s64).
 */
static int plan_lquantize(struct plan *p, const struct expr_action *a,
			  struct expr_error *err)
{
	__u64 levels;
	int ret;

	ret = const_arg(a->args[1], "low", &p->lq_low, err);
	ret = ret ? : const_arg(a->args[2], "high", &p->lq_high, err);
	ret = ret ? : const_arg(a->args[3], "step", &p->lq_step, err);
	if (ret)
		return ret;
	if (p->lq_step <= 0)
		return plan_fail(err, a->args[3]->col, "lquantize step must be "
				 "positive");
	if (p->lq_high <= p->lq_low)
		return plan_fail(err, a->args[2]->col, "lquantize high must be "
				 "above low");
	levels = ((__u64)p->lq_high - (__u64)p->lq_low) / (__u64)p->lq_step;
	if (levels < 1)
		return plan_fail(err, a->args[3]->col, "lquantize step is larger "
				 "than high - low: no bucket fits; lower the step");
	if (levels > SCRY_NBUCKETS - 2)
		return plan_fail(err, a->args[3]->col, "lquantize has at most %d "
				 "steps, (high - low) / step is %llu: raise the step",
				 SCRY_NBUCKETS - 2, (unsigned long long)levels);
	p->lq_nslots = levels;
	return 0;
}

static int plan_action(struct plan *p, const struct expr *e,
		       struct expr_error *err)
{
	const struct expr_action *a = &e->action;
	const struct agg_def *ad = NULL;
	const struct field_def *f;
	size_t i;
	int ret;

	if (!e->has_action) {	/* bare probe: count its firings */
		p->agg = SCRY_AGG_COUNT;
		return 0;
	}
	for (i = 0; i < (size_t)a->nkeys; i++) {
		ret = add_key(p, a->keys[i], a->key_cols[i], err);
		if (ret)
			return ret;
	}
	for (i = 0; i < ARRAY_SIZE(aggs); i++)
		if (!strcmp(aggs[i].name, a->func))
			ad = &aggs[i];
	if (!ad)
		return plan_fail(err, a->func_col, "unknown aggregation '%s' "
				 "(count sum min max avg quantize lquantize)",
				 a->func);
	if (a->nargs != ad->nargs)
		return plan_fail(err, a->func_col, "%s() takes %d argument%s",
				 ad->name, ad->nargs, ad->nargs == 1 ? "" : "s");
	p->agg = ad->agg;
	if (!ad->nargs)
		return 0;
	if (a->args[0]->kind != EXPR_IDENT)
		return plan_fail(err, a->args[0]->col, "%s() aggregates a field, "
				 "e.g. %s(arg0)", ad->name, ad->name);
	ret = field_get(p, a->args[0]->name, a->args[0]->col, &f, err);
	if (ret)
		return ret;
	if (f->type != FT_INT)
		return plan_fail(err, a->args[0]->col, "%s() needs a number; '%s' "
				 "is not one", ad->name, f->name);
	p->val_field = f->field;
	p->val_name = f->name;
	p->unit = f->unit;
	if (ad->agg == SCRY_AGG_LQUANTIZE)
		return plan_lquantize(p, a, err);
	return 0;
}

/* "unknown probe kind 'offcup'; did you mean: offcpu?", and the kinds */
static int unknown_kind(const struct expr_probe *pr, struct expr_error *err)
{
	struct hint h[2];
	char kinds[160] = "", hints[64] = "";
	size_t len = strlen(pr->kind), i;
	int nh = 0, n = 0, k = 0;

	for (i = 0; sources[i]; i++) {
		const char *name = sources[i]->name;

		hint_offer(h, &nh, 2, name, strlen(name),
			   hint_distance(pr->kind, len, name, strlen(name),
					 hint_limit(len)));
		k += snprintf(kinds + k, sizeof(kinds) - k, "%s%s",
			      i ? " " : "", name);
	}
	for (i = 0; i < (size_t)nh; i++)
		n += snprintf(hints + n, sizeof(hints) - n, "%s%.*s",
			      i ? ", " : "; did you mean: ", (int)h[i].len,
			      h[i].name);
	return plan_fail(err, pr->kind_col, "unknown probe kind '%s'%s%s (%s)",
			 pr->kind, hints, nh ? "?" : "", kinds);
}

static int plan_probe(struct plan *p, const struct expr *e,
		      struct expr_error *err)
{
	const struct expr_probe *pr = &e->probe;
	const struct source *d = source_find(pr->kind);
	size_t i;

	if (!d)
		return unknown_kind(pr, err);
	if (pr->nparts < d->min_parts || pr->nparts > d->max_parts)
		return plan_fail(err, pr->nparts > d->max_parts ?
				 pr->part_cols[d->max_parts] : pr->kind_col,
				 "%s probes are written %s", d->name, d->usage);
	for (i = 1; i < (size_t)pr->nparts; i++)
		if (strpbrk(pr->parts[i], "*?["))
			return plan_fail(err, pr->part_cols[i], "'%s' is a glob: "
					 "globs are for listing (scry -l '%s:...'); "
					 "name one probe", pr->parts[i], d->name);
	p->src = d;
	p->ntarget = pr->nparts;
	for (i = 0; i < (size_t)pr->nparts; i++) {
		p->target[i] = pr->parts[i];
		p->target_cols[i] = pr->part_cols[i];
	}
	p->has_end = d->flags & SOURCE_END;
	p->stacks_at_begin = d->flags & SOURCE_STACKS_AT_BEGIN;
	p->ustack_at_entry = d->flags & SOURCE_AT_ENTRY;
	return d->plan ? d->plan(p, pr, err) : 0;
}

int plan_build(const struct expr *e, struct plan *p,
	       const struct plan_env *env, struct expr_error *err)
{
	struct emitter begin, end;
	int ret;

	memset(p, 0, sizeof(*p));
	p->expr = e;
	p->env = env;
	begin = (struct emitter){ .prog = p->pred_begin };
	end = (struct emitter){ .prog = p->pred_end };
	ret = plan_probe(p, e, err);
	ret = ret ? : plan_action(p, e, err);
	if (!ret && e->pred)
		ret = split_conjuncts(p, &begin, &end, e->pred, err);
	return ret;
}
