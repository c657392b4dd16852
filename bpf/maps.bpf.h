/* SPDX-License-Identifier: GPL-2.0 */
/* Maps and per-CPU scratch shared by every part of the engine. */
#ifndef SCRY_MAPS_BPF_H
#define SCRY_MAPS_BPF_H

#include <scry/abi.h>
#include "uwin.bpf.h"

/*
 * Sizes are placeholders: the frontend sets them from --max-keys etc.
 * The key's too: the prefix of struct scry_key the plan's keys reach
 * (plan_key_size); so a size, not a BTF type of one fixed size.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__uint(key_size, sizeof(struct scry_key));
	__uint(value_size, sizeof(struct scry_val));
} aggs SEC(".maps"), aggs_alt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct scry_stack);
} stacks SEC(".maps");

/* @map variables (prog_abi.h): one value per key, the map in the key. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__uint(key_size, sizeof(struct scry_key));	/* as aggs' */
	__uint(value_size, sizeof(__s64));
} vars SEC(".maps"), vars_alt SEC(".maps");

/* self-> variables: per thread, freed by the kernel with the thread. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct scry_tls);
} tls SEC(".maps");

/* printf, print(), exit() ...: records for the frontend, in order. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

/* String store: fd.path and other strings by content hash, like `stacks`. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);
	__type(value, struct scry_path);
} strings SEC(".maps");

/*
 * Begin state of events with an end (off-CPU, return probes, syscalls),
 * by clause << 32 | thread.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct scry_event);
} inflight SEC(".maps");

/* Processes the user asked for (-p, -c); used when filter_targets is set. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SCRY_MAX_FOLLOWED);
	__type(key, __u32);
	__type(value, struct scry_target);
} targets SEC(".maps");

/* Processes already announced to the frontend for symbolization. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, __u8);
} seen SEC(".maps");

/* Notices (abi.h) carry paths: room for a burst of a thousand. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} notices SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRY_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * Moved after every change to what a scry_who answer or a kept walk
 * (uwin.bpf.h: scry_memo) was computed from: targets, gens, seen, the
 * unwinder's mapping lists and tables. The engine moves it at an exec,
 * a process's last exit and every task's free (its task_struct may be
 * given to a new task); the frontend (.bss is mmapped) when it adds a
 * target or writes a list or a table. Moved after the change, read
 * before the lookups an answer comes from: an answer computed across a
 * change carries the epoch before it, and is never taken.
 */
volatile __u32 who_epoch = 0;

static __always_inline void scry_who_moved(void)
{
	__sync_fetch_and_add(&who_epoch, 1);
}

/*
 * Who the current task is to scry, as of who_epoch: traced or not
 * (targets, with the pid-reuse check's two kernel reads), and its
 * process's generation once a stack asked for it (gens, seen). The
 * CPU's last event's task, kept: the next event of the same task takes
 * it instead of three hash lookups and two probe reads. check is a hash
 * of the rest: an entry another program on the CPU half wrote is not
 * whole, and not taken.
 */
struct scry_who {
	__u64 task;
	__u32 epoch;
	__u32 tgid;
	__u32 gen;		/* 0: not asked yet */
	__u32 traced;
	__u64 check;
};

/*
 * Large per-event buffers live here, not on the 512-byte BPF stack; so do
 * the clause interpreter's value stack, variables, key and strings.
 */
struct scry_scratch {
	struct scry_pend pend;		/* first: the frontend reads it (abi.h) */
	struct scry_event ev;
	/*
	 * offcpu: a period prev's half of a switch found ended unseen, for
	 * next's half of the same switch to count (scry.bpf.c), of clause
	 * unseen_for - 1 (0: none)
	 */
	struct scry_event unseen;
	__u32 unseen_for;
	struct scry_stack st;
	struct scry_unwind_kstate ks;	/* the walk's: its window (uwin.bpf.h) */
	struct scry_who who;		/* proc.bpf.h: scry_target() */
	__u64 task;			/* the event's task, where targets filter */
	__u32 who_held;			/* who is task's, checked in this event */
	__u64 memo_seq;			/* the last scry_memo stamp */
	struct scry_memo memo[SCRY_MEMO_SLOTS];
	struct scry_path path;
	__s64 vs[SCRY_VSTACK];
	__s64 locals[SCRY_MAX_LOCALS];
	struct scry_key key;
	struct scry_path slots[SCRY_NSLOTS];
	__u32 opaque;			/* scry_opaque()'s */
};

/*
 * @v, stored to @mem and read back. A register used as an offset into
 * memory is one the verifier must know exactly, back to every value it
 * was computed from: where branches computed it (a binary search, a log2
 * bucket), each path stayed apart to the end of the program, never
 * pruned against another (2^8 paths of a 256-entry search). A value read
 * from memory is any value: the caller bounds it with its mask, the
 * register it came from is free to differ, and the paths meet again.
 */
static __always_inline __u32 scry_opaque(volatile __u32 *mem, __u32 v)
{
	*mem = v;
	return *mem;
}

/*
 * One per CPU for programs that do not nest, one for perf events, which
 * arrive as NMIs and may interrupt a raw tracepoint's program midway.
 */
#define SCRY_SCRATCH_NMI	1

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct scry_scratch);
} scratch SEC(".maps");

/*
 * Raised by the frontend when collection stops (attach_stop): every
 * program but BEGIN's and END's returns at once from then on. The drain
 * reads a snapshot no probe changes any more, while the probes stay
 * attached: closing a uprobe waits ~110 ms for the kernel's grace
 * periods, and that close now happens after the answer is out, in the
 * background (detach.c). In .bss, mmapped: one store stops everything.
 */
volatile __u32 stopped = 0;

static __always_inline bool scry_stopped(void)
{
	return stopped;
}

/*
 * Which of the two aggregation (and @variable) maps the probes write:
 * --interval reads and empties the other. A probe adds to an element
 * after looking it up, so deleting keys under running probes loses
 * what a probe adds between its lookup and its add; instead the
 * frontend flips `side`, waits one RCU grace period (no probe is left
 * holding the old map's elements) and then empties the old map
 * (attach_flip). Without --interval the _alt maps have one entry and
 * `side` stays 0.
 */
volatile __u32 side = 0;

static __always_inline void *scry_aggs(void)
{
	return side ? (void *)&aggs_alt : (void *)&aggs;
}

static __always_inline void *scry_vars(void)
{
	return side ? (void *)&vars_alt : (void *)&vars;
}

/*
 * A map update's error, on every kernel: its low 32 bits. Until 6.4 the
 * map ops returned int, and the verifier's rewrite of the helper into a
 * direct call of the op left it zero-extended in r0 (6.1: -EEXIST, the
 * other CPU's insert of the same new key, read 0xffffffef, and the event
 * was counted a drop and lost).
 */
static __always_inline int scry_map_err(long ret)
{
	return (int)ret;
}

static __always_inline void scry_stat(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&stats, &which);

	if (n)
		*n += 1;	/* per-CPU: no atomics needed */
}

static __always_inline struct scry_scratch *scry_scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

static __always_inline struct scry_scratch *scry_scratch_nmi(void)
{
	__u32 nmi = SCRY_SCRATCH_NMI;

	return bpf_map_lookup_elem(&scratch, &nmi);
}

#endif /* SCRY_MAPS_BPF_H */
