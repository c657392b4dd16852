/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process tracking: who is traced (targets), which address space a stack
 * belongs to (gens), and the notices that tell the frontend about a
 * process while it happens: exec, fork, executable mmap, exit (abi.h).
 *
 * The frontend learns a process's mappings from these notices, sent from
 * inside the exec or mmap itself, so a command that lives for a
 * millisecond is described exactly; /proc is read only for processes that
 * were running before scry heard of them (SCRY_NOTICE_PID).
 *
 * Include after stack.bpf.h (it drops a stale unwind_procs entry at exec).
 */
#ifndef SCRY_PROC_BPF_H
#define SCRY_PROC_BPF_H

#include <scry/abi.h>
#include "maps.bpf.h"
#include "path.bpf.h"
#include "vma.bpf.h"

const volatile bool filter_targets = false;	/* only TRACED pids in `targets` */
const volatile __u32 self_tgid = 0;		/* scry itself, never traced */
const volatile bool announce_pids = false;	/* notices for stack owners */
/*
 * -c follows the command's children (a shell runs pipelines in them): a
 * process forked by a target becomes one, in the same state.
 */
const volatile bool follow_forks = false;

/*
 * Threads of the -c command that scry held in an exec or mmap while it
 * loaded a table (cmd.c): the wait is scry's work, not the command's, and
 * never shows as its off-CPU time or syscall latency. The frontend marks
 * the thread before it answers; the end of that wait (the thread's next
 * switch-in, or the exit of that exec or mmap) consumes the mark.
 */
const volatile bool cmd_holds = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} held SEC(".maps");

static __always_inline bool scry_was_held(__u32 tid)
{
	return cmd_holds && bpf_map_delete_elem(&held, &tid) == 0;
}

/* Next generation: the frontend sets it above those it gave -p pids. */
__u32 gen_next = 1;

/* tgid -> generation of its current address space */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, __u32);
} gens SEC(".maps");

/* Which process @task is of, as targets records it (abi.h). */
static __always_inline __u64 scry_task_start(struct task_struct *task)
{
	return BPF_CORE_READ(task, group_leader, start_boottime);
}

/*
 * The targets entry of @tgid, the current process's, if it is this
 * process's: not one an earlier process with the pid left, which goes
 * only an RCU grace period after its reap (scry_proc_free), while the
 * pid may be given again at once. An entry the frontend added (start 0)
 * is taken as this process's and stamped: the process it was added for
 * stamps it at its exit at the latest, before its pid is free.
 */
static __always_inline struct scry_target *scry_target_own(__u32 tgid,
							   __u64 task)
{
	struct scry_target *t = bpf_map_lookup_elem(&targets, &tgid);
	__u64 start;

	if (!t)
		return NULL;
	start = scry_task_start((struct task_struct *)task);
	if (!t->start)
		t->start = start;
	return t->start == start ? t : NULL;
}

static __always_inline __u64 scry_who_check(__u64 task, __u32 epoch,
					    __u32 tgid, __u32 gen,
					    __u32 traced)
{
	__u64 h = task * 0x9e3779b97f4a7c15ULL;

	h = (h ^ ((__u64)epoch << 32 | tgid)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ ((__u64)gen << 32 | traced)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/* @w, whole, answers for the current task @task of @tgid at @epoch. */
static __always_inline bool scry_who_holds(const struct scry_who *w,
					   __u64 task, __u32 tgid,
					   __u32 epoch)
{
	return w->task == task && w->epoch == epoch && w->tgid == tgid &&
	       w->check == scry_who_check(task, epoch, tgid, w->gen,
					   w->traced);
}

static __always_inline void scry_who_put(struct scry_who *w, __u64 task,
					 __u32 tgid, __u32 epoch, __u32 gen,
					 __u32 traced)
{
	w->task = task;
	w->epoch = epoch;
	w->tgid = tgid;
	w->gen = gen;
	w->traced = traced;
	w->check = scry_who_check(task, epoch, tgid, gen, traced);
}

/*
 * scry_target()'s question, asked of the maps, its answer kept in @s.
 * A global function: checked once, and the events' programs hold only
 * the check of the kept answer.
 */
__attribute__((noinline))
int scry_target_ask(struct scry_scratch *s, __u32 tgid, __u32 epoch)
{
	struct scry_target *t;
	__u32 traced;

	if (!s)
		return 0;
	t = scry_target_own(tgid, s->task);
	traced = t && t->state == SCRY_TARGET_TRACED;
	scry_who_put(&s->who, s->task, tgid, epoch, 0, traced);
	return traced;
}

/*
 * Is the current process (@tgid) traced? The answer for the CPU's last
 * task is kept in @s (struct scry_who), and taken while who_epoch
 * stands. Where targets filter, s->task is the current task from here
 * to the event's end (scry_announce_who).
 */
static __always_inline bool scry_target(struct scry_scratch *s, __u32 tgid)
{
	__u32 epoch;

	if (tgid == self_tgid)
		return false;
	if (!filter_targets)
		return true;
	s->task = bpf_get_current_task();
	/* s->who is this task's from here on: found so, or asked now */
	s->who_held = 1;
	epoch = who_epoch;	/* before the lookups (maps.bpf.h) */
	if (scry_who_holds(&s->who, s->task, tgid, epoch))
		return s->who.traced;
	return scry_target_ask(s, tgid, epoch);
}

/* An event that did not start with scry_target(): its task. */
static __always_inline void scry_target_task(struct scry_scratch *s)
{
	if (filter_targets) {
		s->task = bpf_get_current_task();
		s->who_held = 0;
	}
}

static __always_inline __u32 scry_gen_new(void)
{
	return __sync_fetch_and_add(&gen_next, 1);
}

/* Generation of @tgid's address space, given one if it has none yet. */
static __always_inline __u32 scry_gen(__u32 tgid)
{
	__u32 *g = bpf_map_lookup_elem(&gens, &tgid), gen;

	if (g)
		return *g;
	gen = scry_gen_new();
	if (bpf_map_update_elem(&gens, &tgid, &gen, BPF_NOEXIST)) {
		g = bpf_map_lookup_elem(&gens, &tgid);	/* another CPU won */
		return g ? *g : 0;
	}
	return gen;
}

/*
 * Processes scry follows or has announced: their changes are told. Of
 * the current process (@tgid).
 */
static __always_inline bool scry_followed(__u32 tgid)
{
	return scry_target_own(tgid, bpf_get_current_task()) ||
	       bpf_map_lookup_elem(&seen, &tgid);
}

static __always_inline struct scry_notice *scry_notice_new(__u32 kind,
							   __u32 pid,
							   __u32 gen)
{
	struct scry_notice *n;

	n = bpf_ringbuf_reserve(&notices, sizeof(*n), 0);
	if (!n) {
		scry_stat(SCRY_STAT_NOTICE_LOST);
		return NULL;
	}
	n->kind = kind;
	n->pid = pid;
	n->gen = gen;
	n->parent_gen = 0;
	n->vdso = 0;
	n->ppid = 0;
	__builtin_memset(&n->file[0], 0, sizeof(n->file[0]) - sizeof(n->file[0].path));
	__builtin_memset(&n->file[1], 0, sizeof(n->file[1]) - sizeof(n->file[1].path));
	n->file[0].path.len = 0;
	n->file[0].path.str[0] = '\0';
	n->file[1].path.len = 0;
	n->file[1].path.str[0] = '\0';
	return n;
}

/*
 * The file of @v (SCRY_VMA_FILE), mapped by the current task, into @out:
 * identity, range, path.
 */
static __always_inline void scry_notice_vma(const struct scry_vma *v,
					    struct scry_notice_file *out)
{
	out->key = v->key;
	out->start = v->start;
	out->end = v->end;
	out->pgoff = v->pgoff;
	if (v->file)
		scry_current_file_path((__u64)v->file, &out->path);
}

/*
 * The first stack of the current process (@pid, its task @task): its
 * generation, and for one scry did not follow from its fork or exec, a
 * notice to read its mappings from /proc. Once nothing is left to do for
 * it, the generation is kept in @s (scry_who), in an answer of @epoch or,
 * where every process is traced, a new one (a traced answer is
 * scry_target's to give). A global function: the verifier checks it
 * once, instead of carrying each of its paths into the stack walk.
 */
__attribute__((noinline))
__u32 scry_announce(struct scry_scratch *s, __u32 pid, __u64 task,
		    __u32 epoch)
{
	struct scry_notice *n;
	__u32 gen = scry_gen(pid);
	__u8 one = 1;

	if (!s)
		return gen;
	if (announce_pids && !bpf_map_lookup_elem(&seen, &pid) &&
	    !bpf_map_update_elem(&seen, &pid, &one, BPF_NOEXIST)) {
		n = scry_notice_new(SCRY_NOTICE_PID, pid, gen);
		if (!n) {
			/* try again next time */
			bpf_map_delete_elem(&seen, &pid);
			return gen;
		}
		bpf_ringbuf_submit(n, 0);
	}
	/* no generation (gens full): asked again next time */
	if (!gen)
		return 0;
	if (scry_who_holds(&s->who, task, pid, epoch))
		scry_who_put(&s->who, task, pid, epoch, gen, s->who.traced);
	else if (!filter_targets)
		scry_who_put(&s->who, task, pid, epoch, gen, 1);
	return gen;
}

/* The generation of the current process (@pid), announced (scry_announce). */
static __always_inline __u32 scry_announce_who(struct scry_scratch *s,
					       __u32 pid)
{
	/* where targets filter, the event's (scry_target, scry_target_task) */
	__u64 task = filter_targets ? s->task : bpf_get_current_task();
	__u32 epoch = who_epoch;	/* before the lookups (maps.bpf.h) */

	/*
	 * held: scry_target() found or wrote this task's answer in this
	 * event, so it is whole; still of this epoch, it needs no check
	 */
	if (filter_targets && s->who_held) {
		if (s->who.epoch == epoch && s->who.gen)
			return s->who.gen;
	} else if (scry_who_holds(&s->who, task, pid, epoch) && s->who.gen) {
		return s->who.gen;
	}
	return scry_announce(s, pid, task, epoch);
}

/* raw_tp, not tp_btf, as sched_switch (scry.bpf.c): CO-RE reads only */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct scry_unwind_proc *list;
	struct scry_target *pt, ct = {};
	struct scry_notice *n;
	__u32 gen, *pgen;

	if (!follow_forks || ptgid == ctgid || scry_stopped())
		return 0;
	/* the parent forks: it is current */
	pt = scry_target_own(ptgid, bpf_get_current_task());
	if (!pt)
		return 0;
	ct.state = pt->state;
	/* a new process: the child leads it, with its start set by now */
	ct.start = BPF_CORE_READ(child, start_boottime);
	if (bpf_map_update_elem(&targets, &ctgid, &ct, BPF_ANY)) {
		scry_stat(SCRY_STAT_TARGETS_FULL);
		return 0;
	}
	/*
	 * The child has the parent's address space, copied: the same
	 * generation and the same mapping list, so even a child that lives
	 * a moment (a vfork child) unwinds through the parent's tables. Its
	 * own exec or mmap changes it from there.
	 */
	pgen = bpf_map_lookup_elem(&gens, &ptgid);
	gen = pgen ? *pgen : scry_gen_new();
	bpf_map_update_elem(&gens, &ctgid, &gen, BPF_ANY);
	list = bpf_map_lookup_elem(&unwind_procs, &ptgid);
	if (list && list->gen == gen)
		bpf_map_update_elem(&unwind_procs, &ctgid, list, BPF_ANY);
	if (!announce_pids)
		return 0;
	n = scry_notice_new(SCRY_NOTICE_FORK, ctgid, gen);
	if (!n)
		return 0;
	n->ppid = ptgid;
	n->parent_gen = gen;
	bpf_ringbuf_submit(n, 0);
	return 0;
}

#define SCRY_AT_ENTRY	9
#define SCRY_AT_BASE	7
#define SCRY_AUXV_PAIRS	28

/* AT_ENTRY and AT_BASE from the auxiliary vector exec just built. */
static __always_inline void scry_auxv(struct mm_struct *mm, __u64 *entry,
				      __u64 *base)
{
	unsigned long av[2];
	int i;

	*entry = 0;
	*base = 0;
	for (i = 0; i < SCRY_AUXV_PAIRS; i++) {
		if (bpf_probe_read_kernel(av, sizeof(av), &mm->saved_auxv[2 * i]))
			return;
		if (av[0] == SCRY_AT_ENTRY)
			*entry = av[1];
		else if (av[0] == SCRY_AT_BASE)
			*base = av[1];
		else if (av[0] == 0)
			break;
	}
}

/*
 * Exec and mmap notices come in two builds: on_exec and on_mmap_exit, and
 * the _files ones, whose notices also describe their files (identity,
 * range, path; an exec's AT_ENTRY, AT_BASE and vDSO). The frontend reads
 * /proc/PID/maps at each notice (session.c notice_apply) and the -c
 * command's files through its held calls (cmd.c), and reads none of
 * those fields, so attach.c loads the plain ones. Naming the files cost
 * the verifier 9,200 of on_exec's 9,377 instructions and 5,460 of
 * on_mmap_exit's 6,176 (6.18), and libbpf a CO-RE match (a scan of
 * vmlinux BTF) for each of the 7 kernel types only the path walk uses.
 */

/*
 * A followed process exec'ed: it is traced from here on (a PENDING -c
 * command becomes TRACED; the WRAPPER, exec'ing /bin/sh, PENDING), its
 * address space is new, and the mapping
 * list written for the old image is dropped. With @files, the notice
 * names the new executable (with AT_ENTRY, for its load bias), its
 * interpreter (with AT_BASE) and the vDSO, which is all an exec maps.
 */
static __always_inline int scry_on_exec(struct task_struct *p,
					struct linux_binprm *bprm,
					const bool files)
{
	__u32 tgid = BPF_CORE_READ(p, tgid), gen, old = 0, *g;
	struct mm_struct *mm = BPF_CORE_READ(p, mm);
	struct scry_notice *n;
	struct scry_vma v = {};
	struct file *exe;
	struct inode *inode;
	struct scry_target *t;
	__u64 entry, base;
	__u8 zero8 = 0;

	if (scry_stopped())
		return 0;
	/* exec runs in the process: @p is current */
	t = scry_target_own(tgid, bpf_get_current_task());
	if (!t && !bpf_map_lookup_elem(&seen, &tgid))
		return 0;
	if (t && t->state != SCRY_TARGET_TRACED)
		t->state = t->state == SCRY_TARGET_WRAPPER ?
			   SCRY_TARGET_PENDING : SCRY_TARGET_TRACED;
	g = bpf_map_lookup_elem(&gens, &tgid);
	if (g)
		old = *g;
	gen = scry_gen_new();
	bpf_map_update_elem(&gens, &tgid, &gen, BPF_ANY);
	bpf_map_delete_elem(&unwind_procs, &tgid);
	/* a new image has its own mappings: announced already */
	if (announce_pids)
		bpf_map_update_elem(&seen, &tgid, &zero8, BPF_ANY);
	scry_who_moved();	/* its state, generation, list: all new */
	if (!announce_pids)
		return 0;
	n = scry_notice_new(SCRY_NOTICE_EXEC, tgid, gen);
	if (!n)
		return 0;
	n->parent_gen = old;
	if (!files)
		goto submit;
	n->vdso = (__u64)BPF_CORE_READ(mm, context.vdso);
	scry_auxv(mm, &entry, &base);
	exe = BPF_CORE_READ(bprm, file);
	if (exe) {
		inode = BPF_CORE_READ(exe, f_inode);
		n->file[0].key.dev = BPF_CORE_READ(inode, i_sb, s_dev);
		n->file[0].key.ino = BPF_CORE_READ(inode, i_ino);
		n->file[0].start = entry;
		/* exec runs in the task itself: @p is current */
		scry_current_file_path((__u64)exe, &n->file[0].path);
	}
	if (base) {
		/* a raw_tp argument is no typed pointer: @p is current */
		scry_vma_find_current(base, &v);
		if (v.kind == SCRY_VMA_FILE) {
			scry_notice_vma(&v, &n->file[1]);
			n->file[1].start = base;
		}
	}
submit:
	bpf_ringbuf_submit(n, 0);
	return 0;
}

/* raw_tp, not tp_btf, as sched_switch (scry.bpf.c) */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return scry_on_exec(p, bprm, false);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(on_exec_files, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return scry_on_exec(p, bprm, true);
}

#define NR_mmap		9
#define NR_mprotect	10
#define NR_execve	59
#define NR_execveat	322
#define PROT_EXEC	0x4

/*
 * Executable file mappings of followed processes, as they appear: ld.so
 * mapping libraries, dlopen(). At syscall exit the user registers still
 * hold the arguments, and the mapping exists.
 */
static __always_inline int scry_on_mmap_exit(struct pt_regs *regs, long ret,
					     const bool files)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct scry_notice *n;
	struct scry_vma v = {};
	long nr = BPF_CORE_READ(regs, orig_ax);
	__u64 addr;

	if (scry_stopped() || (nr != NR_mmap && nr != NR_mprotect) ||
	    ret < 0 || !(BPF_CORE_READ(regs, dx) & PROT_EXEC) ||
	    !announce_pids || !scry_followed(tgid))
		return 0;
	addr = nr == NR_mmap ? ret : BPF_CORE_READ(regs, di);
	scry_vma_find_current(addr, &v);
	if (v.kind != SCRY_VMA_FILE)
		return 0;	/* JIT code: perf maps name it */
	n = scry_notice_new(SCRY_NOTICE_MMAP, tgid, scry_gen(tgid));
	if (!n)
		return 0;
	if (files)
		scry_notice_vma(&v, &n->file[0]);
	bpf_ringbuf_submit(n, 0);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(on_mmap_exit, struct pt_regs *regs, long ret)
{
	return scry_on_mmap_exit(regs, ret, false);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(on_mmap_exit_files, struct pt_regs *regs, long ret)
{
	return scry_on_mmap_exit(regs, ret, true);
}

/*
 * A process whose last thread exits loses its address space (generation,
 * mapping list), and the frontend is told it may let go of what it polls
 * for it. Called from sched_process_exit for every thread; only the last
 * one counts. Dropped here, while its pid is still its own (a reused pid
 * must not inherit them); what the rest of its exit announces again is
 * dropped by scry_proc_free. It stays a target, whatever order the
 * tracepoint's programs run in: the rest of its exit (closing its files,
 * the SIGCHLD to its parent) is still its own, for the clauses to see;
 * scry_proc_free ends that.
 */
static __always_inline void scry_proc_exit(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	struct scry_notice *n;
	__u32 *g, gen = 0;
	bool known;

	/* do_exit() decrements signal->live before this tracepoint */
	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return;
	g = bpf_map_lookup_elem(&gens, &tgid);
	if (g)
		gen = *g;
	known = scry_followed(tgid);
	bpf_map_delete_elem(&seen, &tgid);
	bpf_map_delete_elem(&gens, &tgid);
	bpf_map_delete_elem(&unwind_procs, &tgid);
	scry_who_moved();
	if (!known || !announce_pids)
		return;
	n = scry_notice_new(SCRY_NOTICE_EXIT, tgid, gen);
	if (n)
		bpf_ringbuf_submit(n, 0);
}

/*
 * A process that is wholly gone, reaped and freed, stops being a target
 * (so the -c limit counts processes not yet reaped, and a reused pid
 * starts afresh), with whatever the end of its exit gave it again.
 * sched_process_free runs for each task after its release, the group
 * leader's last (a leader waits as a zombie for its threads); after an
 * exec by another thread the old leader has that thread's id, not the
 * tgid, and the process lives on.
 * It runs an RCU grace period after the reap, which freed the pid: a
 * followed process may have been given it by then (a target's fork),
 * and the entries are that process's, not to drop.
 */
static __always_inline void scry_proc_free(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	struct scry_target *t;

	if (BPF_CORE_READ(p, pid) != tgid)
		goto moved;
	t = bpf_map_lookup_elem(&targets, &tgid);
	if (t && t->start && t->start != BPF_CORE_READ(p, start_boottime))
		goto moved;
	bpf_map_delete_elem(&targets, &tgid);
	bpf_map_delete_elem(&seen, &tgid);
	bpf_map_delete_elem(&gens, &tgid);
	bpf_map_delete_elem(&unwind_procs, &tgid);
moved:
	/*
	 * Any task: its task_struct may be the next task's, which a kept
	 * answer (scry_who) must not be taken for
	 */
	scry_who_moved();
}

#endif /* SCRY_PROC_BPF_H */
