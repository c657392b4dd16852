// SPDX-License-Identifier: GPL-2.0
/*
 * CPU ground truth: hot_a() burns three times the CPU of hot_b(), in
 * alternation, for SECONDS of wall time. The work is a fixed number of
 * loop iterations (no calls inside the loops), so samples land in the
 * two functions themselves, 3:1.
 *
 *   cpu_wl SECONDS
 *
 * With $WL_REPORT set, its CPU time and context switches go there at exit
 * (wl_report.h): the ground truth of a profile's sample count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "wl_report.h"

static volatile unsigned long spin;


/*
 * The same loop in both, the bound computed before it: built at -O0, a
 * `3 * n` in the condition is a multiply in every iteration of hot_a's
 * alone, which made its share ~0.79 instead of 0.75 on AMD hosts (outside
 * profile.sh's 5 standard deviations in about half the runs)
 */
__attribute__((noinline)) void hot_a(unsigned long n)
{
	unsigned long m = 3 * n;

	for (unsigned long i = 0; i < m; i++)
		spin += i;
}

__attribute__((noinline)) void hot_b(unsigned long n)
{
	unsigned long m = n;

	for (unsigned long i = 0; i < m; i++)
		spin += i;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2, end;
	unsigned long n = 1000000;

	end = now() + secs;
	while (now() < end) {
		hot_a(n);
		hot_b(n);
	}
	return 0;
}
