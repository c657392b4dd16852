// SPDX-License-Identifier: GPL-2.0
/*
 * The one scry engine. Every probe kind is a thin adapter that fills a
 * struct scry_event and hands it to the shared path of its clause:
 *
 *   fire:   begin program -> body program (prog.bpf.h)
 *   begin:  begin program -> [stacks at begin] -> park in `inflight`
 *   end:    take the parked event -> latency, retval -> body program
 *
 * The body program takes the stacks (SCRY_OP_STACKS) once its predicate
 * passed, so a filtered-out event costs no stack walk. Everything a run
 * configures is const volatile .rodata set by attach.c before load.
 *
 * Each adapter exists once per clause slot (SCRY_CLAUSES below): a program
 * is loaded only for the clauses that use its kind, and verified for what
 * its clause does.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>
#include <scry/abi.h>

#include <linux/errno.h>	/* helper return values: -EEXIST, -EBADF */

/*
 * Loaded first when the engine's programs are verified on two CPUs
 * (src/parload.c): the load hook of its section, which libbpf calls once
 * every map exists, starts the second CPU's share. Never attached. First
 * in the file, so its section is the object's first (parload.c checks).
 */
SEC("scry.maps_ready")
int maps_ready(void *ctx)
{
	return 0;
}

#include "maps.bpf.h"
#include "stack.bpf.h"
#include "path.bpf.h"
#include "proc.bpf.h"
#include "prog.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * One program of each adapter per clause slot: X(0) ... X(7). The engine
 * is built twice (Makefile): with every slot, and with slot 0 alone
 * (SCRY_ONE_CLAUSE) for plans of one clause, as every question is:
 * libbpf reads the whole object at each start, 1.5 MiB of it against
 * 0.4 MiB (~1.5 ms against 0.5). Both have the same maps and data.
 */
#ifdef SCRY_ONE_CLAUSE
#define SCRY_CLAUSES(X) X(0)
#else
#define SCRY_CLAUSES(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#endif

/* commit 2f064a59a11f ("sched: Change task_struct::state") renamed it */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

const volatile bool profile_idle = false;	/* sample the idle task too */
/*
 * The fd a path key resolves, by role (plan_fd_role: arg0, the file read
 * from, the file written to) and syscall number: plan_syscall_fd_arg().
 */
const volatile __u8 fdpath_args[3][512] = {};

/* Fill the fields every event has, for the current task (@id: its pid_tgid). */
static __always_inline void scry_event_init(struct scry_event *ev, __u32 c,
					    __u64 id)
{
	__builtin_memset(ev, 0, sizeof(*ev));
	/*
	 * The begin time is read only by the end half (latency): a clause
	 * without one skips the clock (@c is a constant: the test folds).
	 */
	if (clauses[c].flags & SCRY_CL_END)
		ev->ts_ns = bpf_ktime_get_ns();
	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	/* ~15 ns (the task's credentials): only for clauses that read them */
	if (clauses[c].flags & SCRY_CL_UGID) {
		__u64 ug = bpf_get_current_uid_gid();

		ev->uid = (__u32)ug;
		ev->gid = ug >> 32;
	}
	ev->cpu = bpf_get_smp_processor_id();
	ev->probe = (__u64)c << 32;
	/* ~10-20 ns a helper call: only for clauses that read it (zeroed else) */
	if (clauses[c].flags & SCRY_CL_COMM)
		bpf_get_current_comm(ev->comm, sizeof(ev->comm));
}

/* The stacks a clause uses (SCRY_CL_KSTACK, SCRY_CL_USTACK). */
static __always_inline void scry_take_stacks(void *ctx, struct scry_scratch *s,
					     const struct scry_uregs *ur,
					     __u32 flags)
{
	if (flags & SCRY_CL_KSTACK)
		s->ev.kstack = scry_kstack(ctx, &s->st);
	if ((flags & SCRY_CL_USTACK) && ur && ur->ip) {
		/* the generation first: the walk checks the list against it */
		s->ev.gen = scry_announce_who(s, s->ev.pid);
		s->ev.ustack = scry_ustack(s, ur);
	}
}

/* An event of a traced process for clause @c, stamped; NULL: none. */
static __always_inline struct scry_scratch *scry_event_start(__u32 c)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct scry_scratch *s = scry_scratch();

	if (!s || !scry_target(s, id >> 32))
		return NULL;
	scry_event_init(&s->ev, c, id);
	return s;
}

/*
 * Does clause @c have a begin program? Its first instruction is a
 * constant: the verifier folds the test, and an empty one costs no call.
 */
static __always_inline bool scry_has_begin(__u32 c)
{
	return clauses[c].begin[0].op != SCRY_OP_END;
}

/*
 * A clause's body, with the stack walk it asks for between its halves:
 * here, not inside scry_run(), so that the deepest chain of calls (this
 * program, the unwinder's step, its row search) does not also hold the
 * interpreter's frame: 6.1's verifier allows 512 bytes for all of them.
 */
static __always_inline void scry_body(void *ctx, struct scry_scratch *s,
				      const struct scry_uregs *ur, __u32 c)
{
	/* a body that starts with its walk (no predicate) starts there */
	if (clauses[c].body[0].op != SCRY_OP_STACKS &&
	    scry_run(ctx, s, ur, c, false, 0) != SCRY_RUN_STACKS)
		return;
	scry_take_stacks(ctx, s, ur, clauses[c].flags);
	scry_run(ctx, s, ur, c, false, clauses[c].resume);
}

/* A probe with no end: one shot through both programs. */
static __always_inline void scry_fire(void *ctx, struct scry_scratch *s,
				      const struct scry_uregs *ur, __u32 c)
{
	if (scry_has_begin(c) && !scry_run(ctx, s, ur, c, true, 0))
		return;
	scry_body(ctx, s, ur, c);
}

/* The begin half of a probe with an end: park the event by thread. */
static __always_inline void scry_begin(void *ctx, struct scry_scratch *s,
				       const struct scry_uregs *ur, __u32 c)
{
	__u64 key = (__u64)c << 32 | s->ev.tid;

	if (scry_has_begin(c) && !scry_run(ctx, s, ur, c, true, 0))
		return;
	if (clauses[c].flags & SCRY_CL_STACKS_AT_BEGIN)
		scry_take_stacks(ctx, s, ur, clauses[c].flags);
	if (bpf_map_update_elem(&inflight, &key, &s->ev, BPF_ANY))
		scry_stat(SCRY_STAT_INFLIGHT_FULL);
}

/* Take @tid's parked event of clause @c into the scratch; false: none. */
static __always_inline bool scry_unpark(struct scry_scratch *s, __u32 tid,
					__u32 c)
{
	__u64 key = (__u64)c << 32 | tid;
	struct scry_event *parked = bpf_map_lookup_elem(&inflight, &key);

	if (!parked)
		return false;
	/* copy out before delete: the element is reused once freed */
	__builtin_memcpy(&s->ev, parked, sizeof(s->ev));
	bpf_map_delete_elem(&inflight, &key);
	scry_target_task(s);	/* its task: the end runs in it */
	return true;
}

/* The end half: complete the parked event of @tid, if any. */
static __always_inline void scry_end(void *ctx, struct scry_scratch *s,
				     __u32 tid, __s64 retval,
				     const struct scry_uregs *ur, __u32 c)
{
	if (!scry_unpark(s, tid, c))
		return;
	s->ev.latency_ns = bpf_ktime_get_ns() - s->ev.ts_ns;
	s->ev.retval = retval;
	scry_body(ctx, s, ur, c);
}

/* ---- offcpu: sched_switch ------------------------------------------- */

#define TASK_DEAD 0x80

static __always_inline __u64 scry_task_raw_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___old *)t, state);
}

/*
 * Normalized task state at switch-out: 0 preempted (R), 1 interruptible
 * sleep (S), 2 uninterruptible (D, incl. killable and idle waits),
 * 4 stopped or traced (T), else the raw state.
 */
static __always_inline __u64 scry_task_state(bool preempt, __u64 state)
{
	if (preempt)
		return 0;
	if (state & 0x2)		/* TASK_UNINTERRUPTIBLE */
		return 2;
	if (state & 0x1)		/* TASK_INTERRUPTIBLE */
		return 1;
	if (state & 0xc)		/* __TASK_STOPPED, __TASK_TRACED */
		return 4;
	return state;
}

static __always_inline void scry_uregs_of(struct task_struct *t,
					  struct scry_uregs *ur)
{
	struct pt_regs *regs;

	/* fully initialized: clang may move undefined values into registers
	 * the verifier then refuses to read */
	*ur = (struct scry_uregs){};
	if (!BPF_CORE_READ(t, mm))	/* kernel threads have no user stack */
		return;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs) {
		scry_stat(SCRY_STAT_USTACK_ERR);
		return;
	}
	ur->ip = BPF_CORE_READ(regs, ip);
	ur->sp = BPF_CORE_READ(regs, sp);
	ur->bp = BPF_CORE_READ(regs, bp);
}

/*
 * @t, running now, still has an off-CPU period parked for clause @c: the
 * switch-in that ended it never reached the sched_switch programs. Not
 * every switch-in does: on a loaded 6.18 guest, up to 7 in 1000
 * switch-ins of a thread sleeping 10 ms at a time went unseen, by ftrace's
 * sched_switch event as much as by BPF (no recursion miss counted), while
 * every switch-out was seen. Parking the next switch-out over the period
 * (BPF_ANY) dropped it silently. The thread has run since, so the period
 * is over: count it now, with the stacks and state of its begin. Its end
 * is estimated: now, less the CPU time @t has had since the scheduler last
 * picked it (prev_sum_exec_runtime is set at each pick of a fair task;
 * update_curr ran in __schedule before the tracepoint, so at a switch-out
 * that is the whole slice; at exit it may lag by a tick), never before
 * its begin (measured: within 1% of the latency a seen switch-in gives).
 * true, with the period ended in s->ev, when there is one to count.
 */
static __always_inline bool scry_unseen_ended(struct scry_scratch *s,
					      struct task_struct *t, __u32 tid,
					      __u32 c)
{
	__u64 now, ran, off;

	if (!scry_unpark(s, tid, c))
		return false;
	if (scry_was_held(tid))	/* that wait was scry's (proc.bpf.h) */
		return false;
	now = bpf_ktime_get_ns();
	ran = BPF_CORE_READ(t, se.sum_exec_runtime) -
	      BPF_CORE_READ(t, se.prev_sum_exec_runtime);
	off = now - s->ev.ts_ns;
	s->ev.latency_ns = ran < off ? off - ran : 0;
	s->ev.retval = 0;
	return true;
}

/*
 * A switch is two programs on sched_switch, attached in this order (the
 * tracepoint runs them so, one after the other on this CPU, interrupts
 * off): prev's half takes its stacks and parks its period, next's half
 * ends the period next had parked. Each is verified on its own, so the
 * two load on two CPUs at once (src/parload.c): the whole was 9 of an
 * offcpu start's 16 ms, on one CPU. prev's half holds no aggregation: a
 * period of prev's that ended unseen is handed to next's half in the
 * scratch (s->unseen), which counts it. Its interpreter was a quarter of
 * the instructions the verifier went through in prev's half, the one
 * that loads longest.
 */
static __always_inline int on_switch_out(void *ctx, bool preempt,
					 struct task_struct *prev, __u32 c)
{
	struct scry_scratch *s = scry_scratch();
	struct scry_uregs ur;
	bool traced;
	__u64 state;
	__u32 tid;

	if (!s || scry_stopped())
		return 0;
	/*
	 * prev is still current here: its stacks are the ones that block.
	 * A period of its own still parked ended unseen: count it before
	 * parking the next one (the scratch is free again after).
	 * A dying task's last switch-out never ends: don't park it.
	 */
	tid = BPF_CORE_READ(prev, pid);
	state = scry_task_raw_state(prev);
	traced = tid && scry_target(s, BPF_CORE_READ(prev, tgid));
	if (traced && scry_unseen_ended(s, prev, tid, c)) {
		__builtin_memcpy(&s->unseen, &s->ev, sizeof(s->unseen));
		s->unseen_for = c + 1;
	}
	if (traced && !(state & TASK_DEAD)) {
		scry_event_init(&s->ev, c, bpf_get_current_pid_tgid());
		s->ev.state = scry_task_state(preempt, state);
		/* a raw_tp argument is no typed pointer: prev is current */
		scry_uregs_of(bpf_get_current_task_btf(), &ur);
		scry_begin(ctx, s, &ur, c);
	}
	return 0;
}

static __always_inline int on_switch_in(void *ctx, struct task_struct *next,
					__u32 c)
{
	struct scry_scratch *s = scry_scratch();
	__u32 tid;

	if (!s || scry_stopped())
		return 0;
	/* prev's half's unseen period, of this switch */
	if (s->unseen_for == c + 1) {
		s->unseen_for = 0;
		__builtin_memcpy(&s->ev, &s->unseen, sizeof(s->ev));
		scry_body(ctx, s, NULL, c);
	}
	tid = BPF_CORE_READ(next, pid);
	if (!tid)
		return 0;
	if (scry_was_held(tid)) {	/* its wait was scry's */
		__u64 key = (__u64)c << 32 | tid;

		bpf_map_delete_elem(&inflight, &key);
	} else {
		scry_end(ctx, s, tid, 0, NULL, c);
	}
	return 0;
}

/*
 * raw_tp, not tp_btf: a tp_btf program makes libbpf load and parse all
 * of vmlinux BTF (5 MiB, ~10 ms) for its attach type id, on every run,
 * even when nothing else needs it. The arguments are the same u64
 * slots; every read of them goes through CO-RE, and the one helper that
 * wants a typed task gets current, which prev is. Every kernel with
 * bpf_loop has raw_tp and this tracepoint.
 */
#define OFFCPU(c)							\
SEC("raw_tp/sched_switch")						\
int BPF_PROG(offcpu_out_##c, bool preempt, struct task_struct *prev,	\
	     struct task_struct *next)					\
{									\
	return on_switch_out(ctx, preempt, prev, c);			\
}									\
SEC("raw_tp/sched_switch")						\
int BPF_PROG(offcpu_in_##c, bool preempt, struct task_struct *prev,	\
	     struct task_struct *next)					\
{									\
	return on_switch_in(ctx, next, c);				\
}
SCRY_CLAUSES(OFFCPU)

/*
 * A thread that exits never switches in again, nor returns: drop what
 * the clauses with an end parked for it. But it is running its exit: an
 * off-CPU period still parked ended at a switch-in no program saw
 * (scry_unseen_ended), and is counted. A process that is gone is no
 * target any more (proc.bpf.h). @unseen: a build for plans with such a
 * clause; the other holds no call of the clauses' interpreter (3,700 of
 * its 4,100 instructions, each gone through by the verifier's passes
 * over the whole program: ~1 ms of a syscall question's load).
 */
static __always_inline int on_exit(void *ctx, struct task_struct *p,
				   bool unseen)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	__u64 key;
	int c;

	if (scry_stopped())
		return 0;
	for (c = 0; c < SCRY_MAX_CLAUSES; c++) {
		if (!(clauses[c].flags & SCRY_CL_END))
			continue;
		if (unseen && (clauses[c].flags & SCRY_CL_SWITCH_END)) {
			/* looked up and checked here: 6.1's verifier refused
			 * the address clang computed from it before the check */
			struct scry_scratch *s = scry_scratch();

			if (s) {
				if (scry_unseen_ended(s, p, tid, c))
					scry_body(ctx, s, NULL, c);
				continue;
			}
		}
		key = (__u64)c << 32 | tid;
		bpf_map_delete_elem(&inflight, &key);
	}
	scry_proc_exit(p);
	return 0;
}

/*
 * raw_tp, not tp_btf, as sched_switch: on_exit reads through CO-RE.
 * attach.c loads one of the two.
 */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(task_exit, struct task_struct *p)
{
	return on_exit(ctx, p, false);
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(task_exit_unseen, struct task_struct *p)
{
	return on_exit(ctx, p, true);
}

/* An RCU callback, in no task of its own: it reads only @p. */
SEC("raw_tp/sched_process_free")
int BPF_PROG(task_free, struct task_struct *p)
{
	scry_proc_free(p);
	return 0;
}

/* ---- uprobe / uretprobe / usdt ---------------------------------------- */

static __always_inline void scry_uregs_ctx(struct pt_regs *regs,
					   struct scry_uregs *ur)
{
	ur->ip = PT_REGS_IP(regs);
	ur->sp = PT_REGS_SP(regs);
	ur->bp = PT_REGS_FP(regs);
}

/*
 * Which of its clause's probes fired: the cookie attach gave it, for a
 * clause that reads it (`probe`, `func`: SCRY_CL_PROBE).
 */
static __always_inline void scry_cookie(void *ctx, struct scry_event *ev,
					__u32 c)
{
	if (clauses[c].flags & SCRY_CL_PROBE)
		ev->probe |= (__u32)bpf_get_attach_cookie(ctx);
}

static __always_inline struct scry_scratch *uprobe_event(struct pt_regs *ctx,
							 __u32 c)
{
	struct scry_scratch *s;

	if (scry_stopped())
		return NULL;
	s = scry_event_start(c);

	if (!s)
		return NULL;
	scry_cookie(ctx, &s->ev, c);
	s->ev.args[0] = PT_REGS_PARM1(ctx);
	s->ev.args[1] = PT_REGS_PARM2(ctx);
	s->ev.args[2] = PT_REGS_PARM3(ctx);
	s->ev.args[3] = PT_REGS_PARM4(ctx);
	s->ev.args[4] = PT_REGS_PARM5(ctx);
	s->ev.args[5] = ctx->r9	/* bpf_tracing.h in libbpf 1.1 stops at PARM5 */;
	return s;
}

/*
 * The user registers to unwind from: a uprobe's are its context; a
 * kprobe's context is the kernel's, the user's are where the task
 * entered the kernel.
 */
static __always_inline void scry_uregs_at(struct pt_regs *ctx, bool kernel,
					  struct scry_uregs *ur)
{
	if (kernel)
		scry_uregs_of(bpf_get_current_task_btf(), ur);
	else
		scry_uregs_ctx(ctx, ur);
}

/* Entry of a probe with no return half (uprobe, kprobe). */
static __always_inline int on_entry(struct pt_regs *ctx, __u32 c, bool kernel)
{
	struct scry_scratch *s = uprobe_event(ctx, c);
	struct scry_uregs ur;

	if (s) {
		scry_uregs_at(ctx, kernel, &ur);
		scry_fire(ctx, s, &ur, c);
	}
	return 0;
}

/* Entry of a return probe: park arguments and the entry time. */
static __always_inline int on_entry_park(struct pt_regs *ctx, __u32 c,
					 bool kernel)
{
	struct scry_scratch *s = uprobe_event(ctx, c);
	struct scry_uregs ur;

	if (s) {
		scry_uregs_at(ctx, kernel, &ur);
		scry_begin(ctx, s, &ur, c);
	}
	return 0;
}

static __always_inline int on_return(struct pt_regs *ctx, __u32 c,
				     bool kernel)
{
	struct scry_scratch *s = scry_scratch();
	struct scry_uregs ur;

	if (!s || scry_stopped())
		return 0;
	scry_uregs_at(ctx, kernel, &ur);
	scry_end(ctx, s, (__u32)bpf_get_current_pid_tgid(),
		 PT_REGS_RC(ctx), &ur, c);
	return 0;
}

/* USDT: arguments come from the probe's note, decoded by libbpf. */
static __always_inline int on_usdt(struct pt_regs *ctx, __u32 c)
{
	struct scry_scratch *s = uprobe_event(ctx, c);
	struct scry_uregs ur;
	int i, n;
	long v;

	if (!s)
		return 0;
	/* libbpf's USDT support keeps the cookie to itself */
	s->ev.probe = (__u64)c << 32;
	n = bpf_usdt_arg_cnt(ctx);
	for (i = 0; i < SCRY_NARGS; i++) {
		v = 0;
		if (i < n)
			bpf_usdt_arg(ctx, i, &v);
		s->ev.args[i] = v;
	}
	scry_uregs_ctx(ctx, &ur);
	scry_fire(ctx, s, &ur, c);
	return 0;
}

#define UPROBES(c)							\
SEC("uprobe") int uprobe_##c(struct pt_regs *ctx)			\
{ return on_entry(ctx, c, false); }					\
SEC("uprobe") int uprobe_park_##c(struct pt_regs *ctx)			\
{ return on_entry_park(ctx, c, false); }				\
SEC("uretprobe") int uretprobe_##c(struct pt_regs *ctx)			\
{ return on_return(ctx, c, false); }						\
SEC("usdt") int usdt_##c(struct pt_regs *ctx)				\
{ return on_usdt(ctx, c); }						\
SEC("kprobe") int kprobe_##c(struct pt_regs *ctx)			\
{ return on_entry(ctx, c, true); }					\
SEC("kprobe") int kprobe_park_##c(struct pt_regs *ctx)			\
{ return on_entry_park(ctx, c, true); }				\
SEC("kretprobe") int kretprobe_##c(struct pt_regs *ctx)			\
{ return on_return(ctx, c, true); }
SCRY_CLAUSES(UPROBES)

/* ---- fentry / fexit: BPF trampolines, typed arguments ------------------ */

/*
 * The function's arguments through bpf_get_func_arg() (5.17+), which
 * knows how many it has: one program serves any function, its target set
 * before load (source_fentry.c). fexit also has the return value.
 */
static __always_inline int on_fentry(void *ctx, __u32 c, bool ret)
{
	struct scry_scratch *s = scry_event_start(c);
	struct scry_uregs ur;
	__u64 v;
	int i;

	if (!s || scry_stopped())
		return 0;
	for (i = 0; i < SCRY_NARGS; i++) {
		v = 0;
		bpf_get_func_arg(ctx, i, &v);
		s->ev.args[i] = v;
	}
	if (ret) {
		v = 0;
		bpf_get_func_ret(ctx, &v);
		s->ev.retval = v;
	}
	scry_uregs_of(bpf_get_current_task_btf(), &ur);
	scry_fire(ctx, s, &ur, c);
	return 0;
}

#define FENTRY(c)							\
SEC("fentry") int fentry_##c(void *ctx)					\
{ return on_fentry(ctx, c, false); }					\
SEC("fexit") int fexit_##c(void *ctx)					\
{ return on_fentry(ctx, c, true); }
SCRY_CLAUSES(FENTRY)

/* ---- syscalls: raw_syscalls, no tracefs, filtered by number ---------- */

static __always_inline bool scry_syscall_wanted(long nr, __u32 c)
{
	if (nr < 0 || nr >= 512)
		return false;
	return clauses[c].syscall_set[(nr >> 6) & 7] & (1ULL << (nr & 63));
}

/*
 * @user: the build for clauses that take user stacks; the other passes no
 * registers on, so the DWARF walker's functions are not in its program
 * at all (~1,300 instructions, and the verifier's passes over them: ~0.5
 * ms of each syscall program's load; attach.c: source_syscall.c picks).
 */
static __always_inline int on_sys_enter(void *ctx, struct pt_regs *regs,
					long nr, __u32 c, bool user)
{
	struct scry_scratch *s;
	struct scry_uregs ur;

	if (scry_stopped() || !scry_syscall_wanted(nr, c))
		return 0;
	s = scry_event_start(c);
	if (!s)
		return 0;
	s->ev.probe |= (__u32)nr;
	s->ev.args[0] = BPF_CORE_READ(regs, di);
	s->ev.args[1] = BPF_CORE_READ(regs, si);
	s->ev.args[2] = BPF_CORE_READ(regs, dx);
	s->ev.args[3] = BPF_CORE_READ(regs, r10);	/* the syscall ABI's 4th */
	s->ev.args[4] = BPF_CORE_READ(regs, r8);
	s->ev.args[5] = BPF_CORE_READ(regs, r9);
	/* at entry, while the fd still names the file (close, dup2...) */
	if (clauses[c].flags & SCRY_CL_FDPATH) {
		__u32 role = clauses[c].fd_role, arg;
		long err;

		if (role > 2)
			role = 0;
		arg = fdpath_args[role][nr & 511] & 7;
		if (arg >= SCRY_NARGS)
			arg = 0;
		err = scry_fd_path(bpf_get_current_task_btf(), s->ev.args[arg],
				   &s->path);

		/* a closed fd is the caller's error, keyed "[closed fd N]" */
		if (err < 0 && err != -EBADF && err != -ESRCH)
			scry_stat(SCRY_STAT_PATH_ERR);
		s->ev.path = scry_string_store(&s->path);
	}
	if (user) {
		ur.ip = BPF_CORE_READ(regs, ip);
		ur.sp = BPF_CORE_READ(regs, sp);
		ur.bp = BPF_CORE_READ(regs, bp);
	}
	if (clauses[c].flags & SCRY_CL_ENTRY)
		scry_fire(ctx, s, user ? &ur : NULL, c);
	else
		scry_begin(ctx, s, user ? &ur : NULL, c);
	return 0;
}

static __always_inline int on_sys_exit(void *ctx, struct pt_regs *regs,
				       long ret, __u32 c, bool user)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	long nr = BPF_CORE_READ(regs, orig_ax);
	struct scry_scratch *s;
	struct scry_uregs ur;

	if (scry_stopped())
		return 0;
	/* an exec or mmap scry held: its latency was scry's work */
	if ((nr == NR_mmap || nr == NR_execve || nr == NR_execveat) &&
	    scry_was_held(tid)) {
		__u64 key = (__u64)c << 32 | tid;

		bpf_map_delete_elem(&inflight, &key);
		return 0;
	}
	if (!scry_syscall_wanted(nr, c))
		return 0;
	s = scry_scratch();
	if (!s)
		return 0;
	if (user) {
		ur.ip = BPF_CORE_READ(regs, ip);
		ur.sp = BPF_CORE_READ(regs, sp);
		ur.bp = BPF_CORE_READ(regs, bp);
	}
	scry_end(ctx, s, tid, ret, user ? &ur : NULL, c);
	return 0;
}

/*
 * io_uring: a read or write completes without any read(2) or write(2).
 * Counted as the pseudo syscalls io_uring_read and io_uring_write (abi.h)
 * with the request's file and its result. Completions run in the
 * submitting task, or in one of its io-wq or SQPOLL threads, which belong
 * to its thread group: the pid filter holds. The tracepoint's arguments
 * changed (6.1: ctx, req, user_data, res, ...; 6.4+: ctx, req, cqe), but
 * req is the second in both; the result is read from the request.
 */
#define IORING_OP_READV		1
#define IORING_OP_WRITEV	2
#define IORING_OP_READ_FIXED	4
#define IORING_OP_WRITE_FIXED	5
#define IORING_OP_READ		22
#define IORING_OP_WRITE		23
#define IORING_OP_READ_MULTISHOT 49

static __always_inline int on_uring_done(void *ctx, struct io_kiocb *req,
					 __u32 c)
{
	struct task_struct *task;
	struct scry_scratch *s;
	struct scry_uregs ur;
	struct file *file;
	__u32 zero = 0;
	char *buf;
	int nr;

	if (!bpf_core_field_exists(req->cqe) || scry_stopped())
		return 0;
	switch (BPF_CORE_READ(req, opcode)) {
	case IORING_OP_READV:
	case IORING_OP_READ_FIXED:
	case IORING_OP_READ:
	case IORING_OP_READ_MULTISHOT:
		nr = SCRY_SYSCALL_URING_READ;
		break;
	case IORING_OP_WRITEV:
	case IORING_OP_WRITE_FIXED:
	case IORING_OP_WRITE:
		nr = SCRY_SYSCALL_URING_WRITE;
		break;
	default:
		return 0;
	}
	if (!scry_syscall_wanted(nr, c))
		return 0;
	s = scry_event_start(c);
	if (!s)
		return 0;
	s->ev.probe |= (__u32)nr;
	s->ev.retval = BPF_CORE_READ(req, cqe.res);
	task = bpf_get_current_task_btf();
	if (clauses[c].flags & SCRY_CL_FDPATH) {
		file = BPF_CORE_READ(req, file);
		buf = bpf_map_lookup_elem(&scry_path_scratch, &zero);
		if (!file || !buf || scry_file_path(task, file, &s->path, buf))
			scry_stat(SCRY_STAT_PATH_ERR);
		s->ev.path = scry_string_store(&s->path);
	}
	scry_uregs_of(task, &ur);
	scry_fire(ctx, s, &ur, c);
	return 0;
}

#define URING(c)							\
SEC("raw_tp/io_uring_complete")						\
int BPF_PROG(uring_done_##c, void *ring, void *req)			\
{ return on_uring_done(ctx, req, c); }
SCRY_CLAUSES(URING)

#define SYSCALLS(c)							\
SEC("raw_tp/sys_enter")							\
int BPF_PROG(sys_enter_##c, struct pt_regs *regs, long nr)		\
{ return on_sys_enter(ctx, regs, nr, c, true); }			\
SEC("raw_tp/sys_exit")							\
int BPF_PROG(sys_exit_##c, struct pt_regs *regs, long ret)		\
{ return on_sys_exit(ctx, regs, ret, c, true); }			\
SEC("raw_tp/sys_enter")							\
int BPF_PROG(sys_enter_nu_##c, struct pt_regs *regs, long nr)		\
{ return on_sys_enter(ctx, regs, nr, c, false); }			\
SEC("raw_tp/sys_exit")							\
int BPF_PROG(sys_exit_nu_##c, struct pt_regs *regs, long ret)		\
{ return on_sys_exit(ctx, regs, ret, c, false); }
SCRY_CLAUSES(SYSCALLS)

/* ---- perf events: profile, interval, software, hardware ------------- */

static __always_inline int on_perf(struct bpf_perf_event_data *ctx, __u32 c)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct scry_scratch *s;
	struct scry_uregs ur = {};

	if (scry_stopped())
		return 0;
	s = scry_scratch_nmi();
	if (!s)
		return 0;
	if ((!profile_idle && (__u32)id == 0 &&
	     !(clauses[c].flags & SCRY_CL_ANY_TASK)) ||
	    (!(clauses[c].flags & SCRY_CL_ANY_TASK) && !scry_target(s, id >> 32)))
		return 0;
	if (clauses[c].flags & SCRY_CL_ANY_TASK)
		scry_target_task(s);
	scry_event_init(&s->ev, c, id);
	scry_cookie(ctx, &s->ev, c);
	/*
	 * Interrupted in user mode: its registers; in the kernel: the saved
	 * ones. The context only allows 8-byte loads, so read cs as a u64.
	 */
	if ((*(__u64 *)((void *)&ctx->regs +
			__builtin_offsetof(struct pt_regs, ip) + 8) & 3) == 3) {
		ur.ip = ctx->regs.ip;
		ur.sp = ctx->regs.sp;
		ur.bp = ctx->regs.bp;
	} else {
		task = bpf_get_current_task_btf();
		scry_uregs_of(task, &ur);
	}
	scry_fire(ctx, s, &ur, c);
	return 0;
}

#define PERF(c)								\
SEC("perf_event") int perf_##c(struct bpf_perf_event_data *ctx)		\
{ return on_perf(ctx, c); }
SCRY_CLAUSES(PERF)

/* ---- BEGIN, END: run by scry itself (BPF_PROG_TEST_RUN) -------------- */

/* The one adapter that ignores `stopped`: END runs once collection stopped. */

static __always_inline int on_special(void *ctx, __u32 c)
{
	struct scry_scratch *s = scry_scratch();

	if (!s)
		return 0;
	scry_event_init(&s->ev, c, bpf_get_current_pid_tgid());
	scry_fire(ctx, s, NULL, c);
	return 0;
}

#define SPECIAL(c)							\
SEC("raw_tp") int special_##c(void *ctx)				\
{ return on_special(ctx, c); }
SCRY_CLAUSES(SPECIAL)

/* ---- tracepoint:CAT:NAME, fields read by offset from the event -------- */

static __always_inline __s64 tp_int(void *ctx, __u16 off, __u16 size,
				    bool is_signed)
{
	__u64 v = 0;

	size &= 0xf;
	if (size > 8)
		size = 8;
	if (!size || bpf_probe_read_kernel(&v, size, ctx + off))
		return 0;
	if (is_signed && size < 8) {
		int shift = 64 - size * 8;

		return (__s64)(v << shift) >> shift;
	}
	return v;
}

static __always_inline int on_tracepoint(void *ctx, __u32 c)
{
	struct scry_scratch *s;
	struct scry_uregs ur = {};
	int i;

	if (scry_stopped())
		return 0;
	s = scry_event_start(c);
	if (!s)
		return 0;
	scry_cookie(ctx, &s->ev, c);
	/* numbers now; strings when the program reads them (SCRY_OP_STP) */
	for (i = 0; i < SCRY_NARGS; i++) {
		const volatile struct scry_tp_field *f = &clauses[c].tp[i];

		if (f->size && f->kind == SCRY_TP_INT)
			s->ev.args[i] = tp_int(ctx, f->offset, f->size,
					       f->is_signed);
	}
	if (clauses[c].flags & SCRY_CL_USTACK)
		scry_uregs_of(bpf_get_current_task_btf(), &ur);
	scry_fire(ctx, s, &ur, c);
	return 0;
}

#define TRACEPOINT(c)							\
SEC("tracepoint") int tp_##c(void *ctx)					\
{ return on_tracepoint(ctx, c); }
SCRY_CLAUSES(TRACEPOINT)
