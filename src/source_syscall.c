// SPDX-License-Identifier: GPL-2.0
/*
 * source_syscall: syscall:NAME[,NAME...]. raw_syscalls' sys_enter and
 * sys_exit as raw tracepoints (no tracefs, no per-syscall event ids); the
 * engine keeps only the numbers in the plan's bitmap, in the kernel.
 */
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include "scry.skel.h"

static int syscall_prepare(struct attach *a)
{
	bpf_program__set_autoload(a->skel->progs.sys_enter, true);
	bpf_program__set_autoload(a->skel->progs.sys_exit, true);
	return 0;
}

static int syscall_attach(struct attach *a)
{
	int err = attach_prog(a, a->skel->progs.sys_enter);

	return err ? : attach_prog(a, a->skel->progs.sys_exit);
}

const struct source source_syscall = {
	.probes = 1u << PLAN_SYSCALL,
	.prepare = syscall_prepare,
	.attach = syscall_attach,
};
