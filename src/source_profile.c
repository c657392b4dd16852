// SPDX-License-Identifier: GPL-2.0
/*
 * source_profile: profile[:HZ]. One cpu-clock perf event per online CPU
 * (this kind of machine has no hardware PMU), sampling at HZ; the engine
 * keeps the traced processes (-p, -c) and skips the idle task. Each event
 * is owned by its bpf_link, so it closes with it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/expr.h>
#include <scry/log.h>
#include <scry/source.h>
#include "scry.skel.h"

/* profile[:HZ]: the rate, 99 Hz unless given */
static int profile_plan(struct plan *p, const struct expr_probe *pr,
			struct expr_error *err)
{
	char *end;
	long hz = 99;

	if (pr->nparts) {
		hz = strtol(pr->parts[0], &end, 10);
		if (*end || end == pr->parts[0] || hz < 1 || hz > 10000)
			return plan_fail(err, pr->part_cols[0], "profile rate "
					 "must be 1 to 10000 Hz, e.g. profile:99");
	}
	p->profile_hz = hz;
	return 0;
}

static int profile_prepare(struct attach *a)
{
	bpf_program__set_autoload(a->skel->progs.profile_fire, true);
	return 0;
}

static int open_cpu_clock(int cpu, __u32 hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = hz,
	};

	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static int profile_attach(struct attach *a)
{
	int ncpu = libbpf_num_possible_cpus(), cpu, fd, err, attached = 0;
	struct bpf_link *l;

	if (ncpu < 0)
		return ncpu;
	for (cpu = 0; cpu < ncpu; cpu++) {
		fd = open_cpu_clock(cpu, a->plan->profile_hz);
		if (fd < 0) {
			if (errno == ENODEV)	/* possible but offline CPU */
				continue;
			err = -errno;
			log_err("profile: perf_event_open on CPU %d: %s", cpu,
				strerror(-err));
			return err;
		}
		l = bpf_program__attach_perf_event(a->skel->progs.profile_fire,
						   fd);
		if (!l) {
			err = -errno;
			close(fd);
			log_err("profile: attach on CPU %d: %s", cpu,
				strerror(-err));
			return err;
		}
		err = attach_keep(a, l);
		if (err)
			return err;
		attached++;
	}
	return attached ? 0 : -ENODEV;
}

const struct source source_profile = {
	.name = "profile",
	.usage = "profile[:HZ]",
	.what = "CPU samples on every CPU (default 99 Hz)",
	.max_parts = 1,
	.plan = profile_plan,
	.prepare = profile_prepare,
	.attach = profile_attach,
};
