// SPDX-License-Identifier: GPL-2.0
/*
 * attach: open the engine skeleton, write the plan into .rodata, size the
 * maps, load only the programs the plan's probes need (each probe's
 * source picks its adapter's copy for the clause), attach them.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <scry/array.h>
#include <scry/attach.h>
#include <scry/corebtf.h>
#include <scry/detach.h>
#include <scry/kernel.h>
#include <scry/log.h>
#include <scry/mapmem.h>
#include <scry/parload.h>
#include <scry/selfprog.h>
#include <scry/session.h>
#include <scry/source.h>
#include <scry/unwind.h>
#include "scry.skel.h"
#include "scry_all.skel.h"
#include "scry_lean.skel.h"

/*
 * The other builds' bytes are opened with scry's skeleton: the same
 * data, section by section
 */
#define SAME_DATA(build, sec)						\
	_Static_assert(sizeof(struct scry__##sec) ==			\
		       sizeof(struct build##__##sec),			\
		       #build "'s ." #sec " differs from scry's")
#define SAME_DATA_ALL(build)						\
	SAME_DATA(build, rodata); SAME_DATA(build, bss);		\
	SAME_DATA(build, data); SAME_DATA(build, kconfig)
SAME_DATA_ALL(scry_all);
SAME_DATA_ALL(scry_lean);

bool attach_dwarf(const struct attach *a)
{
	return a->plan->key_ustack && !a->opts->unwind_fp;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC now: walltimestamp from ktime */
static __u64 wall_offset(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return (r.tv_sec - m.tv_sec) * 1000000000ULL + r.tv_nsec - m.tv_nsec;
}

static __u64 mono_ns(void)
{
	struct timespec m;

	clock_gettime(CLOCK_MONOTONIC, &m);
	return m.tv_sec * 1000000000ULL + m.tv_nsec;
}

/* The plan's clauses, maps, keys, records and strings into .rodata. */
static void configure_program(struct attach *a)
{
	const struct plan *p = a->plan;
	struct scry__rodata *ro = a->skel->rodata;
	bool roles[3] = { false };
	int i, j, k;

	for (i = 0; i < p->nclauses; i++) {
		const struct plan_clause *cl = &p->clauses[i];
		struct scry_clause_def *d = (void *)&ro->clauses[i];

		if (cl->flags & SCRY_CL_FDPATH)
			roles[cl->fd_role < 3 ? cl->fd_role : 0] = true;
		d->flags = cl->flags;
		d->fd_role = cl->fd_role;
		memcpy(d->begin, cl->begin, sizeof(d->begin));
		memcpy(d->body, cl->body, sizeof(d->body));
		for (j = 0; j < cl->nbody; j++)
			if (cl->body[j].op == SCRY_OP_STACKS)
				d->resume = j + 1;
		for (j = 0; j < cl->nprobes; j++)
			for (k = 0; k < 8; k++)
				d->syscall_set[k] |= p->probes[cl->first_probe
							       + j].syscall_set[k];
		for (j = 0; j < cl->ntp_fields; j++) {
			const struct plan_tp_field *f = &cl->tp_fields[j];

			d->tp[j].offset = f->offset;
			d->tp[j].size = f->size;
			d->tp[j].is_signed = f->is_signed;
			d->tp[j].kind = !f->is_string ? SCRY_TP_INT :
					f->data_loc ? SCRY_TP_DATA_LOC :
					SCRY_TP_CHARS;
		}
	}
	for (i = 0; i < p->nmaps; i++) {
		struct scry_mapdef *m = (void *)&ro->mapdefs[i];

		m->kind = p->maps[i].kind == PLAN_MAP_AGG ? SCRY_MAP_AGG :
			  SCRY_MAP_VAR;
		m->agg = p->maps[i].agg;
		m->lq_low = p->maps[i].lq_low;
		m->lq_step = p->maps[i].lq_step ? p->maps[i].lq_step : 1;
		m->lq_levels = p->maps[i].lq_levels;
	}
	memcpy((void *)ro->keyspecs, p->keyspecs, sizeof(p->keyspecs));
	for (i = 0; i < p->nouts; i++)
		memcpy((void *)&ro->outdefs[i], &p->outs[i].def,
		       sizeof(p->outs[i].def));
	memcpy((void *)ro->lits, p->lits, sizeof(p->lits));
	/*
	 * which argument is the fd of each path role, per syscall: for the
	 * roles a clause reads (bpf/scry.bpf.c: on_sys_enter), as each is
	 * 512 searches of the syscall table (~0.1 ms)
	 */
	for (i = 0; i < 3; i++) {
		for (j = 0; roles[i] && j < 512; j++) {
			int arg = plan_syscall_fd_arg(j, i);

			((__u8 *)ro->fdpath_args[i])[j] = arg > 0 ? arg : 0;
		}
	}
	ro->start_ns = mono_ns();
	ro->wall_offset_ns = wall_offset();
	ro->cpid = a->cpid;
}

/* Does a probe of the plan measure waits a held exec or mmap lengthens? */
static bool plan_waits(const struct plan *p)
{
	int i;

	for (i = 0; i < p->nprobes; i++)
		if (p->probes[i].src == &source_offcpu ||
		    p->probes[i].src == &source_syscall)
			return true;
	return false;
}

/*
 * Are the aggregations read only once, after the stop? Then a key that
 * repeats on a CPU may add up there until then (abi.h: struct scry_pend):
 * not with --interval, which reads and empties them while tracing, nor
 * where a clause prints, clears or zeroes a map.
 */
static bool plan_reads_at_end(const struct attach *a)
{
	const struct plan *p = a->plan;
	int i;

	if (a->opts->interval_s > 0)
		return false;
	for (i = 0; i < p->nouts; i++)
		if (p->outs[i].kind == PLAN_OUT_PRINT ||
		    p->outs[i].kind == PLAN_OUT_CLEAR ||
		    p->outs[i].kind == PLAN_OUT_ZERO)
			return false;
	return true;
}

static void configure(struct attach *a)
{
	const struct plan *p = a->plan;
	struct scry__rodata *ro = a->skel->rodata;

	configure_program(a);
	ro->ustack_at_entry = p->ustack_at_entry;
	ro->filter_targets = a->filter_targets || a->npids > 0;
	ro->self_tgid = getpid();
	ro->announce_pids = p->key_ustack;
	ro->ustack_dwarf = attach_dwarf(a);
	ro->follow_forks = a->follow_forks;
	ro->profile_idle = a->opts->idle;
	/* only these see a held exec's or mmap's wait (proc.bpf.h: held) */
	ro->cmd_holds = a->follow_forks && plan_waits(p);
	ro->agg_pend = plan_reads_at_end(a);
	ro->key_words = plan_key_size(p) / sizeof(__u64);
}

/*
 * Where the kernel traces targets only (-c, -p), a process gets a
 * generation (gens), is announced (seen) and has a DWARF mapping list
 * (unwind_procs: written for targets, copied at their forks) only while
 * it is a target, and its end lets go of all of them (proc.bpf.h:
 * scry_proc_exit, _free): none needs more entries than targets has.
 * offcpu preallocates gens and seen: 32,768 entries each were ~0.9 ms of
 * its start apiece; unwind_procs' 32,768 buckets were 0.3-0.4 ms.
 */
static void size_per_target(struct attach *a)
{
	struct scry *s = a->skel;
	__u32 n = bpf_map__max_entries(s->maps.targets);

	if (bpf_map__max_entries(s->maps.seen) > n)
		bpf_map__set_max_entries(s->maps.seen, n);
	if (bpf_map__max_entries(s->maps.gens) > n)
		bpf_map__set_max_entries(s->maps.gens, n);
	if (bpf_map__max_entries(s->maps.unwind_procs) > n)
		bpf_map__set_max_entries(s->maps.unwind_procs, n);
}

static void size_maps(struct attach *a)
{
	const struct plan *p = a->plan;
	struct scry *s = a->skel;
	bool aggs = false, flips = a->opts->interval_s > 0;
	int i;

	for (i = 0; i < p->nmaps; i++)
		aggs |= p->maps[i].kind == PLAN_MAP_AGG;
	/* maps a plan never touches shrink to one entry */
	bpf_map__set_max_entries(s->maps.aggs, aggs ? a->opts->max_keys : 1);
	bpf_map__set_max_entries(s->maps.vars, p->uses_vars ?
				 a->opts->max_keys : 1);
	/* the second pair only where --interval flips to it */
	bpf_map__set_max_entries(s->maps.aggs_alt, aggs && flips ?
				 a->opts->max_keys : 1);
	bpf_map__set_max_entries(s->maps.vars_alt, p->uses_vars && flips ?
				 a->opts->max_keys : 1);
	bpf_map__set_key_size(s->maps.aggs, plan_key_size(p));
	bpf_map__set_key_size(s->maps.aggs_alt, plan_key_size(p));
	bpf_map__set_key_size(s->maps.vars, plan_key_size(p));
	bpf_map__set_key_size(s->maps.vars_alt, plan_key_size(p));
	bpf_map__set_max_entries(s->maps.events, p->has_events ?
				 a->opts->buffer_size : 4096);
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
				 p->uses_strings ? a->opts->max_keys : 1);
	if (a->follow_forks)
		bpf_map__set_max_entries(s->maps.targets, SCRY_MAX_FOLLOWED);
	/*
	 * DWARF tables: rows of every file back to back, in chunks the
	 * store makes as rows come (unwind_abi.h); per-pid mappings
	 */
	bpf_map__set_max_entries(s->maps.unwind_rows, attach_dwarf(a) ?
				 unwind_chunks(a->opts->max_unwind_rows) : 1);
	bpf_map__set_max_entries(s->maps.unwind_tables,
				 attach_dwarf(a) ? 4096 : 1);
	bpf_map__set_max_entries(s->maps.unwind_procs,
				 attach_dwarf(a) ? 32768 : 1);
	bpf_map__set_max_entries(s->maps.unwind_files,
				 attach_dwarf(a) ? 4096 : 1);
	if (!p->key_ustack && !a->follow_forks)
		bpf_map__set_max_entries(s->maps.gens, 1);
	if (!a->follow_forks || !plan_waits(p))
		bpf_map__set_max_entries(s->maps.held, 1);
	if (a->filter_targets || a->npids > 0)
		size_per_target(a);
}

/* The main object's program: where the plan's choices are made. */
static struct bpf_program *clause_prog(struct attach *a, const char *name,
				       int clause)
{
	struct bpf_program *prog;
	char full[64];

	snprintf(full, sizeof(full), "%s_%d", name, clause);
	prog = bpf_object__find_program_by_name(a->skel->obj, full);
	if (!prog)
		log_err("%s: no such program in the engine (a scry bug)", full);
	return prog;
}

struct bpf_program *attach_clause_prog(struct attach *a, const char *name,
				       int clause)
{
	return parload_prog(a->side, clause_prog(a, name, clause));
}

int attach_want(struct attach *a, const char *name, int clause)
{
	struct bpf_program *prog = clause_prog(a, name, clause);

	if (!prog)
		return -ENOENT;
	bpf_program__set_autoload(prog, true);
	return 0;
}

/* Kernel memory the sized maps take, by the option that sizes them. */
static void map_needs(const struct attach *a, struct mapmem *need)
{
	const struct scry *s = a->skel;
	int ncpus = libbpf_num_possible_cpus();
	const struct bpf_map *m;
	__u64 b;

	if (ncpus < 1)
		ncpus = 1;	/* unreadable: per-CPU sizes at their least */
	need->value[MAPMEM_KEYS] = a->opts->max_keys;
	need->value[MAPMEM_STACKS] = a->opts->max_stacks;
	need->value[MAPMEM_UNWIND] = a->opts->max_unwind_rows;
	need->value[MAPMEM_BUFFER] = a->opts->buffer_size;
	bpf_object__for_each_map(m, s->obj) {
		b = mapmem_bytes(bpf_map__type(m), bpf_map__key_size(m),
				 bpf_map__value_size(m),
				 bpf_map__max_entries(m),
				 bpf_map__map_flags(m), ncpus);
		/* the rows its chunks take once every one is made */
		if (m == s->maps.unwind_rows && attach_dwarf(a))
			b += mapmem_bytes(BPF_MAP_TYPE_ARRAY, sizeof(__u32),
					  sizeof(struct scry_unwind_row),
					  a->opts->max_unwind_rows,
					  BPF_F_MMAPABLE, ncpus);
		need->total += b;
		if (m == s->maps.aggs || m == s->maps.vars ||
		    m == s->maps.aggs_alt || m == s->maps.vars_alt ||
		    m == s->maps.strings || m == s->maps.inflight)
			need->by[MAPMEM_KEYS] += b;
		else if (m == s->maps.stacks)
			need->by[MAPMEM_STACKS] += b;
		else if (m == s->maps.unwind_rows)
			need->by[MAPMEM_UNWIND] += b;
		else if (m == s->maps.events)
			need->by[MAPMEM_BUFFER] += b;
	}
}

/*
 * Sizes the machine cannot hold are refused before loading, naming the
 * option: otherwise the kernel's ENOMEM comes mid-load, and could read
 * as the verifier's.
 */
static int check_memory(struct attach *a)
{
	char why[64] = "";
	__u64 avail = mapmem_available("", why, sizeof(why));

	map_needs(a, &a->need);
	if (!mapmem_check(&a->need, avail, why))
		return 0;
	a->usage_error = true;
	return -ENOMEM;
}

/*
 * The engine's object file, compiled into scry's read-only data (1.5
 * MiB), is read only to open and load it: once loaded, its pages are let
 * go of. They are clean pages of scry's own file, read again if anything
 * touches them; the page cache keeps them for the next run.
 */
static void engine_bytes_release(enum attach_engine e)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;
	size_t size = 0;
	const void *bytes = attach_engine_bytes(e, &size);

	lo = ((uintptr_t)bytes + page - 1) & ~(page - 1);
	hi = ((uintptr_t)bytes + size) & ~(page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Keys warm_caches() puts in a map on each CPU and takes out again. */
#define WARM_KEYS	4

/*
 * May scry run on every possible CPU (all online, none outside its
 * affinity)? warm_caches() must reach each one's cache.
 */
static bool cpus_all_ours(void)
{
	int n = libbpf_num_possible_cpus(), i;
	cpu_set_t set;

	if (n < 1 || n > CPU_SETSIZE || sched_getaffinity(0, sizeof(set), &set))
		return false;
	for (i = 0; i < n; i++)
		if (!CPU_ISSET(i, &set))
			return false;
	return true;
}

/* WARM_KEYS keys into @m from this CPU, then out again. */
static void warm_map(struct bpf_map *m)
{
	__u32 ksz = bpf_map__key_size(m), vsz = bpf_map__value_size(m);
	unsigned char *key, *val;
	int k, put = 0, tries;

	if (bpf_map__max_entries(m) < WARM_KEYS)
		return;		/* a map the plan does not use */
	key = malloc(ksz);
	val = calloc(1, vsz);
	if (!key || !val)
		goto out;
	memset(key, 0xff, ksz);	/* no key an event makes before attaching */
	for (k = 0; k < WARM_KEYS; k++, put++) {
		key[0] = (unsigned char)k;
		/* the element a new cache holds is taken at once; the
		 * refill it asks for comes with the next interrupt */
		for (tries = 0; tries < 100; tries++) {
			if (!bpf_map__update_elem(m, key, ksz, val, vsz,
						  BPF_NOEXIST) || errno != ENOMEM)
				break;
			sched_yield();
		}
		if (tries == 100)
			break;
	}
	for (k = 0; k < put; k++) {
		key[0] = (unsigned char)k;
		bpf_map__delete_elem(m, key, ksz, 0);
	}
out:
	free(key);
	free(val);
}

/*
 * A hash map that is not preallocated takes a new element from the
 * CPU's cache of free ones, which the kernel refills from an irq_work:
 * not while a program runs with interrupts off, and a new map's cache
 * holds one element of these sizes (bpf_mem_alloc's prefill). offcpu's
 * first sched_switch on each CPU that took both stacks lost the second
 * (measured: 2 stack drops on 2 CPUs, every run). Keys put in and taken
 * out again on each CPU before attaching leave each cache refilled and
 * holding them; from then on a run takes fewer keys (plan_fills_warm():
 * two stacks, two aggregation keys) than the kernel keeps at least in
 * the cache (its low watermark: 11 stacks, 17 aggregation keys at these
 * sizes), and interrupts come on between runs. A CPU that went offline
 * since cpus_all_ours() is passed over: a key its first run could not
 * have is counted (SCRY_STAT_*_NOMEM), not lost silently.
 */
static void warm_caches(struct attach *a)
{
	int n = libbpf_num_possible_cpus(), cpu;
	cpu_set_t old, one;

	if (!a->warm || sched_getaffinity(0, sizeof(old), &old))
		return;
	for (cpu = 0; cpu < n; cpu++) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		warm_map(a->skel->maps.aggs);
		warm_map(a->skel->maps.aggs_alt);
		warm_map(a->skel->maps.stacks);
	}
	sched_setaffinity(0, sizeof(old), &old);
}

/*
 * Preallocating the aggregation, stack and string stores (every entry of
 * --max-keys and --max-stacks, zeroed and charged at creation) was the
 * largest part of a warm start after the verifier: ~17 ms of malloc's,
 * ~5 ms of a syscall count's, ~6 ms of offcpu's. Where the kernel
 * allocates hash elements from bpf_mem_alloc (6.1+: before, kmalloc,
 * unsafe in a program that may interrupt it), they are allocated as keys
 * arrive:
 * - where every program the plan loads runs in a task with interrupts
 *   on (plan_in_task()): these stores, and the per-process maps
 *   (targets, gens, seen), which change at a fork, an exec or an exit;
 * - where one program runs with interrupts off (offcpu's sched_switch,
 *   plan_fills_warm()) and scry may run on every CPU: the aggregation
 *   and the stacks only, their per-CPU caches filled before attaching
 *   (warm_caches()).
 * Only these: an event inserts at most its new keys, an existing key is
 * found and never replaced. inflight, inserted and deleted at every
 * event, stays preallocated. check_memory() counted them full: a
 * --max-keys the machine cannot hold is refused as before.
 */
static void alloc_on_demand(struct attach *a)
{
	struct bpf_map *maps[] = { a->skel->maps.aggs, a->skel->maps.aggs_alt,
				   a->skel->maps.stacks,
				   a->skel->maps.strings, a->skel->maps.targets,
				   a->skel->maps.gens, a->skel->maps.seen };
	size_t i, n = sizeof(maps) / sizeof(maps[0]);

	/*
	 * The probes' kinds say where their programs run (SOURCE_IN_TASK,
	 * SOURCE_IRQS_OFF); the engine's own (task_exit, follow_fork,
	 * on_exec, on_mmap_exit: exit, fork, exec, mmap) always run in the
	 * task they follow; task_free, an RCU callback, only deletes.
	 */
	if (!plan_in_task(a->plan)) {
		if (!plan_fills_warm(a->plan) || !cpus_all_ours())
			return;
		a->warm = true;
		n = 3;	/* aggs, aggs_alt, stacks */
	}
	if (!kernel_htab_mem_alloc()) {
		a->warm = false;
		return;
	}
	for (i = 0; i < n; i++)
		bpf_map__set_map_flags(maps[i], bpf_map__map_flags(maps[i]) |
				       BPF_F_NO_PREALLOC);
}

const void *attach_engine_bytes(enum attach_engine e, size_t *size)
{
	switch (e) {
	case ENGINE_LEAN:	return scry_lean__elf_bytes(size);
	case ENGINE_ALL:	return scry_all__elf_bytes(size);
	default:		return scry__elf_bytes(size);
	}
}

enum attach_engine attach_engine_for(const struct plan *p)
{
	const struct plan_clause *cl;
	__u64 ops = 0;
	int i, k;

	/* plans of one clause use its slot 0 (plan.c numbers from 0) */
	if (p->nclauses > 1)
		return ENGINE_ALL;
	for (i = 0; i < p->nclauses; i++) {
		cl = &p->clauses[i];
		for (k = 0; k < cl->nbegin; k++)
			ops |= SCRY_OP_BIT(cl->begin[k].op & 63);
		for (k = 0; k < cl->nbody; k++)
			ops |= SCRY_OP_BIT(cl->body[k].op & 63);
	}
	return ops & SCRY_OPS_RARE ? ENGINE_ONE : ENGINE_LEAN;
}

/* scry__open_opts(), with the object's bytes picked */
struct scry *attach_engine_open(enum attach_engine e,
				const struct bpf_object_open_opts *oo)
{
	struct scry *obj = calloc(1, sizeof(*obj));
	int err;

	if (!obj)
		return NULL;
	parload_register();
	err = scry__create_skeleton(obj);
	if (!err) {
		obj->skeleton->data = (void *)attach_engine_bytes(e,
						&obj->skeleton->data_sz);
		err = bpf_object__open_skeleton(obj->skeleton, oo);
	}
	if (err) {
		scry__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

/*
 * The target BTF for CO-RE: the cached cut of vmlinux BTF (corebtf.c),
 * with @cut; all of vmlinux BTF, libbpf's default, without.
 */
static struct scry *open_engine(struct attach *a, bool cut)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	const void *obj;
	size_t objsz;
	char path[40];
	int fd = -1;

	a->engine = attach_engine_for(a->plan);
	log_debug("engine: the %s build",
		  a->engine == ENGINE_LEAN ? "lean" :
		  a->engine == ENGINE_ALL ? "every-slot" : "slot-0");
	obj = attach_engine_bytes(a->engine, &objsz);
	if (cut)
		fd = corebtf_open(COREBTF_DIR, obj, objsz, a->plan->env->btf);
	if (fd >= 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		oo.btf_custom_path = path;
	}
	a->corebtf = fd >= 0;
	/* libbpf copies the path and opens it at load: the fd is kept till
	 * then (open_and_load) */
	a->corebtf_fd = fd;
	/* named as the skeleton names its object: the same maps' names */
	oo.object_name = "scry";
	a->side = parload_open(obj, objsz, &oo);
	return attach_engine_open(a->engine, &oo);
}

static int load_engine(struct attach *a, bool cut)
{
	const struct plan *p = a->plan;
	struct bpf_program *prog;
	bool switch_end = false;
	int err, i;

	a->skel = open_engine(a, cut);
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
	/*
	 * exec turns a -c command's PENDING processes TRACED. The notices
	 * are the plain builds: nothing reads the files the _files ones
	 * name (proc.bpf.h).
	 */
	bpf_program__set_autoload(a->skel->progs.on_exec,
				  p->key_ustack || a->follow_forks);
	bpf_program__set_autoload(a->skel->progs.on_mmap_exit, p->key_ustack);
	/*
	 * a thread that exits leaves nothing parked behind, a process that
	 * exits no generation; one that is freed is no target any more. The
	 * build that counts a switch-in never seen only where one may be.
	 */
	for (i = 0; i < p->nclauses; i++)
		switch_end |= p->clauses[i].flags & SCRY_CL_SWITCH_END;
	bpf_program__set_autoload(a->skel->progs.task_exit, !switch_end);
	bpf_program__set_autoload(a->skel->progs.task_exit_unseen, switch_end);
	bpf_program__set_autoload(a->skel->progs.task_free, true);
	for (i = 0; i < p->nprobes; i++) {
		const struct plan_probe *pp = &p->probes[i];

		err = pp->src->prepare ? pp->src->prepare(a, pp) : 0;
		if (err)
			return err;
	}
	err = check_memory(a);
	if (err)
		return err;
	alloc_on_demand(a);
	parload_split(a->side, a->skel->obj, a->skel->progs.maps_ready);
	err = scry__load(a->skel);
	err = parload_finish(a->side, err);
	if (!err) {
		engine_bytes_release(a->engine);
		warm_caches(a);
	}
	/* maps are created first, and nothing else in a load takes as much */
	if (err == -ENOMEM) {
		mapmem_enomem(&a->need);
		a->usage_error = true;
	}
	return err;
}

static int open_and_load(struct attach *a, bool cut)
{
	int err = load_engine(a, cut);

	if (a->corebtf_fd >= 0)
		close(a->corebtf_fd);
	a->corebtf_fd = -1;
	return err;
}

/*
 * Targets or generations changed: the engine's kept answers (bpf/maps.bpf.h
 * who_epoch) are out of date. After the map update, as the engine does.
 */
static void who_moved(struct attach *a)
{
	__atomic_fetch_add(&a->skel->bss->who_epoch, 1, __ATOMIC_SEQ_CST);
}

int attach_load(struct attach *a)
{
	int err, i;

	err = open_and_load(a, true);
	/*
	 * A cut that does not load (a file that parses but does not fit)
	 * must not cost the run: the load again with all of vmlinux BTF, and
	 * the next run cuts anew. A relocation the cut cannot answer fails
	 * as EINVAL (libbpf poisons the instruction, the verifier refuses
	 * it) or ESRCH; anything else (memory, permission, a verifier limit,
	 * a probe's own error) is no matter of BTF, and loading twice would
	 * only say it twice.
	 */
	if (a->corebtf && (err == -EINVAL || err == -ESRCH)) {
		size_t objsz;
		const void *obj = attach_engine_bytes(a->engine, &objsz);

		log_debug("loading with the cached CO-RE target BTF: %s: "
			  "again with all of vmlinux BTF", strerror(-err));
		corebtf_drop(COREBTF_DIR, obj, objsz);
		parload_free(a->side);
		a->side = NULL;
		scry__destroy(a->skel);
		a->skel = NULL;
		a->need = (struct mapmem){};
		err = open_and_load(a, false);
	}
	if (err) {
		/* the maps' ENOMEM was said, with the option to lower */
		if (err == -ENOMEM && a->need.total)
			return err;
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
	/*
	 * -p processes get their generations now, before their mappings are
	 * read, so the lists written for them match the stacks to come.
	 */
	a->skel->data->gen_next = a->npids + 1;
	for (i = 0; i < a->npids; i++) {
		struct scry_target t = { .state = a->states[i] };
		__u32 gen = i + 1;

		if (a->states[i] == SCRY_TARGET_TRACED)
			bpf_map__update_elem(a->skel->maps.gens, &a->pids[i],
					     sizeof(int), &gen, sizeof(gen),
					     BPF_ANY);
		/* start 0: the process's own first event stamps it (abi.h) */
		err = bpf_map__update_elem(a->skel->maps.targets,
					   &a->pids[i], sizeof(int),
					   &t, sizeof(t), BPF_ANY);
		if (err) {
			log_err("pid %d: cannot add to the filter: %s",
				a->pids[i], strerror(-err));
			return err;
		}
	}
	who_moved(a);
	return 0;
}

int attach_add_target(struct attach *a, int pid, __u8 state)
{
	struct scry_target t = { .state = state };
	int err;

	if (a->npids >= SCRY_MAX_TARGETS)
		return -E2BIG;
	a->states[a->npids] = state;
	a->pids[a->npids++] = pid;
	if (!a->skel)
		return 0;
	err = bpf_map__update_elem(a->skel->maps.targets, &pid, sizeof(pid),
				   &t, sizeof(t), BPF_ANY);
	if (!err)
		who_moved(a);
	return err;
}

int attach_keep(struct attach *a, struct bpf_link *l)
{
	struct bpf_link **v;

	if (a->nlinks == a->links_cap) {
		int cap = a->links_cap ? a->links_cap * 2 : 64;

		v = realloc(a->links, cap * sizeof(*v));
		if (!v) {
			bpf_link__destroy(l);
			return -ENOMEM;
		}
		a->links = v;
		a->links_cap = cap;
	}
	a->links[a->nlinks++] = l;
	return 0;
}

int attach_keep_fd(struct attach *a, int fd)
{
	int err = array_ensure(&a->slow_fds, &a->slow_fds_cap,
			       sizeof(*a->slow_fds), a->nslow_fds + 1);

	if (!err)
		a->slow_fds[a->nslow_fds++] = fd;
	return err;
}

int attach_prog(struct attach *a, struct bpf_program *prog)
{
	struct bpf_link *l;
	int err;

	prog = parload_prog(a->side, prog);
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

/*
 * BEGIN and END clauses are scry's own events: their programs run once,
 * through BPF_PROG_TEST_RUN, with scry as the current task.
 */
int attach_run_special(struct attach *a, bool end)
{
	const struct plan *p = a->plan;
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct bpf_program *prog;
	__u64 args[1] = {};
	int i, err;

	opts.ctx_in = args;
	opts.ctx_size_in = sizeof(args);
	for (i = 0; i < p->nprobes; i++) {
		const struct plan_probe *pp = &p->probes[i];

		if (!pp->special || pp->at_end != end)
			continue;
		prog = attach_clause_prog(a, "special", pp->clause);
		if (!prog)
			return -ENOENT;
		err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);
		if (err) {
			err = -errno;
			log_err("%s: running it: %s", end ? "END" : "BEGIN",
				strerror(-err));
			return err;
		}
	}
	return 0;
}

int attach_probes(struct attach *a)
{
	const struct plan *p = a->plan;
	int err, i;

	/*
	 * First: a process announced by a probe and gone before these were
	 * in would keep its generation and mappings for its pid's next
	 * owner. A clause on sched_process_exit still sees the process as a
	 * target whatever the order: only scry_proc_free, once it is
	 * reaped, ends that (proc.bpf.h).
	 */
	err = attach_prog(a, a->skel->progs.task_exit);
	err = err ? : attach_prog(a, a->skel->progs.task_exit_unseen);
	err = err ? : attach_prog(a, a->skel->progs.task_free);
	err = err ? : attach_prog(a, a->skel->progs.follow_fork);
	err = err ? : attach_prog(a, a->skel->progs.on_exec);
	err = err ? : attach_prog(a, a->skel->progs.on_mmap_exit);
	/* BEGIN runs before any other probe fires, as in awk and DTrace */
	err = err ? : attach_run_special(a, false);
	for (i = 0; !err && i < p->nprobes; i++) {
		const struct plan_probe *pp = &p->probes[i];

		if (pp->src->attach)
			err = pp->src->attach(a, pp);
	}
	return err;
}

bool attach_follows_files(const struct attach *a)
{
	int i;

	for (i = 0; i < a->plan->nprobes; i++)
		if (a->plan->probes[i].src->on_file)
			return true;
	return false;
}

/*
 * Kinds share hooks (uprobe and uretprobe): each hook runs once, however
 * many probes of those kinds the plan has; it looks at all of them.
 */
#define HOOKS_MAX	8

void attach_on_file(struct attach *a, const struct cmd_file *f)
{
	void (*done[HOOKS_MAX])(struct attach *, const struct cmd_file *);
	int i, j, n = 0;

	for (i = 0; i < a->plan->nprobes; i++) {
		void (*fn)(struct attach *, const struct cmd_file *) =
			a->plan->probes[i].src->on_file;

		for (j = 0; j < n && done[j] != fn; j++)
			;
		if (!fn || j < n || n == HOOKS_MAX)
			continue;
		done[n++] = fn;
		fn(a, f);
	}
}

static void close_sources(struct attach *a)
{
	void (*done[HOOKS_MAX])(struct attach *);
	int i, j, n = 0;

	for (i = 0; a->plan && i < a->plan->nprobes; i++) {
		void (*fn)(struct attach *) = a->plan->probes[i].src->close;

		for (j = 0; j < n && done[j] != fn; j++)
			;
		if (!fn || j < n || n == HOOKS_MAX)
			continue;
		done[n++] = fn;
		fn(a);
	}
}

/*
 * A syscall's update of a map-in-map slot returns only after
 * synchronize_rcu() (the kernel's maybe_wait_bpf_programs), on every
 * machine: the wait where membarrier gives none.
 */
static int map_in_map_wait(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o);
	int inner, outer = -1, err = -1, k = 0;

	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
	if (inner >= 0) {
		o.inner_map_fd = inner;
		outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, NULL, 4, 4,
				       1, &o);
	}
	if (outer >= 0)
		err = bpf_map_update_elem(outer, &k, &inner, BPF_ANY);
	if (outer >= 0)
		close(outer);
	if (inner >= 0)
		close(inner);
	return err;
}

/*
 * One RCU grace period: every program running when it began has
 * returned. membarrier's global command is synchronize_rcu(), but it
 * refuses nohz_full machines and skips the wait on one CPU, where a
 * preempted program (PREEMPT_RCU) may still be half-way: there, the
 * map-in-map wait. If neither can wait, say so: what a program still
 * running adds may miss the read (@what).
 */
static void grace_period(const char *what)
{
	static bool told;

	if (sysconf(_SC_NPROCESSORS_ONLN) > 1 &&
	    !syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return;
	if (!map_in_map_wait() || told)
		return;
	told = true;
	log_err("cannot wait for probes still running (%s): %s may miss "
		"what they add meanwhile", strerror(errno), what);
}

/*
 * After the store, no program starts to count; one already past its
 * check may still be running, on a kernel that preempts it (preempt=
 * full, RT) for as long as its CPU is taken. Its update would land after
 * the drain read the map, and a ring buffer record it has reserved but
 * not yet submitted holds back every record behind it: both lost. Every
 * program runs inside an RCU read section (non-sleepable BPF), so one
 * grace period (membarrier's global command is synchronize_rcu()) is
 * the moment none is left. It costs 8-16 ms here, once per run; before
 * the probes went inert instead of being closed, the uprobe close
 * waited for the same, and longer.
 */
void attach_stop(struct attach *a)
{
	if (!a || !a->skel || !a->skel->bss)
		return;
	__atomic_store_n(&a->skel->bss->stopped, 1, __ATOMIC_SEQ_CST);
	grace_period("the answer");
}

struct bpf_map *attach_map(const struct attach *a, bool vars, bool retired)
{
	bool alt = (a->skel->bss->side != 0) != retired;

	if (vars)
		return alt ? a->skel->maps.vars_alt : a->skel->maps.vars;
	return alt ? a->skel->maps.aggs_alt : a->skel->maps.aggs;
}

/*
 * The grace period is the same as attach_stop's, for the same reason:
 * a probe past its read of `side` may still add to the old map. After
 * the stop nothing runs, and the store alone does it.
 */
void attach_flip(struct attach *a)
{
	__atomic_store_n(&a->skel->bss->side, !a->skel->bss->side,
			 __ATOMIC_SEQ_CST);
	if (!a->skel->bss->stopped)
		grace_period("an --interval snapshot");
}

/* Does closing the plan's links wait for grace periods (source.h)? */
static bool slow_detach(const struct attach *a)
{
	int i;

	for (i = 0; a->plan && i < a->plan->nprobes; i++)
		if (a->plan->probes[i].src->flags & SOURCE_SLOW_DETACH)
			return true;
	return false;
}

void attach_close(struct attach *a)
{
	int go = -1, i;
	size_t k;

	if (!a)
		return;
	/* first: a source may leave fds of its own to the child */
	close_sources(a);
	if ((a->nlinks || a->nslow_fds) && slow_detach(a))
		go = detach_fork(a->links, a->nlinks, a->slow_fds,
				 a->nslow_fds);
	/* with a detach child holding them, these only drop references */
	for (k = 0; k < a->nslow_fds; k++)
		close(a->slow_fds[k]);
	free(a->slow_fds);
	a->slow_fds = NULL;
	a->nslow_fds = a->slow_fds_cap = 0;
	for (i = 0; i < a->nlinks; i++)
		bpf_link__destroy(a->links[i]);
	a->nlinks = 0;
	free(a->links);
	a->links = NULL;
	a->links_cap = 0;
	selfprog_free(a->self);
	a->self = NULL;
	parload_free(a->side);
	a->side = NULL;
	scry__destroy(a->skel);
	a->skel = NULL;
	detach_go(go);
}
