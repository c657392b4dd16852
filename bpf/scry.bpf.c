// SPDX-License-Identifier: GPL-2.0
/*
 * The one scry engine. Every probe kind is a thin adapter that fills a
 * struct scry_event and hands it to the shared path:
 *
 *   adapter -> [begin: filter, stacks, park in `inflight`]
 *           -> [end: latency/retval, filter] -> stacks -> aggregate
 *
 * Probes without an end (uprobe, tracepoint, profile) go straight to
 * scry_fire(). Everything a run configures (predicates, key columns, the
 * aggregation) is const volatile .rodata set by plan.c before load.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>
#include <scry/abi.h>

#include <linux/errno.h>	/* helper return values: -EEXIST, -EBADF */

#include "maps.bpf.h"
#include "pred.bpf.h"
#include "stack.bpf.h"
#include "path.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* commit 2f064a59a11f ("sched: Change task_struct::state") renamed it */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

const volatile bool filter_targets = false;	/* only pids in `targets` */
const volatile __u32 self_tgid = 0;		/* scry itself, never traced */
const volatile struct scry_pred_insn pred_begin[SCRY_MAX_PRED] = {};
const volatile struct scry_pred_insn pred_end[SCRY_MAX_PRED] = {};
const volatile bool key_kstack = false;
const volatile bool key_ustack = false;
const volatile bool key_comm = false;
const volatile __u8 key_ints[SCRY_MAX_INTKEYS] = {};
const volatile __u8 val_field = SCRY_F_NONE;
const volatile __u8 agg_kind = SCRY_AGG_COUNT;
const volatile __s64 lq_low = 0;
const volatile __s64 lq_step = 1;
const volatile __u32 lq_nslots = 0;	/* range slots, without the two edges */
const volatile bool stacks_at_begin = false;
const volatile bool announce_pids = false;	/* ringbuf notice on first sight */
const volatile bool key_fdpath = false;		/* resolve arg0's fd to a path */
const volatile __u64 syscall_set[8] = {};	/* syscall numbers, a bitmap */
const volatile bool profile_idle = false;	/* sample the idle task too */
const volatile struct scry_tp_field tp_fields[SCRY_NARGS] = {};

/* Initial value: min/max start at the far ends so the first event sets them. */
const struct scry_val scry_val_init = {
	.min = 0x7fffffffffffffffLL,
	.max = -0x7fffffffffffffffLL - 1,
};

static __always_inline bool scry_target(__u32 tgid)
{
	if (tgid == self_tgid)
		return false;
	if (!filter_targets)
		return true;
	return bpf_map_lookup_elem(&targets, &tgid) != NULL;
}

/* Fill the fields every event has, for the current task. */
static __always_inline void scry_event_init(struct scry_event *ev)
{
	__u64 id = bpf_get_current_pid_tgid();

	__builtin_memset(ev, 0, sizeof(*ev));
	ev->ts_ns = bpf_ktime_get_ns();
	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	ev->uid = (__u32)bpf_get_current_uid_gid();
	ev->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
}

static __always_inline void scry_announce(__u32 pid)
{
	struct scry_notice *n;
	__u8 one = 1;

	if (!announce_pids || bpf_map_lookup_elem(&seen, &pid))
		return;
	if (bpf_map_update_elem(&seen, &pid, &one, BPF_NOEXIST))
		return;
	n = bpf_ringbuf_reserve(&notices, sizeof(*n), 0);
	if (!n) {
		scry_stat(SCRY_STAT_NOTICE_LOST);
		bpf_map_delete_elem(&seen, &pid);	/* try again next time */
		return;
	}
	n->kind = SCRY_NOTICE_PID;
	n->pid = pid;
	bpf_ringbuf_submit(n, 0);
}

static __always_inline void scry_stacks(void *ctx, struct scry_event *ev,
					const struct scry_uregs *ur,
					struct scry_stack *st)
{
	if (key_kstack)
		ev->kstack = scry_kstack(ctx, st);
	if (key_ustack) {
		ev->ustack = scry_ustack(ev->pid, ur, st);
		if (ev->ustack)
			scry_announce(ev->pid);
	}
}

/* Log2 slot, see abi.h: 0 negative, 1 zero, k+1 for [2^(k-1), 2^k). */
static __always_inline __u32 scry_qslot(__s64 v)
{
	__u64 x = v;
	__u32 k = 0;

	if (v < 0)
		return SCRY_QSLOT_NEG;
	if (v == 0)
		return SCRY_QSLOT_ZERO;
	if (x >> 32) { k += 32; x >>= 32; }
	if (x >> 16) { k += 16; x >>= 16; }
	if (x >> 8)  { k += 8;  x >>= 8; }
	if (x >> 4)  { k += 4;  x >>= 4; }
	if (x >> 2)  { k += 2;  x >>= 2; }
	if (x >> 1)  { k += 1; }
	/* x in [2^k, 2^(k+1)) lives in slot k + 2 */
	k += 2;
	return k < SCRY_NBUCKETS ? k : SCRY_NBUCKETS - 1;
}

static __always_inline __u32 scry_lqslot(__s64 v)
{
	__u64 i;

	if (v < lq_low)
		return 0;
	/*
	 * v >= low and step > 0 (plan.c checks): the distance fits a __u64
	 * (not always an __s64), and unsigned division is exact
	 */
	i = ((__u64)v - (__u64)lq_low) / (__u64)lq_step;
	if (i >= lq_nslots)
		return lq_nslots + 1;
	return i + 1;
}

static __always_inline void scry_atomic_min(__s64 *p, __s64 v)
{
	int i;

	for (i = 0; i < 4; i++) {
		__s64 old = *p;

		if (v >= old || __sync_val_compare_and_swap(p, old, v) == old)
			return;
	}
}

static __always_inline void scry_atomic_max(__s64 *p, __s64 v)
{
	int i;

	for (i = 0; i < 4; i++) {
		__s64 old = *p;

		if (v <= old || __sync_val_compare_and_swap(p, old, v) == old)
			return;
	}
}

static __always_inline void scry_aggregate(const struct scry_event *ev)
{
	struct scry_key key = {};
	struct scry_val *val;
	__s64 v = 0;
	__u32 slot;
	long err;
	int i;

	if (key_kstack)
		key.kstack = ev->kstack;
	if (key_ustack) {
		key.ustack = ev->ustack;
		key.pid = ev->pid;
	}
	if (key_comm)
		__builtin_memcpy(key.comm, ev->comm, sizeof(key.comm));
	for (i = 0; i < SCRY_MAX_INTKEYS; i++)
		if (key_ints[i] != SCRY_F_NONE)
			key.ints[i] = scry_field(ev, key_ints[i]);
	if (val_field != SCRY_F_NONE)
		v = scry_field(ev, val_field);

	val = bpf_map_lookup_elem(&aggs, &key);
	if (!val) {
		err = bpf_map_update_elem(&aggs, &key, &scry_val_init, BPF_NOEXIST);
		if (err && err != -EEXIST) {
			scry_stat(SCRY_STAT_AGG_FULL);
			return;
		}
		val = bpf_map_lookup_elem(&aggs, &key);
		if (!val)
			return;
	}
	scry_stat(SCRY_STAT_EVENTS);
	__sync_fetch_and_add(&val->count, 1);
	if (agg_kind == SCRY_AGG_COUNT)
		return;
	__sync_fetch_and_add(&val->sum, v);
	scry_atomic_min(&val->min, v);
	scry_atomic_max(&val->max, v);
	if (agg_kind == SCRY_AGG_QUANTIZE)
		slot = scry_qslot(v);
	else if (agg_kind == SCRY_AGG_LQUANTIZE)
		slot = scry_lqslot(v);
	else
		return;
	if (slot < SCRY_NBUCKETS)
		__sync_fetch_and_add(&val->slots[slot], 1);
}

/* End filter, stacks (unless taken at begin), aggregation. */
static __always_inline void scry_finish(void *ctx, struct scry_event *ev,
					const struct scry_uregs *ur,
					struct scry_stack *st)
{
	if (!scry_pred(pred_end, ev))
		return;
	if (!stacks_at_begin)
		scry_stacks(ctx, ev, ur, st);
	scry_aggregate(ev);
}

/* A probe with no end: one shot through both filters. */
static __always_inline void scry_fire(void *ctx, struct scry_scratch *s,
				      const struct scry_uregs *ur)
{
	if (!scry_pred(pred_begin, &s->ev))
		return;
	scry_finish(ctx, &s->ev, ur, &s->st);
}

/* The begin half of a probe with an end: park the event by thread. */
static __always_inline void scry_begin(void *ctx, struct scry_scratch *s,
				       const struct scry_uregs *ur)
{
	if (!scry_pred(pred_begin, &s->ev))
		return;
	if (stacks_at_begin)
		scry_stacks(ctx, &s->ev, ur, &s->st);
	if (bpf_map_update_elem(&inflight, &s->ev.tid, &s->ev, BPF_ANY))
		scry_stat(SCRY_STAT_INFLIGHT_FULL);
}

/* The end half: complete the parked event of @tid, if any. */
static __always_inline void scry_end(void *ctx, struct scry_scratch *s,
				     __u32 tid, __s64 retval,
				     const struct scry_uregs *ur)
{
	struct scry_event *parked = bpf_map_lookup_elem(&inflight, &tid);

	if (!parked)
		return;
	/* copy out before delete: the element is reused once freed */
	__builtin_memcpy(&s->ev, parked, sizeof(s->ev));
	bpf_map_delete_elem(&inflight, &tid);
	s->ev.latency_ns = bpf_ktime_get_ns() - s->ev.ts_ns;
	s->ev.retval = retval;
	scry_finish(ctx, &s->ev, ur, &s->st);
}

/* A path by content hash into `strings`; 0 when it cannot be stored. */
static __always_inline __u64 scry_string_store(const struct scry_path *p)
{
	__u64 h = 0xcbf29ce484222325ULL;
	long err;
	int i;

	for (i = 0; i < SCRY_PATH_MAX; i++) {
		if (i >= p->len)
			break;
		h = (h ^ (__u8)p->str[i & (SCRY_PATH_MAX - 1)]) *
		    0x100000001b3ULL;
	}
	h ^= p->flags;
	if (!h)
		h = 1;
	if (bpf_map_lookup_elem(&strings, &h))
		return h;
	err = bpf_map_update_elem(&strings, &h, p, BPF_NOEXIST);
	if (err && err != -EEXIST) {
		scry_stat(SCRY_STAT_STRING_FULL);
		return 0;
	}
	return h;
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

static __always_inline int on_switch(void *ctx, bool preempt,
				     struct task_struct *prev,
				     struct task_struct *next)
{
	struct scry_scratch *s = scry_scratch();
	struct scry_uregs ur;
	__u64 state;
	__u32 tid;

	if (!s)
		return 0;
	/*
	 * prev is still current here: its stacks are the ones that block.
	 * A dying task's last switch-out never ends: don't park it.
	 */
	tid = BPF_CORE_READ(prev, pid);
	state = scry_task_raw_state(prev);
	if (tid && !(state & TASK_DEAD) &&
	    scry_target(BPF_CORE_READ(prev, tgid))) {
		scry_event_init(&s->ev);
		s->ev.state = scry_task_state(preempt, state);
		scry_uregs_of(prev, &ur);
		scry_begin(ctx, s, &ur);
	}
	tid = BPF_CORE_READ(next, pid);
	if (tid)
		scry_end(ctx, s, tid, 0, NULL);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return on_switch(ctx, preempt, prev, next);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(offcpu_switch_raw, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return on_switch(ctx, preempt, prev, next);
}

/* A thread that exits never switches in again: drop its parked event. */
static __always_inline int on_exit(struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);

	bpf_map_delete_elem(&inflight, &tid);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(task_exit, struct task_struct *p)
{
	return on_exit(p);
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(task_exit_raw, struct task_struct *p)
{
	return on_exit(p);
}

/*
 * -c follows the command's children (a shell runs pipelines in them):
 * a process forked by a target becomes a target.
 */
const volatile bool follow_forks = false;

SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (!follow_forks || ptgid == ctgid ||
	    !bpf_map_lookup_elem(&targets, &ptgid))
		return 0;
	if (bpf_map_update_elem(&targets, &ctgid, &one, BPF_ANY))
		scry_stat(SCRY_STAT_TARGETS_FULL);
	return 0;
}

/*
 * Mappings change under a seen pid: exec installs a new image, then ld.so
 * (and later dlopen) maps code with mmap(PROT_EXEC). Ask the frontend to
 * read the mappings again, once the change is in place.
 */
static __always_inline void scry_maps_changed(__u32 pid)
{
	struct scry_notice *n;

	/*
	 * Traced processes are followed from their exec on, so even one
	 * that exits right after its first event has its mappings read.
	 */
	if (!announce_pids || (!bpf_map_lookup_elem(&seen, &pid) &&
			       !(filter_targets &&
				 bpf_map_lookup_elem(&targets, &pid))))
		return;
	n = bpf_ringbuf_reserve(&notices, sizeof(*n), 0);
	if (!n) {
		scry_stat(SCRY_STAT_NOTICE_LOST);
		return;
	}
	n->kind = SCRY_NOTICE_MAPS;
	n->pid = pid;
	bpf_ringbuf_submit(n, 0);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p)
{
	scry_maps_changed(BPF_CORE_READ(p, tgid));
	return 0;
}

#define NR_mmap		9
#define PROT_EXEC	0x4

/* syscall exit: the user registers still hold the arguments */
SEC("raw_tp/sys_exit")
int BPF_PROG(on_mmap_exit, struct pt_regs *regs, long ret)
{
	if (BPF_CORE_READ(regs, orig_ax) != NR_mmap || ret < 0 ||
	    !(BPF_CORE_READ(regs, dx) & PROT_EXEC))
		return 0;
	scry_maps_changed(bpf_get_current_pid_tgid() >> 32);
	return 0;
}

/* ---- uprobe / uretprobe ---------------------------------------------- */

static __always_inline void scry_uregs_ctx(struct pt_regs *regs,
					   struct scry_uregs *ur)
{
	ur->ip = PT_REGS_IP(regs);
	ur->sp = PT_REGS_SP(regs);
	ur->bp = PT_REGS_FP(regs);
}

static __always_inline struct scry_scratch *uprobe_event(struct pt_regs *ctx)
{
	struct scry_scratch *s;

	if (!scry_target(bpf_get_current_pid_tgid() >> 32))
		return NULL;
	s = scry_scratch();
	if (!s)
		return NULL;
	scry_event_init(&s->ev);
	s->ev.args[0] = PT_REGS_PARM1(ctx);
	s->ev.args[1] = PT_REGS_PARM2(ctx);
	s->ev.args[2] = PT_REGS_PARM3(ctx);
	s->ev.args[3] = PT_REGS_PARM4(ctx);
	s->ev.args[4] = PT_REGS_PARM5(ctx);
	s->ev.args[5] = ctx->r9	/* bpf_tracing.h in libbpf 1.1 stops at PARM5 */;
	return s;
}

/* Entry of a probe with no return half. */
SEC("uprobe")
int uprobe_fire(struct pt_regs *ctx)
{
	struct scry_scratch *s = uprobe_event(ctx);
	struct scry_uregs ur;

	if (s) {
		scry_uregs_ctx(ctx, &ur);
		scry_fire(ctx, s, &ur);
	}
	return 0;
}

/* Entry of a uretprobe: park arguments and the entry time. */
SEC("uprobe")
int uprobe_begin(struct pt_regs *ctx)
{
	struct scry_scratch *s = uprobe_event(ctx);
	struct scry_uregs ur;

	if (s) {
		scry_uregs_ctx(ctx, &ur);
		scry_begin(ctx, s, &ur);
	}
	return 0;
}

SEC("uretprobe")
int uprobe_end(struct pt_regs *ctx)
{
	struct scry_scratch *s = scry_scratch();
	struct scry_uregs ur;

	if (!s)
		return 0;
	scry_uregs_ctx(ctx, &ur);
	scry_end(ctx, s, (__u32)bpf_get_current_pid_tgid(),
		 PT_REGS_RC(ctx), &ur);
	return 0;
}

/* USDT: arguments come from the probe's note, decoded by libbpf. */
SEC("usdt")
int usdt_fire(struct pt_regs *ctx)
{
	struct scry_scratch *s = uprobe_event(ctx);
	struct scry_uregs ur;
	int i, n;
	long v;

	if (!s)
		return 0;
	n = bpf_usdt_arg_cnt(ctx);
	for (i = 0; i < SCRY_NARGS; i++) {
		v = 0;
		if (i < n)
			bpf_usdt_arg(ctx, i, &v);
		s->ev.args[i] = v;
	}
	scry_uregs_ctx(ctx, &ur);
	scry_fire(ctx, s, &ur);
	return 0;
}

/* ---- syscalls: raw_syscalls, no tracefs, filtered by number ---------- */

static __always_inline bool scry_syscall_wanted(long nr)
{
	if (nr < 0 || nr >= 512)
		return false;
	return syscall_set[(nr >> 6) & 7] & (1ULL << (nr & 63));
}

SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long nr)
{
	struct scry_scratch *s;
	struct scry_uregs ur;

	if (!scry_syscall_wanted(nr) ||
	    !scry_target(bpf_get_current_pid_tgid() >> 32))
		return 0;
	s = scry_scratch();
	if (!s)
		return 0;
	scry_event_init(&s->ev);
	s->ev.args[0] = BPF_CORE_READ(regs, di);
	s->ev.args[1] = BPF_CORE_READ(regs, si);
	s->ev.args[2] = BPF_CORE_READ(regs, dx);
	s->ev.args[3] = BPF_CORE_READ(regs, r10);	/* the syscall ABI's 4th */
	s->ev.args[4] = BPF_CORE_READ(regs, r8);
	s->ev.args[5] = BPF_CORE_READ(regs, r9);
	/* at entry, while the fd still names the file (close, dup2...) */
	if (key_fdpath) {
		long err = scry_fd_path(bpf_get_current_task_btf(),
					s->ev.args[0], &s->path);

		/* a closed fd is the caller's error, keyed "[closed fd N]" */
		if (err < 0 && err != -EBADF && err != -ESRCH)
			scry_stat(SCRY_STAT_PATH_ERR);
		s->ev.path = scry_string_store(&s->path);
	}
	ur.ip = BPF_CORE_READ(regs, ip);
	ur.sp = BPF_CORE_READ(regs, sp);
	ur.bp = BPF_CORE_READ(regs, bp);
	scry_begin(ctx, s, &ur);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct scry_scratch *s;
	struct scry_uregs ur;

	if (!scry_syscall_wanted(BPF_CORE_READ(regs, orig_ax)))
		return 0;
	s = scry_scratch();
	if (!s)
		return 0;
	ur.ip = BPF_CORE_READ(regs, ip);
	ur.sp = BPF_CORE_READ(regs, sp);
	ur.bp = BPF_CORE_READ(regs, bp);
	scry_end(ctx, s, (__u32)bpf_get_current_pid_tgid(), ret, &ur);
	return 0;
}

/* ---- profile: cpu-clock sampling ------------------------------------ */

SEC("perf_event")
int profile_fire(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct scry_scratch *s;
	struct scry_uregs ur = {};

	if ((!profile_idle && (__u32)id == 0) || !scry_target(id >> 32))
		return 0;
	s = scry_scratch();
	if (!s)
		return 0;
	scry_event_init(&s->ev);
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
	scry_fire(ctx, s, &ur);
	return 0;
}

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

static __always_inline __s64 tp_string(void *ctx, struct scry_path *p,
				       __u16 off, __u16 size, bool data_loc)
{
	long n;

	if (data_loc) {
		__u32 loc = tp_int(ctx, off, 4, false);

		off = loc & 0xffff;
		size = loc >> 16;
	}
	/*
	 * Strings in events are NUL-terminated: read up to the buffer's
	 * size (a constant keeps the verifier's bounds simple).
	 */
	(void)size;
	n = bpf_probe_read_kernel_str(p->str, SCRY_PATH_MAX, ctx + off);
	p->len = n > 0 ? n - 1 : 0;
	p->flags = 0;
	return scry_string_store(p);
}

SEC("tracepoint")
int tp_fire(void *ctx)
{
	struct scry_scratch *s;
	struct scry_uregs ur = {};
	int i;

	if (!scry_target(bpf_get_current_pid_tgid() >> 32))
		return 0;
	s = scry_scratch();
	if (!s)
		return 0;
	scry_event_init(&s->ev);
	for (i = 0; i < SCRY_NARGS; i++) {
		const volatile struct scry_tp_field *f = &tp_fields[i];

		if (!f->size)
			continue;
		if (f->kind == SCRY_TP_INT)
			s->ev.args[i] = tp_int(ctx, f->offset, f->size,
					       f->is_signed);
		else
			s->ev.args[i] = tp_string(ctx, &s->path, f->offset,
						  f->size,
						  f->kind == SCRY_TP_DATA_LOC);
	}
	scry_uregs_of(bpf_get_current_task_btf(), &ur);
	scry_fire(ctx, s, &ur);
	return 0;
}
