// SPDX-License-Identifier: GPL-2.0
/*
 * Four call paths to one function that differ only in return addresses:
 * run() calls path_a() .. path_d() in turn from the same frame, and each
 * calls target() from a frame of the same size, so at target()'s first
 * instruction the stack pointer and rbp are the same on every path and
 * only the return addresses on the stack tell the paths apart. A stack
 * walk kept by its registers alone (bpf/uwin.bpf.h: scry_memo) would put
 * every call on one path; the ground truth is N calls on each, with the
 * argument each path passes (1, 100, 10000, 1000000).
 *
 * The Makefile builds it twice: memo_wl with frame pointers, memo_nofp_wl
 * with -O2 -fomit-frame-pointer (only .eh_frame unwinds it).
 *
 *   memo_wl N
 */
#include <stdlib.h>

void *volatile sink;

__attribute__((noinline)) void target(long v)
{
	sink = (void *)v;
}

/*
 * Not identical (each stores its own constant after the call), so no
 * compiler folds two into one; not a tail call, so each stays on the
 * stack under target().
 */
#define PATH(name, k)					\
	__attribute__((noinline)) void name(long v)	\
	{						\
		target(v);				\
		sink = (void *)(k);			\
	}
PATH(path_a, 1)
PATH(path_b, 2)
PATH(path_c, 3)
PATH(path_d, 4)

__attribute__((noinline)) void run(long n)
{
	for (long i = 0; i < n; i++) {
		path_a(1);
		path_b(100);
		path_c(10000);
		path_d(1000000);
	}
	sink = NULL;
}

int main(int argc, char **argv)
{
	run(argc > 1 ? atol(argv[1]) : 1000);
	return 0;
}
