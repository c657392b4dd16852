// SPDX-License-Identifier: GPL-2.0
/*
 * malloc ground truth, built with frame pointers:
 *
 *   malloc_wl sizes [GATE]  100000 x 48 B from small_allocs(),
 *                           200 x 1 MiB from big_allocs(),
 *                           24 B from cmp_alloc() per qsort comparison;
 *                           prints "cmp_calls=N"
 *   malloc_wl rate N [GATE] N x 16 B from hot_loop()
 *   malloc_wl slow K        K calls of slow_fn(): sleeps 20 ms, returns 42;
 *                           their wall time (slow_ns) to $WL_REPORT
 *   malloc_wl usdt K        K firings of USDT scry_test:tick(i, 2 * i)
 *
 * GATE: a FIFO to read one byte from first, so a test can attach with -p.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/sdt.h>
#include "gate.h"
#include "wl_report.h"

/* Keep each allocation observable: the compiler may not pair and drop it. */
void *volatile sink;
static long cmp_calls;

__attribute__((noinline)) void small_allocs(int n)
{
	for (int i = 0; i < n; i++) {
		sink = malloc(48);
		free(sink);
	}
}

__attribute__((noinline)) void big_allocs(int n)
{
	for (int i = 0; i < n; i++) {
		sink = malloc(1 << 20);
		free(sink);
	}
}

__attribute__((noinline)) void cmp_alloc(void)
{
	sink = malloc(24);
	free(sink);
	cmp_calls++;
}

__attribute__((noinline)) int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	cmp_alloc();
	return (x > y) - (x < y);
}

__attribute__((noinline)) void sort_some(int n)
{
	int *v = calloc(n, sizeof(*v));

	for (int i = 0; i < n; i++)
		v[i] = (i * 7919) % n;
	qsort(v, n, sizeof(*v), cmp);
	free(v);
}

__attribute__((noinline)) void hot_loop(long n)
{
	for (long i = 0; i < n; i++) {
		sink = malloc(16);
		free(sink);
	}
}

__attribute__((noinline)) int slow_fn(void)
{
	struct timespec ts = { 0, 20 * 1000000L };

	nanosleep(&ts, NULL);
	return 42;
}

__attribute__((noinline)) void fire_usdt(int k)
{
	for (long i = 0; i < k; i++)
		DTRACE_PROBE2(scry_test, tick, i, 2 * i);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sizes";
	long n = argc > 2 ? atol(argv[2]) : 0;
	int i;

	if (!strcmp(mode, "sizes")) {
		if (argc > 2)
			gate(argv[2]);
		small_allocs(100000);
		big_allocs(200);
		sort_some(1000);
		printf("cmp_calls=%ld\n", cmp_calls);
	} else if (!strcmp(mode, "rate")) {
		if (argc > 3)
			gate(argv[3]);
		hot_loop(n);
	} else if (!strcmp(mode, "slow")) {
		long long t = wl_now_ns();

		for (i = 0; i < n; i++)
			if (slow_fn() != 42)
				return 1;
		wl_report("slow_ns", wl_now_ns() - t);
	} else if (!strcmp(mode, "usdt")) {
		fire_usdt(n);
	} else {
		fprintf(stderr, "usage: malloc_wl sizes|rate N|slow K|usdt K\n");
		return 2;
	}
	return 0;
}
