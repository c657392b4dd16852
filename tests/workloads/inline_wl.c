// SPDX-License-Identifier: GPL-2.0
/*
 * Inlined-frame ground truth: take_555() is always inlined into
 * outer_fn() and calls malloc(555) once, so at a uprobe on malloc the
 * caller's pc sits in inlined code: the stack must read
 * malloc <- take_555 [inlined] <- outer_fn <- main.
 */
#include <stdlib.h>
#include <unistd.h>

void *volatile sink;

static inline __attribute__((always_inline)) void take_555(void)
{
	sink = malloc(555);
	free(sink);
}

__attribute__((noinline)) void outer_fn(void)
{
	take_555();
	sink = NULL;
}

int main(void)
{
	/* live long enough for scry to read the mappings of a new process */
	usleep(200000);
	outer_fn();
	return 0;
}
