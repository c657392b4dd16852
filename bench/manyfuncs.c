// SPDX-License-Identifier: GPL-2.0
/*
 * Drain-and-symbolize workload: malloc(200) from NPATHS distinct call paths
 * through the functions bench/run generates into build/bench/funcs.c
 * (f0 .. f<nfuncs-1>, one call site each, so a path's stack is the list of
 * functions on it). Path p starts f<p % nfuncs> -> f<(31 a + 1 + 7919 q) %
 * nfuncs> (q = p / nfuncs): those two frames alone already differ between
 * any two paths, so there are exactly NPATHS unique stacks, whether or not
 * a tracer sees the innermost caller. Deeper hops are pseudo-random.
 *
 *   manyfuncs NPATHS DEPTH REPEAT STAMP_FILE [GATE_FIFO [hold]]
 *
 * Makes NPATHS x REPEAT malloc(200) calls; with "hold" it stays alive
 * after writing STAMP_FILE (so a tracer can still read its mappings) until
 * killed.
 */
#include <signal.h>
#include "stamp.h"

typedef void fn_t(const unsigned short *path, int depth);
extern fn_t *const fns[];
extern const int nfuncs;
void *volatile sink;

__attribute__((noinline)) void run_paths(unsigned short *paths, long npaths,
					 int depth, int repeat)
{
	for (int r = 0; r < repeat; r++)
		for (long p = 0; p < npaths; p++)
			fns[paths[p * depth]](paths + p * depth + 1, depth - 1);
}

int main(int argc, char **argv)
{
	long long start = stamp_ns(), loop;
	long npaths, p;
	int depth, repeat, d;
	unsigned seed = 12345;
	unsigned short *paths;

	if (argc < 5) {
		fprintf(stderr, "usage: manyfuncs NPATHS DEPTH REPEAT STAMP_FILE "
			"[GATE_FIFO [hold]]\n");
		return 2;
	}
	npaths = atol(argv[1]);
	depth = atoi(argv[2]);
	repeat = atoi(argv[3]);
	if (depth < 2 || npaths / nfuncs >= nfuncs)
		return 2;
	paths = calloc(npaths * depth, sizeof(*paths));
	for (p = 0; p < npaths; p++) {
		long a = p % nfuncs, q = p / nfuncs;

		paths[p * depth] = a;
		paths[p * depth + 1] = (31 * a + 1 + 7919 * q) % nfuncs;
		for (d = 2; d < depth; d++) {
			seed = seed * 1103515245 + 12345;
			paths[p * depth + d] = (seed >> 8) % nfuncs;
		}
	}
	if (argc > 5)
		stamp_gate(argv[5]);
	loop = stamp_ns();
	run_paths(paths, npaths, depth, repeat);
	stamp_write(argv[4], start, loop, stamp_ns());
	if (argc > 6)
		for (;;)
			pause();
	return 0;
}
