/* SPDX-License-Identifier: GPL-2.0 */
/*
 * source: a probe kind, described once. Everything scry knows of a kind
 * lives in its source_*.c: how it is written and checked (plan), which
 * fields it gives expressions, whether it has a begin and an end, what
 * `scry -l` lists for it, and how its programs load and attach. A new
 * kind is one file, one row in sources.c's table and its BPF adapter.
 *
 * The description (name .. plan) is pure: plan.c and its unit tests use
 * it without touching the system. list, prepare and attach do I/O.
 */
#ifndef SCRY_SOURCE_H
#define SCRY_SOURCE_H

#include <stdbool.h>
#include <stdio.h>

struct attach;
struct cmd_file;
struct plan;
struct plan_probe;
struct expr_probe;
struct expr_error;

/* Fields a kind gives expressions, beyond those every event has. */
#define SOURCE_F_ARGS		(1u << 0)	/* arg0..arg5 */
#define SOURCE_F_RETVAL		(1u << 1)	/* retval */
#define SOURCE_F_LATENCY	(1u << 2)	/* latency: ns from begin to end */
#define SOURCE_F_STATE		(1u << 3)	/* offcpu task state */
#define SOURCE_F_ERRNO		(1u << 4)	/* syscalls: -retval if failed */
#define SOURCE_F_FDPATH		(1u << 5)	/* syscalls: arg0's fd as a path */
#define SOURCE_F_TPARGS		(1u << 6)	/* args.FIELD from the format */
#define SOURCE_F_FUNC		(1u << 7)	/* func: the probed function */
#define SOURCE_F_BTFARGS	(1u << 8)	/* args.NAME from the function's BTF */

/* How a kind fires. */
#define SOURCE_END		(1u << 0)	/* begin and end: parked by thread */
#define SOURCE_STACKS_AT_BEGIN	(1u << 1)	/* stacks of the begin (offcpu) */
#define SOURCE_AT_ENTRY		(1u << 2)	/* at a function's 1st instruction */
#define SOURCE_SPECIAL		(1u << 3)	/* BEGIN, END: run by scry */
#define SOURCE_NO_STACKS	(1u << 4)	/* no task context: no stacks */
#define SOURCE_RETURN		(1u << 5)	/* fires at a return: retval, no begin */
#define SOURCE_SWITCH_END	(1u << 6)	/* ends at the thread's switch-in */
/*
 * Closing its links waits for the kernel's grace periods (measured on
 * 6.18: a uprobe ~110 ms, a perf tracepoint ~60 ms; raw tracepoints and
 * perf events < 1 ms): they are closed by a child, after scry exits
 * (detach.c).
 */
#define SOURCE_SLOW_DETACH	(1u << 7)
/*
 * Its programs run in a task with interrupts on (a uprobe, a syscall,
 * BEGIN and END under BPF_PROG_TEST_RUN), never in an interrupt or NMI
 * or with a lock held that an allocation could need: where every
 * probe's kind says so, the hash maps fill as keys arrive instead of
 * being preallocated (plan_in_task(), attach.c). A probe of such a kind
 * that loads a program that may run elsewhere says so in its plan hook
 * (plan_probe.outside_task).
 */
#define SOURCE_IN_TASK		(1u << 8)
/*
 * Its programs run in a task with interrupts off, never in an interrupt
 * or NMI (sched_switch). A hash map that fills as keys arrive serves such
 * a program from the CPU's cache of free elements, which the kernel
 * refills only once interrupts are on again: plan_fills_warm(), attach.c.
 */
#define SOURCE_IRQS_OFF		(1u << 9)

struct source {
	const char *name;	/* the kind as written: "uprobe" */
	const char *alias;	/* bpftrace's short name for it: "u", or NULL */
	const char *usage;	/* how it is written: "uprobe:LIB:FUNC" */
	const char *what;	/* one line for `scry -l` */
	int min_parts, max_parts;	/* parts after the kind */
	unsigned fields;	/* SOURCE_F_* */
	unsigned flags;		/* SOURCE_* */
	/*
	 * Check the probe's parts and record what the kind needs from them
	 * in @pp (syscall numbers, a rate). Pure: the system only through
	 * p->env. May be NULL. Returns 0, or -EINVAL with @err set (column
	 * and message).
	 */
	int (*plan)(struct plan *p, struct plan_probe *pp,
		    struct expr_error *err);
	/*
	 * `scry -l KIND:...`: print what matches @parts (globs, @nparts of
	 * them after the kind) to @f; LIB resolves for @pid when > 0.
	 * Returns 0 (found), 1 (nothing matched), 2 (bad pattern, said on
	 * stderr). NULL: the kind lists only itself.
	 */
	/*
	 * A -c process is about to run code from the file at @f->fd (scry
	 * holds it meanwhile, cmd.h): the kind may attach probes to the file
	 * before any of it runs. NULL: the kind does not care.
	 */
	void (*on_file)(struct attach *a, const struct cmd_file *f);
	/* free what the kind kept in a->priv; NULL: it keeps nothing */
	void (*close)(struct attach *a);
	int (*list)(FILE *f, char *parts[], int nparts, int pid);
	/*
	 * Choose the programs @pp needs (attach_want()); may be NULL.
	 * Returns 0 or -errno, having said why.
	 */
	int (*prepare)(struct attach *a, const struct plan_probe *pp);
	/* Attach @pp; report failures once, with the fix; 0 or -errno. */
	int (*attach)(struct attach *a, const struct plan_probe *pp);
};

extern const struct source source_offcpu;
extern const struct source source_uprobe;
extern const struct source source_uretprobe;
extern const struct source source_usdt;
extern const struct source source_syscall;
extern const struct source source_profile;
extern const struct source source_interval;
extern const struct source source_software;
extern const struct source source_hardware;
extern const struct source source_tracepoint;
extern const struct source source_kprobe;
extern const struct source source_kretprobe;
extern const struct source source_fbt;
extern const struct source source_fentry;
extern const struct source source_fexit;
extern const struct source source_kfunc;
extern const struct source source_kretfunc;
extern const struct source source_begin;
extern const struct source source_end;
extern const struct source source_dtrace;

/* Every kind, in the order `scry -l` lists them; NULL-terminated. */
extern const struct source *const sources[];

/* The kind named @name, or NULL. */
const struct source *source_find(const char *name);

#endif /* SCRY_SOURCE_H */
