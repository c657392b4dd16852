// SPDX-License-Identifier: GPL-2.0
/*
 * Two bursts of mallocs with known sizes, each released by its own gate,
 * so a test decides which --interval snapshot each lands in:
 *
 *   burst_wl GATE1 GATE2
 *     after GATE1, burst_a(): malloc(4001) x 3, malloc(4002) x 2,
 *                             malloc(4003) x 1
 *     after GATE2, burst_b(): malloc(4001) x 1, malloc(4002) x 4,
 *                             malloc(4003) x 5
 *     then exits
 *
 * A predicate /arg0 > 4000 && arg0 < 4004/ sees exactly these.
 */
#include <stdlib.h>
#include "gate.h"

void *volatile sink;

static void allocs(size_t size, int n)
{
	while (n--) {
		sink = malloc(size);
		free(sink);
	}
}

__attribute__((noinline)) void burst_a(void)
{
	allocs(4001, 3);
	allocs(4002, 2);
	allocs(4003, 1);
}

__attribute__((noinline)) void burst_b(void)
{
	allocs(4001, 1);
	allocs(4002, 4);
	allocs(4003, 5);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: burst_wl GATE1 GATE2\n");
		return 2;
	}
	gate(argv[1]);
	burst_a();
	gate(argv[2]);
	burst_b();
	return 0;
}
