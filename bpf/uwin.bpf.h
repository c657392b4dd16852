/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The top of a user stack, read once per walk. Each bpf_probe_read_user
 * pays the kernel's fixed usercopy cost (access checks, page-fault
 * disabling) whatever its size, and a walk reads a frame or two per
 * step, most of them within a few hundred bytes of the stack pointer
 * (malloc's caller to _start: ~300 bytes). One read of the window, then
 * frames inside it come from map memory; a frame outside it, or a window
 * that could not be read, is read from the user as before. The thread is
 * stopped in the probe, so its stack reads the same either way.
 *
 * Only bpf_probe_read_user: tests/unit/test_unwind.c compiles it for the
 * host through unwind.bpf.h.
 */
#ifndef SCRY_UWIN_BPF_H
#define SCRY_UWIN_BPF_H

#include <scry/unwind_abi.h>

#define SCRY_UWIN_WORDS	64	/* 512 bytes: a power of two (index masks) */
/*
 * Words of the window a kept walk may have read (scry_memo): a walk that
 * read more is not kept. Malloc's caller to _start is ~11 of them, a
 * qsort comparator's stack ~26.
 */
#define SCRY_MEMO_WORDS	32	/* a power of two (index masks) */

struct scry_uwin {
	__u64 base;		/* user address of w[0] */
	__u32 len;		/* bytes read, 0: none */
	/*
	 * What the walk depended on, for scry_memo: the words of w[] it
	 * read, by index, in the order it read them, and whether that was
	 * all (0 once it read user memory outside the window or more than
	 * SCRY_MEMO_WORDS words, asked the kernel for a mapping, or counted
	 * a loss).
	 */
	__u32 kept;
	__u32 nread;
	__u8 rd[SCRY_MEMO_WORDS];
	__u32 epoch;		/* who_epoch before the walk (maps.bpf.h) */
	__u32 pad;
	__u64 w[SCRY_UWIN_WORDS];
};

/*
 * Read the window at @sp. A stack's top page ends its mapping, so a
 * window running past it fails whole: then the rest of sp's page, which
 * is mapped (sp is in it), and else nothing.
 */
static __always_inline void scry_uwin_fill(struct scry_uwin *win, __u64 sp)
{
	__u32 len = sizeof(win->w);

	win->base = sp;
	win->len = 0;
	win->kept = 1;
	win->nread = 0;
	if (sp & 7)
		return;		/* not a stack pointer a frame is aligned to */
	if (bpf_probe_read_user(win->w, sizeof(win->w), (const void *)sp)) {
		len = 4096 - (sp & 4095);
		if (len >= sizeof(win->w))
			return;
		if (!len || bpf_probe_read_user(win->w, len & (sizeof(win->w) - 1),
						(const void *)sp))
			return;
	}
	win->len = len;
}

/*
 * The @nw 8-byte words at user address @addr when the window holds them,
 * else NULL (read them from the user). A pointer, not a copy: the copy's
 * stack buffer in a bpf_loop callback tripped 6.18's verifier ("verifier
 * bug: stack slot 2, total slots 0").
 */
static __always_inline const __u64 *scry_uwin_at(struct scry_uwin *win,
						 __u64 addr, __u32 nw)
{
	__u64 off;
	__u32 k, n;

	if (!win)
		return NULL;
	/* a NULL answer is a read of the user's memory: not kept */
	if (!win->len || addr < win->base)
		goto outside;
	off = addr - win->base;
	/* inside w[] (the bound the verifier sees) and inside what was read */
	if ((off & 7) || off > sizeof(win->w) - nw * 8 ||
	    off + nw * 8 > win->len)
		goto outside;
	/*
	 * 6.12's verifier loses off's bound in the checks above (off + 8 and
	 * off are linked registers, and the compare against win->len drops
	 * both): the same bound again, kept by the empty asm from the
	 * compiler, which knows it is already true, gives it back.
	 */
	off /= 8;
	asm volatile("" : "+r"(off));
	if (off > SCRY_UWIN_WORDS - nw)
		goto outside;
	/*
	 * @nw is a constant at every caller: the loop unrolls. The count
	 * goes through memory: known exactly, it would keep every count a
	 * path of its own in the walk's verification.
	 */
	for (k = 0; k < nw; k++) {
		n = *(volatile __u32 *)&win->nread;
		if (n >= SCRY_MEMO_WORDS) {
			win->kept = 0;
			break;
		}
		win->rd[n] = off + k;
		win->nread = n + 1;
	}
	return &win->w[off];
outside:
	win->kept = 0;
	return NULL;
}

/* What the walk depended on was not all in the window (scry_memo). */
static __always_inline void scry_uwin_unkept(struct scry_uwin *win)
{
	if (win)
		win->kept = 0;
}

/*
 * Walks kept per CPU: a walk's result is a function of its registers,
 * the words of the stack it read, and the tables and mapping lists it
 * found, which change only with who_epoch (maps.bpf.h). An event that
 * starts from the same registers and finds the same words in its window
 * has the same stack: the kept id, with no walk, hash or store lookup.
 * Events of a hot call site differ only in the words no walk reads (the
 * locals between frames). begin == done when an entry is whole: a
 * program interleaved with another on the CPU leaves one half-written.
 */
#define SCRY_MEMO_SLOTS		4	/* a power of two (index mask) */

struct scry_memo {
	__u64 begin;		/* stamps: equal and non-zero when whole */
	__u32 pid;
	__u32 gen;
	__u32 epoch;
	__u32 n;		/* words in off[], at most SCRY_MEMO_WORDS */
	__u64 pc;
	__u64 sp;
	__u64 bp;
	__u64 stack;		/* the walk's stack id */
	__u32 len;		/* the walk's window's len: no longer one holds them */
	__u32 pad;
	__u8 off[SCRY_MEMO_WORDS];	/* the words read, by index in w[] */
	/*
	 * The walk's whole window, of which off[] are the words that count:
	 * a copy of it all is some loads and stores to the verifier, a copy
	 * of the words read a loop it walks 32 times (~2,800 instructions in
	 * every program that takes a user stack)
	 */
	__u64 w[SCRY_UWIN_WORDS];
	__u64 done;
};

/*
 * Mappings the kernel named during this walk: a stack alternates between
 * a few files (main -> qsort -> cmp -> msort -> ...), so two remembered
 * mappings save most repeated questions. table 0: a file without one.
 */
#define SCRY_UNWIND_VMA_CACHE	2
#define SCRY_UNWIND_VMA_ASKS	4	/* questions per stack, at most */
#define SCRY_UNWIND_LAST	2	/* mappings of the last frames kept */

/*
 * Rows found by earlier walks on this CPU, by (table, vaddr): events from
 * one call site walk the same pcs again and again, and a row found once
 * spares the bucket index and the search the next time. A hint only: a
 * row is taken from it after checking it is the row of the vaddr (tables
 * are only ever appended to, but an NMI's walk may write a slot halfway
 * through another's write).
 */
#define SCRY_UNWIND_HINTS	64	/* a power of two (index mask) */

struct scry_unwind_hint {
	__u32 table;
	__u32 pc;		/* the vaddr looked up */
	__u32 idx;		/* its row's index in unwind_rows */
	__u32 pad;
};

/*
 * What one walk learnt from the kernel, and the stack's top it walks
 * over. It lives in map memory, like the frame count: on the BPF stack
 * the verifier would track every counter value exactly and check the
 * loop body once per combination. In the per-CPU scratch (maps.bpf.h),
 * one per slot: a perf event's walk, an NMI, has its own, and never
 * writes over the mappings or the window of the walk it interrupted.
 */
struct scry_unwind_kstate {
	__u32 asks;		/* bpf_find_vma calls so far */
	__u32 next;		/* cache slot to fill next */
	struct scry_unwind_map seen[SCRY_UNWIND_VMA_CACHE];
	/*
	 * The mappings of the last frames: a stack goes back and forth
	 * between a few files (the program, libc: malloc -> hot_loop ->
	 * main -> __libc_start_call_main -> _start), and mappings do not
	 * overlap, so a pc inside one needs no search of the list. table 0
	 * (zeroed per walk): nothing yet.
	 */
	__u32 lnext;		/* slot of last[] to fill next */
	struct scry_unwind_map last[SCRY_UNWIND_LAST];
	/* kept across walks, never zeroed: scry_unwind_row_hint() */
	struct scry_unwind_hint hint[SCRY_UNWIND_HINTS];
	/* both walkers' (stack.bpf.h), filled before the walk */
	struct scry_uwin win;
};

#endif /* SCRY_UWIN_BPF_H */
