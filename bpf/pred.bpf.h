/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared filter step: a bounded interpreter over a postfix predicate
 * program that plan.c compiles into .rodata. The program is constant
 * once loaded, so the verifier folds every opcode and prunes the branches
 * a given predicate does not use; an empty program costs one load.
 */
#ifndef SCRY_PRED_BPF_H
#define SCRY_PRED_BPF_H

#include <scry/abi.h>

const volatile char pred_strs[SCRY_MAX_STRS][SCRY_COMM_LEN] = {};

static __always_inline __s64 scry_field(const struct scry_event *ev, __u8 f)
{
	switch (f) {
	case SCRY_F_PID:	return ev->pid;
	case SCRY_F_TID:	return ev->tid;
	case SCRY_F_UID:	return ev->uid;
	case SCRY_F_CPU:	return ev->cpu;
	case SCRY_F_ARG0:	return ev->args[0];
	case SCRY_F_ARG1:	return ev->args[1];
	case SCRY_F_ARG2:	return ev->args[2];
	case SCRY_F_ARG3:	return ev->args[3];
	case SCRY_F_ARG4:	return ev->args[4];
	case SCRY_F_ARG5:	return ev->args[5];
	case SCRY_F_RETVAL:	return ev->retval;
	case SCRY_F_LATENCY:	return ev->latency_ns;
	case SCRY_F_STATE:	return ev->state;
	case SCRY_F_ERRNO:	return ev->retval < 0 ? -ev->retval : 0;
	case SCRY_F_FDPATH:	return ev->path;
	default:		return 0;
	}
}

static __always_inline bool scry_comm_eq(const struct scry_event *ev, __u8 idx)
{
	const volatile char *s;
	int i;

	if (idx >= SCRY_MAX_STRS)
		return false;
	s = pred_strs[idx];
	for (i = 0; i < SCRY_COMM_LEN; i++) {
		if (ev->comm[i] != s[i])
			return false;
		if (!s[i])
			return true;
	}
	return true;
}

/* Returns true when the event passes (or the program is empty). */
static __always_inline bool
scry_pred(const volatile struct scry_pred_insn *prog, const struct scry_event *ev)
{
	__s64 st[SCRY_PRED_STACK] = {};
	__u32 sp = 0;
	__s64 a, b;
	int i;

	if (prog[0].op == SCRY_OP_END)
		return true;

	for (i = 0; i < SCRY_MAX_PRED; i++) {
		__u8 op = prog[i].op;

		if (op == SCRY_OP_END)
			break;
		if (op == SCRY_OP_FIELD || op == SCRY_OP_IMM ||
		    op == SCRY_OP_STREQ || op == SCRY_OP_STRNE) {
			if (sp >= SCRY_PRED_STACK)
				goto bad;
			if (op == SCRY_OP_FIELD)
				a = scry_field(ev, prog[i].field);
			else if (op == SCRY_OP_IMM)
				a = prog[i].imm;
			else
				a = scry_comm_eq(ev, prog[i].str) ==
				    (op == SCRY_OP_STREQ);
			st[sp & (SCRY_PRED_STACK - 1)] = a;
			sp++;
			continue;
		}
		if (op == SCRY_OP_NOT) {
			if (sp < 1)
				goto bad;
			st[(sp - 1) & (SCRY_PRED_STACK - 1)] =
				!st[(sp - 1) & (SCRY_PRED_STACK - 1)];
			continue;
		}
		/* binary operators */
		if (sp < 2)
			goto bad;
		b = st[(sp - 1) & (SCRY_PRED_STACK - 1)];
		a = st[(sp - 2) & (SCRY_PRED_STACK - 1)];
		sp--;
		switch (op) {
		case SCRY_OP_EQ:  a = a == b; break;
		case SCRY_OP_NE:  a = a != b; break;
		case SCRY_OP_LT:  a = a < b; break;
		case SCRY_OP_LE:  a = a <= b; break;
		case SCRY_OP_GT:  a = a > b; break;
		case SCRY_OP_GE:  a = a >= b; break;
		case SCRY_OP_AND: a = a && b; break;
		case SCRY_OP_OR:  a = a || b; break;
		default:	  goto bad;
		}
		st[(sp - 1) & (SCRY_PRED_STACK - 1)] = a;
	}
	if (sp != 1)
		goto bad;
	return st[0] != 0;
bad:
	scry_stat(SCRY_STAT_PRED_ERR);
	return false;
}

#endif /* SCRY_PRED_BPF_H */
