/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF user stack walker: the same contract as scry_ustack_walk() in
 * stack.bpf.h, but each frame is unwound with the CFI row that covers its
 * pc (tables from src/unwind.c, format in include/scry/unwind_abi.h), so
 * code without frame pointers (Debian's libc) unwinds completely. Where
 * no table covers a pc (JIT code, files without CFI, a pid not loaded
 * yet) one frame-pointer step is taken instead.
 *
 * Include after struct scry_uregs and ustack_at_entry (stack.bpf.h),
 * before scry_ustack(). The step logic only uses bpf_map_lookup_elem,
 * bpf_probe_read_user, bpf_loop, scry_stat and scry_opaque, so
 * tests/unit/test_unwind.c compiles this very file for the host
 * (SCRY_UNWIND_HOST) with stubs.
 */
#ifndef SCRY_UNWIND_BPF_H
#define SCRY_UNWIND_BPF_H

#include <scry/abi.h>
#include <scry/unwind_abi.h>
#ifndef SCRY_UNWIND_HOST
#include "maps.bpf.h"
#endif
#include "vma.bpf.h"
#include "uwin.bpf.h"

/*
 * Loss counters: abi.h reserves SCRY_UNWIND_NSTATS ids from
 * SCRY_UNWIND_STAT_BASE. Until it does, counts fall past the stats map
 * and are dropped (scry_stat ignores ids it has no slot for).
 */
#ifndef SCRY_UNWIND_STAT_BASE
#define SCRY_UNWIND_STAT_BASE	SCRY_NSTATS
#endif

#define SCRY_UNWIND_MAP_STEPS	9	/* log2(SCRY_UNWIND_MAX_MAPS) + 1 */
#define SCRY_UNWIND_ROW_STEPS	24	/* tables up to 16M rows */

/* Set by the frontend when it loads tables: false prunes the walker. */
const volatile bool ustack_dwarf = false;

/*
 * Sizes are placeholders: the frontend sets them (docs/UNWIND.md). Every
 * chunk is the same size, as the template: the verifier inlines lookups
 * into them then (an inner map of its own size, BPF_F_INNER_MAP, would
 * take the helper's call).
 */
struct scry_unwind_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* filled by memcpy */
	__uint(max_entries, SCRY_UNWIND_CHUNK_ROWS);
	/*
	 * sizes, not types: clang's BTF has only a declaration of a type
	 * a map template alone names, and libbpf needs its size
	 */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct scry_unwind_row));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 32);
	__type(key, __u32);
	__array(values, struct scry_unwind_chunk);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct scry_unwind_tinfo);
} unwind_tables SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* 8 KiB values, rcu-freed */
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct scry_unwind_proc);
} unwind_procs SEC(".maps");

/* Tables by file identity, for mappings the kernel names (vma.bpf.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct scry_file_key);
	__type(value, struct scry_unwind_file);
} unwind_files SEC(".maps");

/* The registers a walk carries from one frame to the next. */
struct scry_unwind_regs {
	__u64 pc;
	__u64 sp;
	__u64 bp;
	bool exact;		/* pc is not a return address: look it up as is */
};

/* Walk state, shared by the bpf_loop iterations of one stack. */
struct scry_unwind_walk {
	const struct scry_unwind_proc *proc;	/* NULL: ask the kernel */
	struct scry_stack *st;
	struct scry_unwind_kstate *ks;		/* NULL: do not ask */
	struct scry_unwind_regs *r;
	struct scry_uwin *win;			/* the stack's top: ks->win */
};

/*
 * A loss, counted: each walk's own, never kept (scry_memo), so that a
 * later event with the same stack counts its loss too.
 */
static __always_inline void scry_unwind_stat(struct scry_uwin *win,
					     __u32 reason)
{
	scry_stat(SCRY_UNWIND_STAT_BASE + reason);
	scry_uwin_unkept(win);
}

/* Row @idx of unwind_rows (its chunk, then the row), or NULL. */
static __always_inline const struct scry_unwind_row *scry_unwind_row_at(
	__u32 idx)
{
	__u32 c = idx >> SCRY_UNWIND_CHUNK_SHIFT;
	__u32 o = idx & (SCRY_UNWIND_CHUNK_ROWS - 1);
	void *chunk = bpf_map_lookup_elem(&unwind_rows, &c);

	return chunk ? bpf_map_lookup_elem(chunk, &o) : NULL;
}

/* Stop the walk (bpf_loop callbacks return 1 to end the loop). */
static __always_inline long scry_unwind_fail(struct scry_unwind_walk *w,
					     __u32 reason)
{
	scry_unwind_stat(w->win, reason);
	return 1;
}

/*
 * @nw words at user address @addr into @dst, from the stack's window when
 * it holds them: 0, or the read's error.
 */
static __always_inline long scry_unwind_read(struct scry_unwind_walk *w,
					     __u64 *dst, __u32 nw, __u64 addr)
{
	const __u64 *p = scry_uwin_at(w->win, addr, nw);
	__u32 k;

	if (!p) {
		scry_uwin_unkept(w->win);
		return bpf_probe_read_user(dst, nw * 8, (const void *)addr);
	}
	for (k = 0; k < nw; k++)
		dst[k] = p[k];
	return 0;
}

static __always_inline long scry_unwind_push(struct scry_unwind_walk *w,
					     __u64 pc)
{
	/*
	 * The frame count lives in st (map memory), not in w on the stack:
	 * the verifier would track it exactly there and verify this callback
	 * once per possible count.
	 */
	__u32 n = w->st->nr;

	if (!pc)		/* a zero return address ends every stack */
		return 1;
	if (n >= SCRY_MAX_FRAMES) {
		w->st->flags |= SCRY_STACK_TRUNCATED;
		return scry_unwind_fail(w, SCRY_UNWIND_STAT_DEPTH);
	}
	w->st->ip[n] = pc;
	w->st->nr = n + 1;
	return 0;
}

/*
 * The two binary searches are global functions, each step a bpf_loop()
 * callback: the verifier checks a step once, not once per step of the
 * loop in every program that takes a stack (unrolled, the two were
 * ~2,100 of the 11,000 instructions verified of offcpu's sched_switch
 * program), nor once per loop exit inside every caller (hundreds of
 * thousands of instructions when inlined). Since 6.0 the verifier
 * inlines bpf_loop() with a known callback into a loop of direct calls.
 */

/*
 * One search's state: lower bound @lo of @n candidates, @key the value
 * searched for. The callbacks read and write it through the pointer, so
 * the verifier tracks none of it exactly and checks a step once.
 */
struct scry_unwind_search {
	const struct scry_unwind_proc *proc;	/* map_find's list */
	__u64 key;
	__u32 lo;
	__u32 n;
};

/* lower bound: the index moves by half, and needs no hi */
static long scry_unwind_map_step(__u32 i, void *ctx)
{
	struct scry_unwind_search *q = ctx;
	__u32 half = q->n / 2;

	(void)i;
	if (q->n <= 1)
		return 1;
	if (q->proc->map[(q->lo + half) & (SCRY_UNWIND_MAX_MAPS - 1)].start <=
	    q->key)
		q->lo += half;
	q->n -= half;
	return 0;
}

/* Copy the mapping that covers @pc into @out: 0, or -1 if none does. */
__attribute__((noinline))
int scry_unwind_map_find(const struct scry_unwind_proc *proc, __u64 pc,
			 struct scry_unwind_map *out)
{
	struct scry_unwind_search q = { .proc = proc, .key = pc };
	const struct scry_unwind_map *m;

	if (!proc || !out)
		return -1;
	q.n = proc->n;
	if (q.n > SCRY_UNWIND_MAX_MAPS)
		q.n = SCRY_UNWIND_MAX_MAPS;
	if (!q.n)
		return -1;
	bpf_loop(SCRY_UNWIND_MAP_STEPS, scry_unwind_map_step, &q, 0);
	m = &proc->map[q.lo & (SCRY_UNWIND_MAX_MAPS - 1)];
	if (pc < m->start || pc >= m->end)
		return -1;
	*out = *m;
	return 0;
}

static long scry_unwind_row_step(__u32 i, void *ctx)
{
	struct scry_unwind_search *q = ctx;
	const struct scry_unwind_row *r;
	__u32 half = q->n / 2, mid = q->lo + half;

	(void)i;
	if (q->n <= 1)
		return 1;
	r = scry_unwind_row_at(mid);
	if (!r) {
		q->n = 0;	/* outside the rows: no answer */
		return 1;
	}
	if (r->pc <= q->key)
		q->lo = mid;
	q->n -= half;
	return 0;
}

/* Index of the last row in [lo, lo + n) at or below @pc, or -1. */
__attribute__((noinline))
int scry_unwind_row_find(__u32 lo, __u32 n, __u32 pc)
{
	struct scry_unwind_search q = { .key = pc, .lo = lo, .n = n };

	if (!n)
		return -1;
	bpf_loop(SCRY_UNWIND_ROW_STEPS, scry_unwind_row_step, &q, 0);
	if (q.n != 1)
		return -1;	/* more rows than it covers, or none */
	return q.lo;
}

/*
 * Index of the row of @pc (a vaddr) in table @ti, or -1: the bucket
 * index (unwind_abi.h) narrows the search to the rows between two slots,
 * a step or two for most pcs; a table placed without one is searched
 * whole.
 */
static __always_inline int scry_unwind_row_lookup(
	const struct scry_unwind_tinfo *ti, __u32 pc)
{
	const struct scry_unwind_row *a, *b;
	__u32 k, bucket;

	if (!ti->nbuckets)
		return scry_unwind_row_find(ti->base, ti->nrows, pc);
	if (pc < ti->pc0)
		return -1;	/* below the first row: no row covers it */
	bucket = (pc - ti->pc0) >> (ti->shift & 31);
	if (bucket >= ti->nbuckets)
		bucket = ti->nbuckets - 1;
	k = ti->index + bucket;
	a = scry_unwind_row_at(k);
	b = scry_unwind_row_at(k + 1);
	if (!a || !b || a->pc > b->pc || b->pc >= ti->nrows)
		return -1;	/* not an index the frontend wrote */
	return scry_unwind_row_find(ti->base + a->pc, b->pc - a->pc + 1, pc);
}

/*
 * Index of the row of @pc in table @ti (id @table) from @ks's hints, or -1:
 * taken only when the rows say it is @pc's, the last at or below @pc
 * (the next above it, or none after it in the table). A global function,
 * as the searches: checked once, not once per path of the frame into it.
 */
__attribute__((noinline))
int scry_unwind_row_hint(struct scry_unwind_kstate *ks,
			 const struct scry_unwind_tinfo *ti, __u32 table,
			 __u32 pc)
{
	const struct scry_unwind_hint *h;
	const struct scry_unwind_row *r;
	__u32 idx, next;

	if (!ks || !ti)
		return -1;
	h = &ks->hint[(pc ^ (pc >> 6) ^ table) & (SCRY_UNWIND_HINTS - 1)];
	if (h->table != table || h->pc != pc)
		return -1;
	idx = h->idx;
	if (idx < ti->base || idx - ti->base >= ti->nrows)
		return -1;
	r = scry_unwind_row_at(idx);
	if (!r || r->pc > pc)
		return -1;
	if (idx - ti->base + 1 < ti->nrows) {
		next = idx + 1;
		r = scry_unwind_row_at(next);
		if (!r || r->pc <= pc)
			return -1;
	}
	return idx;
}

static __always_inline void scry_unwind_row_hint_put(
	struct scry_unwind_kstate *ks, __u32 table, __u32 pc, __u32 idx)
{
	struct scry_unwind_hint *h;

	if (!ks)
		return;
	h = &ks->hint[(pc ^ (pc >> 6) ^ table) & (SCRY_UNWIND_HINTS - 1)];
	h->table = table;
	h->pc = pc;
	h->idx = idx;
}

/*
 * The mapping of @pc from the kernel itself, for a process whose list the
 * frontend has not written yet (its first instructions, a library it just
 * mapped): the file's identity finds its table in unwind_files, and the
 * vma's file offset gives the bias. 0, or why there is no table.
 */
static __always_inline __u32 scry_unwind_kmap(struct scry_unwind_walk *w,
					      __u64 pc, struct scry_unwind_map *m)
{
	struct scry_unwind_kstate *ks = w->ks;
	const struct scry_unwind_file *uf;
	struct scry_unwind_map *c;
	struct scry_vma vma;
	__u64 off, base;
	__u32 i;

	if (!ks)
		return SCRY_UNWIND_STAT_NO_MAPPING;
	for (i = 0; i < SCRY_UNWIND_VMA_CACHE; i++) {
		c = &ks->seen[i];
		if (pc >= c->start && pc < c->end) {
			*m = *c;
			return c->table ? 0 : SCRY_UNWIND_STAT_NO_TABLE;
		}
	}
	if (ks->asks >= SCRY_UNWIND_VMA_ASKS)
		return SCRY_UNWIND_STAT_VMA_BUSY;
	ks->asks++;
	/* what the kernel said is not in the window: not kept */
	scry_uwin_unkept(w->win);
	scry_vma_find_current(pc, &vma);
	if (vma.kind == SCRY_VMA_BUSY)
		return SCRY_UNWIND_STAT_VMA_BUSY;
	if (vma.kind != SCRY_VMA_FILE && vma.kind != SCRY_VMA_VDSO)
		return SCRY_UNWIND_STAT_NO_MAPPING;
	/* the vDSO is not a file: its image starts at the vma */
	base = vma.start;
	if (vma.kind == SCRY_VMA_FILE)
		base -= vma.pgoff << 12;
	c = &ks->seen[ks->next & (SCRY_UNWIND_VMA_CACHE - 1)];
	ks->next++;
	c->start = vma.start;
	c->end = vma.end;
	c->table = 0;
	uf = bpf_map_lookup_elem(&unwind_files, &vma.key);
	if (!uf)
		return SCRY_UNWIND_STAT_NO_TABLE;
	off = pc - base;
	for (i = 0; i < SCRY_UNWIND_MAX_SEGS; i++) {
		if (i >= uf->nsegs)
			break;
		if (off >= uf->seg[i].off && off - uf->seg[i].off < uf->seg[i].len) {
			/* vaddr = off + delta, bias = address - vaddr */
			c->bias = base - uf->seg[i].delta;
			c->table = uf->table;
			*m = *c;
			return 0;
		}
	}
	return SCRY_UNWIND_STAT_NO_ROW;
}

/* The mapping of @pc into @m if one of the last frames' has it. */
static __always_inline bool scry_unwind_last(struct scry_unwind_kstate *ks,
					     __u64 pc,
					     struct scry_unwind_map *m)
{
	struct scry_unwind_map *c;
	__u32 i;

	if (!ks)
		return false;
	for (i = 0; i < SCRY_UNWIND_LAST; i++) {
		c = &ks->last[i];
		if (c->table && pc >= c->start && pc < c->end) {
			*m = *c;
			return true;
		}
	}
	return false;
}

/* The row for the current frame (0), or why there is none. */
static __always_inline __u32 scry_unwind_find(struct scry_unwind_walk *w,
					      struct scry_unwind_row *out)
{
	const struct scry_unwind_tinfo *ti;
	const struct scry_unwind_row *r;
	struct scry_unwind_map m = {};
	/* a return address follows the call: its caller's row is at ra - 1 */
	__u64 pc = w->r->exact ? w->r->pc : w->r->pc - 1;
	__u32 idx, why;
	int i;

	if (!scry_unwind_last(w->ks, pc, &m)) {
		if (!w->proc || scry_unwind_map_find(w->proc, pc, &m)) {
			why = scry_unwind_kmap(w, pc, &m);
			if (why)
				return why;
		}
		if (w->ks)
			w->ks->last[w->ks->lnext++ & (SCRY_UNWIND_LAST - 1)] = m;
	}
	ti = bpf_map_lookup_elem(&unwind_tables, &m.table);
	if (!ti)
		return SCRY_UNWIND_STAT_NO_MAPPING;
	pc -= m.bias;
	if (pc > 0xffffffffULL)
		return SCRY_UNWIND_STAT_NO_ROW;
	i = scry_unwind_row_hint(w->ks, ti, m.table, pc);
	if (i < 0) {
		i = scry_unwind_row_lookup(ti, pc);
		if (i < 0)
			return SCRY_UNWIND_STAT_NO_ROW;
		scry_unwind_row_hint_put(w->ks, m.table, pc, i);
	}
	idx = i;
	r = scry_unwind_row_at(idx);
	if (!r || r->pc > pc ||
	    (r->cfa & SCRY_UNWIND_CFA_MASK) == SCRY_UNWIND_CFA_NONE)
		return SCRY_UNWIND_STAT_NO_ROW;
	*out = *r;
	return 0;
}

/*
 * No row: one frame-pointer step, [rbp] = caller's rbp, [rbp + 8] = return
 * address. At a uprobe on a function's first instruction the callee has
 * not pushed rbp yet: the return address is at [rsp] and rbp is already
 * the caller's.
 */
static __always_inline long scry_unwind_fp(struct scry_unwind_walk *w)
{
	__u64 frame[2];

	if (w->st->nr == 1 && w->r->exact && ustack_at_entry) {
		if (scry_unwind_read(w, &frame[1], 1, w->r->sp))
			return scry_unwind_fail(w, SCRY_UNWIND_STAT_FAULT);
		w->r->sp += 8;
	} else {
		/* a frame below the stack pointer is garbage, not a frame */
		if (!w->r->bp || w->r->bp < w->r->sp)
			return 1;
		if (scry_unwind_read(w, frame, 2, w->r->bp))
			return scry_unwind_fail(w, SCRY_UNWIND_STAT_FAULT);
		w->r->sp = w->r->bp + 16;
		w->r->bp = frame[0];
	}
	w->r->pc = frame[1];
	w->r->exact = false;
	return scry_unwind_push(w, w->r->pc);
}

/*
 * __restore_rt: the caller is the interrupted context, whose registers
 * the kernel saved in the rt_sigframe: rsp points at its ucontext, whose
 * uc_mcontext starts at +40; rbp, rsp, rip sit at +80, +120, +128 in it.
 */
static __always_inline long scry_unwind_signal(struct scry_unwind_walk *w)
{
	__u64 regs[7];		/* rbp, rbx, rdx, rax, rcx, rsp, rip */

	if (scry_unwind_read(w, regs, 7, w->r->sp + 40 + 80))
		return scry_unwind_fail(w, SCRY_UNWIND_STAT_FAULT);
	w->r->bp = regs[0];
	w->r->sp = regs[5];
	w->r->pc = regs[6];
	w->r->exact = true;	/* interrupted, not called: no pc - 1 */
	return scry_unwind_push(w, w->r->pc);
}

/* One frame: from (pc, sp, bp) to the caller's. Returns 1 to stop. */
static __always_inline long scry_unwind_frame(struct scry_unwind_walk *w)
{
	struct scry_unwind_row r = {};
	__u64 cfa, ra, bp = w->r->bp;
	__s64 off;
	__u32 why;

	why = scry_unwind_find(w, &r);
	/*
	 * No CFI and no frame pointer: the outermost frame of code that
	 * marks its end only by rbp = 0, as ld.so's _start does (no FDE in
	 * Debian's ld.so). That is where every process's stack begins, not a
	 * loss: end the walk without counting it.
	 */
	if (why == SCRY_UNWIND_STAT_NO_ROW && !w->r->bp)
		return 1;
	if (why) {
		scry_unwind_stat(w->win, why);
		return scry_unwind_fp(w);
	}
	off = r.off;
	if (r.cfa & SCRY_UNWIND_CFA_OFF8)
		off *= 8;
	switch (r.cfa & SCRY_UNWIND_CFA_MASK) {
	case SCRY_UNWIND_CFA_RSP:
		cfa = w->r->sp + off;
		break;
	case SCRY_UNWIND_CFA_RBP:
		cfa = w->r->bp + off;
		break;
	case SCRY_UNWIND_CFA_PLT:
		cfa = w->r->sp + 8 + ((__s64)(w->r->pc & 15) >= off ? 8 : 0);
		break;
	case SCRY_UNWIND_CFA_DEREF_RBP:
		if (scry_unwind_read(w, &cfa, 1, w->r->bp + off))
			return scry_unwind_fail(w, SCRY_UNWIND_STAT_FAULT);
		break;
	case SCRY_UNWIND_CFA_SIGNAL:
		return scry_unwind_signal(w);
	case SCRY_UNWIND_CFA_END:
		return 1;
	default:
		return scry_unwind_fail(w, SCRY_UNWIND_STAT_UNSUPPORTED);
	}
	/* callers' frames lie above: anything else is a corrupt stack */
	if (cfa <= w->r->sp)
		return scry_unwind_fail(w, SCRY_UNWIND_STAT_FAULT);
	if (r.rbp == 2) {
		/*
		 * `push rbp` first thing: the saved rbp sits right below the
		 * return address, and one read of both halves the cost of
		 * the most common frame.
		 */
		__u64 pair[2];

		if (scry_unwind_read(w, pair, 2, cfa - 16))
			return scry_unwind_fail(w, SCRY_UNWIND_STAT_FAULT);
		bp = pair[0];
		ra = pair[1];
	} else {
		if (scry_unwind_read(w, &ra, 1, cfa - 8))
			return scry_unwind_fail(w, SCRY_UNWIND_STAT_FAULT);
		if (r.rbp == SCRY_UNWIND_RBP_LOST)
			bp = 0;
		else if (r.rbp != SCRY_UNWIND_RBP_SAME &&
			 scry_unwind_read(w, &bp, 1, cfa - 8 * (__u64)r.rbp))
			return scry_unwind_fail(w, SCRY_UNWIND_STAT_FAULT);
	}
	w->r->sp = cfa;
	w->r->bp = bp;
	w->r->pc = ra;
	w->r->exact = false;
	return scry_unwind_push(w, ra);
}

/* What the bpf_loop callback gets: the walk's pointers and registers. */
struct scry_unwind_loop {
	const struct scry_unwind_proc *proc;
	struct scry_stack *st;
	struct scry_unwind_kstate *ks;
	struct scry_unwind_regs r;
};

/*
 * One frame, as a global function: the verifier checks it once, from
 * unknown arguments, not once per round of the bpf_loop callback's
 * states until they converge (6.8 on) nor at each caller. Its pointers
 * are nullable memory of their types' sizes to it (kernels from 5.12);
 * pointers loaded from memory would be scalars to it, hence four
 * arguments and not the loop's struct. Returns 1 to stop.
 */
__attribute__((noinline))
int scry_unwind_frame_once(struct scry_unwind_regs *r, struct scry_stack *st,
			   struct scry_unwind_kstate *ks,
			   const struct scry_unwind_proc *proc)
{
	struct scry_unwind_walk w = { .proc = proc, .st = st, .ks = ks, .r = r };

	if (!r || !st || !ks)
		return 1;
	w.win = &ks->win;
	return scry_unwind_frame(&w);
}

static long scry_unwind_step(__u32 i, void *ctx)
{
	struct scry_unwind_loop *l = ctx;

	(void)i;
	/* the verifier wants a callback's return within [0, 1] */
	return scry_unwind_frame_once(&l->r, l->st, l->ks, l->proc) ? 1 : 0;
}

/*
 * Unwind the user stack from @ur into @st: st->ip[0] = pc, then return
 * addresses (after a signal frame: the interrupted pc); st->nr;
 * SCRY_STACK_TRUNCATED when more than SCRY_MAX_FRAMES frames exist.
 * bpf_loop keeps the verifier's cost at one frame, not 127.
 *
 * A global function too: checked once per program, not once per state of
 * its caller that reaches it. 6.1 allows 512 bytes of stack for the
 * deepest chain of calls (a sys_enter program naming a path, this, the
 * callback, the frame, its search): hence the registers by pointer.
 * @ks is the event's scratch's walk state, its window filled from ur->sp
 * (uwin.bpf.h).
 */
__attribute__((noinline))
int scry_ustack_dwarf(__u32 pid, __u32 gen, const struct scry_uregs *ur,
		      struct scry_stack *st, struct scry_unwind_kstate *ks)
{
	struct scry_unwind_loop w = { .st = st, .ks = ks, .r.exact = true };

	if (!ur || !st || !ks)
		return 0;
	w.r.pc = ur->ip;
	w.r.sp = ur->sp;
	w.r.bp = ur->bp;
	__builtin_memset(ks, 0, __builtin_offsetof(struct scry_unwind_kstate,
						   hint));
	/*
	 * A list written for another image of this pid (before an exec)
	 * would apply the wrong tables: only the current generation's counts.
	 */
	w.proc = bpf_map_lookup_elem(&unwind_procs, &pid);
	if (w.proc && w.proc->gen != gen)
		w.proc = NULL;
	if (!w.proc)
		scry_unwind_stat(&ks->win, SCRY_UNWIND_STAT_NO_PROC);
	st->flags = 0;
	st->ip[0] = ur->ip;
	st->nr = 1;
	bpf_loop(SCRY_MAX_FRAMES, scry_unwind_step, &w, 0);
	return 0;
}

#endif /* SCRY_UNWIND_BPF_H */
