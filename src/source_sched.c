// SPDX-License-Identifier: GPL-2.0
/*
 * source_sched: the offcpu probe. sched_switch as raw_tp (no tracefs,
 * no vmlinux BTF parse: bpf/scry.bpf.c says why not tp_btf).
 * A period ends at the thread's switch-in, or, when the kernel ran that
 * switch without the tracepoint, at its next switch-out or its exit
 * (SOURCE_SWITCH_END: bpf/scry.bpf.c, scry_end_unseen).
 */
#include <errno.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/plan.h>
#include <scry/source.h>
#include "scry.skel.h"

static int sched_prepare(struct attach *a, const struct plan_probe *pp)
{
	return attach_want(a, "offcpu", pp->clause);
}

static int sched_attach(struct attach *a, const struct plan_probe *pp)
{
	struct bpf_program *p = attach_clause_prog(a, "offcpu", pp->clause);

	return p ? attach_prog(a, p) : -ENOENT;
}

const struct source source_offcpu = {
	.name = "offcpu",
	.usage = "offcpu",
	.what = "off-CPU periods (sched_switch); latency = time blocked",
	.fields = SOURCE_F_LATENCY | SOURCE_F_STATE,
	.flags = SOURCE_END | SOURCE_STACKS_AT_BEGIN | SOURCE_SWITCH_END |
		 SOURCE_IRQS_OFF,
	.prepare = sched_prepare,
	.attach = sched_attach,
};
