// SPDX-License-Identifier: GPL-2.0
/*
 * source_profile: the perf-event kinds, one adapter for all.
 *
 *   profile[:HZ], profile:hz:HZ, profile:s|ms|us:N
 *            cpu-clock sampling on every CPU (no hardware PMU needed)
 *   interval:s|ms|us|hz:N
 *            a cpu-clock timer on one CPU: script-level ticks
 *   software:EVENT[:COUNT], hardware:EVENT[:COUNT]
 *            a perf event on every CPU, every COUNT occurrences
 *   DTrace: profile:::profile-HZ, profile:::tick-Ns
 *
 * Each event is owned by its bpf_link, so it closes with it. Only the
 * traced processes (-p, -c) count, and the idle task is skipped, except
 * for interval, which is about time, not tasks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/expr.h>
#include <scry/log.h>
#include <scry/plan.h>
#include <scry/source.h>
#include "scry.skel.h"

/* A positive number from @s, or -1. */
static long long number(const char *s)
{
	char *end;
	long long v;

	if (!*s || *s == '-')
		return -1;
	v = strtoll(s, &end, 10);
	return *end || v <= 0 ? -1 : v;
}

/* UNIT:N -> a period in ns, or a rate (hz): 0 when malformed */
static int period_of(const char *unit, const char *n, __u64 *ns, __u32 *hz)
{
	long long v = number(n);

	*ns = 0;
	*hz = 0;
	if (v < 1)
		return -1;
	if (!strcmp(unit, "hz"))
		*hz = v;
	else if (!strcmp(unit, "s"))
		*ns = v * 1000000000ULL;
	else if (!strcmp(unit, "ms"))
		*ns = v * 1000000ULL;
	else if (!strcmp(unit, "us"))
		*ns = v * 1000ULL;
	else
		return -1;
	return 0;
}

/* DTrace's profile-997 and tick-1s, tick-100ms, tick-10hz */
static int dtrace_profile(struct plan_probe *pp, const char *name, int col,
			  struct expr_error *err)
{
	char unit[8];
	long long v;
	int n = 0;

	if (!strncmp(name, "profile-", 8) && (v = number(name + 8)) > 0) {
		pp->hz = v;
		return 0;
	}
	if (!strncmp(name, "tick-", 5) &&
	    sscanf(name + 5, "%lld%7[a-z]%n", &v, unit, &n) == 2 &&
	    !name[5 + n] && v > 0) {
		char num[24];

		snprintf(num, sizeof(num), "%lld", v);
		if (!strcmp(unit, "sec"))
			strcpy(unit, "s");
		if (!strcmp(unit, "msec"))
			strcpy(unit, "ms");
		if (!period_of(unit, num, &pp->period, &pp->hz)) {
			pp->one_cpu = true;
			return 0;
		}
	}
	return plan_fail(err, col, "DTrace profile probes are written "
			 "profile:::profile-HZ or profile:::tick-Ns (s, ms, "
			 "us, hz)");
}

static int profile_plan(struct plan *p, struct plan_probe *pp,
			struct expr_error *err)
{
	long long hz = 99;

	(void)p;
	if (pp->ntarget == 3)
		return dtrace_profile(pp, pp->target[2], pp->target_cols[2],
				      err);
	if (pp->ntarget == 2) {
		if (period_of(pp->target[0], pp->target[1], &pp->period,
			      &pp->hz) ||
		    (pp->hz && pp->hz > 10000))
			return plan_fail(err, pp->target_cols[0], "profile "
					 "probes are written profile:HZ, "
					 "profile:hz:HZ or profile:s|ms|us:N "
					 "(HZ 1 to 10000)");
		return 0;
	}
	if (pp->ntarget == 1) {
		hz = number(pp->target[0]);
		if (hz < 1 || hz > 10000)
			return plan_fail(err, pp->target_cols[0], "profile rate "
					 "must be 1 to 10000 Hz, e.g. "
					 "profile:99");
	}
	pp->hz = hz;
	return 0;
}

static int interval_plan(struct plan *p, struct plan_probe *pp,
			 struct expr_error *err)
{
	(void)p;
	if (period_of(pp->target[0], pp->target[1], &pp->period, &pp->hz) ||
	    (pp->hz && pp->hz > 10000))
		return plan_fail(err, pp->target_cols[0], "interval probes are "
				 "written interval:s|ms|us|hz:N, e.g. "
				 "interval:s:1");
	pp->one_cpu = true;
	return 0;
}

struct perf_name {
	const char *name;
	__u64 config;
};

static const struct perf_name sw_events[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "cpu", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_COUNT_SW_BPF_OUTPUT },
	{ NULL, 0 },
};

static const struct perf_name hw_events[] = {
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "frontend-stalls", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "backend-stalls", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
	{ NULL, 0 },
};

/* software:EVENT[:COUNT], hardware:EVENT[:COUNT] */
static int event_plan(struct plan_probe *pp, const struct perf_name *names,
		      __u32 type, struct expr_error *err)
{
	char list[512];
	int i, n = 0;

	for (i = 0; names[i].name; i++)
		if (!strcmp(names[i].name, pp->target[0]))
			break;
	if (!names[i].name) {
		for (i = 0; names[i].name && n < (int)sizeof(list); i++)
			n += snprintf(list + n, sizeof(list) - n, "%s%s",
				      i ? " " : "", names[i].name);
		return plan_fail(err, pp->target_cols[0], "unknown %s event "
				 "'%s' (%s)", pp->src->name, pp->target[0],
				 list);
	}
	pp->perf_type = type;
	pp->perf_config = names[i].config;
	/* bpftrace's default: every 1000th (a clock: every 1 ms) */
	pp->period = type == PERF_TYPE_SOFTWARE &&
		     (names[i].config == PERF_COUNT_SW_CPU_CLOCK ||
		      names[i].config == PERF_COUNT_SW_TASK_CLOCK) ?
		     1000000 : 1000;
	if (pp->ntarget == 2) {
		long long v = number(pp->target[1]);

		if (v < 1)
			return plan_fail(err, pp->target_cols[1], "the count "
					 "must be a positive number: %s:%s:N",
					 pp->src->name, pp->target[0]);
		pp->period = v;
	}
	return 0;
}

static int software_plan(struct plan *p, struct plan_probe *pp,
			 struct expr_error *err)
{
	(void)p;
	return event_plan(pp, sw_events, PERF_TYPE_SOFTWARE, err);
}

static int hardware_plan(struct plan *p, struct plan_probe *pp,
			 struct expr_error *err)
{
	(void)p;
	return event_plan(pp, hw_events, PERF_TYPE_HARDWARE, err);
}

static int perf_prepare(struct attach *a, const struct plan_probe *pp)
{
	return attach_want(a, "perf", pp->clause);
}

/* The probe's perf event on @cpu: a rate, or a period. */
static int open_event(const struct plan_probe *pp, int cpu)
{
	struct perf_event_attr attr = {
		.type = pp->perf_type ? pp->perf_type : PERF_TYPE_SOFTWARE,
		.config = pp->perf_type ? pp->perf_config :
			  PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
	};

	if (pp->hz) {
		attr.freq = 1;
		attr.sample_freq = pp->hz;
	} else {
		attr.sample_period = pp->period;
	}
	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static int perf_attach(struct attach *a, const struct plan_probe *pp)
{
	struct bpf_program *prog = attach_clause_prog(a, "perf", pp->clause);
	int ncpu = libbpf_num_possible_cpus(), cpu, fd, err, attached = 0;
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = pp->cookie0);
	struct bpf_link *l;

	if (!prog)
		return -ENOENT;
	if (ncpu < 0)
		return ncpu;
	for (cpu = 0; cpu < ncpu; cpu++) {
		fd = open_event(pp, cpu);
		if (fd < 0) {
			if (errno == ENODEV)	/* possible but offline CPU */
				continue;
			err = -errno;
			if (pp->perf_type == PERF_TYPE_HARDWARE &&
			    (err == -ENOENT || err == -EOPNOTSUPP)) {
				log_err("hardware:%s: this machine has no "
					"hardware performance counters (%s)",
					pp->target[0], strerror(-err));
				a->usage_error = true;
				return err;
			}
			log_err("%s: perf_event_open on CPU %d: %s",
				pp->src->name, cpu, strerror(-err));
			return err;
		}
		l = bpf_program__attach_perf_event_opts(prog, fd, &opts);
		if (!l) {
			err = -errno;
			close(fd);
			log_err("%s: attach on CPU %d: %s", pp->src->name, cpu,
				strerror(-err));
			return err;
		}
		err = attach_keep(a, l);
		if (err)
			return err;
		attached++;
		if (pp->one_cpu)
			break;
	}
	return attached ? 0 : -ENODEV;
}

const struct source source_profile = {
	.name = "profile",
	.alias = "p",
	.usage = "profile[:HZ]",
	.what = "CPU samples on every CPU (default 99 Hz; profile:hz:N, "
		"profile:ms:N too)",
	.max_parts = 3,
	.fields = SOURCE_F_FUNC,
	.plan = profile_plan,
	.prepare = perf_prepare,
	.attach = perf_attach,
};

const struct source source_interval = {
	.name = "interval",
	.alias = "i",
	.usage = "interval:s|ms|us|hz:N",
	.what = "every N seconds (or ms, us; or N times a second), on one CPU",
	.min_parts = 2,
	.max_parts = 2,
	.fields = SOURCE_F_FUNC,
	.flags = SOURCE_NO_STACKS,
	.plan = interval_plan,
	.prepare = perf_prepare,
	.attach = perf_attach,
};

const struct source source_software = {
	.name = "software",
	.alias = "s",
	.usage = "software:EVENT[:COUNT]",
	.what = "every COUNT software events: page-faults, context-switches, "
		"cpu-migrations, ...",
	.min_parts = 1,
	.max_parts = 2,
	.fields = SOURCE_F_FUNC,
	.plan = software_plan,
	.prepare = perf_prepare,
	.attach = perf_attach,
};

const struct source source_hardware = {
	.name = "hardware",
	.alias = "h",
	.usage = "hardware:EVENT[:COUNT]",
	.what = "every COUNT hardware events: cycles, cache-misses, ... (needs "
		"a PMU)",
	.min_parts = 1,
	.max_parts = 2,
	.fields = SOURCE_F_FUNC,
	.plan = hardware_plan,
	.prepare = perf_prepare,
	.attach = perf_attach,
};
