/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan: a program's meaning. Checks probe kinds and their parts, names,
 * types and functions against what each probe provides, and compiles
 * every clause into the engine's programs (prog_abi.h): the predicate
 * conjuncts known when an event begins, and the body. Lays out the maps,
 * the output records and the strings. Every error carries the column.
 * No I/O: what the plan needs of the system comes through a plan_env.
 */
#ifndef SCRY_PLAN_H
#define SCRY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <scry/abi.h>
#include <scry/expr.h>
#include <scry/prog_abi.h>

struct source;
struct btf;

/* A tracepoint field, from the event's format. */
struct plan_tp_field {
	const char *name;
	__u16 offset, size;
	bool is_signed;
	bool is_string;		/* char[] or __data_loc char[] */
	bool data_loc;
	bool is_charptr;	/* char *: an address, str() reads it */
	/*
	 * The C type as the format declares it, without the name: "int",
	 * "umode_t", "struct __kernel_timespec *", "u8[4]" (plan types the
	 * field by it, as bpftrace does); "" when unknown.
	 */
	char ctype[64];
};

/*
 * What plan needs to know of the system, behind function pointers so the
 * plan itself does no I/O and is unit tested with a fake.
 */
struct plan_env {
	/*
	 * args.FIELD of tracepoint CAT:NAME: fill @out, or return -ENOENT
	 * with a message in @why (the event's fields, or why it is unknown).
	 */
	int (*tp_field)(const char *cat, const char *name, const char *field,
			struct plan_tp_field *out, char *why, size_t len);
	/*
	 * Tracepoints matching the globs CAT:NAME, one "CAT:NAME" a call
	 * to @fn; returns how many, or -errno.
	 */
	int (*tp_glob)(const char *cat, const char *name,
		       void (*fn)(void *ctx, const char *cat, const char *name),
		       void *ctx);
	/* Does this kernel have kprobes (and so kretprobes)? */
	bool (*has_kprobes)(void);
	/*
	 * May fentry/fexit programs attach to the kernel function of BTF
	 * id @func? -EPERM when this kernel refuses BPF trampolines.
	 */
	int (*trampoline)(int func);
	/*
	 * The kernel's types (vmlinux BTF), parsed on first use, for
	 * curtask->mm->... and casts; NULL when there are none.
	 */
	struct btf *(*btf)(void);
};

/* The running system: tracefs (plan_env.c). */
extern const struct plan_env plan_env_system;

/*
 * What a value is, for printing it (keys, printf): a number with a
 * meaning, a string, or a stack.
 */
enum plan_vkind {
	PLAN_V_NONE = 0,	/* a statement: no value */
	PLAN_V_INT,
	PLAN_V_STR,		/* bytes, in a string slot */
	PLAN_V_AGG,		/* an aggregation: only as @map = agg(...) */
};

enum plan_vfmt {
	PLAN_F_PLAIN = 0,	/* a signed number */
	PLAN_F_STRID,		/* a string-store id: print its string */
	PLAN_F_KSTACK,		/* a stack id */
	PLAN_F_USTACK,
	PLAN_F_KSYM,		/* a kernel address: its symbol */
	PLAN_F_USYM,		/* a user address (of the event's pid) */
	PLAN_F_PROBE,		/* (clause << 32 | index): the probe's name */
	PLAN_F_FUNC,		/* (clause << 32 | index): its function */
	PLAN_F_INET,		/* an IPv4 address, as ntop() prints it */
	PLAN_F_ERRNO,		/* (an int, shown as a number) */
	PLAN_F_COMM,		/* a string that is the comm */
	PLAN_F_CHARPTR,		/* a char * (tracepoint field): str() reads it */
};

struct plan_type {
	enum plan_vkind kind;
	enum plan_vfmt fmt;
	int limit;		/* stacks: frames to print, 0 all */
	/*
	 * A kernel type (BTF id): the value is the address of an object of
	 * that type, a struct's through a pointer or an embedded one, an
	 * array's first element (array), 0 when it is none of these.
	 */
	__u32 btf;
	bool array;
	/*
	 * The address is a user one (a syscall tracepoint's __user
	 * pointer): reads through it read user memory, whatever the address
	 * (a kernel address there is a caller's mistake, not kernel data).
	 */
	bool user;
};

/* One probe as written, and what its source made of it. */
struct plan_probe {
	const struct source *src;
	const struct expr_probe *ep;
	int clause;
	const char *target[EXPR_MAX_PARTS];	/* the parts: LIB, FUNC ... */
	int ntarget;
	int target_cols[EXPR_MAX_PARTS];
	bool has_end;		/* begin and end: latency, parked by thread */
	int cookie0;		/* its first label in the clause (probe) */
	__u64 syscall_set[8];	/* syscall: the numbers, a bitmap */
	bool syscall_entry;	/* syscall: fire at entry, no end */
	/*
	 * DTrace's :return probes: 1 syscall (arg0 and arg1 are the return
	 * value), 2 fbt (arg1 is; arg0, the return's offset, is unknown).
	 */
	int dtrace_return;
	__u32 hz;		/* profile: samples a second, every CPU */
	__u64 period;		/* interval: ns; software: events */
	__u32 perf_type;	/* interval, software: perf_event_attr */
	__u64 perf_config;
	bool one_cpu;		/* interval: on one CPU only */
	bool special;		/* BEGIN, END: run by scry itself */
	bool at_end;		/* END */
	char **names;		/* tracepoint globs: "CAT:NAME" matched */
	int nnames;
	/*
	 * One of its programs may run outside a task although its kind's
	 * run in one (SOURCE_IN_TASK): syscall's io_uring completions.
	 */
	bool outside_task;
};

enum plan_map_kind {
	PLAN_MAP_AGG = 0,	/* @m[k] = count() ... */
	PLAN_MAP_VAR,		/* @m[k] = expression */
};

struct plan_map {
	char *name;		/* "@start", "@" */
	int col;
	enum plan_map_kind kind;
	enum scry_agg agg;
	__s64 lq_low, lq_high, lq_step;
	__u32 lq_levels;
	int nkeys;
	struct plan_type keys[SCRY_MAX_KEYCOLS];
	char *key_names[SCRY_MAX_KEYCOLS];	/* as written: "comm", "pid" */
	__u8 key_dst[SCRY_MAX_KEYCOLS];		/* enum scry_keycol */
	__u8 key_field[SCRY_MAX_KEYCOLS];	/* the field, when it is one */
	struct plan_type val;	/* VAR: its values; AGG: what is aggregated */
	const char *unit;	/* of the values: "ns" for latency */
	bool printed;		/* print() or printa() of it was asked */
	bool has_pid;		/* the key holds a pid (user stacks, usym) */
};

/* A printf format or an action, as an output record carries it. */
enum plan_out_kind {
	PLAN_OUT_PRINTF = 0,	/* printf(fmt, ...) */
	PLAN_OUT_PRINT,		/* print(@m), printa(@m) */
	PLAN_OUT_CLEAR,		/* clear(@m) */
	PLAN_OUT_ZERO,		/* zero(@m) */
	PLAN_OUT_EXIT,		/* exit() */
	PLAN_OUT_TIME,		/* time(fmt) */
	PLAN_OUT_VALUE,		/* print(value), trace(value) */
	PLAN_OUT_JOIN,		/* join(argv, sep) */
};

/* One conversion of a printf format: text before it, then the value. */
struct plan_conv {
	char *text;		/* literal text before it ('%%' resolved) */
	char *spec;		/* "%-10d", rewritten for the value's type */
	struct plan_type type;
};

struct plan_out {
	enum plan_out_kind kind;
	int map;		/* PRINT, CLEAR, ZERO */
	__s64 top;		/* PRINT: its largest rows only, 0 all */
	char *fmt;		/* PRINTF, TIME: as written */
	struct plan_conv convs[SCRY_MAX_OUT_ARGS];
	int nconvs;
	char *tail;		/* PRINTF: text after the last conversion */
	char *sep;		/* JOIN */
	struct scry_outdef def;
};

/* The file a path key names (fd.path, src.path, dst.path). */
enum plan_fd_role {
	PLAN_FD_ARG0,		/* fd.path: arg0's fd */
	PLAN_FD_SRC,		/* src.path: the file read from */
	PLAN_FD_DST,		/* dst.path: the file written to */
};

struct plan_clause {
	const struct expr_clause *ec;
	int col;
	unsigned fields;	/* SOURCE_F_* all its probes give */
	__u32 flags;		/* SCRY_CL_* */
	struct scry_insn begin[SCRY_MAX_BEGIN_INSNS];
	int nbegin;
	struct scry_insn body[SCRY_MAX_INSNS];
	int nbody;
	/* tracepoint: args.FIELD read by the adapter (numbers) or STP */
	struct plan_tp_field tp_fields[SCRY_NARGS];
	int ntp_fields;
	int nlocals;
	char *local_names[SCRY_MAX_LOCALS];
	struct plan_type local_types[SCRY_MAX_LOCALS];
	__u8 local_slots[SCRY_MAX_LOCALS];	/* string locals' slots */
	int first_probe, nprobes;	/* its probes in plan.probes */
	bool special;		/* BEGIN or END */
	/* what `probe` and `func` print, by cookie; by syscall number */
	char **labels, **funcs;
	int nlabels;
	bool by_syscall;
	enum plan_fd_role fd_role;	/* SCRY_CL_FDPATH: which fd is the path */
};

#define PLAN_MAX_PROBES	32

/*
 * The tracepoint fields by which an expression's clause is split, one
 * plan clause per layout of them (plan.c): sys_enter_open and
 * sys_enter_openat have `filename` at different offsets.
 */
struct plan_split {
	const char *fields[SCRY_NARGS];
	int nfields;
};

struct plan {
	const struct expr *expr;
	const struct plan_env *env;
	struct plan_split *splits;	/* by expression clause, while built */
	struct plan_clause clauses[SCRY_MAX_CLAUSES];
	int nclauses;
	struct plan_probe probes[PLAN_MAX_PROBES];
	int nprobes;
	struct plan_map maps[SCRY_MAX_MAPS];
	int nmaps;
	struct scry_keyspec keyspecs[SCRY_MAX_KEYSPECS];
	int nkeyspecs;
	struct plan_out outs[SCRY_MAX_OUTS];
	int nouts;
	char lits[SCRY_MAX_LITS][SCRY_LIT_MAX];
	int nlits;
	char *tls_names[SCRY_MAX_TLS];
	struct plan_type tls_types[SCRY_MAX_TLS];
	int ntls;
	bool unsafe;		/* --unsafe: signal() allowed */
	bool uses_signal;
	bool has_events;	/* something writes to the `events` ring */
	bool has_end;		/* some clause parks at begin */
	bool uses_strings;	/* the string store holds something */
	bool uses_vars;		/* some @map is a variable */
	bool uses_tls;
	/* summaries over the clauses, for the adapters and the unwinder */
	bool key_kstack, key_ustack;	/* some clause takes such stacks */
	bool names_user;	/* user stacks or usym() anywhere: a process's
				 * mappings are read before it exits */
	bool ustack_at_entry;	/* every user stack is taken at a function
				 * entry (uprobes): read the caller at [sp] */
	const char *unit;	/* of the main map's values, or NULL */
};

/*
 * Build @p from @e. @unsafe allows destructive actions (signal()).
 * Returns 0, or -EINVAL with @err set (column and message) for a
 * semantic error, -ENOMEM.
 */
int plan_build(const struct expr *e, struct plan *p,
	       const struct plan_env *env, bool unsafe,
	       struct expr_error *err);

/* Free what plan_build allocated (NULL-safe; not @p itself). */
void plan_free(struct plan *p);

/*
 * Set @err to MSG at column @col and return -EINVAL: how plan and the
 * sources' plan hooks report what is wrong with an expression.
 */
int plan_fail(struct expr_error *err, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The first aggregation map, or the first map, or -1: what a report
 * shows first and --folded / flame graphs draw by default. */
int plan_main_map(const struct plan *p);

/* The map named @name ("@x", or "x"), or -1. */
int plan_map_find(const struct plan *p, const char *name);

/* The probe's name for a PLAN_F_PROBE value, func for PLAN_F_FUNC. */
const char *plan_probe_label(const struct plan *p, __u64 v, bool func,
			     char *buf, size_t len);

/* What the banner says is traced: "offcpu", "3 probes". */
const char *plan_what(const struct plan *p);

/*
 * Does every program the probes of @p load run in a task with
 * interrupts on (each kind SOURCE_IN_TASK, no probe outside_task)?
 */
bool plan_in_task(const struct plan *p);

/*
 * Is every probe of @p in a task (plan_in_task()) but one of a kind whose
 * programs run with interrupts off (SOURCE_IRQS_OFF), whose clause
 * aggregates once at most (SCRY_OP_MAGG)? Its program then inserts at
 * most two keys into the aggregation (the period it ends and, for a
 * period the tracepoint missed, the one before: SOURCE_SWITCH_END) and
 * two stacks (kernel and user) each time it runs.
 */
bool plan_fills_warm(const struct plan *p);

/*
 * Bytes of struct scry_key the keys of @p reach (its prefix, abi.h): the
 * key size of the maps keyed by it.
 */
size_t plan_key_size(const struct plan *p);

/* Syscall number of @name on this architecture, or -1. */
int plan_syscall_nr(const char *name);

/* The @i-th known syscall name (for listing), NULL past the end. */
const char *plan_syscall_name(int i);

/* The name of syscall number @nr, or NULL. */
const char *plan_syscall_name_of(int nr);

/*
 * The argument (0..5) that holds the fd of syscall @nr in @role: its
 * arg0 (fd.path), the file it reads from (src.path) or writes to
 * (dst.path). -1 when the syscall has no such file.
 */
int plan_syscall_fd_arg(int nr, enum plan_fd_role role);



#endif /* SCRY_PLAN_H */
