// SPDX-License-Identifier: GPL-2.0
/*
 * Threads from the first millisecond, as programs start them: main
 * starts N threads at once, with no gate and no barrier, and each calls
 * malloc(333) M times from thread_alloc(); main does the same from
 * main_alloc() while they run. Each pthread_create maps a stack, and
 * each thread's first malloc maps an arena: the process maps memory, its
 * mmap lock taken, all the while its stacks are walked. The ground
 * truth: N x M calls with one stack (thread_alloc, thread_main,
 * start_thread, clone3) and M with another (main_alloc, main, to
 * _start).
 *
 * The Makefile builds it twice: threads_wl with frame pointers,
 * threads_nofp_wl with -O2 -fomit-frame-pointer (only .eh_frame unwinds
 * it).
 *
 *   threads_wl N M
 */
#include <pthread.h>
#include <stdlib.h>

void *volatile sink;
static long calls = 200;

__attribute__((noinline)) void thread_alloc(long n)
{
	for (long i = 0; i < n; i++) {
		void *p = malloc(333);

		sink = p;
		free(p);
	}
}

__attribute__((noinline)) void main_alloc(long n)
{
	for (long i = 0; i < n; i++) {
		void *p = malloc(333);

		sink = p;
		free(p);
	}
	sink = NULL;
}

__attribute__((noinline)) void *thread_main(void *arg)
{
	thread_alloc(calls);
	return arg;
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 16, i;
	pthread_t t[64];

	if (argc > 2)
		calls = atol(argv[2]);
	if (threads < 0 || threads > 64)
		return 2;
	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL))
			return 1;
	main_alloc(calls);
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
