/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a workload measures about itself, for the tests' bounds: the wall
 * time of a phase (an upper bound on the off-CPU time inside it) and, at
 * exit, the CPU time the kernel charged the process (the ground truth of
 * a profile's sample count). Written as "KEY VALUE" lines to the file
 * named by $WL_REPORT, appended; nothing at all when it is unset, so a
 * workload run by hand or by another test is unchanged.
 */
#ifndef SCRY_WL_REPORT_H
#define SCRY_WL_REPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>

static inline long long wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void wl_report(const char *key, long long value)
{
	const char *path = getenv("WL_REPORT");
	FILE *f;

	if (!path || !(f = fopen(path, "a")))
		return;
	fprintf(f, "%s %lld\n", key, value);
	fclose(f);
}

/*
 * At exit: cpu_ns, the CPU time of all the process's threads
 * (CLOCK_PROCESS_CPUTIME_ID: the scheduler's exact runtime, not ticks),
 * and switches, the number of times its main thread left the CPU
 * (voluntary + involuntary): each run between two switches is one
 * interval a profiler's sample grid cuts.
 */
__attribute__((destructor)) static void wl_report_exit(void)
{
	struct timespec ts;
	struct rusage ru;

	if (!getenv("WL_REPORT"))
		return;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	wl_report("cpu_ns", ts.tv_sec * 1000000000LL + ts.tv_nsec);
	if (!getrusage(RUSAGE_THREAD, &ru))
		wl_report("switches", ru.ru_nvcsw + ru.ru_nivcsw);
}

#endif /* SCRY_WL_REPORT_H */
