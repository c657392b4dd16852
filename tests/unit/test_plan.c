/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan: what a program means to the engine. Probe kinds and their parts,
 * the fields each kind gives, the programs every clause compiles to (the
 * predicate split between the begin of an event and the body), maps and
 * their keys, printf formats, and every semantic error with its column.
 * No root, no system: tracepoints come from a fake environment.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <scry/attach.h>
#include <scry/expr.h>
#include <scry/plan.h>
#include <scry/source.h>
#include "check.h"
#include "fake_btf.h"

static char what[512];

__attribute__((format(printf, 1, 2)))
static const char *label(const char *fmt, ...)
{
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* one line per check: tests/run counts them */
	for (i = 0; what[i]; i++)
		if (what[i] == '\n')
			what[i] = ' ';
	return what;
}

/*
 * The fake system: tracepoint test:ev has an int `n` (offset 8, 4 bytes,
 * signed), a char[16] `name`, a __data_loc `path`, a char * `ptr`;
 * test:ev2 has `n` elsewhere; sched:a, sched:b match globs. Kprobes exist
 * unless no_kprobes.
 */
static bool no_kprobes;

/*
 * Syscall-style fields, each 8 bytes in the record whatever its declared
 * type (as sys_enter_openat's "int dfd"), at 40 + 8 * their index.
 */
static bool decl_field(const char *field, struct plan_tp_field *out)
{
	static const char *const decls[][2] = {
		{ "dfd", "int" }, { "mode", "umode_t" }, { "ret", "long" },
		{ "uid", "const uid_t" }, { "ts", "struct mm_struct *" },
		{ "fk", "fake_t" }, { "ul", "unsigned long" },
		{ "ip", "int *" }, { "vp", "void *" }, { "odd", "nosuch_t" },
		{ "sa", "__u8[4]" },
	};
	size_t i;

	for (i = 0; i < sizeof(decls) / sizeof(decls[0]); i++)
		if (!strcmp(field, decls[i][0])) {
			*out = (struct plan_tp_field){
				.offset = 40 + 8 * i, .size = 8,
				.is_signed = !strcmp(decls[i][1], "long") };
			snprintf(out->ctype, sizeof(out->ctype), "%s",
				 decls[i][1]);
			return true;
		}
	return false;
}

static int fake_tp_field(const char *cat, const char *name, const char *field,
			 struct plan_tp_field *out, char *why, size_t len)
{
	bool ev2 = !strcmp(name, "ev2");

	memset(out, 0, sizeof(*out));
	if (strcmp(cat, "test") && strcmp(cat, "sched") &&
	    strcmp(cat, "syscalls")) {
		snprintf(why, len, "no tracepoint %s:%s", cat, name);
		return -ENOENT;
	}
	if (!strcmp(field, "n")) {
		*out = (struct plan_tp_field){ .offset = ev2 ? 16 : 8,
					       .size = 4, .is_signed = true };
	} else if (!strcmp(field, "name")) {
		*out = (struct plan_tp_field){ .offset = 12, .size = 16,
					       .is_string = true };
	} else if (!strcmp(field, "path")) {
		*out = (struct plan_tp_field){ .offset = 28, .size = 4,
					       .is_string = true,
					       .data_loc = true };
	} else if (!strcmp(field, "ptr")) {
		*out = (struct plan_tp_field){ .offset = 32, .size = 8,
					       .is_charptr = true };
	} else if (decl_field(field, out)) {
		return 0;
	} else {
		snprintf(why, len, "tracepoint %s:%s has no field '%s' "
			 "(fields: n name path ptr)", cat, name, field);
		return -ENOENT;
	}
	return 0;
}

static int fake_tp_glob(const char *cat, const char *name,
			void (*fn)(void *ctx, const char *cat, const char *name),
			void *ctx)
{
	static const char *const all[][2] = {
		{ "sched", "a" }, { "sched", "b" }, { "test", "ev" },
		{ "test", "ev2" },
	};
	int i, n = 0;

	for (i = 0; i < 4; i++) {
		if ((!strcmp(cat, "*") || !strcmp(cat, all[i][0])) &&
		    (!strcmp(name, "*") || !strncmp(name, all[i][1], 1) ||
		     !strcmp(name, "ev*"))) {
			if (!strcmp(name, "ev*") && strncmp(all[i][1], "ev", 2))
				continue;
			fn(ctx, all[i][0], all[i][1]);
			n++;
		}
	}
	return n;
}

static bool fake_has_kprobes(void)
{
	return !no_kprobes;
}

/* Trampolines are refused when no_kprobes is set too. */
static int fake_trampoline(int func)
{
	return no_kprobes ? -EPERM : func > 0 ? 0 : -EINVAL;
}

static const struct plan_env fake_env = {
	.tp_field = fake_tp_field,
	.tp_glob = fake_tp_glob,
	.has_kprobes = fake_has_kprobes,
	.trampoline = fake_trampoline,
	.btf = fake_get_btf,
};

struct planned {
	struct expr *e;
	struct plan p;
	struct expr_error err;
	int ret;
};

static struct planned *build(const char *in, bool unsafe)
{
	struct planned *pl = calloc(1, sizeof(*pl));

	if (!pl)
		abort();
	pl->e = expr_parse(in, &pl->err);
	pl->ret = pl->e ? plan_build(pl->e, &pl->p, &fake_env, unsafe,
				     &pl->err) : -EINVAL;
	return pl;
}

static void done(struct planned *pl)
{
	if (!pl)
		return;
	if (pl->e)
		plan_free(&pl->p);
	expr_free(pl->e);
	free(pl);
}

/* @in plans without error. */
static struct planned *plan_ok(const char *in)
{
	struct planned *pl = build(in, true);

	CHECK(pl->ret == 0, label("plans: %s", in));
	if (pl->ret)
		printf("#   %s at column %d\n", pl->err.msg, pl->err.col);
	return pl;
}

static void plan_err(const char *in, int col, const char *msg)
{
	struct planned *pl = build(in, false);

	CHECK(pl->ret == -EINVAL && pl->e, label("rejected by plan: %s", in));
	CHECK_STR(pl->err.msg, msg, label("message: %s", in));
	CHECK_INT(pl->err.col, col, label("column: %s", in));
	done(pl);
}

/* A program as text: "F1 I1 EQ S0=comm S1=#0 SCMP LAND". */
static const char *prog_text(const struct scry_insn *code, int max, char *buf,
			     size_t len)
{
	static const char *const names[SCRY_NOPS] = {
		[SCRY_OP_ADD] = "ADD", [SCRY_OP_SUB] = "SUB",
		[SCRY_OP_MUL] = "MUL", [SCRY_OP_DIV] = "DIV",
		[SCRY_OP_MOD] = "MOD", [SCRY_OP_BAND] = "BAND",
		[SCRY_OP_BOR] = "BOR", [SCRY_OP_BXOR] = "BXOR",
		[SCRY_OP_SHL] = "SHL", [SCRY_OP_SHR] = "SHR",
		[SCRY_OP_EQ] = "EQ", [SCRY_OP_NE] = "NE", [SCRY_OP_LT] = "LT",
		[SCRY_OP_LE] = "LE", [SCRY_OP_GT] = "GT", [SCRY_OP_GE] = "GE",
		[SCRY_OP_LAND] = "LAND", [SCRY_OP_LOR] = "LOR",
		[SCRY_OP_NEG] = "NEG", [SCRY_OP_BNOT] = "BNOT",
		[SCRY_OP_LNOT] = "LNOT", [SCRY_OP_DROP] = "DROP",
		[SCRY_OP_SID] = "SID", [SCRY_OP_SIGNAL] = "SIGNAL",
		[SCRY_OP_STACKS] = "STACKS",
	};
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < max && code[i].op != SCRY_OP_END && n < len; i++) {
		const struct scry_insn *in = &code[i];
		const char *sep = i ? " " : "";

		switch (in->op) {
		case SCRY_OP_IMM:
			n += snprintf(buf + n, len - n, "%sI%lld", sep,
				      (long long)in->imm);
			break;
		case SCRY_OP_FIELD:
			n += snprintf(buf + n, len - n, "%sF%d", sep, in->a);
			break;
		case SCRY_OP_LDL: case SCRY_OP_STL: case SCRY_OP_LDT:
		case SCRY_OP_STT:
			n += snprintf(buf + n, len - n, "%s%s%d", sep,
				      in->op == SCRY_OP_LDL ? "LDL" :
				      in->op == SCRY_OP_STL ? "STL" :
				      in->op == SCRY_OP_LDT ? "LDT" : "STT",
				      in->a);
			break;
		case SCRY_OP_JMP: case SCRY_OP_JZ:
			n += snprintf(buf + n, len - n, "%s%s@%u", sep,
				      in->op == SCRY_OP_JMP ? "JMP" : "JZ",
				      in->d);
			break;
		case SCRY_OP_SCOMM:
			n += snprintf(buf + n, len - n, "%sS%d=comm", sep,
				      in->a);
			break;
		case SCRY_OP_SLIT:
			n += snprintf(buf + n, len - n, "%sS%d=#%lld", sep,
				      in->a, (long long)in->imm);
			break;
		case SCRY_OP_SREAD:
			n += snprintf(buf + n, len - n, "%sS%d=str", sep,
				      in->a);
			break;
		case SCRY_OP_STP:
			n += snprintf(buf + n, len - n, "%sS%d=tp%d", sep,
				      in->a, in->c);
			break;
		case SCRY_OP_SFROMID:
			n += snprintf(buf + n, len - n, "%sS%d=id", sep,
				      in->a);
			break;
		case SCRY_OP_SCOPY:
			n += snprintf(buf + n, len - n, "%sS%d=S%d", sep,
				      in->a, in->b);
			break;
		case SCRY_OP_SSTORE:
			n += snprintf(buf + n, len - n, "%sSTS%d", sep, in->a);
			break;
		case SCRY_OP_SCMP:
			n += snprintf(buf + n, len - n, "%sSCMP%s", sep,
				      in->c ? "!" : "");
			break;
		case SCRY_OP_MLOAD: case SCRY_OP_MSTORE: case SCRY_OP_MADD:
		case SCRY_OP_MDEL: case SCRY_OP_MAGG:
			n += snprintf(buf + n, len - n, "%s%s%d/k%d", sep,
				      in->op == SCRY_OP_MLOAD ? "MLOAD" :
				      in->op == SCRY_OP_MSTORE ? "MSTORE" :
				      in->op == SCRY_OP_MADD ? "MADD" :
				      in->op == SCRY_OP_MDEL ? "MDEL" : "MAGG",
				      in->a, in->b);
			break;
		case SCRY_OP_OUT:
			n += snprintf(buf + n, len - n, "%sOUT%lld", sep,
				      (long long)in->imm);
			break;
		case SCRY_OP_READ:
			n += snprintf(buf + n, len - n, "%sREAD%d%s%s", sep,
				      in->a, in->c ? "s" : "", in->b ? "u" : "");
			break;
		case SCRY_OP_JOIN:
			n += snprintf(buf + n, len - n, "%sJOIN%lld", sep,
				      (long long)in->imm);
			break;
		default:
			n += snprintf(buf + n, len - n, "%s%s", sep,
				      in->op < SCRY_NOPS && names[in->op] ?
				      names[in->op] : "?");
		}
	}
	return buf;
}

static void check_code(const char *in, int clause, const char *begin,
		       const char *body)
{
	struct planned *pl = plan_ok(in);
	char buf[1024];

	if (!pl->ret && clause < pl->p.nclauses) {
		const struct plan_clause *cl = &pl->p.clauses[clause];

		CHECK_STR(prog_text(cl->begin, SCRY_MAX_BEGIN_INSNS, buf,
				    sizeof(buf)), begin,
			  label("begin of clause %d: %s", clause, in));
		CHECK_STR(prog_text(cl->body, SCRY_MAX_INSNS, buf,
				    sizeof(buf)), body,
			  label("body of clause %d: %s", clause, in));
	}
	done(pl);
}

/* Every kind: its source, begin/end nature, flags. */
static void test_kinds(void)
{
	static const struct {
		const char *in;
		const struct source *src;
		unsigned flags;
		bool in_task;	/* its maps may fill as keys arrive */
	} cases[] = {
		{ "offcpu", &source_offcpu,
		  SCRY_CL_END | SCRY_CL_STACKS_AT_BEGIN | SCRY_CL_SWITCH_END,
		  false },
		{ "uprobe:libc:malloc", &source_uprobe, 0, true },
		{ "uretprobe:libc:malloc", &source_uretprobe, SCRY_CL_END, true },
		{ "usdt:./srv:app:start", &source_usdt, 0, true },
		{ "syscall:read", &source_syscall, SCRY_CL_END, true },
		{ "syscall::read:entry", &source_syscall, SCRY_CL_ENTRY, true },
		{ "syscall::read:return", &source_syscall, SCRY_CL_END, true },
		{ "tracepoint:test:ev", &source_tracepoint, 0, false },
		{ "profile", &source_profile, 0, false },
		{ "profile:hz:49", &source_profile, 0, false },
		{ "interval:s:1", &source_interval, SCRY_CL_ANY_TASK, false },
		{ "software:faults:1", &source_software, 0, false },
		{ "hardware:cycles", &source_hardware, 0, false },
		{ "kprobe:vfs_read", &source_kprobe, 0, false },
		{ "kretprobe:vfs_read", &source_kretprobe, SCRY_CL_END, false },
		{ "fbt::vfs_read:entry", &source_fbt, 0, false },
		{ "fbt::vfs_read:return", &source_fbt, SCRY_CL_END, false },
		{ "BEGIN", &source_begin, 0, true },
		{ "END", &source_end, 0, true },
		/* io_uring completions: not known to run in a task */
		{ "syscall:io_uring_read", &source_syscall, SCRY_CL_END,
		  false },
		/* bpftrace's short names */
		{ "t:test:ev", &source_tracepoint, 0, false },
		{ "u:libc:malloc", &source_uprobe, 0, true },
		{ "ur:libc:malloc", &source_uretprobe, SCRY_CL_END, true },
		{ "U:./srv:app:start", &source_usdt, 0, true },
		{ "k:vfs_read", &source_kprobe, 0, false },
		{ "kr:vfs_read", &source_kretprobe, SCRY_CL_END, false },
		{ "p:hz:49", &source_profile, 0, false },
		{ "i:s:1", &source_interval, SCRY_CL_ANY_TASK, false },
		{ "s:faults:1", &source_software, 0, false },
		{ "h:cycles", &source_hardware, 0, false },
	};
	struct planned *pl;
	char lbuf[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pl = plan_ok(cases[i].in);

		if (!pl->ret) {
			CHECK(pl->p.probes[0].src == cases[i].src,
			      label("source: %s", cases[i].in));
			CHECK_INT(pl->p.clauses[0].flags & ~(SCRY_CL_KSTACK |
							     SCRY_CL_USTACK),
				  cases[i].flags, label("flags: %s",
						       cases[i].in));
			CHECK_INT(plan_in_task(&pl->p), cases[i].in_task,
				  label("in a task: %s", cases[i].in));
			/* a bare probe counts its firings */
			CHECK(pl->p.nmaps == 1 && pl->p.maps[0].agg ==
			      SCRY_AGG_COUNT, label("counts: %s",
						    cases[i].in));
		}
		done(pl);
	}
	/* in a task only if every probe's programs are */
	pl = plan_ok("uprobe:libc:malloc { @u = count() } "
		     "syscall:read { @s = count() } BEGIN { @b = count() }");
	CHECK(!pl->ret && plan_in_task(&pl->p),
	      "in a task: uprobe, syscall and BEGIN together");
	done(pl);
	pl = plan_ok("uprobe:libc:malloc { @u = count() } "
		     "profile { @p = count() }");
	CHECK(!pl->ret && !plan_in_task(&pl->p),
	      "in a task: not with a profile probe beside the uprobe");
	done(pl);
	pl = plan_ok("syscall:read,io_uring_write { @s = count() }");
	CHECK(!pl->ret && !plan_in_task(&pl->p),
	      "in a task: not with io_uring completions in the list");
	done(pl);
	/* one program with interrupts off, aggregating once at most */
	pl = plan_ok("offcpu { @[kstack, ustack] = sum(latency) }");
	CHECK(!pl->ret && plan_fills_warm(&pl->p),
	      "fills warm: offcpu aggregating once");
	done(pl);
	pl = plan_ok("offcpu { @a = count(); @b = sum(latency) }");
	CHECK(!pl->ret && !plan_fills_warm(&pl->p),
	      "fills warm: not offcpu aggregating twice");
	done(pl);
	pl = plan_ok("offcpu { @a = count() } offcpu { @b = count() }");
	CHECK(!pl->ret && !plan_fills_warm(&pl->p),
	      "fills warm: not two offcpu clauses");
	done(pl);
	pl = plan_ok("offcpu { @a = count() } uprobe:libc:malloc { @u = count() }");
	CHECK(!pl->ret && plan_fills_warm(&pl->p),
	      "fills warm: offcpu beside a uprobe");
	done(pl);
	pl = plan_ok("offcpu { @a = count() } profile { @p = count() }");
	CHECK(!pl->ret && !plan_fills_warm(&pl->p),
	      "fills warm: not offcpu beside a profile probe");
	done(pl);
	pl = plan_ok("uprobe:libc:malloc { @u = count() }");
	CHECK(!pl->ret && !plan_fills_warm(&pl->p),
	      "fills warm: not a plan all in a task (plan_in_task's)");
	done(pl);
	for (i = 0; sources[i]; i++)
		CHECK(source_find(sources[i]->name) == sources[i],
		      label("source_find(%s)", sources[i]->name));
	CHECK(source_find("nope") == NULL, "source_find(nope) is NULL");
	/* `probe` names the kind in full, as bpftrace does */
	pl = plan_ok("t:test:ev { @[probe] = count() }");
	CHECK(!pl->ret && !strcmp(plan_probe_label(&pl->p, 0, false, lbuf,
						   sizeof(lbuf)),
				  "tracepoint:test:ev"),
	      "probe of t:test:ev is tracepoint:test:ev");
	done(pl);
}

static void test_probe_parts(void)
{
	struct planned *pl;

	pl = plan_ok("syscall:read,pread64,openat");
	if (!pl->ret) {
		const __u64 *set = pl->p.probes[0].syscall_set;

		CHECK(set[0] & 1ULL << 0, "syscall set: read (0)");
		CHECK(set[0] & 1ULL << 17, "syscall set: pread64 (17)");
		CHECK(set[4] & 1ULL << (257 - 256), "syscall set: openat (257)");
		CHECK(!(set[0] & 1ULL << 1), "syscall set: not write");
	}
	done(pl);
	pl = plan_ok("syscall:*read*");
	if (!pl->ret)
		CHECK((pl->p.probes[0].syscall_set[0] & 0x20001) == 0x20001,
		      "syscall glob: read and pread64");
	done(pl);
	pl = plan_ok("syscall:::entry");
	if (!pl->ret)
		CHECK(pl->p.probes[0].syscall_set[0] == ~0ULL &&
		      pl->p.probes[0].syscall_entry, "DTrace syscall:::entry: all");
	done(pl);
	pl = plan_ok("profile:997");
	CHECK(!pl->ret && pl->p.probes[0].hz == 997, "profile:997");
	done(pl);
	pl = plan_ok("profile:ms:10");
	CHECK(!pl->ret && pl->p.probes[0].period == 10000000 &&
	      !pl->p.probes[0].hz, "profile:ms:10: a period");
	done(pl);
	pl = plan_ok("profile:::tick-1sec");
	CHECK(!pl->ret && pl->p.probes[0].period == 1000000000 &&
	      pl->p.probes[0].one_cpu, "DTrace tick-1sec: one CPU, 1 s");
	done(pl);
	pl = plan_ok("tick-10ms { @t = count() } profile-97 { @[kstack] = "
		     "count() }");
	CHECK(!pl->ret && pl->p.probes[0].period == 10000000 &&
	      pl->p.probes[0].one_cpu && pl->p.probes[1].hz == 97 &&
	      pl->p.probes[1].src == &source_profile,
	      "DTrace's bare tick-10ms, profile-97");
	done(pl);
	pl = plan_ok("dtrace:::BEGIN { @a = 1 } dtrace:::END { @b = 2 }");
	CHECK(!pl->ret && pl->p.probes[0].src == &source_begin &&
	      pl->p.probes[1].src == &source_end && pl->p.probes[1].at_end &&
	      pl->p.clauses[0].special, "dtrace:::BEGIN, dtrace:::END");
	done(pl);
	pl = plan_ok("fbt::f:return { @a[arg1] = count() } syscall::read:return "
		     "{ @b[arg0, arg2] = count() }");
	CHECK(!pl->ret && pl->p.keyspecs[0].src[0] == SCRY_F_RETVAL &&
	      pl->p.keyspecs[1].src[0] == SCRY_F_RETVAL &&
	      pl->p.keyspecs[1].src[1] == SCRY_F_ARG2,
	      "DTrace :return keys: arg0/arg1 are retval, arg2 stays");
	done(pl);
	pl = plan_ok("interval:ms:250");
	CHECK(!pl->ret && pl->p.probes[0].period == 250000000 &&
	      pl->p.probes[0].one_cpu, "interval:ms:250");
	done(pl);
	pl = plan_ok("software:page-faults:100");
	CHECK(!pl->ret && pl->p.probes[0].period == 100 &&
	      pl->p.probes[0].perf_type == 1 /* PERF_TYPE_SOFTWARE */ &&
	      pl->p.probes[0].perf_config == 2 /* PAGE_FAULTS */,
	      "software:page-faults:100");
	done(pl);
	pl = plan_ok("software:cs");
	CHECK(!pl->ret && pl->p.probes[0].period == 1000,
	      "software:cs: every 1000th by default");
	done(pl);
	pl = plan_ok("tracepoint:sched:* { @[probe] = count() }");
	if (!pl->ret) {
		char buf[64];

		CHECK_INT(pl->p.probes[0].nnames, 2, "tracepoint glob: two");
		CHECK_STR(plan_probe_label(&pl->p, 1, false, buf, sizeof(buf)),
			  "tracepoint:sched:b", "probe label: by cookie");
		CHECK_STR(plan_probe_label(&pl->p, 1, true, buf, sizeof(buf)),
			  "b", "func label: the event");
	}
	done(pl);
	pl = plan_ok("syscall:read,write { @[probe, func] = count() }");
	if (!pl->ret) {
		char buf[64];

		CHECK_STR(plan_probe_label(&pl->p, 1, false, buf, sizeof(buf)),
			  "syscall:write", "syscall probe: by number");
		CHECK_STR(plan_probe_label(&pl->p, 0, true, buf, sizeof(buf)),
			  "read", "syscall func: the name");
	}
	done(pl);
	pl = plan_ok("uprobe:libc:malloc, uprobe:libc:free { @[func] = count() }");
	if (!pl->ret) {
		char buf[64];

		CHECK_INT(pl->p.probes[1].cookie0, 1, "second probe's cookie");
		CHECK_STR(plan_probe_label(&pl->p, 1, true, buf, sizeof(buf)),
			  "free", "func of the second probe");
		CHECK_STR(plan_probe_label(&pl->p, (1ULL << 32) | 0, false, buf,
					   sizeof(buf)), "4294967296",
			  "no clause 1: the number");
	}
	done(pl);
}

/*
 * The predicate split: pure event fields at begin (before stacks and
 * parking), the rest (latency, retval, maps, time) first in the body,
 * then the stack walk, then the statements.
 */
static void test_code(void)
{
	/* F1 pid, F12 retval, S0=comm, F13 latency, F14 state */
	check_code("syscall:read /pid == 1 && retval < 0 && comm == \"cat\"/",
		   0, "F1 I1 EQ S0=comm S1=#0 SCMP LAND",
		   "F12 I0 LT JZ@6 I1 MAGG0/k0");
	check_code("uprobe:libc:malloc /arg0 > 10 && pid != 2/ "
		   "{ @[ustack] = quantize(arg0) }", 0,
		   "F6 I10 GT F1 I2 NE LAND", "STACKS F6 MAGG0/k0");
	check_code("uretprobe:libc:malloc /retval == 0 || pid == 3/", 0,
		   "", "F12 I0 EQ F1 I3 EQ LOR JZ@10 I1 MAGG0/k0");
	/* offcpu's stacks are the adapter's, at begin: no STACKS */
	check_code("offcpu /latency >= 1000 && state == 2/ "
		   "{ @[kstack, ustack, comm] = quantize(latency) }", 0,
		   "F14 I2 EQ", "F13 I1000 GE JZ@6 F13 MAGG0/k0");
	check_code("offcpu /!(pid == 1)/", 0, "F1 I1 EQ LNOT", "I1 MAGG0/k0");
	/* map reads, time: in the body */
	check_code("kprobe:a { @s[tid] = nsecs } kretprobe:a /@s[tid]/ "
		   "{ @ns[comm] = hist(nsecs - @s[tid]); delete(@s[tid]) }",
		   1, "", "MLOAD0/k1 JZ@7 F20 MLOAD0/k3 SUB MAGG1/k2 MDEL0/k4");
	check_code("kprobe:a { @s[tid] = nsecs } kretprobe:a /@s[tid]/ "
		   "{ @ns[comm] = hist(nsecs - @s[tid]); delete(@s, tid) }",
		   1, "", "MLOAD0/k1 JZ@7 F20 MLOAD0/k3 SUB MAGG1/k2 MDEL0/k4");
	check_code("kprobe:a { @s[tid] = nsecs }", 0, "", "F20 MSTORE0/k0");
	/* arithmetic, strings, variables, if */
	check_code("uprobe:a:b { $a = arg0 * 2 + 1; if ($a > 3) { @x = $a } else "
		   "{ @y = -$a } }", 0, "",
		   "F6 I2 MUL I1 ADD STL0 LDL0 I3 GT JZ@13 LDL0 MSTORE0/k0 "
		   "JMP@16 LDL0 NEG MSTORE1/k1");
	check_code("tracepoint:test:ev /args.name == \"x\"/ "
		   "{ @[args->n, str(args.ptr)] = sum(args.n) }", 0, "",
		   "S0=tp0 S1=#0 SCMP JZ@9 F7 F8 S0=str F7 MAGG0/k0");
	check_code("uprobe:a:b { printf(\"%d %s\\n\", pid, comm); exit() }", 0,
		   "", "F1 S0=comm OUT0 OUT1");
	check_code("uprobe:a:b { @[probe] = count() } BEGIN { @n = 1 }", 1, "",
		   "I1 MSTORE1/k1");
	check_code("uprobe:a:b { self->t = nsecs; @[arg0 ? 1 : 2] = count(); "
		   "self->t++ }", 0, "",
		   "F20 STT0 F6 JZ@6 I1 JMP@7 I2 I1 MAGG0/k0 LDT0 I1 ADD STT0");
	check_code("uprobe:a:b { $s = comm; @[$s] = count() }", 0, "",
		   "S0=comm STS7 S0=S7 I1 MAGG0/k0");
	/* DTrace's :return: arg0 (syscall), arg1 (both) are retval, F12 */
	check_code("syscall::read:return { @a = sum(arg0); @b = sum(arg1); "
		   "@c = sum(arg2) }", 0, "",
		   "F12 MAGG0/k0 F12 MAGG1/k1 F8 MAGG2/k2");
	check_code("fbt::f:return { @ = sum(arg1) }", 0, "", "F12 MAGG0/k0");
	check_code("syscall::read:entry { @ = sum(arg0) }", 0, "",
		   "F6 MAGG0/k0");
	check_code("uprobe:a:b { @ = sum(arg0) }", 0, "", "F6 MAGG0/k0");
	check_code("uprobe:a:b /arg1/ { @ = sum(arg0) }", 0, "F7",
		   "F6 MAGG0/k0");
	check_code("uprobe:a:b /comm != \"a\"/ { @x[pid] += 5; @x[tid]-- }", 0,
		   "S0=comm S1=#0 SCMP!", "I5 MADD0/k0 I1 NEG MADD0/k1");
}

/* Kernel structs through BTF: offsets, reads, strings, errors. */
static void test_btf(void)
{
	/* F25 curtask */
	check_code("uprobe:a:b { @[curtask->pid] = count() }", 0, "",
		   "F25 READ4s I1 MAGG0/k0");
	check_code("uprobe:a:b { @[curtask->comm] = count() }", 0, "",
		   "F25 I8 ADD S0=str I1 MAGG0/k0");
	check_code("uprobe:a:b { @x = curtask->mm->start_code }", 0, "",
		   "F25 I24 ADD READ8 READ8 MSTORE0/k0");
	check_code("uprobe:a:b { @x = curtask->mm->owner->pid }", 0, "",
		   "F25 I24 ADD READ8 I8 ADD READ8 READ4s MSTORE0/k0");
	check_code("uprobe:a:b { @x = curtask->nested }", 0, "",
		   "F25 I32 ADD READ4s MSTORE0/k0");
	check_code("uprobe:a:b { @x = curtask->embedded.start_code }", 0, "",
		   "F25 I56 ADD READ8 MSTORE0/k0");
	check_code("uprobe:a:b { @x = ((struct mm_struct *)arg0)->owner->pid }",
		   0, "", "F6 I8 ADD READ8 READ4s MSTORE0/k0");
	check_code("uprobe:a:b { @x = str(curtask->cptr) }", 0, "",
		   "F25 I48 ADD READ8 S0=str MSTORE0/k0");
	plan_err("uprobe:a:b { @x = curtask->comm[1] }", 19, "'[]': a string "
		 "is no kernel array or pointer");
	plan_err("uprobe:a:b { @x = curtask->flags }", 19, "'flags' is a "
		 "bitfield: scry does not read those");
	plan_err("uprobe:a:b { @x = curtask->nope }", 19, "struct task_struct "
		 "has no member 'nope'");
	plan_err("uprobe:a:b { @x = pid->x }", 19, "'->x': a number is no "
		 "kernel struct (curtask is one; cast an address: (struct path "
		 "*)arg0)");
	plan_err("uprobe:a:b { printf(\"%s\", curtask->cptr) }", 27,
		 "%s needs a string, and this is a char * pointer: use str() "
		 "to read the string it points to");
	plan_err("uprobe:a:b { @x = ((struct nope *)arg0)->x }", 20, "the "
		 "kernel has no struct nope (BTF)");
	plan_err("uprobe:a:b { @x = ((struct mm_struct **)arg0) }", 20,
		 "casts are to (struct NAME *), (union NAME *), (char *) or a "
		 "number type");
	/* a number cast converts as C does: (u32) keeps the low 32 bits,
	 * (s8) sign-extends the low 8, a 64-bit type is the value */
	check_code("uprobe:a:b { @x = (u32)arg0 + (unsigned long)1 }", 0, "",
		   "F6 I4294967295 BAND I1 ADD MSTORE0/k0");
	check_code("uprobe:a:b { @x = (int8)arg0 }", 0, "",
		   "F6 I56 SHL I56 SHR MSTORE0/k0");
	check_code("uprobe:a:b { @x = (const bool)arg0 }", 0, "",
		   "F6 I0 NE MSTORE0/k0");
	plan_err("uprobe:a:b { @x = (void)arg0 }", 19, "(void): not a number "
		 "type scry knows (u8..u64, s8..s64, int8...uint64, char..long "
		 "long, size_t, bool)");

	/* fentry/fexit: args.NAME by the prototype, cut to its width */
	check_code("fentry:wake { @[args->t->pid] = sum(args.n) }", 0, "",
		   "F6 READ4s F7 I32 SHL I32 SHR MAGG0/k0");
	check_code("kfunc:vmlinux:wake { @[str(args.s)] = max(args.c) }", 0,
		   "", "F8 S0=str F9 I56 SHL I56 SHR MAGG0/k0");
	check_code("fexit:wake /retval < 0/ { @ = hist(args.u) }", 0,
		   "", "F12 I0 LT JZ@6 F10 MAGG0/k0");
	check_code("fentry:wake { @x = args.t->mm->start_code }", 0, "",
		   "F6 I24 ADD READ8 READ8 MSTORE0/k0");
	plan_err("fentry:wake { @[args.m] = count() }", 17, "wake has no "
		 "parameter 'm'; did you mean: c, n, s?");
	plan_err("fentry:wake { @ = hist(retval) }", 24, "'retval' needs a "
		 "probe with a return: use uretprobe (or kretprobe, "
		 "fexit, syscall:NAME)");
	plan_err("fentry:wake { printf(\"%s\", args.s) }", 28, "%s needs a "
		 "string, and this is a char * pointer: use str() to read the "
		 "string it points to");
	plan_err("fentry:waek", 8, "no kernel function 'waek' in BTF "
		 "(inlined functions have no trampoline); did you mean: wake?");
	plan_err("fentry:wake, fexit:wake", 14, "one fentry or fexit function "
		 "per clause: give wake its own");
	plan_err("fexit:wake { @ = hist(latency) }", 23, "'latency' needs a "
		 "probe with an entry and a return: use uretprobe (or "
		 "kretprobe, syscall:NAME)");
	plan_err("fexit:w*", 7, "fexit: name one kernel function (fexit "
		 "globs are not supported)");
	no_kprobes = true;
	plan_err("fexit:wake", 1, "this kernel refuses BPF trampolines (an "
		 "fentry program on wake: Operation not permitted): fexit "
		 "cannot attach here; tracepoint:, syscall:, offcpu and "
		 "uprobe: do not need them");
	no_kprobes = false;
}

static void test_maps(void)
{
	struct planned *pl;
	const struct plan_map *m;

	pl = plan_ok("offcpu { @[kstack, ustack, comm] = quantize(latency) }");
	if (!pl->ret) {
		m = &pl->p.maps[0];
		CHECK_STR(m->name, "@", "map: anonymous");
		CHECK_INT(m->nkeys, 3, "map: three keys");
		CHECK(m->key_dst[0] == SCRY_KC_KSTACK &&
		      m->key_dst[1] == SCRY_KC_USTACK &&
		      m->key_dst[2] == SCRY_KC_COMM, "map: stack, stack, comm");
		CHECK(pl->p.keyspecs[0].src[0] == SCRY_F_KSTACK &&
		      pl->p.keyspecs[0].src[2] == SCRY_F_COMM,
		      "keys: read in place");
		CHECK_STR(m->unit, "ns", "map: latency in ns");
		CHECK(pl->p.key_kstack && pl->p.key_ustack, "plan: stacks");
		CHECK(!pl->p.ustack_at_entry, "offcpu: not at an entry");
		CHECK(pl->p.names_user, "plan: a ustack key names user code");
	}
	done(pl);
	/* -c reads a process's mappings at its exit for these (session.c) */
	pl = plan_ok("uprobe:libc:malloc { printf(\"%s\\n\", usym(arg0)) }");
	CHECK(!pl->ret && pl->p.names_user && !pl->p.key_ustack,
	      "plan: a printf's usym() names user code");
	done(pl);
	pl = plan_ok("uprobe:libc:malloc { @[usym(arg0)] = count() }");
	CHECK(!pl->ret && pl->p.names_user, "plan: a usym() key names user code");
	done(pl);
	pl = plan_ok("syscall:read { @[comm, arg0] = count() }");
	CHECK(!pl->ret && !pl->p.names_user, "plan: comm and numbers name none");
	done(pl);
	pl = plan_ok("syscall:read { @[fd.path, errno] = sum(retval) }");
	if (!pl->ret) {
		m = &pl->p.maps[0];
		CHECK(m->key_dst[0] == SCRY_KC_INT0 && m->key_field[0] ==
		      SCRY_F_FDPATH && m->keys[0].fmt == PLAN_F_STRID,
		      "fd.path: a stored string, in ints[0]");
		CHECK(m->key_dst[1] == SCRY_KC_INT0 + 1 && m->key_field[1] ==
		      SCRY_F_ERRNO, "errno: ints[1]");
		CHECK_STR(m->key_names[0], "fd.path", "key name: fd.path");
		CHECK(pl->p.clauses[0].flags & SCRY_CL_FDPATH,
		      "fd.path: resolved at entry");
		CHECK(pl->p.uses_strings, "fd.path: in the string store");
	}
	done(pl);
	pl = plan_ok("uprobe:a:b { @m[arg0 / 1024, str(arg1), stack] = count() }");
	if (!pl->ret) {
		m = &pl->p.maps[0];
		CHECK_INT(m->nkeys, 4, "stack is two columns");
		CHECK_STR(m->key_names[0], "arg0 / 1024", "key name: as written");
		CHECK(m->key_dst[1] == SCRY_KC_STR0 + 1, "str(): a string column");
		CHECK_STR(m->key_names[3], "ustack", "stack: kstack, ustack");
	}
	done(pl);
	pl = plan_ok("uprobe:libc:malloc { @[usym(arg0), ustack] = count() }");
	if (!pl->ret) {
		m = &pl->p.maps[0];
		CHECK(m->has_pid && m->keys[0].fmt == PLAN_F_USYM,
		      "usym: with its pid");
		CHECK(pl->p.ustack_at_entry, "uprobe stacks: at an entry");
	}
	done(pl);
	pl = plan_ok("uprobe:a:b { @a = count(); @v[pid] = comm; @w = 1; "
		     "@h = lhist(arg0, 0, 100, 10); @s = stats(arg0) }");
	if (!pl->ret) {
		CHECK_INT(pl->p.nmaps, 5, "five maps");
		CHECK(pl->p.maps[1].kind == PLAN_MAP_VAR &&
		      pl->p.maps[1].val.kind == PLAN_V_STR,
		      "@v: a variable of strings");
		CHECK(pl->p.maps[3].agg == SCRY_AGG_LQUANTIZE &&
		      pl->p.maps[3].lq_levels == 10, "lhist: lquantize");
		CHECK_INT(pl->p.maps[4].agg, SCRY_AGG_STATS, "stats()");
		CHECK_INT(plan_main_map(&pl->p), 0, "main map: the first agg");
		CHECK_INT(plan_map_find(&pl->p, "@h"), 3, "find @h");
		CHECK_INT(plan_map_find(&pl->p, "w"), 2, "find w");
		CHECK_INT(plan_map_find(&pl->p, "@nope"), -1, "find nothing");
		CHECK(pl->p.uses_vars && pl->p.uses_strings, "vars, strings");
	}
	done(pl);
	/* declared by a later clause: read first, assigned after */
	pl = plan_ok("kretprobe:f /@s[tid]/ { @x = count() } "
		     "kprobe:f { @s[tid] = 1 }");
	done(pl);
}

static void test_printf(void)
{
	struct planned *pl;
	const struct plan_out *o;

	pl = plan_ok("uprobe:a:b { printf(\"%-8s %5d %%x %llx %p %c\\n\", comm, "
		     "pid, arg0, arg1, arg2) }");
	if (!pl->ret) {
		o = &pl->p.outs[0];
		CHECK_INT(o->nconvs, 5, "printf: five conversions");
		CHECK_STR(o->convs[0].spec, "%-8s", "printf: %-8s");
		CHECK_STR(o->convs[1].text, " ", "printf: text between");
		CHECK_STR(o->convs[1].spec, "%5lld", "printf: %5d as 64-bit");
		CHECK_STR(o->convs[2].text, " %x ", "printf: %% is a %");
		CHECK_STR(o->convs[2].spec, "%llx", "printf: %llx");
		CHECK_STR(o->convs[3].spec, "0x%llx", "printf: %p");
		CHECK_STR(o->tail, "\n", "printf: the tail");
		CHECK_INT(o->def.nargs, 5, "record: five values");
		CHECK(o->def.args[0] == SCRY_OUT_STR &&
		      o->def.args[1] == SCRY_OUT_INT, "record: a string, a number");
		CHECK_INT(o->def.size, sizeof(struct scry_out_hdr) +
			  sizeof(struct scry_path) + 4 * 8, "record: its size");
	}
	done(pl);
	pl = plan_ok("uprobe:a:b { printf(\"%s %s\\n\", ksym(arg0), probe); "
		     "print(@m); clear(@m); zero(@m); time(); print(5); "
		     "@m[1] = 1 }");
	if (!pl->ret) {
		CHECK_INT(pl->p.nouts, 6, "six records");
		CHECK(pl->p.outs[0].convs[0].type.fmt == PLAN_F_KSYM,
		      "printf: a symbol for %s");
		CHECK(pl->p.outs[1].kind == PLAN_OUT_PRINT &&
		      pl->p.outs[1].map == 0, "print(@m)");
		CHECK_STR(pl->p.outs[4].fmt, "%H:%M:%S\n", "time(): its default");
		CHECK_INT(pl->p.outs[5].kind, PLAN_OUT_VALUE, "print(5)");
	}
	done(pl);
	pl = plan_ok("uprobe:a:b { @m[arg0] = count(); print(@m, 10) }");
	CHECK(!pl->ret && pl->p.outs[0].kind == PLAN_OUT_PRINT &&
	      pl->p.outs[0].map == 0 && pl->p.outs[0].top == 10,
	      "print(@m, 10): its 10 largest rows");
	done(pl);
	plan_err("uprobe:a:b { @m = count(); print(@m, arg0) }", 38,
		 "print(@map, N): N is a number of rows, written as a number");
}

static void test_lquantize(void)
{
	struct planned *pl;

	pl = plan_ok("offcpu { @ = lquantize(latency, 0, 100, 10) }");
	CHECK(!pl->ret && pl->p.maps[0].lq_levels == 10,
	      "lquantize 0..100 by 10: 10 levels");
	done(pl);
	/* a step that does not divide the range: whole steps only, as DTrace */
	pl = plan_ok("offcpu { @ = lquantize(latency, 0, 10, 3) }");
	CHECK(!pl->ret && pl->p.maps[0].lq_levels == 3,
	      "lquantize 0..10 by 3: 3 levels");
	done(pl);
	/* extremes computed exactly, no signed overflow */
	pl = plan_ok("offcpu { @ = lquantize(latency, -9223372036854775808, "
		     "9223372036854775807, 4611686018427387904) }");
	CHECK(!pl->ret && pl->p.maps[0].lq_levels == 3,
	      "lquantize over all of s64 by 2^62: 3 levels");
	done(pl);
	pl = plan_ok("offcpu { @ = lquantize(latency, -9223372036854775808, "
		     "9223372036854775807, 9223372036854775807) }");
	CHECK(!pl->ret && pl->p.maps[0].lq_levels == 2,
	      "lquantize over all of s64 by s64 max: 2 levels");
	done(pl);
	plan_err("offcpu { @ = lquantize(latency, -9223372036854775808, "
		 "9223372036854775807, 1) }", 76, "lquantize has at most 62 "
		 "steps, (high - low) / step is 18446744073709551615: raise "
		 "the step");
	plan_err("offcpu { @ = lquantize(latency, 0, 10, 100) }", 40,
		 "lquantize step is larger than high - low: no bucket fits; "
		 "lower the step");
	plan_err("offcpu { @ = lquantize(latency, 0, 10, 0) }", 40,
		 "lquantize step must be positive");
	plan_err("offcpu { @ = lquantize(latency, 5, 5, 1) }", 36,
		 "lquantize high must be above low");
	plan_err("offcpu { @ = lquantize(latency, pid, 5, 1) }", 33,
		 "lquantize low must be a number");
	plan_err("offcpu { @ = lquantize(latency, 0, 63, 1) }", 40,
		 "lquantize has at most 62 steps, (high - low) / step is 63: "
		 "raise the step");
	done(plan_ok("offcpu { @ = lquantize(latency, 0, 62, 1) }"));
	done(plan_ok("offcpu { @ = lquantize(latency, -5, 5, 1) }"));
}

/* The limits, each said once, the same way. */
static void test_limits(void)
{
	char in[4096], *o;
	int i;

	/* 10 comparisons of 3 operations + 9 '&&' = 39 > 31 at begin */
	o = in + sprintf(in, "offcpu /pid == 1");
	for (i = 0; i < 9; i++)
		o += sprintf(o, " && pid == 1");
	sprintf(o, "/");
	plan_err(in, 105, "clause too long: at most 31 operations run at the "
		 "begin of an event");
	/* the same joined with '||': one conjunct, the same limit */
	o = in + sprintf(in, "offcpu /pid == 1");
	for (i = 0; i < 9; i++)
		o += sprintf(o, " || pid == 1");
	sprintf(o, "/");
	plan_err(in, 9, "clause too long: at most 31 operations run at the "
		 "begin of an event");
	/* 8 comparisons + 7 joins = 31 fits, either way */
	o = in + sprintf(in, "offcpu /pid == 1");
	for (i = 0; i < 7; i++)
		o += sprintf(o, " && pid == 1");
	sprintf(o, "/");
	done(plan_ok(in));
	o = in + sprintf(in, "offcpu /pid == 1");
	for (i = 0; i < 7; i++)
		o += sprintf(o, " || pid == 1");
	sprintf(o, "/");
	done(plan_ok(in));
	/* a body: 95 operations */
	o = in + sprintf(in, "uprobe:a:b { @x = 1");
	for (i = 0; i < 46; i++)
		o += sprintf(o, " + 1");
	sprintf(o, " }");
	done(plan_ok(in));	/* 93 + MSTORE = 94 */
	o = in + sprintf(in, "uprobe:a:b { @x = 1");
	for (i = 0; i < 48; i++)
		o += sprintf(o, " + 1");
	sprintf(o, " }");
	plan_err(in, 211, "clause too long: at most 95 operations");
	/* nine clauses */
	o = in;
	for (i = 0; i < 9; i++)
		o += sprintf(o, "uprobe:a:b { } ");
	plan_err(in, 121, "too many clauses (at most 8)");
	/* values pending: 17 nested additions from the right */
	o = in + sprintf(in, "uprobe:a:b { @x = ");
	for (i = 0; i < 16; i++)
		o += sprintf(o, "1 + (");
	o += sprintf(o, "1");
	for (i = 0; i < 16; i++)
		o += sprintf(o, ")");
	sprintf(o, " }");
	plan_err(in, 99, "expression too deep: at most 16 values pending at "
		 "once");
}

/*
 * A field is as wide and as signed as its declared C type (bpftrace's
 * reading): an 8-byte syscall argument declared int is its low 4 bytes,
 * signed; a struct pointer is typed for ->.
 */
static void test_tp_decl(void)
{
	static const struct {
		const char *field;
		unsigned size;
		bool sgn;
	} cases[] = {
		{ "dfd", 4, true }, { "mode", 2, false }, { "ret", 8, true },
		{ "uid", 4, false }, { "fk", 2, true }, { "ul", 8, false },
		{ "ts", 8, false }, { "odd", 8, false }, { "sa", 8, false },
	};
	struct planned *pl;
	char in[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(in, sizeof(in), "tracepoint:test:ev { @ = sum(args->%s) }",
			 cases[i].field);
		pl = plan_ok(in);
		if (!pl->ret) {
			const struct plan_tp_field *tf =
				&pl->p.clauses[0].tp_fields[0];

			CHECK_INT(tf->size, cases[i].size,
				  label("%s: width", cases[i].field));
			CHECK_INT(tf->is_signed, cases[i].sgn,
				  label("%s: sign", cases[i].field));
		}
		done(pl);
	}
	/* a typed pointer reads through ->, [i] and * as a cast one does */
	check_code("tracepoint:test:ev { @ = sum(args->ts->owner->pid) }", 0,
		   "", "F6 I8 ADD READ8 READ4s MAGG0/k0");
	check_code("tracepoint:test:ev { @x = *args->ip + args->ip[2] }", 0,
		   "", "F6 READ4s F6 I2 I4 MUL ADD READ4s ADD MSTORE0/k0");
	check_code("tracepoint:test:ev { @x = *args->vp }", 0, "",
		   "F6 READ8s MSTORE0/k0");
	/* a syscall's pointer is the caller's: user memory only, and what
	 * is reached through it too */
	check_code("tracepoint:syscalls:ev { @ = sum(args->ts->owner->pid) }",
		   0, "", "F6 I8 ADD READ8u READ4su MAGG0/k0");
	check_code("tracepoint:syscalls:ev { @ = sum(curtask->mm->start_code) }",
		   0, "", "F25 I24 ADD READ8 READ8 MAGG0/k0");
	plan_err("tracepoint:test:ev { @x = args->vp->a }", 27, "'->a': a "
		 "number is no kernel struct (curtask is one; cast an address: "
		 "(struct path *)arg0)");
}

/*
 * The kernel's constants a tool names after its #include: BTF's
 * enumerators, the task states and address families #define'd.
 */
static void test_consts(void)
{
	check_code("uprobe:a:b /arg0 == TASK_RUNNING || arg1 == TASK_IDLE/", 0,
		   "F6 I0 EQ F7 I1026 EQ LOR", "I1 MAGG0/k0");
	check_code("uprobe:a:b { @x = FAKE_ONE + FAKE_BIG + AF_INET6 }", 0, "",
		   "I1 I4294967280 ADD I10 ADD MSTORE0/k0");
	check_code("uprobe:a:b { printf(\"%s\\n\", ntop(AF_INET, arg0)) }", 0,
		   "", "F6 OUT0");
	plan_err("uprobe:a:b { @x = TASK_RUNING }", 19, "unknown constant "
		 "'TASK_RUNING': no enumerator of the kernel's BTF and no macro "
		 "scry knows (docs/LANGUAGE.md lists them): write its value");
	/* a builtin keeps its name; lower case is no constant */
	plan_err("uprobe:a:b { @x = task_running }", 19, "unknown field "
		 "'task_running' (fields: pid tid comm cpu uid arg0..arg5 retval "
		 "latency nsecs elapsed probe func kstack ustack args.FIELD ...; "
		 "see docs/LANGUAGE.md)");
}

/*
 * A clause whose tracepoints have a field at different places is one
 * clause per place, as if written so (opensnoop's open and openat), the
 * others right after it; a char * stored is its address (str() later).
 */
static void test_split(void)
{
	struct planned *pl;

	pl = plan_ok("tracepoint:test:ev* { @ = sum(args.n) } "
		     "tracepoint:test:ev { @e = count() }");
	if (!pl->ret) {
		CHECK_INT(pl->p.nclauses, 3, "ev* split in two, ev after them");
		CHECK(pl->p.clauses[0].nprobes == 1 &&
		      pl->p.probes[pl->p.clauses[0].first_probe].nnames == 1 &&
		      !strcmp(pl->p.probes[pl->p.clauses[0].first_probe].names[0],
			      "test:ev") &&
		      pl->p.clauses[0].tp_fields[0].offset == 8,
		      "split clause 0: test:ev, n at 8");
		CHECK(pl->p.clauses[1].nprobes == 1 &&
		      !strcmp(pl->p.probes[pl->p.clauses[1].first_probe].names[0],
			      "test:ev2") &&
		      pl->p.probes[pl->p.clauses[1].first_probe].clause == 1 &&
		      pl->p.clauses[1].tp_fields[0].offset == 16,
		      "split clause 1: test:ev2, n at 16");
		CHECK(pl->p.clauses[2].ec == &pl->e->clauses[1],
		      "the next clause comes after the split ones");
		CHECK(pl->p.clauses[0].ec == pl->p.clauses[1].ec,
		      "the split clauses share the expression clause");
	}
	done(pl);
	/* the same with two probes written, one name each */
	pl = plan_ok("tracepoint:test:ev, tracepoint:test:ev2 "
		     "{ @[args.n] = count() }");
	CHECK(!pl->ret && pl->p.nclauses == 2, "ev, ev2: two clauses");
	done(pl);
	/* a field at one place needs no split */
	pl = plan_ok("tracepoint:test:ev* { @[str(args.name)] = count() }");
	CHECK(!pl->ret && pl->p.nclauses == 1, "ev*: name at one place, one "
	      "clause");
	done(pl);
	check_code("tracepoint:test:ev { @p[tid] = args.ptr }", 0, "",
		   "F6 MSTORE0/k0");
}

static void test_errors(void)
{
	/* probes */
	plan_err("dtrace:::ERROR", 1, "dtrace probes are written "
		 "dtrace:::BEGIN or dtrace:::END");
	plan_err("tick-1sec:x", 11, "tick-1sec: DTrace's profile probes are "
		 "written tick-1sec or profile:::tick-1sec");
	plan_err("tick-1y", 1, "DTrace profile probes are written "
		 "profile:::profile-HZ or profile:::tick-Ns (s, ms, us, hz)");
	plan_err("offcup", 1, "unknown probe kind 'offcup'; did you mean: "
		 "offcpu? (offcpu uprobe uretprobe usdt syscall tracepoint "
		 "kprobe kretprobe fbt fentry fexit kfunc kretfunc profile "
		 "interval software hardware BEGIN END dtrace)");
	plan_err("syscall:reed", 9, "unknown syscall 'reed'; did you mean: "
		 "read, readv, rseq? (scry -l 'syscall:*' lists them)");
	plan_err("syscall:read,wrte", 14, "unknown syscall 'wrte'; did you "
		 "mean: write, writev? (scry -l 'syscall:*' lists them)");
	plan_err("syscall:read,,write", 14, "expected a syscall name");
	plan_err("syscall:zzz*", 9, "no syscall matches 'zzz*'");
	plan_err("syscall::read:exit", 15, "DTrace syscall probes end in "
		 ":entry or :return");
	plan_err("uprobe:libc", 1, "uprobe probes are written uprobe:LIB:FUNC");
	plan_err("uprobe::malloc", 8, "empty probe part: uprobe probes are "
		 "written uprobe:LIB:FUNC");
	plan_err("offcpu:x", 8, "offcpu probes are written offcpu");
	plan_err("profile:0", 9, "profile rate must be 1 to 10000 Hz, e.g. "
		 "profile:99");
	plan_err("profile:hz:0", 9, "profile probes are written profile:HZ, "
		 "profile:hz:HZ or profile:s|ms|us:N (HZ 1 to 10000)");
	plan_err("profile:::tock-1s", 11, "DTrace profile probes are written "
		 "profile:::profile-HZ or profile:::tick-Ns (s, ms, us, hz)");
	plan_err("interval:m:1", 10, "interval probes are written "
		 "interval:s|ms|us|hz:N, e.g. interval:s:1");
	plan_err("software:nope", 10, "unknown software event 'nope' "
		 "(cpu-clock cpu task-clock page-faults faults context-switches "
		 "cs cpu-migrations migrations minor-faults major-faults "
		 "alignment-faults emulation-faults dummy bpf-output)");
	plan_err("software:cs:x", 13, "the count must be a positive number: "
		 "software:cs:N");
	plan_err("uprobe:libc:mall*", 13, "'mall*' is a glob: globs are for "
		 "listing (scry -l 'uprobe:...'); name one probe");
	plan_err("tracepoint:nope:*", 12, "no tracepoint matches nope:* "
		 "(scry -l 'tracepoint:...' lists them)");
	plan_err("kprobe:vfs_*", 8, "kprobe: name one kernel function (kprobe "
		 "globs are not supported)");
	no_kprobes = true;
	plan_err("kretprobe:vfs_read", 1, "this kernel has no kprobes (built "
		 "without CONFIG_KPROBES): kretprobe cannot attach here; "
		 "tracepoint:, syscall:, offcpu and uprobe: work");
	no_kprobes = false;
	plan_err("fbt::f:return { @ = sum(arg0) }", 25, "arg0 of "
		 "fbt::f:return is the return's offset in the function, which "
		 "scry does not know: arg1 (retval) is the return value");
	plan_err("syscall::read:return, syscall:write { @ = sum(arg1) }", 47,
		 "arg1 is the return value in DTrace's :return probes, an "
		 "argument in the others: give them separate clauses");
	plan_err("uprobe:a:b { @s[1] = 1; delete(@s, 1, 2) }", 25, "delete() "
		 "is written delete(@map[key]) or delete(@map, key)");
	plan_err("BEGIN, END", 8, "BEGIN and END probes fire differently: "
		 "give each its own clause");
	plan_err("offcpu, uprobe:a:b", 9, "offcpu and uprobe probes fire "
		 "differently: give each its own clause");

	/* names */
	plan_err("offcpu /pdi == 1/", 9, "unknown field 'pdi'; did you mean: "
		 "pid, ppid? (fields: pid tid comm cpu uid arg0..arg5 retval latency "
		 "nsecs elapsed probe func kstack ustack args.FIELD ...; see "
		 "docs/LANGUAGE.md)");
	plan_err("uprobe:a:b { @ = count }", 18, "'count' is a function: write "
		 "count(...)");
	plan_err("uprobe:libc:malloc /retval > 1/", 21, "'retval' needs a "
		 "probe with a return: use uretprobe (or kretprobe, "
		 "fexit, syscall:NAME)");
	plan_err("syscall::read:entry { @ = sum(retval) }", 31, "'retval' "
		 "needs a probe with a return: use uretprobe (or kretprobe, "
		 "fexit, syscall:NAME)");
	plan_err("uprobe:libc:malloc /state > 1/", 21, "'state' does not "
		 "exist for uprobe probes");
	plan_err("offcpu /arg0 > 1/", 9, "'arg0' does not exist for offcpu "
		 "probes");
	plan_err("tracepoint:test:ev /args.nope/", 21, "tracepoint test:ev "
		 "has no field 'nope' (fields: n name path ptr)");
	test_split();
	test_tp_decl();
	test_consts();
	plan_err("offcpu { @ = sum(args.n) }", 18, "args.n: only tracepoints "
		 "have args (arg0..arg5 are this probe's arguments)");
	plan_err("BEGIN { @[kstack] = count() }", 11, "kstack: BEGIN probes "
		 "run in no task's context: there is no stack");
	plan_err("uprobe:a:b { @ = count($x) }", 18, "count() takes 0 arguments");
	plan_err("uprobe:a:b { $x++ }", 14, "$x is used before it is assigned");
	plan_err("uprobe:a:b { @x = self->nope }", 19, "self->nope is never "
		 "assigned");
	plan_err("uprobe:a:b { print(@nope) }", 20, "@nope is never assigned");
	plan_err("uprobe:a:b /@m[1]/", 13, "@m is read but never assigned");

	/* types */
	plan_err("tracepoint:test:ev { @[args.ptr] = count() }", 22, "a key is "
		 "a char * pointer: use str() for the string it points to");
	plan_err("tracepoint:test:ev { printf(\"%s\\n\", args->ptr) }", 37,
		 "%s needs a string, and this is a char * pointer: use str() "
		 "to read the string it points to");
	plan_err("tracepoint:test:ev /args.ptr == \"x\"/", 21, "'==' needs a "
		 "string, and this is a char * pointer: use str() to read the "
		 "string it points to");
	plan_err("uprobe:a:b { printf(\"%s\\n\", arg0) }", 29, "%s needs a string, "
		 "not a number (str(ADDR) reads a string from memory)");
	plan_err("uprobe:a:b { printf(\"%d\\n\", comm) }", 29, "printf's %lld needs "
		 "a number, not a string");
	plan_err("uprobe:a:b { printf(\"%d %d\\n\", pid) }", 14, "printf: the format "
		 "has 2 conversions, and 1 value follows it");
	plan_err("uprobe:a:b { printf(\"%q\\n\", pid) }", 21, "printf: unknown "
		 "conversion '%q' (d i u o x X c s p, with flags, width, "
		 "precision)");
	plan_err("uprobe:a:b { printf(pid) }", 14, "printf() is written printf(\""
		 "FORMAT\", values...) with the format a string");
	plan_err("offcpu /comm < \"x\"/", 9, "strings compare with == and != "
		 "only");
	plan_err("offcpu /pid == \"x\"/", 9, "'==' compares a number with a "
		 "string");
	plan_err("uprobe:a:b { @x = comm; @x = 1 }", 30, "@x holds a string "
		 "(column 14), not a number");
	plan_err("uprobe:a:b { @x = count(); @x = 1 }", 28, "@x is an aggregation "
		 "(column 14): it takes count(), sum() ..., not a value");
	plan_err("uprobe:a:b { @x = count(); @x = sum(1) }", 33, "@x is another "
		 "aggregation at column 14: one map, one kind of value");
	plan_err("uprobe:a:b { @x[pid] = 1; @x[comm] = 2 }", 27, "@x is used with "
		 "other keys than at column 14: every use of a map takes the "
		 "same keys");
	plan_err("uprobe:a:b { @x = count(); @y = @x }", 33, "@x is an aggregation: "
		 "it prints, but cannot be read (keep a count in a variable: "
		 "@x_n[...]++)");
	plan_err("uprobe:a:b { @x = arg0 ? 1 : comm }", 30, "the two sides of '?:' "
		 "differ: a number and a string");
	plan_err("uprobe:a:b { @x = str(arg0, 0) }", 29, "str()'s length must be 1 "
		 "to 255");
	plan_err("uprobe:a:b { @[pid, tid, uid, cpu, gid] = count() }", 14, "too "
		 "many numeric and string keys (at most 4, besides comm and the "
		 "stacks)");
	plan_err("uprobe:a:b { pid }", 14, "this statement does nothing: assign it "
		 "(@x = ...) or print it (printf, print)");
	plan_err("uprobe:a:b { str(arg0) }", 14, "str(): a value, not a statement "
		 "(assign it: @x = ..., $x = ...)");
	plan_err("uprobe:a:b { @x = printf(\"\") }", 19, "printf() is a statement, "
		 "not a value");
	plan_err("uprobe:a:b { @x = nosuch(1) }", 19, "unknown function 'nosuch'");
	plan_err("uprobe:a:b { @x = quantise(1) }", 19, "unknown function "
		 "'quantise'; did you mean: quantize, lquantize?");
	plan_err("uprobe:a:b { signal(9) }", 14, "signal() sends signals to traced "
		 "processes: allow it with --unsafe (bpftrace's --unsafe, "
		 "DTrace's -w)");
	plan_err("uprobe:a:b { join(arg0, 1) }", 14, "join() is written "
		 "join(ARGV) or join(ARGV, \"SEPARATOR\")");
	check_code("uprobe:a:b { join(arg0); join(arg1, \",\") }", 0, "",
		   "F6 JOIN0 F7 JOIN1");

	plan_err("uprobe:a:b { @x = count(); delete(@x[1]) }", 35, "@x is an "
		 "aggregation: clear(@x) empties it");
	{
		struct planned *pl = build("uprobe:a:b { signal(\"SIGKILL\") }",
					   true);

		CHECK(pl->ret == 0 && pl->p.uses_signal,
		      "signal() with --unsafe");
		done(pl);
	}
}

/* The build of the engine each plan loads (attach.c, Makefile). */
static void test_engine_build(void)
{
	static const struct {
		const char *in;
		enum attach_engine want;
	} cases[] = {
		{ "offcpu { @[kstack, ustack, comm] = quantize(latency) }",
		  ENGINE_LEAN },
		{ "offcpu /state == 2 && latency >= 1000/ "
		  "{ @[kstack, ustack, comm] = quantize(latency) }",
		  ENGINE_LEAN },
		{ "uprobe:libc:malloc { @c[ustack] = count(); "
		  "@b[ustack] = sum(arg0); @s[ustack] = quantize(arg0) }",
		  ENGINE_LEAN },
		{ "syscall:read { @[fd.path] = sum(retval) }", ENGINE_LEAN },
		{ "profile:hz:99 { @[kstack, ustack, comm] = count() }",
		  ENGINE_LEAN },
		{ "uprobe:libc:malloc { @[arg0 / 1024] = count() }",
		  ENGINE_ONE },
		{ "uprobe:libc:malloc { printf(\"%d\\n\", arg0) }",
		  ENGINE_ONE },
		{ "uprobe:libc:malloc { self->t = nsecs }", ENGINE_ONE },
		{ "uprobe:libc:malloc { @[str(arg0)] = count() }", ENGINE_ONE },
		{ "uprobe:libc:malloc { @n = count() } "
		  "uprobe:libc:free { @f = count() }", ENGINE_ALL },
	};
	struct planned *pl;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pl = plan_ok(cases[i].in);
		if (!pl->ret)
			CHECK_INT(attach_engine_for(&pl->p), cases[i].want,
				  label("engine build: %s", cases[i].in));
		done(pl);
	}
}

int main(void)
{
	test_kinds();
	test_probe_parts();
	test_code();
	test_btf();
	test_maps();
	test_printf();
	test_lquantize();
	test_limits();
	test_errors();
	test_engine_build();
	fake_btf_free();
	return CHECK_DONE();
}
