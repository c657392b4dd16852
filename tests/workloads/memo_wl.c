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
 *   memo_wl N [RUN [THREADS]]
 *
 * RUN calls of each path in a row (1: they alternate), in each of
 * THREADS threads (the main thread alone by default): N x RUN calls of
 * each path per thread, with a CPU's run of one key and the others'
 * (bpf/prog.bpf.h: scry_pend) to add up exactly. The threads start at
 * once, while the process maps their stacks, as programs start theirs.
 */
#include <pthread.h>
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

static long n_rounds = 1000, run_len = 1;

__attribute__((noinline)) void run(long n)
{
	for (long i = 0; i < n; i++) {
		for (long k = 0; k < run_len; k++)
			path_a(1);
		for (long k = 0; k < run_len; k++)
			path_b(100);
		for (long k = 0; k < run_len; k++)
			path_c(10000);
		for (long k = 0; k < run_len; k++)
			path_d(1000000);
	}
	sink = NULL;
}

static void *thread_main(void *arg)
{
	(void)arg;
	run(n_rounds);
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = argc > 3 ? atol(argv[3]) : 1, i;
	pthread_t t[16];

	if (argc > 1)
		n_rounds = atol(argv[1]);
	if (argc > 2)
		run_len = atol(argv[2]);
	if (threads < 1 || threads > 16)
		return 2;
	if (threads == 1) {
		run(n_rounds);
		return 0;
	}
	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL))
			return 1;
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
