/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a workload measures about itself, for the tests' ground truth: the
 * wall time and context switches of a phase (an upper bound on the
 * off-CPU time inside it, the number of off-CPU periods) and, at exit, the
 * CPU time the kernel charged the process (a profile's sample count). Written as "KEY VALUE" lines to the file
 * named by $WL_REPORT, appended; nothing at all when it is unset, so a
 * workload run by hand or by another test is unchanged.
 */
#ifndef SCRY_WL_REPORT_H
#define SCRY_WL_REPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

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
 * A phase: its wall time and the context switches of the calling thread
 * inside it, voluntary (it blocked) and involuntary (it was preempted),
 * as the kernel counts them (getrusage). Every switch is one off-CPU
 * period, so these are the ground truth of an off-CPU count, even when
 * the kernel does not block where the workload meant it to (a sleep's
 * timer that fires before schedule() is reached blocks nothing). Marks
 * are kept here and written at exit, so the writing is outside the phase.
 */
struct wl_phase {
	const char *name;
	long long ns, vcsw, ivcsw;
	long long ivcsw_max;	/* around the call, or -1 (wl_call_end) */
};

static struct wl_phase wl_phases[8];
static int wl_nphases;

static inline void wl_sample(struct wl_phase *p)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	p->ns = wl_now_ns();
	p->vcsw = ru.ru_nvcsw;
	p->ivcsw = ru.ru_nivcsw;
}

/* Call both from inside the function whose off-CPU periods are counted:
 * then every switch between them has that function on its stack. */
static inline void wl_phase_begin(const char *name)
{
	if (wl_nphases < 8) {
		wl_phases[wl_nphases].name = name;
		wl_sample(&wl_phases[wl_nphases]);
	}
}

static inline void wl_phase_end(void)
{
	struct wl_phase end, *p = &wl_phases[wl_nphases];

	if (wl_nphases >= 8)
		return;
	wl_sample(&end);
	p->ns = end.ns - p->ns;
	p->vcsw = end.vcsw - p->vcsw;
	p->ivcsw = end.ivcsw - p->ivcsw;
	p->ivcsw_max = -1;
	wl_nphases++;
}

/*
 * A preemption can fall just outside a phase's two samples and still
 * inside its function (at the return of the sampling getrusage itself):
 * a profiler sees the function on that stack, the inner count does not.
 * The caller samples again around the call, so the truth is bracketed:
 * NAME_ivcsw <= the function's preemptions <= NAME_ivcsw_max. (Voluntary
 * switches happen only where the phase blocks: they are exact.)
 */
static long long wl_call_ivcsw;

static inline void wl_call_begin(void)
{
	struct wl_phase s;

	wl_sample(&s);
	wl_call_ivcsw = s.ivcsw;
}

/* after the call: the phase it ended last gets its upper bound */
static inline void wl_call_end(void)
{
	struct wl_phase s;

	wl_sample(&s);
	if (wl_nphases > 0 && wl_nphases <= 8)
		wl_phases[wl_nphases - 1].ivcsw_max = s.ivcsw - wl_call_ivcsw;
}

/*
 * Time the hypervisor took from every CPU (/proc/stat's steal, in
 * USER_HZ ticks), in ns; 0 where there is none to read. A sampling
 * period with stolen time in it still ends in one sample of the task
 * that was running, while the scheduler charged that task only the time
 * it ran (CLOCK_PROCESS_CPUTIME_ID leaves steal out): so a profile may
 * count up to steal / period samples more than cpu_ns gives.
 */
static inline long long wl_steal_ns(void)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	return n == 8 && hz > 0 ? (long long)(v[7] * (1000000000ULL / hz)) : 0;
}

static long long wl_steal_start;

__attribute__((constructor)) static void wl_report_start(void)
{
	if (getenv("WL_REPORT"))
		wl_steal_start = wl_steal_ns();
}

/*
 * At exit: each phase as NAME_ns, NAME_vcsw, NAME_ivcsw, NAME_ivcsw_max
 * (NAME_ivcsw without wl_call_begin/end around it); cpu_ns, the CPU time of all the process's threads
 * (CLOCK_PROCESS_CPUTIME_ID: the scheduler's exact runtime, not ticks),
 * switches, the number of times its main thread left the CPU
 * (voluntary + involuntary): each run between two switches is one
 * interval a profiler's sample grid cuts; and steal_ns, the time the
 * hypervisor took from all CPUs meanwhile (wl_steal_ns), to the next
 * USER_HZ tick.
 */
__attribute__((destructor)) static void wl_report_exit(void)
{
	struct timespec ts;
	struct rusage ru;

	char key[64];
	int i;

	if (!getenv("WL_REPORT"))
		return;
	for (i = 0; i < wl_nphases; i++) {
		snprintf(key, sizeof(key), "%s_ns", wl_phases[i].name);
		wl_report(key, wl_phases[i].ns);
		snprintf(key, sizeof(key), "%s_vcsw", wl_phases[i].name);
		wl_report(key, wl_phases[i].vcsw);
		snprintf(key, sizeof(key), "%s_ivcsw", wl_phases[i].name);
		wl_report(key, wl_phases[i].ivcsw);
		snprintf(key, sizeof(key), "%s_ivcsw_max", wl_phases[i].name);
		wl_report(key, wl_phases[i].ivcsw_max < 0 ? wl_phases[i].ivcsw :
			  wl_phases[i].ivcsw_max);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	wl_report("cpu_ns", ts.tv_sec * 1000000000LL + ts.tv_nsec);
	if (!getrusage(RUSAGE_THREAD, &ru))
		wl_report("switches", ru.ru_nvcsw + ru.ru_nivcsw);
	/* + one tick each end: /proc/stat counts whole ticks */
	wl_report("steal_ns", wl_steal_ns() - wl_steal_start +
		  2 * (1000000000LL / sysconf(_SC_CLK_TCK)));
}

#endif /* SCRY_WL_REPORT_H */
