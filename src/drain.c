// SPDX-License-Identifier: GPL-2.0
/*
 * drain: read the aggregation map key by key, turn each key into the
 * plan's columns (stacks symbolized through the stack store), and collect
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
#include <scry/report.h>
#include <scry/sym.h>
#include "scry.skel.h"

static const struct {
	enum scry_stat stat;
	const char *what;
	const char *fix;
} stat_text[] = {
	{ SCRY_STAT_AGG_FULL, "aggregation drops", "raise --max-keys" },
	{ SCRY_STAT_STACK_FULL, "stack drops (stack store full)",
	  "raise --max-stacks" },
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
	{ SCRY_STAT_STRING_FULL, "path drops (string store full)",
	  "raise --max-keys" },
	{ SCRY_STAT_PATH_ERR, "fds not resolvable to a path", NULL },
	{ SCRY_STAT_UNWIND_FIRST + SCRY_UNWIND_STAT_NO_PROC,
	  "user stacks taken before the process's unwind tables were loaded "
	  "(frame pointers used)", NULL },
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
	{ SCRY_STAT_PRED_ERR, "predicate errors (a scry bug: please report)",
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

static int resolve_kernel(struct syms *s, const struct scry_stack *st,
			  struct report_stack *out)
{
	struct report_frame fr;
	__u32 i;

	for (i = 0; i < st->nr; i++) {
		memset(&fr, 0, sizeof(fr));
		if (syms_kernel(s, st->ip[i], &fr) < 0)
			fr.addr = st->ip[i];
		fr.kernel = true;
		/* the BPF trampoline frames above the traced function */
		if (out->nr == 0 && syms_is_bpf_frame(&fr)) {
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
	struct report_frame fr[8];
	__u32 i;
	int n, j;

	for (i = 0; i < st->nr; i++) {
		__u64 pc = i ? st->ip[i] - 1 : st->ip[i];

		memset(fr, 0, sizeof(fr));
		n = syms_user(s, pid, pc, fr, 8);
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
	struct scry_stack st;
	int err;

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
	out->frames = calloc(SCRY_MAX_FRAMES * 2, sizeof(*out->frames));
	if (!out->frames)
		return -ENOMEM;
	out->truncated = st.flags & SCRY_STACK_TRUNCATED;
	if (kernel)
		err = resolve_kernel(s, &st, out);
	else
		err = resolve_user(s, pid, &st, out);
	/* room was made for inlined expansions: keep only what is used */
	if (!err && out->nr) {
		struct report_frame *fit;

		fit = realloc(out->frames, out->nr * sizeof(*fit));
		if (fit)
			out->frames = fit;
	}
	return err;
}

/* The string behind a path id; "[path lost]" when it was not stored. */
static char *path_of(struct attach *a, __u64 id)
{
	struct scry_path p;

	if (!id || bpf_map__lookup_elem(a->skel->maps.strings, &id,
					sizeof(id), &p, sizeof(p), 0))
		return strdup("[path lost: raise --max-keys]");
	if (p.len >= SCRY_PATH_MAX)
		p.len = SCRY_PATH_MAX - 1;
	return strndup(p.str, p.len);
}

static int fill_row(struct attach *a, struct syms *s, const struct scry_key *k,
		    const struct scry_val *v, struct report_row *row)
{
	const struct plan *p = a->plan;
	struct report_key *rk;
	int i, err;

	memset(row, 0, sizeof(*row));
	row->val = *v;
	for (i = 0; i < p->nkeys && row->nkeys < REPORT_MAX_KEYS; i++) {
		const struct plan_key *pk = &p->keys[i];
		bool both = !strcmp(pk->name, "stack");

		rk = &row->keys[row->nkeys++];
		rk->name = pk->name;
		rk->field = pk->field;
		switch (pk->field) {
		case SCRY_F_KSTACK:
			rk->kind = REPORT_KEY_KSTACK;
			err = fill_stack(a, s, k->kstack, k->pid, true,
					 &rk->stack);
			if (err)
				return err;
			if (!both || row->nkeys >= REPORT_MAX_KEYS)
				break;
			rk = &row->keys[row->nkeys++];
			rk->name = pk->name;
			rk->field = SCRY_F_USTACK;
			/* "stack" is kernel then user */
			/* fall through */
		case SCRY_F_USTACK:
			rk->kind = REPORT_KEY_USTACK;
			err = fill_stack(a, s, k->ustack, k->pid, false,
					 &rk->stack);
			if (err)
				return err;
			break;
		case SCRY_F_COMM:
			rk->kind = REPORT_KEY_STR;
			rk->s = strndup(k->comm, sizeof(k->comm));
			if (!rk->s)
				return -ENOMEM;
			break;
		default:
			if (pk->string_id && pk->slot >= 0) {
				rk->kind = REPORT_KEY_STR;
				rk->s = path_of(a, k->ints[pk->slot]);
				if (!rk->s)
					return -ENOMEM;
				break;
			}
			rk->kind = REPORT_KEY_INT;
			rk->i = pk->slot >= 0 ? k->ints[pk->slot] : 0;
			break;
		}
	}
	return 0;
}

static int drain_stats(struct attach *a, struct report *r)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *vals, total;
	size_t i;
	__u32 id;
	int c;

	if (ncpu < 1)
		return ncpu;
	vals = calloc(ncpu, sizeof(*vals));
	r->stats = calloc(sizeof(stat_text) / sizeof(stat_text[0]),
			  sizeof(*r->stats));
	if (!vals || !r->stats) {
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i < sizeof(stat_text) / sizeof(stat_text[0]); i++) {
		id = stat_text[i].stat;
		if (bpf_map__lookup_elem(a->skel->maps.stats, &id, sizeof(id),
					 vals, ncpu * sizeof(*vals), 0))
			continue;
		for (total = 0, c = 0; c < ncpu; c++)
			total += vals[c];
		if (!total)
			continue;
		r->stats[r->nstats].what = stat_text[i].what;
		r->stats[r->nstats].fix = stat_text[i].fix;
		r->stats[r->nstats].count = total;
		r->nstats++;
	}
	free(vals);
	return 0;
}

int drain_report(struct attach *a, struct syms *s, struct report *r,
		 bool clear)
{
	struct bpf_map *aggs = a->skel->maps.aggs;
	struct scry_key key, next, *prev = NULL;
	struct scry_val val;
	size_t cap = 0;
	int err = 0;

	while (!bpf_map__get_next_key(aggs, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		if (bpf_map__lookup_elem(aggs, &key, sizeof(key), &val,
					 sizeof(val), 0))
			continue;	/* deleted meanwhile */
		if (r->nrows == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct report_row *rows;

			rows = realloc(r->rows, ncap * sizeof(*rows));
			if (!rows)
				return -ENOMEM;
			r->rows = rows;
			cap = ncap;
		}
		/* a pid whose notice was lost: try now, it may still live */
		if (a->plan->key_ustack && key.pid)
			syms_add_pid(s, key.pid);
		err = fill_row(a, s, &key, &val, &r->rows[r->nrows]);
		r->nrows++;
		if (err)
			return err;
	}
	/* interval snapshots start afresh; new events land in new keys */
	while (clear &&
	       !bpf_map__get_next_key(aggs, NULL, &next, sizeof(next)))
		if (bpf_map__delete_elem(aggs, &next, sizeof(next), 0))
			break;
	return drain_stats(a, r);
}
