/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scry's own stack store: frames hashed by content into the `stacks` map,
 * so two different stacks never share an id and nothing is lost silently
 * (STACK_TRACE maps drop colliding stacks with -EEXIST). Kernel stacks come
 * from bpf_get_stack(); user stacks from one unwinder entry point,
 * scry_ustack_walk(), so a DWARF unwinder can replace the frame-pointer
 * walk without touching anything else.
 */
#ifndef SCRY_STACK_BPF_H
#define SCRY_STACK_BPF_H

#include <scry/abi.h>
#include "maps.bpf.h"

/* User registers an unwinder starts from. */
struct scry_uregs {
	__u64 ip;
	__u64 sp;
	__u64 bp;
};

/* Set when the probe fires at a function's first instruction (uprobes). */
const volatile bool ustack_at_entry = false;

struct scry_hash_walk {
	const struct scry_stack *st;
	__u64 h;
};

static long scry_stack_hash_step(__u32 i, void *ctx)
{
	struct scry_hash_walk *w = ctx;
	__u64 h;

	if (i >= SCRY_MAX_FRAMES)
		return 1;
	h = (w->h ^ w->st->ip[i]) * 0x9e3779b97f4a7c15ULL;
	w->h = h ^ (h >> 31);
	return 0;
}

/*
 * A global function, a frame per bpf_loop() step: the verifier checks a
 * step once, not the 127 of an unrolled loop (1,419 instructions of
 * offcpu's sched_switch program), and not once per stack a program takes
 * and path it takes it on (~7,000 when inlined). Only the hash: 6.1's
 * verifier takes no argument's memory as a map update's value.
 */
__attribute__((noinline))
__u64 scry_stack_hash(const struct scry_stack *st)
{
	struct scry_hash_walk w = { .st = st };

	if (!st)
		return 1;
	w.h = 0xcbf29ce484222325ULL ^ st->flags;
	bpf_loop(st->nr < SCRY_MAX_FRAMES ? st->nr : SCRY_MAX_FRAMES,
		 scry_stack_hash_step, &w, 0);
	if (w.h == 0 || w.h == SCRY_STACK_LOST)
		w.h = 1;
	return w.h;
}

/* Store @st, return its id (SCRY_STACK_LOST when the store is full). */
static __always_inline __u64 scry_stack_store(const struct scry_stack *st)
{
	__u64 id;
	int err;

	if (st->nr == 0)
		return 0;
	id = scry_stack_hash(st);
	if (bpf_map_lookup_elem(&stacks, &id))
		return id;
	err = scry_map_err(bpf_map_update_elem(&stacks, &id, st, BPF_NOEXIST));
	/* -ENOMEM: not full, no memory (attach.c: alloc_on_demand) */
	if (err && err != -EEXIST) {
		scry_stat(err == -ENOMEM ? SCRY_STAT_STACK_NOMEM :
			  SCRY_STAT_STACK_FULL);
		return SCRY_STACK_LOST;
	}
	return id;
}

static __always_inline __u64 scry_kstack(void *ctx, struct scry_stack *st)
{
	long n = bpf_get_stack(ctx, st->ip, sizeof(st->ip), 0);

	if (n < 0) {
		scry_stat(SCRY_STAT_KSTACK_ERR);
		return SCRY_STACK_LOST;
	}
	st->nr = n / sizeof(__u64);
	st->flags = SCRY_STACK_KERNEL;
	if (st->nr >= SCRY_MAX_FRAMES)
		st->flags |= SCRY_STACK_TRUNCATED;
	return scry_stack_store(st);
}

/*
 * Frame-pointer walk: each frame is [saved rbp][return address]. At a
 * function's first instruction the callee has not pushed rbp yet, so the
 * caller's return address sits at [rsp] and rbp still names the caller's
 * frame: take [rsp] first, then follow rbp. The walk stops at a zero or
 * non-increasing frame pointer (stacks grow down), or unreadable memory.
 * One frame per bpf_loop() iteration: the verifier checks the step once
 * instead of unrolling 127 of them into every program.
 */
struct scry_fp_walk {
	struct scry_stack *st;
	struct scry_uwin *win;		/* the stack's top, read once */
	__u64 bp;
	/*
	 * A frame read from the user, outside the window: here, in the
	 * caller's stack, not in the callback's own, where 6.18's verifier
	 * refuses the read of the buffer ("verifier bug: stack slot 2,
	 * total slots 0"), and only on some builds of the same code.
	 */
	__u64 frame[2];
};

static long scry_fp_step(__u32 i, void *ctx)
{
	struct scry_fp_walk *w = ctx;
	struct scry_stack *st = w->st;
	const __u64 *frame;
	__u32 n = st->nr;

	(void)i;
	if (n >= SCRY_MAX_FRAMES) {
		st->flags |= SCRY_STACK_TRUNCATED;
		return 1;
	}
	if (!w->bp)
		return 1;
	frame = scry_uwin_at(w->win, w->bp, 2);
	if (!frame) {
		if (bpf_probe_read_user(w->frame, sizeof(w->frame),
					(void *)w->bp)) {
			scry_stat(SCRY_STAT_USTACK_FAULT);
			scry_uwin_unkept(w->win);
			return 1;
		}
		frame = w->frame;
	}
	if (!frame[1])
		return 1;
	st->ip[n] = frame[1];
	st->nr = n + 1;
	if (frame[0] <= w->bp)
		return 1;
	w->bp = frame[0];
	return 0;
}

/* The walk over the stack's top in @win, filled from ur->sp. */
static __always_inline void scry_ustack_walk(const struct scry_uregs *ur,
					     struct scry_stack *st,
					     struct scry_uwin *win)
{
	struct scry_fp_walk w = { .st = st, .win = win, .bp = ur->bp };
	const __u64 *top;
	__u64 ra = 0;

	st->flags = 0;
	st->nr = 1;
	st->ip[0] = ur->ip;
	if (ustack_at_entry) {
		top = scry_uwin_at(win, ur->sp, 1);
		if (top)
			ra = top[0];
		else if (bpf_probe_read_user(&ra, sizeof(ra), (void *)ur->sp))
			ra = 0;
		if (ra) {
			st->ip[1] = ra;
			st->nr = 2;
		}
	}
	bpf_loop(SCRY_MAX_FRAMES, scry_fp_step, &w, 0);
}

#include "unwind.bpf.h"

static __always_inline struct scry_memo *scry_memo_slot(struct scry_scratch *s,
							const struct scry_uregs *ur)
{
	__u64 h = (ur->ip ^ (ur->sp >> 3)) * 0x9e3779b97f4a7c15ULL;

	return &s->memo[(h >> 60) & (SCRY_MEMO_SLOTS - 1)];
}

/*
 * The kept walk @m, if it is this one: the same process image and
 * epoch, the same registers, the same words at the same places in the
 * window just read. Its stack id, else 0.
 */
static __always_inline __u64 scry_memo_find(const struct scry_memo *m,
					    const struct scry_uwin *win,
					    __u32 pid, __u32 gen, __u32 epoch,
					    const struct scry_uregs *ur)
{
	__u64 begin = m->begin;
	__u32 n = m->n, i, o;

	if (!begin || m->done != begin || m->pid != pid || m->gen != gen ||
	    m->epoch != epoch || m->pc != ur->ip || m->sp != ur->sp ||
	    m->bp != ur->bp || m->len > win->len || win->base != ur->sp)
		return 0;
	for (i = 0; i < SCRY_MEMO_WORDS; i++) {
		if (i >= n)
			break;
		o = m->off[i] & (SCRY_UWIN_WORDS - 1);
		if (win->w[o] != m->w[o])
			return 0;
	}
	/* torn while we read it: another program wrote it meanwhile */
	return *(volatile const __u64 *)&m->begin == begin &&
	       *(volatile const __u64 *)&m->done == begin ? m->stack : 0;
}

/*
 * Keep the walk just done for @ur, whose stack is @stack, in its slot, if
 * it may be kept (all it read in the window) and @stack was stored: which
 * words of the window it read (win->rd), and the window. A global
 * function: taken after a walk, not at every event, and checked once
 * instead of in every program's copy.
 */
__attribute__((noinline))
int scry_memo_keep(struct scry_scratch *s, const struct scry_uregs *ur,
		   __u64 stack)
{
	const struct scry_uwin *win;
	struct scry_memo *m;
	__u64 stamp;

	if (!s || !ur || !stack || stack == SCRY_STACK_LOST || !s->ks.win.kept)
		return 0;
	win = &s->ks.win;
	m = scry_memo_slot(s, ur);
	stamp = ++s->memo_seq;
	m->begin = stamp;
	m->pid = s->ev.pid;
	m->gen = s->ev.gen;
	m->epoch = win->epoch;
	m->pc = ur->ip;
	m->sp = ur->sp;
	m->bp = ur->bp;
	m->stack = stack;
	m->len = win->len;
	m->n = win->nread;
	__builtin_memcpy(m->off, win->rd, sizeof(m->off));
	__builtin_memcpy(m->w, win->w, sizeof(m->w));
	m->done = stamp;
	return 0;
}

/*
 * The stack's top read into s->win (uwin.bpf.h), and the kept walk
 * (scry_memo) that is this one: its stack id, else 0 (walk it). A global
 * function: the verifier checks the memo's loop once per program. Not the
 * walk's caller: each level of calls above the DWARF walk counts against
 * 6.1's 512 bytes of stack for the deepest chain.
 */
__attribute__((noinline))
__u64 scry_memo_lookup(struct scry_scratch *s, const struct scry_uregs *ur)
{
	if (!s || !ur)
		return 0;
	/* before the walk's lookups (maps.bpf.h), for scry_memo_keep */
	s->ks.win.epoch = who_epoch;
	scry_uwin_fill(&s->ks.win, ur->sp);
	return scry_memo_find(scry_memo_slot(s, ur), &s->ks.win, s->ev.pid,
			      s->ev.gen, s->ks.win.epoch, ur);
}

/*
 * The one place user stacks are taken: DWARF tables (--unwind=auto|dwarf),
 * found through the process's mapping list or, before the frontend has
 * written it, through the kernel's own mappings; frame pointers otherwise.
 * The event's pid and gen (abi.h: gens) say whose stack it is. Both walks
 * read the stack's top once, and are kept per CPU by what they read: an
 * event of a hot call site takes the kept id, with no walk, hash or
 * store lookup.
 */
static __always_inline __u64 scry_ustack(struct scry_scratch *s,
					 const struct scry_uregs *ur)
{
	__u64 id;

	if (!ur || !ur->ip)	/* kernel thread, or an exiting task */
		return 0;
	id = scry_memo_lookup(s, ur);
	if (id)
		return id;
	if (ustack_dwarf)
		scry_ustack_dwarf(s->ev.pid, s->ev.gen, ur, &s->st, &s->ks);
	else
		scry_ustack_walk(ur, &s->st, &s->ks.win);
	id = scry_stack_store(&s->st);
	/*
	 * Called whatever the walk was: a test here would split the rest of
	 * the clause in two for the verifier (~2,900 instructions more)
	 */
	scry_memo_keep(s, ur, id);
	return id;
}

#endif /* SCRY_STACK_BPF_H */
