// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks from a program's first instruction, without frame pointers (the
 * Makefile builds this file with -fomit-frame-pointer): only .eh_frame
 * unwinds it, and it calls malloc at once, so tables must be loaded
 * before it starts.
 *
 *   nofp_wl N   N x malloc(64) from leaf() <- middle() <- main()
 */
#include <stdlib.h>

void *volatile sink;

__attribute__((noinline)) void leaf(void)
{
	sink = malloc(64);
	free(sink);
}

__attribute__((noinline)) void middle(long n)
{
	for (long i = 0; i < n; i++)
		leaf();
	/* not a tail call: middle() stays on the stack */
	sink = NULL;
}

int main(int argc, char **argv)
{
	middle(argc > 1 ? atol(argv[1]) : 2000);
	return 0;
}
