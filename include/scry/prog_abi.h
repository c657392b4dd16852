/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clause interpreter's program format, shared by plan.c (which
 * compiles a clause into it) and bpf/prog.bpf.h (which runs it). No logic
 * lives here.
 *
 * A clause is a postfix program over a stack of 64-bit values, held in
 * .rodata: constant once loaded, so the verifier, walking one program copy
 * per clause, knows every opcode, folds it and keeps only the paths the
 * clause uses. Jumps go forward only. Strings live in per-CPU string
 * slots (struct scry_path); a string value on the stack is its slot.
 */
#ifndef SCRY_PROG_ABI_H
#define SCRY_PROG_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define SCRY_MAX_CLAUSES	8	/* clauses in a program: BPF program copies */
#define SCRY_MAX_INSNS		96	/* instructions of a clause's body */
#define SCRY_MAX_BEGIN_INSNS	32	/* of its predicate tested at begin */
#define SCRY_VSTACK		16	/* value stack depth */
#define SCRY_MAX_MAPS		16	/* @maps of a program */
#define SCRY_MAX_LOCALS		16	/* $vars and this->vars of a clause */
#define SCRY_MAX_TLS		16	/* self->vars of a program */
#define SCRY_NSLOTS		8	/* string slots */
#define SCRY_MAX_KEYCOLS	8	/* key columns of a map */
#define SCRY_MAX_KEYSPECS	48	/* map accesses of a program */
#define SCRY_MAX_OUTS		32	/* printf formats and actions of a program */
#define SCRY_MAX_OUT_ARGS	8	/* values a printf carries */
#define SCRY_MAX_LITS		16	/* string literals of a program */
#define SCRY_LIT_MAX		64	/* bytes of a literal, NUL included */
#define SCRY_JOIN_ARGS		16	/* strings join() prints */
#define SCRY_JOIN_LEN		128	/* bytes of each, NUL included */

enum scry_op {
	SCRY_OP_END = 0,	/* stop; a predicate's result is the top */
	SCRY_OP_IMM,		/* push imm */
	SCRY_OP_FIELD,		/* push event field a (enum scry_field) */
	SCRY_OP_LDL,		/* push locals[a] */
	SCRY_OP_STL,		/* locals[a] = pop */
	SCRY_OP_LDT,		/* push self->vars[a] (0 when unset) */
	SCRY_OP_STT,		/* self->vars[a] = pop */
	/* binary: pop b, pop a, push a OP b (signed; x/0 = 0, x%0 = x) */
	SCRY_OP_ADD, SCRY_OP_SUB, SCRY_OP_MUL, SCRY_OP_DIV, SCRY_OP_MOD,
	SCRY_OP_BAND, SCRY_OP_BOR, SCRY_OP_BXOR, SCRY_OP_SHL, SCRY_OP_SHR,
	SCRY_OP_EQ, SCRY_OP_NE, SCRY_OP_LT, SCRY_OP_LE, SCRY_OP_GT,
	SCRY_OP_GE, SCRY_OP_LAND, SCRY_OP_LOR,
	/* unary: replace the top */
	SCRY_OP_NEG, SCRY_OP_BNOT, SCRY_OP_LNOT,
	SCRY_OP_JMP,		/* go to d */
	SCRY_OP_JZ,		/* pop; go to d when 0 */
	SCRY_OP_DROP,		/* pop */
	/* strings: a and b are slots, pushed and popped as values */
	SCRY_OP_SCOMM,		/* slot a = the event's comm; push a */
	SCRY_OP_SREAD,		/* slot a = string at pop (user or kernel
				 * memory by address), at most d bytes when
				 * d > 0; push a */
	SCRY_OP_SLIT,		/* slot a = literal imm; push a */
	SCRY_OP_SID,		/* pop slot; push its string-store id */
	SCRY_OP_SFROMID,	/* slot a = the string of store id pop; push a */
	SCRY_OP_STP,		/* slot a = tracepoint string field c; push a */
	SCRY_OP_SCMP,		/* pop slot b', pop slot a'; push a' == b'
				 * (c = 1: !=) */
	SCRY_OP_SCOPY,		/* slot a = slot b; push a */
	SCRY_OP_SSTORE,		/* slot a = slot pop (a string local) */
	/* maps a: the key columns (keyspec b) pushed first */
	SCRY_OP_MLOAD,		/* pop key; push value (0 when absent) */
	SCRY_OP_MSTORE,		/* pop value, pop key; store (c: the value is
				 * a slot, stored by its string-store id) */
	SCRY_OP_MADD,		/* pop value, pop key; add to the value */
	SCRY_OP_MDEL,		/* pop key; delete */
	SCRY_OP_MAGG,		/* pop value, pop key; aggregate */
	/* output: ring buffer `events` */
	SCRY_OP_OUT,		/* record of format imm, its values popped */
	SCRY_OP_SIGNAL,		/* pop a signal number; send it to the task */
	SCRY_OP_READ,		/* pop address; push the a bytes (1, 2, 4,
				 * 8) at address + imm, signed when c;
				 * user memory when b, else as the address
				 * says (kernel or user half) */
	SCRY_OP_STACKS,		/* take the stacks the clause uses */
	SCRY_OP_JOIN,		/* pop the address of an array of string
				 * pointers; record imm of its strings */
	SCRY_NOPS,
};

/*
 * Operations no question of scry's (offcpu, malloc, read, write,
 * profile) uses: the engine's lean build leaves them out (Makefile,
 * bpf/prog.bpf.h SCRY_RARE), and a plan of one clause without them loads
 * that build (attach.c). Every program carries the whole interpreter,
 * and the verifier's passes over a program's instructions cost whether
 * the clause's constants leave them dead or not: without these, offcpu's
 * programs verify ~25 % faster.
 */
#define SCRY_OP_BIT(op)		(1ULL << (op))
#define SCRY_OPS_RARE							\
	(SCRY_OP_BIT(SCRY_OP_LDT) | SCRY_OP_BIT(SCRY_OP_STT) |		\
	 SCRY_OP_BIT(SCRY_OP_DIV) | SCRY_OP_BIT(SCRY_OP_MOD) |		\
	 SCRY_OP_BIT(SCRY_OP_SCOMM) | SCRY_OP_BIT(SCRY_OP_SREAD) |	\
	 SCRY_OP_BIT(SCRY_OP_SLIT) | SCRY_OP_BIT(SCRY_OP_SID) |		\
	 SCRY_OP_BIT(SCRY_OP_SFROMID) | SCRY_OP_BIT(SCRY_OP_STP) |	\
	 SCRY_OP_BIT(SCRY_OP_SCMP) | SCRY_OP_BIT(SCRY_OP_SCOPY) |	\
	 SCRY_OP_BIT(SCRY_OP_SSTORE) | SCRY_OP_BIT(SCRY_OP_MLOAD) |	\
	 SCRY_OP_BIT(SCRY_OP_MSTORE) | SCRY_OP_BIT(SCRY_OP_MADD) |	\
	 SCRY_OP_BIT(SCRY_OP_MDEL) | SCRY_OP_BIT(SCRY_OP_OUT) |		\
	 SCRY_OP_BIT(SCRY_OP_SIGNAL) | SCRY_OP_BIT(SCRY_OP_READ) |	\
	 SCRY_OP_BIT(SCRY_OP_JOIN))
_Static_assert(SCRY_NOPS <= 64, "SCRY_OPS_RARE is a 64-bit mask");

struct scry_insn {
	__u8 op;
	__u8 a;
	__u8 b;
	__u8 c;
	__u32 d;
	__s64 imm;
};

/* Where a key column goes in struct scry_key. */
enum scry_keycol {
	SCRY_KC_INT0 = 0,	/* ints[0..3]: a number, or an id */
	SCRY_KC_STR0 = 4,	/* ints[0..3]: a slot's string, by store id */
	SCRY_KC_COMM = 8,	/* comm[]: a slot's first 16 bytes */
	SCRY_KC_KSTACK,		/* kstack: a stack id */
	SCRY_KC_USTACK,		/* ustack: a stack id (and pid, gen) */
	SCRY_KC_PID,		/* pid: the owner of a user address */
};

/* How one map access builds its key. */
struct scry_keyspec {
	__u8 ncols;
	__u8 map;
	/* per column: 0 pop it, else the event field to read directly */
	__u8 src[SCRY_MAX_KEYCOLS];
	__u8 dst[SCRY_MAX_KEYCOLS];	/* enum scry_keycol */
	__u8 pad[6];
};

enum scry_map_kind {
	SCRY_MAP_AGG = 0,	/* `aggs`: count, sum, ... histograms */
	SCRY_MAP_VAR,		/* `vars`: one value per key */
};

struct scry_mapdef {
	__u8 kind;		/* enum scry_map_kind */
	__u8 agg;		/* enum scry_agg */
	__u8 pad[2];
	__u32 lq_levels;	/* lquantize: whole steps */
	__s64 lq_low;
	__s64 lq_step;
};

/* Records in the ring buffer `events`. */
enum scry_out_kind {
	SCRY_OUT_PRINTF = 1,	/* printf, print(value), trace(), join() */
	SCRY_OUT_ACTION,	/* print/clear/zero a map, time(), exit() */
	SCRY_OUT_JOIN,		/* join(): a count, then SCRY_JOIN_ARGS strings
				 * of SCRY_JOIN_LEN bytes */
};

/* A value's layout in a record: 8 bytes, or one string slot. */
enum scry_out_arg {
	SCRY_OUT_INT = 0,
	SCRY_OUT_STR,		/* struct scry_path, from a slot */
};

struct scry_outdef {
	__u8 kind;		/* enum scry_out_kind */
	__u8 nargs;
	__u8 args[SCRY_MAX_OUT_ARGS];	/* enum scry_out_arg */
	__u16 size;		/* of the whole record */
	__u8 pad[4];
};

struct scry_out_hdr {
	__u32 out;		/* index of its scry_outdef */
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u64 ts_ns;
	/* then the values, each an __s64 or a struct scry_path */
};

/* Per clause: what its adapter gathers before the program runs. */
#define SCRY_CL_KSTACK		(1u << 0)	/* take the kernel stack */
#define SCRY_CL_USTACK		(1u << 1)	/* take the user stack */
#define SCRY_CL_FDPATH		(1u << 2)	/* arg0 as an fd -> path */
#define SCRY_CL_STACKS_AT_BEGIN	(1u << 3)	/* at begin (offcpu) */
#define SCRY_CL_END		(1u << 4)	/* park at begin, run at end */
#define SCRY_CL_ENTRY		(1u << 5)	/* syscall: fire at entry */
#define SCRY_CL_ANY_TASK	(1u << 6)	/* interval: whoever runs */
#define SCRY_CL_SWITCH_END	(1u << 7)	/* ends at a switch-in (offcpu) */
#define SCRY_CL_COMM		(1u << 8)	/* reads comm: the event fetches it */
#define SCRY_CL_UGID		(1u << 9)	/* reads uid or gid: likewise */
#define SCRY_CL_PROBE		(1u << 10)	/* reads probe: the attach cookie */

#endif /* SCRY_PROG_ABI_H */
