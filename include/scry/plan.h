/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan: an expression's meaning. Checks probe kinds, field names and
 * aggregation functions against what each probe provides, compiles the
 * predicate into the engine's two filter programs, and lays out the
 * aggregation key. Every error carries the expression column.
 */
#ifndef SCRY_PLAN_H
#define SCRY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <scry/abi.h>
#include <scry/report.h>

struct expr;
struct expr_error;
struct source;

/* A tracepoint field, from the event's format. */
struct plan_tp_field {
	const char *name;
	__u16 offset, size;
	bool is_signed;
	bool is_string;		/* char[] or __data_loc char[] */
	bool data_loc;
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
};

/* The running system: tracefs (plan_env.c). */
extern const struct plan_env plan_env_system;

/* One key column in the order the user wrote it. */
struct plan_key {
	const char *name;	/* as written: "ustack", "arg0" */
	enum scry_field field;	/* SCRY_F_KSTACK, _USTACK, _COMM, or an int field */
	int slot;		/* index into scry_key.ints for int fields */
	bool string_id;		/* the slot holds a string-store id (paths) */
};

struct plan {
	const struct expr *expr;
	const struct source *src;	/* the probe kind */
	const char *target[3];	/* probe parts: LIB, FUNC / BIN, PROVIDER, NAME */
	int ntarget;
	int target_cols[3];

	struct scry_pred_insn pred_begin[SCRY_MAX_PRED];
	struct scry_pred_insn pred_end[SCRY_MAX_PRED];
	char strs[SCRY_MAX_STRS][SCRY_COMM_LEN];
	int nstrs;

	struct plan_key keys[REPORT_MAX_KEYS];
	int nkeys;
	bool key_kstack, key_ustack, key_comm;
	bool key_fdpath;	/* resolve arg0 as an fd into a path at begin */
	__u8 key_ints[SCRY_MAX_INTKEYS];

	enum scry_agg agg;
	enum scry_field val_field;
	const char *val_name;
	__s64 lq_low, lq_high, lq_step;
	__u32 lq_nslots;

	__u64 syscall_set[8];	/* syscall: the numbers to trace, a bitmap */
	__u32 profile_hz;	/* profile: samples per second per CPU */
	/* tracepoint: args.FIELD operands, each read into one args[] slot */
	struct plan_tp_field tp_fields[SCRY_NARGS];
	int ntp_fields;

	bool has_end;		/* begin/end probe: latency and retval exist */
	bool stacks_at_begin;	/* offcpu: the blocking stack is at switch-out */
	bool ustack_at_entry;	/* uprobe at a function's first instruction */
	const struct plan_env *env;
	const char *unit;	/* of the aggregated value, or NULL */
};

/*
 * Build @p from @e. Returns 0, or -EINVAL with @err set (column and
 * message) for a semantic error.
 */
int plan_build(const struct expr *e, struct plan *p,
	       const struct plan_env *env, struct expr_error *err);

/*
 * Set @err to MSG at column @col and return -EINVAL: how plan and the
 * sources' plan hooks report what is wrong with an expression.
 */
int plan_fail(struct expr_error *err, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* True when a key column holds string-store ids (paths, tracepoint strings). */
bool plan_has_strings(const struct plan *p);

/* Syscall number of @name on this architecture, or -1. */
int plan_syscall_nr(const char *name);

/* The @i-th known syscall name (for listing), NULL past the end. */
const char *plan_syscall_name(int i);

#endif /* SCRY_PLAN_H */
