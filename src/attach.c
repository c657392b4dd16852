// SPDX-License-Identifier: GPL-2.0
/*
 * attach: open the engine skeleton, write the plan into .rodata, size the
 * maps, load only the programs the plan's source needs, attach them.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/log.h>
#include <scry/session.h>
#include <scry/source.h>
#include "scry.skel.h"

bool attach_dwarf(const struct attach *a)
{
	return a->plan->key_ustack && !a->opts->unwind_fp;
}

static void configure(struct attach *a)
{
	const struct plan *p = a->plan;
	struct scry__rodata *ro = a->skel->rodata;
	int i;

	memcpy((void *)ro->pred_begin, p->pred_begin, sizeof(p->pred_begin));
	memcpy((void *)ro->pred_end, p->pred_end, sizeof(p->pred_end));
	memcpy((void *)ro->pred_strs, p->strs, sizeof(p->strs));
	ro->key_kstack = p->key_kstack;
	ro->key_ustack = p->key_ustack;
	ro->key_comm = p->key_comm;
	for (i = 0; i < SCRY_MAX_INTKEYS; i++)
		ro->key_ints[i] = p->key_ints[i];
	ro->val_field = p->val_field;
	ro->agg_kind = p->agg;
	ro->lq_low = p->lq_low;
	ro->lq_step = p->lq_step ? p->lq_step : 1;
	ro->lq_nslots = p->lq_nslots;
	ro->stacks_at_begin = p->stacks_at_begin;
	ro->ustack_at_entry = p->ustack_at_entry;
	ro->filter_targets = a->filter_targets || a->npids > 0;
	ro->self_tgid = getpid();
	ro->announce_pids = p->key_ustack;
	ro->ustack_dwarf = attach_dwarf(a);
	ro->follow_forks = a->follow_forks;
	ro->key_fdpath = p->key_fdpath;
	memcpy((void *)ro->syscall_set, p->syscall_set, sizeof(p->syscall_set));
	ro->profile_idle = a->opts->idle;
}

static void size_maps(struct attach *a)
{
	const struct plan *p = a->plan;
	struct scry *s = a->skel;

	bpf_map__set_max_entries(s->maps.aggs, a->opts->max_keys);
	/* maps a plan never touches shrink to one entry */
	bpf_map__set_max_entries(s->maps.stacks,
				 p->key_kstack || p->key_ustack ?
				 a->opts->max_stacks : 1);
	if (!p->has_end)
		bpf_map__set_max_entries(s->maps.inflight, 1);
	else if (a->opts->max_keys > 16384)
		bpf_map__set_max_entries(s->maps.inflight, a->opts->max_keys);
	if (!p->key_ustack)
		bpf_map__set_max_entries(s->maps.seen, 1);
	bpf_map__set_max_entries(s->maps.strings,
				 plan_has_strings(p) ? a->opts->max_keys : 1);
	if (a->follow_forks)
		bpf_map__set_max_entries(s->maps.targets, SCRY_MAX_FOLLOWED);
	/* DWARF tables: rows of every file back to back, per-pid mappings */
	bpf_map__set_max_entries(s->maps.unwind_rows, attach_dwarf(a) ?
				 a->opts->max_unwind_rows : 1);
	bpf_map__set_max_entries(s->maps.unwind_tables,
				 attach_dwarf(a) ? 4096 : 1);
	bpf_map__set_max_entries(s->maps.unwind_procs,
				 attach_dwarf(a) ? 32768 : 1);
}

static int open_and_load(struct attach *a, const struct source *src)
{
	struct bpf_program *prog;
	int err;

	a->skel = scry__open();
	if (!a->skel) {
		err = -errno;
		log_err("cannot open the BPF engine: %s", strerror(-err));
		return err;
	}
	configure(a);
	size_maps(a);
	bpf_object__for_each_program(prog, a->skel->obj)
		bpf_program__set_autoload(prog, false);
	bpf_program__set_autoload(a->skel->progs.follow_fork, a->follow_forks);
	bpf_program__set_autoload(a->skel->progs.on_exec, a->plan->key_ustack);
	bpf_program__set_autoload(a->skel->progs.on_mmap_exit,
				  a->plan->key_ustack);
	err = src->prepare ? src->prepare(a) : 0;
	if (err)
		return err;
	return scry__load(a->skel);
}

int attach_load(struct attach *a)
{
	const struct source *src = a->plan->src;
	__u8 one = 1;
	int err, i;

	err = open_and_load(a, src);
	if (err) {
		if (err == -EPERM)
			log_err("loading BPF programs: %s: needs CAP_BPF and "
				"CAP_PERFMON; check 'ulimit -l' and "
				"kernel.unprivileged_bpf_disabled",
				strerror(-err));
		else if (err == -EACCES)
			log_err("the kernel's verifier rejected scry's BPF "
				"engine (a scry bug: run with -v for its log "
				"and report it)");
		else
			log_err("loading BPF programs: %s (run with -v for the "
				"verifier's log)", strerror(-err));
		return err;
	}
	for (i = 0; i < a->npids; i++) {
		err = bpf_map__update_elem(a->skel->maps.targets,
					   &a->pids[i], sizeof(int),
					   &one, sizeof(one), BPF_ANY);
		if (err) {
			log_err("pid %d: cannot add to the filter: %s",
				a->pids[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

int attach_add_target(struct attach *a, int pid)
{
	__u8 one = 1;

	if (a->npids >= SCRY_MAX_TARGETS)
		return -E2BIG;
	a->pids[a->npids++] = pid;
	if (!a->skel)
		return 0;
	return bpf_map__update_elem(a->skel->maps.targets, &pid, sizeof(pid),
				    &one, sizeof(one), BPF_ANY);
}

int attach_keep(struct attach *a, struct bpf_link *l)
{
	if (a->nlinks >= ATTACH_MAX_LINKS) {
		bpf_link__destroy(l);
		return -E2BIG;
	}
	a->links[a->nlinks++] = l;
	return 0;
}

int attach_prog(struct attach *a, struct bpf_program *prog)
{
	struct bpf_link *l;
	int err;

	if (!bpf_program__autoload(prog))
		return 0;
	l = bpf_program__attach(prog);
	if (!l) {
		err = -errno;
		log_err("%s: attach failed: %s", bpf_program__name(prog),
			strerror(-err));
		return err;
	}
	return attach_keep(a, l);
}

int attach_probes(struct attach *a)
{
	int err;

	err = attach_prog(a, a->skel->progs.follow_fork);
	err = err ? : attach_prog(a, a->skel->progs.on_exec);
	err = err ? : attach_prog(a, a->skel->progs.on_mmap_exit);
	return err ? : a->plan->src->attach(a);
}

void attach_close(struct attach *a)
{
	int i;

	if (!a)
		return;
	for (i = 0; i < a->nlinks; i++)
		bpf_link__destroy(a->links[i]);
	a->nlinks = 0;
	scry__destroy(a->skel);
	a->skel = NULL;
}
