// SPDX-License-Identifier: GPL-2.0
/*
 * Per-event overhead workload: N x malloc(16)/free from hot_loop() (the
 * same loop as tests/workloads/malloc_wl's "rate" mode), timed from the
 * inside so a tracer's start-up and drain are not counted as overhead.
 * N = 0 makes it the start-up probe: MAIN - launch is the attach time.
 *
 *   mallocs N STAMP_FILE [GATE_FIFO]
 */
#include "stamp.h"

void *volatile sink;

__attribute__((noinline)) void hot_loop(long n)
{
	for (long i = 0; i < n; i++) {
		sink = malloc(16);
		free(sink);
	}
}

int main(int argc, char **argv)
{
	long long start = stamp_ns(), loop;

	if (argc < 3) {
		fprintf(stderr, "usage: mallocs N STAMP_FILE [GATE_FIFO]\n");
		return 2;
	}
	if (argc > 3)
		stamp_gate(argv[3]);
	loop = stamp_ns();
	hot_loop(atol(argv[1]));
	stamp_write(argv[2], start, loop, stamp_ns());
	return 0;
}
