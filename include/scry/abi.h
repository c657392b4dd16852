/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types exchanged between the BPF engine (bpf/scry.bpf.c) and the
 * frontend. No logic lives here: only the shapes of keys, values, stacks,
 * predicate instructions and notices, valid on both sides.
 */
#ifndef SCRY_ABI_H
#define SCRY_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include <scry/unwind_abi.h>
#include <scry/prog_abi.h>

#define SCRY_MAX_FRAMES		127	/* frames per stack, the kernel's default */
#define SCRY_NBUCKETS		64	/* histogram slots per aggregation key */
#define SCRY_MAX_INTKEYS	4	/* scalar key columns per aggregation */
#define SCRY_COMM_LEN		16
#define SCRY_MAX_TARGETS	64	/* -p processes given on the command line */
#define SCRY_MAX_FOLLOWED	8192	/* -c's processes, until reaped */

/*
 * targets[tgid]: who is traced. -p processes are TRACED. The -c command is
 * PENDING from fork to exec, so scry's own pre-exec code is followed but
 * never counted; its exec turns it TRACED. When the command needs a
 * shell, scry's child is WRAPPER: its exec of /bin/sh makes it PENDING, so
 * the shell that only parses and waits is never counted, while every
 * program it runs (its forks inherit PENDING) is, from its exec on. A
 * process's entry goes when it exits, so the limit counts live processes
 * and a reused pid never inherits a dead target's place.
 */
#define SCRY_TARGET_TRACED	1
#define SCRY_TARGET_PENDING	2
#define SCRY_TARGET_WRAPPER	3

/*
 * targets' value: the state, and which process it is of. A pid is free
 * again from its reap, but the entry goes at sched_process_free, an RCU
 * grace period later: a process given the pid meanwhile is told apart by
 * its start, the group leader's start_boottime (ns since boot, suspend
 * included: what /proc/PID/stat's starttime counts in clock ticks; exec
 * by another thread keeps it). 0: not known yet, an entry the frontend
 * added (-p, -c), filled by the process's first event in its own context
 * (its exec, a probe, at the latest its exit, which comes before its pid
 * is free).
 */
struct scry_target {
	__u64 start;
	__u8 state;		/* SCRY_TARGET_* */
	__u8 pad[7];
};
#define SCRY_NARGS		6

/*
 * Not syscalls: io_uring completions of reads and of writes, counted by
 * the syscall probe under these numbers (past every real one) and the
 * names io_uring_read, io_uring_write, so the read and write questions
 * see bytes that never pass through read(2) or write(2).
 */
#define SCRY_SYSCALL_URING_READ		510
#define SCRY_SYSCALL_URING_WRITE	511

/*
 * Quantize slots (DTrace power-of-two buckets): slot 0 holds negative
 * values, slot 1 the value 0, slot k+1 the range [2^(k-1), 2^k) for
 * k = 1..62; slot 63 also takes everything at or above 2^62.
 * lquantize slots: slot 0 is "< low", slot 1 + i covers
 * [low + i*step, low + (i+1)*step), the last used slot is ">= high".
 */
#define SCRY_QSLOT_NEG		0
#define SCRY_QSLOT_ZERO		1

/* Event fields: what SCRY_OP_FIELD pushes, and key columns read directly. */
enum scry_field {
	SCRY_F_NONE = 0,
	SCRY_F_PID,
	SCRY_F_TID,
	SCRY_F_UID,
	SCRY_F_CPU,
	SCRY_F_COMM,		/* string: predicates and keys only */
	SCRY_F_ARG0,
	SCRY_F_ARG1,
	SCRY_F_ARG2,
	SCRY_F_ARG3,
	SCRY_F_ARG4,
	SCRY_F_ARG5,
	SCRY_F_RETVAL,
	SCRY_F_LATENCY,		/* ns from begin to end (off-CPU time, call time) */
	SCRY_F_STATE,		/* task state at switch-out (offcpu) */
	SCRY_F_ERRNO,		/* -retval when retval < 0, else 0 (syscalls) */
	SCRY_F_FDPATH,		/* id of arg0's path in `strings`: keys only */
	SCRY_F_KSTACK,		/* stack ids */
	SCRY_F_USTACK,
	SCRY_F_GID,
	SCRY_F_NSECS,		/* now, ns since boot (CLOCK_MONOTONIC) */
	SCRY_F_ELAPSED,		/* ns since scry started */
	SCRY_F_CPID,		/* pid of the -c command */
	SCRY_F_RAND,		/* 32 random bits */
	SCRY_F_CGROUP,		/* cgroup v2 id */
	SCRY_F_CURTASK,		/* address of the task_struct */
	SCRY_F_PROBE,		/* clause << 32 | which of its probes fired */
	SCRY_F_PPID,		/* parent's pid */
	SCRY_F_WALLTIME,	/* ns since the epoch */
	SCRY_NFIELDS,
};

enum scry_agg {
	SCRY_AGG_COUNT = 0,
	SCRY_AGG_SUM,
	SCRY_AGG_MIN,
	SCRY_AGG_MAX,
	SCRY_AGG_AVG,
	SCRY_AGG_QUANTIZE,
	SCRY_AGG_LQUANTIZE,
	SCRY_AGG_STATS,		/* count, average, total */
};

/* One event as every probe adapter fills it. */
struct scry_event {
	__u64 ts_ns;		/* begin time, for latency */
	__u32 pid;		/* process (tgid) */
	__u32 tid;
	__u32 uid;
	__u32 cpu;
	__u32 gen;		/* address space of ustack (see gens) */
	__u32 pad;
	__s64 args[SCRY_NARGS];
	__s64 retval;
	__u64 latency_ns;
	__u64 state;
	__u64 kstack;		/* stack store ids, 0 = none */
	__u64 ustack;
	__u64 path;		/* string store id of fd.path, 0 = none */
	char comm[SCRY_COMM_LEN];
	__u64 probe;		/* clause << 32 | probe (cookie or syscall) */
	__u32 gid;
	__u32 unused;
};

/*
 * Aggregation key. Unused columns stay zero, so the same struct serves
 * every expression; the plan says which columns are live and in what
 * order they print. The maps keyed by it hold only the prefix the plan's
 * keys reach (plan_key_size(): the fixed part, then ints, then comm):
 * every lookup hashes and compares its key, and a stack-keyed count
 * hashed 80 bytes where 32 say the same.
 */
struct scry_key {
	__u64 kstack;
	__u64 ustack;
	__u32 pid;		/* owner of ustack, for symbolization */
	__u32 gen;		/* its address space (see gens), likewise */
	__u32 map;		/* which @map: the plan's index */
	__u32 unused;		/* always 0 */
	__s64 ints[SCRY_MAX_INTKEYS];
	char comm[SCRY_COMM_LEN];
};

struct scry_val {
	__u64 count;
	__s64 sum;
	__s64 min;
	__s64 max;
	__u64 slots[SCRY_NBUCKETS];
};

/*
 * A key that repeats on a CPU (bpf/prog.bpf.h: scry_aggregate): its first
 * event goes into the map as any other, so the map holds every key in the
 * order they came; from its next event in a row on, events add to this
 * value, without atomics or a lookup, until another key comes on the CPU
 * (then they are added to the map's) or the stop (then attach_stop()'s
 * caller adds them: drain_pend()). It is the first member of each slot of
 * the per-CPU `scratch` map, where the frontend finds it. Only where the
 * maps are read once, at the end (attach.c: no --interval, no print(),
 * clear() or zero() of a map from a clause).
 */
#define SCRY_PEND_SEEN		1	/* key's last event went to the map */
#define SCRY_PEND_ADDING	2	/* val holds events not in the map */

struct scry_pend {
	__u32 state;		/* 0, SCRY_PEND_SEEN, SCRY_PEND_ADDING */
	__u32 side;		/* the map it belongs to: aggs (0), aggs_alt */
	/*
	 * A histogram's events add up here while they land in one slot:
	 * count of them in slot (a slot of their own ends the run). One
	 * slot, not a copy of all 64: the flush adds one, and the verifier
	 * walks no loop over them in every program that aggregates.
	 */
	__u32 slot;
	__u32 pad;
	__u64 count;
	__s64 sum;
	__s64 min;
	__s64 max;
	struct scry_key key;
};

/* Stack store: frames by content hash, one map for kernel and user stacks. */
#define SCRY_STACK_KERNEL	(1U << 0)	/* frames are kernel addresses */
#define SCRY_STACK_TRUNCATED	(1U << 1)	/* walk stopped at SCRY_MAX_FRAMES */
#define SCRY_STACK_LOST		(~0ULL)		/* id: stack not stored (see stats) */

struct scry_stack {
	__u32 nr;
	__u32 flags;
	__u64 ip[SCRY_MAX_FRAMES];
};

/*
 * Paths (fd.path keys): written by bpf/path.bpf.h, stored by content hash
 * in the `strings` map like stacks, so keys stay small.
 */
#define SCRY_PATH_MAX		256	/* bytes kept, NUL included */
#define SCRY_PATH_DEPTH		64	/* dentries walked before giving up */
#define SCRY_PATH_TRUNCATED	(1U << 0)	/* deeper than the walk's bound */
#define SCRY_PATH_DELETED	(1U << 1)	/* unlinked while open */

struct scry_path {
	__u32 len;		/* bytes in str, without the NUL */
	__u32 flags;		/* SCRY_PATH_* */
	char str[SCRY_PATH_MAX];
};

/* A tracepoint field read into an args[] slot (tracepoint:CAT:NAME). */
enum scry_tp_kind {
	SCRY_TP_INT = 0,	/* 1, 2, 4 or 8 bytes */
	SCRY_TP_CHARS,		/* char name[N]: stored as a string */
	SCRY_TP_DATA_LOC,	/* __data_loc char[]: u32 (len << 16 | offset) */
};

struct scry_tp_field {
	__u16 offset;
	__u16 size;
	__u8 is_signed;
	__u8 kind;		/* enum scry_tp_kind */
	__u8 pad[2];
};

/*
 * One clause as its programs run it (prog_abi.h): what the adapter
 * gathers, and the two programs. .rodata holds one per clause.
 */
struct scry_clause_def {
	__u32 flags;		/* SCRY_CL_* */
	__u32 fd_role;		/* SCRY_CL_FDPATH: which fd (plan_fd_role) */
	__u32 resume;		/* body: the instruction after SCRY_OP_STACKS */
	__u32 pad;
	__u64 syscall_set[8];	/* syscall clauses: the numbers, a bitmap */
	struct scry_tp_field tp[SCRY_NARGS];	/* tracepoint args.FIELD */
	struct scry_insn begin[SCRY_MAX_BEGIN_INSNS];
	struct scry_insn body[SCRY_MAX_INSNS];
};

/* Thread-local self-> variables: BPF task storage, gone with the task. */
struct scry_tls {
	__s64 v[SCRY_MAX_TLS];
};

/* Every loss has a counter; the frontend prints each non-zero one. */
enum scry_stat {
	SCRY_STAT_EVENTS = 0,	/* events that reached the aggregation */
	SCRY_STAT_AGG_FULL,	/* new key, aggregation map full */
	SCRY_STAT_STACK_FULL,	/* new stack, stack store full */
	SCRY_STAT_KSTACK_ERR,	/* bpf_get_stack failed */
	SCRY_STAT_USTACK_ERR,	/* no user registers for the task */
	SCRY_STAT_USTACK_FAULT,	/* user stack walk hit unreadable memory */
	SCRY_STAT_INFLIGHT_FULL,/* begin state could not be stored */
	SCRY_STAT_NOTICE_LOST,	/* ring buffer full: a new pid was not announced */
	SCRY_STAT_PRED_ERR,	/* malformed clause program (a scry bug) */
	SCRY_STAT_TARGETS_FULL,	/* a child of -c could not be followed */
	SCRY_STAT_STRING_FULL,	/* new path, string store full */
	SCRY_STAT_PATH_ERR,	/* fd not resolvable to a path */
	SCRY_STAT_OUT_LOST,	/* printf & co: ring buffer `events` full */
	SCRY_STAT_VAR_FULL,	/* new key, map variables full */
	SCRY_STAT_TLS_ERR,	/* self-> variables not stored */
	SCRY_STAT_AGG_NOMEM,	/* new key, no kernel memory for it (not full) */
	SCRY_STAT_STACK_NOMEM,	/* new stack, no kernel memory for it */
	SCRY_STAT_UNWIND_FIRST,	/* then one per enum scry_unwind_stat */
	SCRY_NSTATS = SCRY_STAT_UNWIND_FIRST + SCRY_UNWIND_NSTATS,
};

#ifndef SCRY_UNWIND_STAT_BASE	/* the unwinder's host test sets its own */
#define SCRY_UNWIND_STAT_BASE	SCRY_STAT_UNWIND_FIRST
#endif

/*
 * Notices from BPF to the frontend (ring buffer `notices`): what the
 * frontend must know to symbolize and unwind a process, sent while it
 * happens, so a process that lives a millisecond is known exactly without
 * racing it to /proc.
 *
 * Every address space a notice describes has a generation: a number
 * unique in the run, given when scry first hears of the process (its
 * fork, its first stack) and again at each exec, kept in `gens` and in
 * the aggregation key. Stacks are symbolized with the mappings of their
 * own generation, so `env ./app`'s env frames never resolve against app.
 */
enum scry_notice_kind {
	SCRY_NOTICE_PID = 1,	/* first stack of a process not followed from
				 * its fork or exec: read /proc/PID/maps */
	SCRY_NOTICE_EXEC,	/* new image: file[0] the executable (start =
				 * AT_ENTRY), file[1] the interpreter (start =
				 * AT_BASE), vdso; the old gen is parent_gen */
	SCRY_NOTICE_FORK,	/* a followed process forked: pid starts with
				 * ppid's mappings, of generation parent_gen */
	SCRY_NOTICE_MMAP,	/* an executable file mapping: file[0] is the
				 * vma (start, end, pgoff) */
	SCRY_NOTICE_EXIT,	/* the process is gone */
};

struct scry_notice_file {
	struct scry_file_key key;	/* {0, 0}: none */
	__u64 start;
	__u64 end;
	__u64 pgoff;			/* file offset / page size */
	struct scry_path path;		/* as the process sees it */
};

struct scry_notice {
	__u32 kind;
	__u32 pid;		/* tgid */
	__u32 gen;
	__u32 parent_gen;
	__u64 vdso;		/* EXEC: where the vDSO is mapped */
	__u32 ppid;		/* FORK: the parent (tgid) */
	__u32 pad;
	struct scry_notice_file file[2];
};

#endif /* SCRY_ABI_H */
