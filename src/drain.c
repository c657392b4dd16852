// SPDX-License-Identifier: GPL-2.0
/*
 * drain: read the maps key by key (aggregations in `aggs`, variables in
 * `vars`, the map's index in each key), turn each key into its map's
 * columns (stacks symbolized through the stack store, strings from the
 * string store, symbols and probe names), one report per map, and collect
 * every non-zero loss counter with the option that fixes it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/drain.h>
#include <scry/log.h>
#include <scry/obj.h>
#include <scry/plan.h>
#include <scry/report.h>
#include <scry/parload.h>
#include <scry/selfprog.h>
#include <scry/session.h>
#include <scry/sym.h>
#include "scry.skel.h"

/*
 * Frames one address may name (itself and the functions inlined at it):
 * one number for every caller of syms_user(), as the last drain's memo
 * (framememo.c) answers a second pass only for the same question.
 */
#define INLINE_FRAMES	8

static const struct {
	enum scry_stat stat;
	const char *what;
	const char *fix;
} stat_text[] = {
	{ SCRY_STAT_AGG_FULL, "aggregation drops", "raise --max-keys" },
	{ SCRY_STAT_AGG_NOMEM, "aggregation drops (the kernel could not "
	  "allocate map memory)", NULL },
	{ SCRY_STAT_STACK_FULL, "stack drops (stack store full)",
	  "raise --max-stacks" },
	{ SCRY_STAT_STACK_NOMEM, "stack drops (the kernel could not "
	  "allocate map memory)", NULL },
	{ SCRY_STAT_KSTACK_ERR, "kernel stacks not captured", NULL },
	{ SCRY_STAT_USTACK_ERR, "events without user registers "
	  "(no user stack)", NULL },
	{ SCRY_STAT_USTACK_FAULT, "user stacks ended at unreadable memory "
	  "(code without frame pointers)", NULL },
	{ SCRY_STAT_INFLIGHT_FULL, "event drops (too many threads in flight)",
	  "raise --max-keys" },
	{ SCRY_STAT_NOTICE_LOST, "new processes announced late "
	  "(symbols may be missing)", NULL },
	{ SCRY_STAT_TARGETS_FULL, "child processes of -c not followed",
	  NULL },
	{ SCRY_STAT_STRING_FULL, "string drops (string store full)",
	  "raise --max-keys" },
	{ SCRY_STAT_PATH_ERR, "fds not resolvable to a path", NULL },
	{ SCRY_STAT_UNWIND_FIRST + SCRY_UNWIND_STAT_NO_TABLE,
	  "unwind steps through a file whose unwind table was not loaded yet "
	  "(frame pointers used)", NULL },
	{ SCRY_STAT_UNWIND_FIRST + SCRY_UNWIND_STAT_VMA_BUSY,
	  "unwind steps the kernel could not map (mmap lock busy; frame "
	  "pointers used)", NULL },
	{ SCRY_STAT_UNWIND_FIRST + SCRY_UNWIND_STAT_NO_MAPPING,
	  "unwind steps outside any mapped file (JIT? frame pointers used)",
	  NULL },
	{ SCRY_STAT_UNWIND_FIRST + SCRY_UNWIND_STAT_NO_ROW,
	  "unwind steps with no CFI row (frame pointers used)", NULL },
	{ SCRY_STAT_UNWIND_FIRST + SCRY_UNWIND_STAT_FAULT,
	  "user stacks ended at unreadable memory", NULL },
	{ SCRY_STAT_UNWIND_FIRST + SCRY_UNWIND_STAT_DEPTH,
	  "user stacks deeper than 127 frames (truncated)", NULL },
	{ SCRY_STAT_UNWIND_FIRST + SCRY_UNWIND_STAT_UNSUPPORTED,
	  "user stacks ended at an unsupported CFI rule", NULL },
	{ SCRY_STAT_OUT_LOST, "printf/print events lost (output buffer "
	  "full)", "raise --buffer-size" },
	{ SCRY_STAT_VAR_FULL, "map variable updates lost (map full)",
	  "raise --max-keys" },
	{ SCRY_STAT_TLS_ERR, "self-> variables not stored", NULL },
	{ SCRY_STAT_PRED_ERR, "clause program errors (a scry bug: please "
	  "report)",
	  NULL },
};

static int read_stack(struct attach *a, __u64 id, struct scry_stack *st)
{
	if (bpf_map__lookup_elem(a->skel->maps.stacks, &id, sizeof(id),
				 st, sizeof(*st), 0))
		return -errno;
	if (st->nr > SCRY_MAX_FRAMES)
		st->nr = SCRY_MAX_FRAMES;
	return 0;
}

/*
 * Is @addr in one of scry's own programs? Then it is the program that
 * took the stack: a BPF frame, trimmed unnamed. Naming it would read
 * all of /proc/kallsyms, the core kernel's symbols being cached
 * (ksym_cache.h) and BPF programs not.
 */
static bool own_prog(struct attach *a, __u64 addr)
{
	if (!a->self && a->skel) {
		struct bpf_object *objs[] = { a->skel->obj,
					      parload_object(a->side) };

		a->self = selfprog_new(objs, 2);
	}
	return selfprog_has(a->self, addr);
}

static int resolve_kernel(struct attach *a, struct syms *s,
			  const struct scry_stack *st, struct report_stack *out)
{
	struct report_frame fr;
	__u32 i;

	for (i = 0; i < st->nr; i++) {
		if (out->nr == 0 && own_prog(a, st->ip[i]))
			continue;
		memset(&fr, 0, sizeof(fr));
		if (syms_kernel(s, st->ip[i], &fr) < 0)
			fr.addr = st->ip[i];
		fr.kernel = true;
		/* the tracing machinery above the traced function (a
		 * trampoline kallsyms does not name included) */
		if (out->nr == 0 && (syms_is_bpf_frame(&fr) || !fr.sym)) {
			syms_frame_clear(&fr);
			continue;
		}
		out->frames[out->nr++] = fr;
	}
	return 0;
}

/*
 * Frames after the first are return addresses: the call that produced
 * them is the instruction before, which may belong to another function
 * (a noreturn call at a function's end), so look up ra - 1.
 */
static int resolve_user(struct syms *s, int pid, const struct scry_stack *st,
			struct report_stack *out)
{
	struct report_frame fr[INLINE_FRAMES];
	__u32 i;
	int n, j;

	for (i = 0; i < st->nr; i++) {
		__u64 pc = i ? st->ip[i] - 1 : st->ip[i];

		memset(fr, 0, sizeof(fr));
		n = syms_user(s, pid, pc, fr, INLINE_FRAMES);
		if (n < 1) {
			fr[0].addr = pc;
			n = 1;
		}
		for (j = 0; j < n; j++) {
			if (i) {
				fr[j].addr = st->ip[i];
				/* inlined frames have no offset of their own */
				if (!fr[j].inlined)
					fr[j].off++;
			}
			if (out->nr >= SCRY_MAX_FRAMES * 2) {
				syms_frame_clear(&fr[j]);
				out->truncated = true;
				continue;
			}
			out->frames[out->nr++] = fr[j];
		}
	}
	return 0;
}

static int fill_stack(struct attach *a, struct syms *s, __u64 id, int pid,
		      bool kernel, struct report_stack *out)
{
	static struct report_frame scratch[SCRY_MAX_FRAMES * 2];
	struct scry_stack st;
	int i, err;

	memset(out, 0, sizeof(*out));
	if (id == 0)
		return 0;
	if (id == SCRY_STACK_LOST) {
		out->lost = true;
		return 0;
	}
	err = read_stack(a, id, &st);
	if (err) {
		out->lost = true;
		return 0;
	}
	/*
	 * Resolved into room for inlined expansions, then copied to a
	 * block of the size used: a large block per stack, shrunk, left
	 * the heap in pieces (tens of MiB for 12000 stacks).
	 */
	out->frames = scratch;
	out->truncated = st.flags & SCRY_STACK_TRUNCATED;
	if (kernel)
		err = resolve_kernel(a, s, &st, out);
	else
		err = resolve_user(s, pid, &st, out);
	if (!err && out->nr) {
		out->frames = malloc(out->nr * sizeof(*out->frames));
		if (out->frames) {
			memcpy(out->frames, scratch,
			       out->nr * sizeof(*out->frames));
			return 0;
		}
		err = -ENOMEM;
	}
	/* on error: the frames resolved so far are cleared here */
	for (i = 0; i < out->nr; i++)
		syms_frame_clear(&scratch[i]);
	out->frames = NULL;
	out->nr = 0;
	return err;
}

/* The string behind a string-store id; a marker when it was not stored. */
static char *string_of(struct attach *a, __u64 id)
{
	struct scry_path p;

	if (!id || bpf_map__lookup_elem(a->skel->maps.strings, &id,
					sizeof(id), &p, sizeof(p), 0))
		return strdup("[string lost: raise --max-keys]");
	if (p.len >= SCRY_PATH_MAX)
		p.len = SCRY_PATH_MAX - 1;
	return strndup(p.str, p.len);
}

/*
 * A number with a meaning, as text: a symbol, a probe's name, an address.
 * NULL for plain numbers.
 */
char *drain_format_value(struct attach *a, struct syms *s,
			 const struct plan_type *t, __s64 v, int pid)
{
	struct report_frame fr[INLINE_FRAMES];
	char buf[512];
	const char *name;
	__u32 ip;
	int n;

	memset(fr, 0, sizeof(fr));
	/* a string variable's value is its string-store id */
	if (t->kind == PLAN_V_STR)
		return string_of(a, v);
	switch (t->fmt) {
	case PLAN_F_STRID:
		return string_of(a, v);
	case PLAN_F_KSYM:
		if (syms_kernel(s, v, &fr[0]) < 0 || !fr[0].sym)
			snprintf(buf, sizeof(buf), "0x%llx",
				 (unsigned long long)v);
		else
			snprintf(buf, sizeof(buf), "%s", fr[0].sym);
		syms_frame_clear(&fr[0]);
		return strdup(buf);
	case PLAN_F_USYM:
		n = pid > 0 ? syms_user(s, pid, v, fr, INLINE_FRAMES) : 0;
		/* the outermost of inlined frames is the function there */
		if (n < 1 || !fr[n - 1].sym)
			snprintf(buf, sizeof(buf), "0x%llx",
				 (unsigned long long)v);
		else
			snprintf(buf, sizeof(buf), "%s", fr[n - 1].sym);
		while (n-- > 0)
			syms_frame_clear(&fr[n]);
		return strdup(buf);
	case PLAN_F_PROBE:
	case PLAN_F_FUNC:
		name = plan_probe_label(a->plan, v, t->fmt == PLAN_F_FUNC, buf,
					sizeof(buf));
		return strdup(name);
	case PLAN_F_INET:
		/* the four bytes as they were in memory: network order */
		ip = v;
		snprintf(buf, sizeof(buf), "%u.%u.%u.%u", ip & 0xff,
			 (ip >> 8) & 0xff, (ip >> 16) & 0xff, ip >> 24);
		return strdup(buf);
	default:
		return NULL;
	}
}

/*
 * kstack(N), ustack(N): the N innermost frames, as bpftrace keeps them.
 * The stack asked for is then whole: it is not "truncated" by a walk
 * that went deeper, so two stacks alike in their N frames print alike.
 */
static int cut_stack(const struct plan_type *t, int err,
		     struct report_stack *out)
{
	int i;

	if (!err && t->limit && t->limit <= out->nr) {
		for (i = t->limit; i < out->nr; i++)
			syms_frame_clear(&out->frames[i]);
		out->nr = t->limit;
		out->truncated = false;
	}
	return err;
}

int drain_stack(struct attach *a, struct syms *s, const struct plan_type *t,
		__s64 id, int pid, struct report_stack *out)
{
	return cut_stack(t, fill_stack(a, s, id, pid,
				       t->fmt == PLAN_F_KSTACK, out), out);
}

/* One key column of map @m's key @k into @rk. */
static int fill_key(struct attach *a, struct syms *s, const struct plan_map *m,
		    int col, const struct scry_key *k, struct report_key *rk)
{
	__u8 dst = m->key_dst[col];
	const struct plan_type *t = &m->keys[col];
	__s64 v;

	rk->name = m->key_names[col];
	rk->field = m->key_field[col];
	switch (dst) {
	case SCRY_KC_KSTACK:
		rk->kind = REPORT_KEY_KSTACK;
		rk->field = SCRY_F_KSTACK;
		/* a key of kstack(N) is its N frames: merge_aggs joins rows */
		return cut_stack(t, fill_stack(a, s, k->kstack, k->pid, true,
					       &rk->stack), &rk->stack);
	case SCRY_KC_USTACK:
		rk->kind = REPORT_KEY_USTACK;
		rk->field = SCRY_F_USTACK;
		return cut_stack(t, fill_stack(a, s, k->ustack, k->pid, false,
					       &rk->stack), &rk->stack);
	case SCRY_KC_COMM:
		rk->kind = REPORT_KEY_STR;
		rk->field = SCRY_F_COMM;
		rk->s = strndup(k->comm, sizeof(k->comm));
		return rk->s ? 0 : -ENOMEM;
	default:
		break;
	}
	v = k->ints[dst & 3];
	if (dst >= SCRY_KC_STR0 && dst < SCRY_KC_COMM) {
		rk->kind = REPORT_KEY_STR;
		rk->s = string_of(a, v);
		return rk->s ? 0 : -ENOMEM;
	}
	rk->s = drain_format_value(a, s, t, v, k->pid);
	rk->kind = rk->s ? REPORT_KEY_STR : REPORT_KEY_INT;
	rk->i = v;
	return 0;
}

static int fill_row(struct attach *a, struct syms *s, const struct plan_map *m,
		    const struct scry_key *k, struct report_row *row)
{
	int i, n = 0, err;

	/* room for the columns shown, not REPORT_MAX_KEYS: rows add up */
	for (i = 0; i < m->nkeys; i++)
		n += m->key_dst[i] != SCRY_KC_PID;
	if (!n)
		return 0;
	row->keys = calloc(n < REPORT_MAX_KEYS ? n : REPORT_MAX_KEYS,
			   sizeof(*row->keys));
	if (!row->keys)
		return -ENOMEM;
	for (i = 0; i < m->nkeys && row->nkeys < REPORT_MAX_KEYS; i++) {
		if (m->key_dst[i] == SCRY_KC_PID)
			continue;	/* only to name user addresses */
		err = fill_key(a, s, m, i, k, &row->keys[row->nkeys++]);
		if (err)
			return err;
	}
	return 0;
}

int drain_stat(const struct attach *a, __u32 id, __u64 *total)
{
	int ncpu = libbpf_num_possible_cpus(), c;
	__u64 *vals;

	*total = 0;
	if (ncpu < 1)
		return ncpu;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	/* an id the map does not hold counts nothing */
	if (!bpf_map__lookup_elem(a->skel->maps.stats, &id, sizeof(id), vals,
				  ncpu * sizeof(*vals), 0))
		for (c = 0; c < ncpu; c++)
			*total += vals[c];
	free(vals);
	return 0;
}

/* @p's events into @m's value for its key, as the engine would add them. */
static void pend_add(struct attach *a, struct bpf_map *m,
		     const struct scry_pend *p)
{
	const struct plan_map *pm = &a->plan->maps[p->key.map];
	size_t ksz = bpf_map__key_size(m);	/* a prefix (plan_key_size) */
	struct scry_val val;

	if (bpf_map__lookup_elem(m, &p->key, ksz, &val, sizeof(val), 0)) {
		/* never: its first event put the key there, nothing deletes */
		log_debug("a key added up on a CPU is not in the map: %d "
			  "events left out", (int)p->count);
		return;
	}
	/* histograms: their count is their slots' (take_key) */
	if (pm->agg == SCRY_AGG_QUANTIZE || pm->agg == SCRY_AGG_LQUANTIZE)
		val.slots[p->slot % SCRY_NBUCKETS] += p->count;
	else
		val.count += p->count;
	if (pm->agg != SCRY_AGG_COUNT) {
		val.sum += p->sum;
		if (p->min < val.min)
			val.min = p->min;
		if (p->max > val.max)
			val.max = p->max;
	}
	bpf_map__update_elem(m, &p->key, ksz, &val, sizeof(val), BPF_EXIST);
}

int drain_pend(struct attach *a)
{
	const struct bpf_map *sm = a->skel->maps.scratch;
	/* a per-CPU map's values come 8-byte aligned, one per CPU */
	size_t vsz = (bpf_map__value_size(sm) + 7) & ~(size_t)7;
	int ncpu = libbpf_num_possible_cpus(), c;
	__u32 slot;
	char *vals;

	if (!a->skel->rodata->agg_pend)
		return 0;
	if (ncpu < 1)
		return ncpu;
	vals = calloc(ncpu, vsz);
	if (!vals)
		return -ENOMEM;
	/* every slot of each CPU: the tasks' and the NMIs' (maps.bpf.h) */
	for (slot = 0; slot < bpf_map__max_entries(sm); slot++) {
		if (bpf_map__lookup_elem(sm, &slot, sizeof(slot), vals,
					 ncpu * vsz, 0))
			continue;
		for (c = 0; c < ncpu; c++) {
			const struct scry_pend *p = (void *)(vals + c * vsz);

			if (p->state != SCRY_PEND_ADDING ||
			    (int)p->key.map >= a->plan->nmaps)
				continue;
			pend_add(a, p->side ? a->skel->maps.aggs_alt :
				 a->skel->maps.aggs, p);
		}
	}
	free(vals);
	return 0;
}

static int drain_stats(struct attach *a, struct report *r)
{
	__u64 total;
	size_t i;
	int err;

	r->stats = calloc(sizeof(stat_text) / sizeof(stat_text[0]),
			  sizeof(*r->stats));
	if (!r->stats)
		return -ENOMEM;
	for (i = 0; i < sizeof(stat_text) / sizeof(stat_text[0]); i++) {
		err = drain_stat(a, stat_text[i].stat, &total);
		if (err)
			return err;
		if (!total)
			continue;
		r->stats[r->nstats].what = stat_text[i].what;
		r->stats[r->nstats].fix = stat_text[i].fix;
		r->stats[r->nstats].count = total;
		r->nstats++;
	}
	return 0;
}

/* Room for one more row in @r. */
static struct report_row *add_row(struct report *r, size_t *cap)
{
	struct report_row *rows;

	if (r->nrows == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;

		rows = realloc(r->rows, ncap * sizeof(*rows));
		if (!rows)
			return NULL;
		r->rows = rows;
		*cap = ncap;
	}
	memset(&r->rows[r->nrows], 0, sizeof(r->rows[0]));
	return &r->rows[r->nrows++];
}

/* The report of map @mi in @r's set (r itself for the main map). */
static struct report *map_report(struct report *r, int mi)
{
	return mi >= 0 && (size_t)mi < r->nmaps ? r->maps[mi] : NULL;
}

/*
 * Does @key name user code of its pid? Not with an empty or lost user
 * stack: a kernel thread's or a sample taken in the kernel, whose
 * process the engine may never have announced (nor told its exit of);
 * looking for it in /proc cost a stat() and an open per such row.
 */
static bool names_user(const struct plan_map *m, const struct scry_key *key,
		       bool vars)
{
	int i;

	if (!m->has_pid || !key->pid)
		return false;
	if (vars)
		return true;	/* the value may be a user address */
	for (i = 0; i < m->nkeys; i++)
		if (m->key_dst[i] == SCRY_KC_PID ||
		    (m->key_dst[i] == SCRY_KC_USTACK && key->ustack &&
		     key->ustack != SCRY_STACK_LOST))
			return true;
	return false;
}

/* One key of `aggs` or `vars` (@vars, its value @v) with value @val, a row. */
static int take_key(struct attach *a, struct syms *s, struct report *r,
		    bool vars, const struct scry_key *key,
		    const struct scry_val *val, __s64 v, size_t *caps)
{
	const struct plan *p = a->plan;
	struct report_row *row;
	struct report *mr = map_report(r, key->map);
	int err;

	if (!mr)
		return 0;
	row = add_row(mr, &caps[key->map]);
	if (!row)
		return -ENOMEM;
	/* a pid whose notice was lost: try now, it may still live */
	if (names_user(&p->maps[key->map], key, vars))
		syms_add_pid(s, key->pid);
	row->val.count = val->count;
	row->val.sum = val->sum;
	row->val.min = val->min;
	row->val.max = val->max;
	/* the slots only where they print (report.h: struct report_val) */
	if (!mr->var && (mr->agg == SCRY_AGG_QUANTIZE ||
			 mr->agg == SCRY_AGG_LQUANTIZE)) {
		int i;

		row->val.slots = malloc(sizeof(val->slots));
		if (!row->val.slots)
			return -ENOMEM;
		memcpy(row->val.slots, val->slots, sizeof(val->slots));
		/*
		 * The engine keeps no count for a histogram, whose every
		 * event lands in one slot (bpf/prog.bpf.h scry_aggregate)
		 */
		row->val.count = 0;
		for (i = 0; i < SCRY_NBUCKETS; i++)
			row->val.count += val->slots[i];
	}
	err = fill_row(a, s, &p->maps[key->map], key, row);
	if (!err && vars)
		row->vstr = drain_format_value(a, s, &p->maps[key->map].val,
					       v, key->pid);
	return err;
}

/*
 * The last drain's first pass over key @k: each user address of its
 * stack named once into syms' memo (syms_memo_begin), DWARF loaded as
 * it needs, so that the DWARF can be let go of before the rows and their
 * frames are built (drain_report). What take_key() does for the same
 * key, minus the row: the pid added as it adds it, the same addresses.
 */
static void warm_key(struct attach *a, struct syms *s,
		     const struct scry_key *k, bool vars)
{
	const struct plan_map *m;
	struct report_frame fr[INLINE_FRAMES];
	struct scry_stack st;
	__u32 i;
	int c, n;

	if ((int)k->map >= a->plan->nmaps)
		return;
	m = &a->plan->maps[k->map];
	if (names_user(m, k, vars))
		syms_add_pid(s, k->pid);
	for (c = 0; c < m->nkeys && k->pid > 0; c++) {
		__u8 dst = m->key_dst[c];

		/* usym(): a column named as drain_format_value() does */
		if (dst < SCRY_KC_STR0 && m->keys[c].kind != PLAN_V_STR &&
		    m->keys[c].fmt == PLAN_F_USYM) {
			memset(fr, 0, sizeof(fr));
			n = syms_user(s, k->pid, k->ints[dst & 3], fr,
				      INLINE_FRAMES);
			while (n-- > 0)
				syms_frame_clear(&fr[n]);
		}
		if (dst != SCRY_KC_USTACK || !k->ustack ||
		    k->ustack == SCRY_STACK_LOST || read_stack(a, k->ustack, &st))
			continue;
		for (i = 0; i < st.nr; i++) {
			memset(fr, 0, sizeof(fr));
			n = syms_user(s, k->pid, i ? st.ip[i] - 1 : st.ip[i],
				      fr, INLINE_FRAMES);
			while (n-- > 0)
				syms_frame_clear(&fr[n]);
		}
	}
}

/*
 * Every key of `aggs` with its value, BATCH at a time
 * (bpf_map_lookup_batch: two system calls per key become one per
 * batch). -EOPNOTSUPP before the first key when the kernel cannot: the
 * caller walks key by key instead. A bucket larger than the batch
 * (ENOSPC) is read again with more room.
 */
#define BATCH	256
int drain_aggs_each(struct attach *a, bool clear, drain_key_fn fn,
		    void *ctx)
{
	struct bpf_map *map = attach_map(a, false, clear);
	int fd = bpf_map__fd(map), err = 0, i;
	size_t ksz = bpf_map__key_size(map);	/* a prefix (plan_key_size) */
	struct scry_key key;
	char *keys = NULL;
	struct scry_val *vals = NULL;
	__u32 in = 0, out = 0, n, room = BATCH;
	bool first = true, done = false;
	LIBBPF_OPTS(bpf_map_batch_opts, opts);

	while (!err && !done) {
		if (!keys) {
			/* zeroed: valgrind does not know the lookup writes */
			keys = calloc(room, ksz);
			vals = calloc(room, sizeof(*vals));
			if (!keys || !vals) {
				err = -ENOMEM;
				break;
			}
		}
		n = room;
		/*
		 * Clearing (--interval) reads the map attach_flip() took the
		 * probes off, and empties it as it reads.
		 */
		if ((clear ? bpf_map_lookup_and_delete_batch :
			     bpf_map_lookup_batch)(fd, first ? NULL : &in, &out,
						   keys, vals, &n, &opts)) {
			if (errno == ENOSPC && room < (1U << 16)) {
				free(keys);
				free(vals);
				keys = NULL;
				vals = NULL;
				room *= 4;
				continue;
			}
			if (errno != ENOENT) {
				err = first ? -EOPNOTSUPP : -errno;
				break;
			}
			done = true;	/* the last keys, maybe none */
		}
		first = false;
		in = out;
		memset(&key, 0, sizeof(key));	/* the rest of the key */
		for (i = 0; !err && i < (int)n && i < (int)room; i++) {
			memcpy(&key, keys + (size_t)i * ksz, ksz);
			err = fn(ctx, &key, &vals[i]);
		}
	}
	free(keys);
	free(vals);
	return err;
}

/* What drain_map's batch walk hands take_key() with each key. */
struct take_ctx {
	struct attach *a;
	struct syms *s;
	struct report *r;
	size_t *caps;
	bool warm;
};

static int take_agg(void *ctx, const struct scry_key *key,
		    const struct scry_val *val)
{
	struct take_ctx *t = ctx;

	if (t->warm) {
		warm_key(t->a, t->s, key, false);
		return 0;
	}
	return take_key(t->a, t->s, t->r, false, key, val, 0, t->caps);
}

/*
 * Every key of `aggs` (when @vars is false) or of `vars`, of map @only
 * (all when -1), into its map's report; deleted as read when @clear.
 * With @warm, the keys only go through warm_key().
 */
static int drain_keys(struct attach *a, struct syms *s, struct report *r,
		      bool vars, int only, bool clear, bool warm, size_t *caps)
{
	struct bpf_map *map = attach_map(a, vars, clear);
	size_t ksz = bpf_map__key_size(map);	/* a prefix (plan_key_size) */
	struct scry_key key = { 0 }, next = { 0 }, *prev = NULL;
	struct scry_val val;
	__s64 v = 0;
	int err;

	if (!vars && only < 0) {
		struct take_ctx t = { a, s, r, caps, warm };

		err = drain_aggs_each(a, clear, take_agg, &t);
		if (err != -EOPNOTSUPP)
			return err;
	}
	while (!bpf_map__get_next_key(map, prev, &next, ksz)) {
		key = next;
		prev = &key;
		if (only >= 0 && (int)key.map != only)
			continue;
		if (!map_report(r, key.map))
			continue;
		if (warm) {
			warm_key(a, s, &key, vars);
			continue;
		}
		memset(&val, 0, sizeof(val));
		if (vars) {
			if (bpf_map__lookup_elem(map, &key, ksz, &v,
						 sizeof(v), 0))
				continue;	/* deleted meanwhile */
			val.count = 1;
			val.sum = val.min = val.max = v;
		} else if (bpf_map__lookup_elem(map, &key, ksz, &val,
						sizeof(val), 0)) {
			continue;
		}
		err = take_key(a, s, r, vars, &key, &val, v, caps);
		if (err)
			return err;
		if (clear && bpf_map__delete_elem(map, &key, ksz, 0))
			prev = NULL;	/* start over: the walk lost its place */
	}
	return 0;
}

/* drain_keys as one pass of the symbolizer (syms_drain_begin says why) */
static int drain_map(struct attach *a, struct syms *s, struct report *r,
		     bool vars, int only, bool clear, bool warm, size_t *caps)
{
	int err;

	syms_drain_begin(s);
	err = drain_keys(a, s, r, vars, only, clear, warm, caps);
	syms_drain_end(s);
	return err;
}

/*
 * Kernel keys that differ only in raw addresses (one call path walked by
 * frame pointers once and by tables once, two processes of one program)
 * print the same: one row. Variables keep their rows: a value each.
 */
static void merge_aggs(struct attach *a, struct report *r)
{
	int i;

	for (i = 0; i < a->plan->nmaps && r->maps; i++)
		if (a->plan->maps[i].kind == PLAN_MAP_AGG && r->maps[i])
			report_merge(r->maps[i]);
}

/* A report for every map, @r the main one, all in r->maps. */
static int map_reports(struct attach *a, struct report *r, int main_map)
{
	const struct plan *p = a->plan;
	int i;

	r->maps = calloc(p->nmaps ? p->nmaps : 1, sizeof(*r->maps));
	if (!r->maps)
		return -ENOMEM;
	r->nmaps = p->nmaps;
	for (i = 0; i < p->nmaps; i++) {
		struct report *mr = i == main_map ? r :
				    calloc(1, sizeof(*mr));

		if (!mr)
			return -ENOMEM;
		if (mr != r) {
			/* what the run says, each map prints it alike */
			*mr = *r;
			mr->maps = NULL;
			mr->nmaps = 0;
			mr->rows = NULL;
			mr->nrows = 0;
			mr->stats = NULL;
			mr->nstats = 0;
			mr->header = NULL;
			mr->files_verb = NULL;
			mr->count_label = mr->sum_label = NULL;
		}
		r->maps[i] = mr;
		mr->map_name = p->maps[i].name;
		mr->var = p->maps[i].kind == PLAN_MAP_VAR;
		mr->agg = mr->var ? SCRY_AGG_SUM : p->maps[i].agg;
		mr->lq_low = p->maps[i].lq_low;
		mr->lq_high = p->maps[i].lq_high;
		mr->lq_step = p->maps[i].lq_step;
		if (!mr->unit || mr != r)
			mr->unit = p->maps[i].unit;
	}
	return 0;
}

int drain_main_map(const struct attach *a)
{
	const struct plan *p = a->plan;
	int m = a->opts->map ? plan_map_find(p, a->opts->map) : -1;

	return m >= 0 ? m : plan_main_map(p);
}

int drain_report(struct attach *a, struct syms *s, struct report *r,
		 bool clear)
{
	const struct plan *p = a->plan;
	size_t caps[SCRY_MAX_MAPS] = {};
	int err;

	/* a snapshot that clears reads maps no probe writes any more */
	if (clear)
		attach_flip(a);
	err = map_reports(a, r, drain_main_map(a));
	/*
	 * The last drain names every stack's addresses first, then lets go
	 * of the DWARF (a debug file's sections unpacked: 10 MiB for
	 * libc's) before the rows and their frames are built, so the two
	 * are never held at once. Only an optimization: keys that the first
	 * pass missed are named as they come (DWARF read again if needed),
	 * and without the memo (no memory) every address is, as before.
	 */
	if (!err && !syms_memo_begin(s) && !clear) {
		drain_map(a, s, r, false, -1, false, true, caps);
		if (p->uses_vars)
			drain_map(a, s, r, true, -1, false, true, caps);
		obj_cache_drop_dwarf(syms_objs(s));
	}
	err = err ? : drain_map(a, s, r, false, -1, clear, false, caps);
	if (!err && p->uses_vars)
		err = drain_map(a, s, r, true, -1, clear, false, caps);
	/*
	 * The whole (last) drain is named: printing it needs no DWARF, and
	 * the unpacked sections would add to its peak. Interval snapshots
	 * keep theirs for the next.
	 */
	if (!clear)
		obj_cache_drop_dwarf(syms_objs(s));
	syms_memo_end(s);
	merge_aggs(a, r);
	return err ? : drain_stats(a, r);
}

int drain_one(struct attach *a, struct syms *s, int map, struct report *r)
{
	const struct plan *p = a->plan;
	size_t caps[SCRY_MAX_MAPS] = {};
	struct report *keep;
	int err;

	if (map < 0 || map >= p->nmaps)
		return -EINVAL;
	err = map_reports(a, r, map);
	if (err)
		return err;
	err = drain_map(a, s, r, p->maps[map].kind == PLAN_MAP_VAR, map,
			false, false, caps);
	/* keys that print the same are one row, as at the end */
	if (!err && p->maps[map].kind == PLAN_MAP_AGG)
		report_merge(r->maps[map]);
	/* only this map: the others were never filled */
	keep = r->maps[map];
	r->nmaps = 0;
	for (err = err ? err : 0, map = 0; map < p->nmaps; map++)
		if (r->maps[map] != keep)
			free(r->maps[map]);
	free(r->maps);
	r->maps = NULL;
	return err;
}

int drain_reset(struct attach *a, int map, bool zero)
{
	const struct plan *p = a->plan;
	struct bpf_map *m;
	struct scry_key key = { 0 }, next = { 0 }, *prev = NULL;
	static const struct scry_val zval = {
		.min = 0x7fffffffffffffffLL,
		.max = -0x7fffffffffffffffLL - 1,
	};
	__s64 z = 0;
	size_t ksz;
	bool var;

	if (map < 0 || map >= p->nmaps)
		return -EINVAL;
	var = p->maps[map].kind == PLAN_MAP_VAR;
	m = attach_map(a, var, false);
	ksz = bpf_map__key_size(m);	/* a prefix (plan_key_size) */
	while (!bpf_map__get_next_key(m, prev, &next, ksz)) {
		key = next;
		prev = &key;
		if ((int)key.map != map)
			continue;
		if (zero) {
			bpf_map__update_elem(m, &key, ksz,
					     var ? (const void *)&z :
						   (const void *)&zval,
					     var ? sizeof(z) : sizeof(zval),
					     BPF_EXIST);
		} else if (bpf_map__delete_elem(m, &key, ksz, 0)) {
			return -errno;
		} else {
			prev = NULL;	/* deleted: start over */
		}
	}
	return 0;
}
