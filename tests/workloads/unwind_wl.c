/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF unwinding ground truth. The Makefile builds every workload with
 * frame pointers; the functions here opt out one by one
 * (__attribute__((optimize("omit-frame-pointer")))), and Debian's libc
 * has none anyway, so only CFI can walk these stacks. (An integrator may
 * instead add a rule building this file with -O2 -fomit-frame-pointer -g;
 * nothing here depends on the flags.)
 *
 *   unwind_wl qsort OUT [GATE]   from a qsort comparator, record() writes
 *                                its backtrace() to OUT, then calls
 *                                malloc(777) once: a uprobe on malloc with
 *                                /arg0 == 777/ sees OUT's stack + malloc
 *   unwind_wl block OUT [GATE]   the same, then the comparator blocks in
 *                                read() on a pipe nobody writes (off-CPU
 *                                ground truth) until killed
 *   unwind_wl signal OUT [GATE]  the comparator raises SIGUSR1; the handler
 *                                records and mallocs: the stack crosses
 *                                the kernel's signal frame (__restore_rt)
 *   unwind_wl deep N OUT [GATE]  recurse N deep in dive(), then record:
 *                                N > 127 truncates (SCRY_STACK_TRUNCATED)
 *   unwind_wl spin SECS [GATE]   comparator calls that burn CPU for SECS
 *                                seconds (profile sampling)
 *
 * OUT: one return address per line, "0x%lx", innermost first, as glibc's
 * backtrace() (libgcc's DWARF unwinder) reports them; its first line is
 * inside record(). GATE: a FIFO to read one byte from first, so a test can
 * attach with -p before anything happens. With $WL_REPORT set, the CPU time
 * and context switches go there at exit (wl_report.h).
 */
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "gate.h"
#include "wl_report.h"

#define NOFP __attribute__((noinline, optimize("omit-frame-pointer")))
#define NELEM 64

static const char *out_path;
static int mode_block, mode_signal;
static volatile int recorded;
static volatile double spin_until;
void *volatile sink;

/* The ground truth: libgcc's unwinder, from here. */
NOFP static void record(void)
{
	void *bt[256];
	int n = backtrace(bt, 256), i;
	FILE *f = fopen(out_path, "w");

	if (!f) {
		perror(out_path);
		exit(1);
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%p\n", bt[i]);
	if (fclose(f)) {
		perror(out_path);
		exit(1);
	}
	/* the probe point: same stack, one frame deeper */
	sink = malloc(777);
	free(sink);
	recorded = 1;
}

NOFP static void block_forever(void)
{
	int p[2];
	char c;

	if (pipe(p))
		exit(1);
	/* the write end stays open: read() sleeps until we are killed */
	while (read(p[0], &c, 1) < 0)
		;
}

NOFP static void on_usr1(int sig)
{
	(void)sig;
	record();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOFP static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (!recorded) {
		if (mode_signal)
			raise(SIGUSR1);
		else
			record();
		if (mode_block)
			block_forever();
	}
	while (spin_until && now() < spin_until)
		;
	return (x > y) - (x < y);
}

NOFP static void sort_some(void)
{
	int v[NELEM], i;

	for (i = 0; i < NELEM; i++)
		v[i] = (i * 37) % NELEM;
	qsort(v, NELEM, sizeof(*v), cmp);
}

/* Recursion that no tail call or inlining may flatten. */
NOFP static int dive(int n)
{
	int r;

	if (n <= 0) {
		record();
		return 0;
	}
	r = dive(n - 1);
	sink = (void *)(long)r;
	return r + 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: unwind_wl qsort|block|signal OUT [GATE]\n"
			"       unwind_wl deep N OUT [GATE]\n"
			"       unwind_wl spin SECS\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	if (!strcmp(argv[1], "deep")) {
		if (argc < 4)
			return usage();
		out_path = argv[3];
		gate(argc > 4 ? argv[4] : NULL);
		dive(atoi(argv[2]));
		return 0;
	}
	if (!strcmp(argv[1], "spin")) {
		gate(argc > 3 ? argv[3] : NULL);
		spin_until = now() + atof(argv[2]);
		recorded = 1;
		while (now() < spin_until)
			sort_some();
		return 0;
	}
	out_path = argv[2];
	if (!strcmp(argv[1], "block"))
		mode_block = 1;
	else if (!strcmp(argv[1], "signal"))
		mode_signal = 1;
	else if (strcmp(argv[1], "qsort"))
		return usage();
	signal(SIGUSR1, on_usr1);
	gate(argc > 3 ? argv[3] : NULL);
	sort_some();
	return 0;
}
