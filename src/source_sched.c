// SPDX-License-Identifier: GPL-2.0
/*
 * source_sched: the offcpu probe. sched_switch as tp_btf (typed, no
 * tracefs), plus sched_process_exit to drop the parked state of threads
 * that never switch in again. raw_tp variants are kept for kernels whose
 * BTF lacks the tracepoint types; both attach through fd-based links.
 */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/log.h>
#include <scry/source.h>
#include "scry.skel.h"

static bool use_raw_tp(void)
{
	/* tp_btf needs the tracepoint's btf_trace_* type in vmlinux BTF */
	struct btf *btf = btf__load_vmlinux_btf();
	bool raw;

	if (!btf)
		return true;
	raw = btf__find_by_name_kind(btf, "btf_trace_sched_switch",
				     BTF_KIND_TYPEDEF) < 0;
	btf__free(btf);
	return raw;
}

static int sched_prepare(struct attach *a)
{
	struct scry *s = a->skel;

	if (use_raw_tp()) {
		log_debug("sched_switch: using raw_tp (no tp_btf type)");
		bpf_program__set_autoload(s->progs.offcpu_switch_raw, true);
		bpf_program__set_autoload(s->progs.task_exit_raw, true);
	} else {
		bpf_program__set_autoload(s->progs.offcpu_switch, true);
		bpf_program__set_autoload(s->progs.task_exit, true);
	}
	return 0;
}

static int sched_attach(struct attach *a)
{
	struct scry *s = a->skel;
	int err;

	err = attach_prog(a, s->progs.offcpu_switch);
	err = err ? : attach_prog(a, s->progs.offcpu_switch_raw);
	err = err ? : attach_prog(a, s->progs.task_exit);
	return err ? : attach_prog(a, s->progs.task_exit_raw);
}

const struct source source_offcpu = {
	.name = "offcpu",
	.usage = "offcpu",
	.what = "off-CPU periods (sched_switch); latency = time blocked",
	.fields = SOURCE_F_LATENCY | SOURCE_F_STATE,
	.flags = SOURCE_END | SOURCE_STACKS_AT_BEGIN,
	.prepare = sched_prepare,
	.attach = sched_attach,
};
