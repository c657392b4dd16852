// SPDX-License-Identifier: GPL-2.0
/*
 * source_sched: the offcpu probe. sched_switch as tp_btf (typed, no
 * tracefs), raw_tp for kernels whose BTF lacks the tracepoint's type.
 * A period ends at the thread's switch-in, or, when the kernel ran that
 * switch without the tracepoint, at its next switch-out or its exit
 * (SOURCE_SWITCH_END: bpf/scry.bpf.c, scry_end_unseen).
 */
#include <errno.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/log.h>
#include <scry/plan.h>
#include <scry/source.h>
#include "scry.skel.h"

static int sched_prepare(struct attach *a, const struct plan_probe *pp)
{
	if (!attach_has_tp_btf(a, "sched_switch")) {
		log_debug("sched_switch: using raw_tp (no tp_btf type)");
		return attach_want(a, "offcpu_raw", pp->clause);
	}
	return attach_want(a, "offcpu", pp->clause);
}

static int sched_attach(struct attach *a, const struct plan_probe *pp)
{
	struct bpf_program *p = attach_clause_prog(a, "offcpu", pp->clause);
	struct bpf_program *raw = attach_clause_prog(a, "offcpu_raw",
						     pp->clause);
	int err;

	if (!p || !raw)
		return -ENOENT;
	err = attach_prog(a, p);
	return err ? : attach_prog(a, raw);
}

const struct source source_offcpu = {
	.name = "offcpu",
	.usage = "offcpu",
	.what = "off-CPU periods (sched_switch); latency = time blocked",
	.fields = SOURCE_F_LATENCY | SOURCE_F_STATE,
	.flags = SOURCE_END | SOURCE_STACKS_AT_BEGIN | SOURCE_SWITCH_END,
	.prepare = sched_prepare,
	.attach = sched_attach,
};
