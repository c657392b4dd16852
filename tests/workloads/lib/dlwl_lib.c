// SPDX-License-Identifier: GPL-2.0
/*
 * A library dl_wl loads with dlopen() once tracing runs, built without
 * frame pointers: only its .eh_frame can walk through lib_fn().
 */
#include <stdlib.h>

void *volatile lib_sink;

__attribute__((noinline)) void lib_leaf(void)
{
	lib_sink = malloc(999);
	free(lib_sink);
}

__attribute__((noinline)) void lib_fn(void)
{
	lib_leaf();
	lib_sink = NULL;
}
