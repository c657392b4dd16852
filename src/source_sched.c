// SPDX-License-Identifier: GPL-2.0
/*
 * source_sched: the offcpu probe. sched_switch as raw_tp (no tracefs,
 * no vmlinux BTF parse: bpf/scry.bpf.c says why not tp_btf).
 * A period ends at the thread's switch-in, or, when the kernel ran that
 * switch without the tracepoint, at its next switch-out or its exit
 * (SOURCE_SWITCH_END: bpf/scry.bpf.c, scry_unseen_ended).
 */
#include <errno.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/plan.h>
#include <scry/source.h>
#include "scry.skel.h"

/*
 * A switch's two halves (bpf/scry.bpf.c on_switch_out, on_switch_in), in
 * the order they must run: the tracepoint runs its programs in the order
 * they attached.
 */
static const char *const halves[] = { "offcpu_out", "offcpu_in" };

static int sched_prepare(struct attach *a, const struct plan_probe *pp)
{
	int err = 0;
	size_t i;

	for (i = 0; !err && i < sizeof(halves) / sizeof(halves[0]); i++)
		err = attach_want(a, halves[i], pp->clause);
	return err;
}

static int sched_attach(struct attach *a, const struct plan_probe *pp)
{
	struct bpf_program *p;
	int err = 0;
	size_t i;

	for (i = 0; !err && i < sizeof(halves) / sizeof(halves[0]); i++) {
		p = attach_clause_prog(a, halves[i], pp->clause);
		err = p ? attach_prog(a, p) : -ENOENT;
	}
	return err;
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
