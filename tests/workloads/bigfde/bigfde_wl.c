// SPDX-License-Identifier: GPL-2.0
/*
 * A function with 150k CFI rows: big_fde (generated assembly, see the
 * Makefile) pushes and pops 75k times, each a new CFA offset, then calls
 * wl_block, which sleeps 20 ms. Tracing it off-CPU makes scry build that
 * table: it must take well under a second, and the stacks must unwind
 * through big_fde.
 *
 *   bigfde_wl [TIMES [GATE]]
 */
#include <stdlib.h>
#include <time.h>

#include "../gate.h"

void big_fde(void);
void wl_block(void);

__attribute__((noinline)) void wl_block(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, i;

	gate(argc > 2 ? argv[2] : NULL);
	for (i = 0; i < n; i++)
		big_fde();
	return 0;
}
