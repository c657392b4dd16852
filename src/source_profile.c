// SPDX-License-Identifier: GPL-2.0
/*
 * source_profile: profile[:HZ]. One cpu-clock perf event per online CPU
 * (this kind of machine has no hardware PMU), sampling at HZ; the engine
 * keeps the traced processes (-p, -c) and skips the idle task. Each event
 * is owned by its bpf_link, so it closes with it.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/log.h>
#include "scry.skel.h"

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
	.probes = 1u << PLAN_PROFILE,
	.prepare = profile_prepare,
	.attach = profile_attach,
};
