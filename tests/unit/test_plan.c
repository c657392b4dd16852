/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan: what an expression means to the engine. Probe kinds and their
 * parts, the fields each kind gives, the predicate split between the
 * begin and the end of an event, key layout, aggregation parameters, and
 * every semantic error with its column. No root, no system: tracepoint
 * formats come from a fake environment.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scry/expr.h>
#include <scry/plan.h>
#include <scry/source.h>
#include "check.h"

static char what[512];

__attribute__((format(printf, 1, 2)))
static const char *label(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return what;
}

/*
 * The fake system: tracepoint test:ev has an int `n` (offset 8, 4 bytes,
 * signed), a char[16] `name`, a __data_loc `path`; nothing else exists.
 */
static int fake_tp_field(const char *cat, const char *name, const char *field,
			 struct plan_tp_field *out, char *why, size_t len)
{
	memset(out, 0, sizeof(*out));
	if (strcmp(cat, "test") || strcmp(name, "ev")) {
		snprintf(why, len, "no tracepoint %s:%s", cat, name);
		return -ENOENT;
	}
	if (!strcmp(field, "n")) {
		*out = (struct plan_tp_field){ .offset = 8, .size = 4,
					       .is_signed = true };
	} else if (!strcmp(field, "name")) {
		*out = (struct plan_tp_field){ .offset = 12, .size = 16,
					       .is_string = true };
	} else if (!strcmp(field, "path")) {
		*out = (struct plan_tp_field){ .offset = 28, .size = 4,
					       .is_string = true,
					       .data_loc = true };
	} else {
		snprintf(why, len, "tracepoint test:ev has no field '%s' "
			 "(fields: n name path)", field);
		return -ENOENT;
	}
	return 0;
}

static const struct plan_env fake_env = { .tp_field = fake_tp_field };

/* Parse and plan @in; the expression stays alive for the plan's strings. */
static int build(const char *in, struct plan *p, struct expr **e,
		 struct expr_error *err)
{
	memset(err, 0, sizeof(*err));
	*e = expr_parse(in, err);
	if (!*e)
		return -EINVAL;
	return plan_build(*e, p, &fake_env, err);
}

/* @in plans without error; returns the expression to free. */
static struct expr *plan_ok(const char *in, struct plan *p)
{
	struct expr_error err;
	struct expr *e;
	int ret = build(in, p, &e, &err);

	CHECK(ret == 0, label("plans: %s", in));
	if (ret)
		printf("#   %s at column %d\n", err.msg, err.col);
	return e;
}

static void plan_err(const char *in, int col, const char *msg)
{
	struct expr_error err;
	struct plan p;
	struct expr *e;
	int ret = build(in, &p, &e, &err);

	CHECK(ret == -EINVAL && e, label("rejected by plan: %s", in));
	CHECK_STR(err.msg, msg, label("message: %s", in));
	CHECK_INT(err.col, col, label("column: %s", in));
	expr_free(e);
}

/* A predicate program as text: "F1 I5 EQ S0 STREQ AND". */
static const char *prog_text(const struct scry_pred_insn *prog, char *buf,
			     size_t len)
{
	static const char *const ops[] = {
		[SCRY_OP_EQ] = "EQ", [SCRY_OP_NE] = "NE", [SCRY_OP_LT] = "LT",
		[SCRY_OP_LE] = "LE", [SCRY_OP_GT] = "GT", [SCRY_OP_GE] = "GE",
		[SCRY_OP_STREQ] = "STREQ", [SCRY_OP_STRNE] = "STRNE",
		[SCRY_OP_AND] = "AND", [SCRY_OP_OR] = "OR",
		[SCRY_OP_NOT] = "NOT",
	};
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < SCRY_MAX_PRED && prog[i].op != SCRY_OP_END; i++) {
		const struct scry_pred_insn *in = &prog[i];

		if (in->op == SCRY_OP_FIELD)
			n += snprintf(buf + n, len - n, "%sF%d", i ? " " : "",
				      in->field);
		else if (in->op == SCRY_OP_IMM)
			n += snprintf(buf + n, len - n, "%sI%lld",
				      i ? " " : "", (long long)in->imm);
		else if (in->op == SCRY_OP_STREQ || in->op == SCRY_OP_STRNE)
			n += snprintf(buf + n, len - n, "%sS%d %s",
				      i ? " " : "", in->str, ops[in->op]);
		else
			n += snprintf(buf + n, len - n, "%s%s", i ? " " : "",
				      in->op < sizeof(ops) / sizeof(ops[0]) &&
				      ops[in->op] ? ops[in->op] : "?");
		if (n >= len)
			break;
	}
	return buf;
}

static void check_split(const char *in, const char *begin, const char *end)
{
	char buf[512];
	struct plan p;
	struct expr *e = plan_ok(in, &p);

	if (e) {
		CHECK_STR(prog_text(p.pred_begin, buf, sizeof(buf)), begin,
			  label("begin program: %s", in));
		CHECK_STR(prog_text(p.pred_end, buf, sizeof(buf)), end,
			  label("end program: %s", in));
	}
	expr_free(e);
}

/* Every kind: its source, begin/end nature, stacks and entry flags. */
static void test_kinds(void)
{
	static const struct {
		const char *in;
		const struct source *src;
		bool end, at_begin, at_entry;
	} cases[] = {
		{ "offcpu", &source_offcpu, true, true, false },
		{ "uprobe:libc:malloc", &source_uprobe, false, false, true },
		{ "uretprobe:libc:malloc", &source_uretprobe, true, false,
		  false },
		{ "usdt:./srv:app:start", &source_usdt, false, false, false },
		{ "syscall:read", &source_syscall, true, false, false },
		{ "tracepoint:test:ev", &source_tracepoint, false, false,
		  false },
		{ "profile", &source_profile, false, false, false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct plan p;
		struct expr *e = plan_ok(cases[i].in, &p);

		if (!e)
			continue;
		CHECK(p.src == cases[i].src, label("source: %s", cases[i].in));
		CHECK_INT(p.has_end, cases[i].end,
			  label("has_end: %s", cases[i].in));
		CHECK_INT(p.stacks_at_begin, cases[i].at_begin,
			  label("stacks_at_begin: %s", cases[i].in));
		CHECK_INT(p.ustack_at_entry, cases[i].at_entry,
			  label("ustack_at_entry: %s", cases[i].in));
		/* a bare probe counts its firings */
		CHECK_INT(p.agg, SCRY_AGG_COUNT, label("count: %s",
						      cases[i].in));
		expr_free(e);
	}
	for (i = 0; sources[i]; i++)
		CHECK(source_find(sources[i]->name) == sources[i],
		      label("source_find(%s)", sources[i]->name));
	CHECK(source_find("nope") == NULL, "source_find(nope) is NULL");
}

static void test_targets(void)
{
	struct plan p;
	struct expr *e;

	e = plan_ok("uprobe:libc:malloc", &p);
	if (e) {
		CHECK_INT(p.ntarget, 2, "uprobe: two targets");
		CHECK_STR(p.target[0], "libc", "uprobe: LIB");
		CHECK_STR(p.target[1], "malloc", "uprobe: FUNC");
		CHECK_INT(p.target_cols[1], 13, "uprobe: FUNC column");
	}
	expr_free(e);

	e = plan_ok("syscall:read,pread64,openat", &p);
	if (e) {
		CHECK(p.syscall_set[0] & 1ULL << 0, "syscall set: read (0)");
		CHECK(p.syscall_set[0] & 1ULL << 17, "syscall set: pread64 (17)");
		CHECK(p.syscall_set[4] & 1ULL << (257 - 256),
		      "syscall set: openat (257)");
		CHECK(!(p.syscall_set[0] & 1ULL << 1), "syscall set: not write");
	}
	expr_free(e);

	e = plan_ok("profile", &p);
	if (e)
		CHECK_INT(p.profile_hz, 99, "profile: 99 Hz by default");
	expr_free(e);
	e = plan_ok("profile:997", &p);
	if (e)
		CHECK_INT(p.profile_hz, 997, "profile:997");
	expr_free(e);
}

/* Fields land at begin unless only the end knows them. */
static void test_split(void)
{
	char f[16][16];
	int i;

	for (i = 0; i < 16; i++)
		snprintf(f[i], sizeof(f[i]), "F%d", i);
	/* pid == 1 && retval < 0 && comm == "cat" */
	check_split("syscall:read /pid == 1 && retval < 0 && comm == \"cat\"/",
		    "F1 I1 EQ S0 STREQ AND", "F12 I0 LT");
	/* without an end, everything runs at once, at begin */
	check_split("uprobe:libc:malloc /arg0 > 10 && pid != 2/",
		    "F6 I10 GT F1 I2 NE AND", "");
	/* a disjunction that needs the end goes whole to the end */
	check_split("uretprobe:libc:malloc /retval == 0 || pid == 3/",
		    "", "F12 I0 EQ F1 I3 EQ OR");
	check_split("offcpu /latency >= 1000 && state == 2/",
		    "F14 I2 EQ", "F13 I1000 GE");
	check_split("syscall:read /errno == 2/", "", "F15 I2 EQ");
	check_split("offcpu /!(pid == 1)/", "F1 I1 EQ NOT", "");
	check_split("offcpu", "", "");
	/* the same string twice is one constant */
	check_split("offcpu /comm == \"a\" || comm != \"a\"/",
		    "S0 STREQ S0 STRNE OR", "");
}

/* A predicate may use 31 operations at begin and 31 at end, however joined. */
static void test_pred_limit(void)
{
	char in[1024], *o;
	int i;

	/* 10 comparisons of 3 operations + 9 '&&' = 39 > 31 */
	o = in + sprintf(in, "offcpu /pid == 1");
	for (i = 0; i < 9; i++)
		o += sprintf(o, " && pid == 1");
	sprintf(o, "/");
	plan_err(in, 105, "predicate too long: at most 31 operations (fields, "
		 "numbers, operators) run at the begin of an event and 31 at "
		 "its end");
	o = in + sprintf(in, "offcpu /pid == 1");
	for (i = 0; i < 9; i++)
		o += sprintf(o, " || pid == 1");
	sprintf(o, "/");
	plan_err(in, 105, "predicate too long: at most 31 operations (fields, "
		 "numbers, operators) run at the begin of an event and 31 at "
		 "its end");
	/* 8 comparisons + 7 joins = 31 fits, either way */
	o = in + sprintf(in, "offcpu /pid == 1");
	for (i = 0; i < 7; i++)
		o += sprintf(o, " && pid == 1");
	sprintf(o, "/");
	expr_free(plan_ok(in, &(struct plan){}));
	o = in + sprintf(in, "offcpu /pid == 1");
	for (i = 0; i < 7; i++)
		o += sprintf(o, " || pid == 1");
	sprintf(o, "/");
	expr_free(plan_ok(in, &(struct plan){}));
	/* the begin and the end each have their own 31 */
	o = in + sprintf(in, "offcpu /pid == 1");
	for (i = 0; i < 7; i++)
		o += sprintf(o, " && pid == 1");
	for (i = 0; i < 8; i++)
		o += sprintf(o, " && latency > 1");
	sprintf(o, "/");
	expr_free(plan_ok(in, &(struct plan){}));
}

static void test_keys(void)
{
	struct plan p;
	struct expr *e;

	e = plan_ok("offcpu { @[kstack, ustack, comm] = quantize(latency) }",
		    &p);
	if (e) {
		CHECK(p.key_kstack && p.key_ustack && p.key_comm,
		      "offcpu keys: kstack, ustack, comm");
		CHECK_INT(p.nkeys, 3, "offcpu: 3 key columns");
		CHECK_INT(p.agg, SCRY_AGG_QUANTIZE, "offcpu: quantize");
		CHECK_INT(p.val_field, SCRY_F_LATENCY, "offcpu: of latency");
		CHECK_STR(p.unit, "ns", "offcpu: unit ns");
	}
	expr_free(e);

	e = plan_ok("syscall:read { @[fd.path, errno, pid] = sum(retval) }",
		    &p);
	if (e) {
		CHECK(p.key_fdpath, "fd.path: resolved at begin");
		CHECK(p.keys[0].string_id && p.keys[0].slot == 0,
		      "fd.path: a string id in slot 0");
		CHECK_INT(p.key_ints[0], SCRY_F_FDPATH, "slot 0: fd.path");
		CHECK_INT(p.key_ints[1], SCRY_F_ERRNO, "slot 1: errno");
		CHECK_INT(p.key_ints[2], SCRY_F_PID, "slot 2: pid");
		CHECK(plan_has_strings(&p), "fd.path keys use the string store");
	}
	expr_free(e);

	e = plan_ok("tracepoint:test:ev { @[args.name, args.path] = "
		    "sum(args.n) }", &p);
	if (e) {
		CHECK_INT(p.ntp_fields, 3, "tracepoint: three fields read");
		CHECK_INT(p.key_ints[0], SCRY_F_ARG0, "args.name in args[0]");
		CHECK(p.keys[0].string_id, "args.name: a string id");
		CHECK(p.tp_fields[1].data_loc, "args.path: __data_loc");
		CHECK_INT(p.val_field, SCRY_F_ARG2, "args.n in args[2]");
		CHECK_INT(p.tp_fields[2].offset, 8, "args.n at offset 8");
	}
	expr_free(e);
	e = plan_ok("tracepoint:test:ev /args.n > 2 && args.n < 9/", &p);
	if (e)
		CHECK_INT(p.ntp_fields, 1, "a field used twice is read once");
	expr_free(e);
}

static void test_lquantize(void)
{
	struct plan p;
	struct expr *e;

	e = plan_ok("offcpu { @ = lquantize(latency, 0, 100, 10) }", &p);
	if (e) {
		CHECK_INT(p.lq_nslots, 10, "lquantize 0..100 by 10: 10 levels");
		CHECK_INT(p.lq_low, 0, "lquantize low");
		CHECK_INT(p.lq_step, 10, "lquantize step");
	}
	expr_free(e);
	/* a step that does not divide the range: whole steps only, as DTrace */
	e = plan_ok("offcpu { @ = lquantize(latency, 0, 10, 3) }", &p);
	if (e)
		CHECK_INT(p.lq_nslots, 3, "lquantize 0..10 by 3: 3 levels");
	expr_free(e);
	/* extremes computed exactly, no signed overflow */
	e = plan_ok("offcpu { @ = lquantize(latency, -9223372036854775808, "
		    "9223372036854775807, 4611686018427387904) }", &p);
	if (e)
		CHECK_INT(p.lq_nslots, 3, "lquantize over all of s64 by 2^62: "
			  "3 levels");
	expr_free(e);
	e = plan_ok("offcpu { @ = lquantize(latency, -9223372036854775808, "
		    "9223372036854775807, 9223372036854775807) }", &p);
	if (e)
		CHECK_INT(p.lq_nslots, 2, "lquantize over all of s64 by "
			  "s64 max: 2 levels");
	expr_free(e);
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
	expr_free(plan_ok("offcpu { @ = lquantize(latency, 0, 62, 1) }",
			  &(struct plan){}));
}

static void test_errors(void)
{
	plan_err("offcup", 1, "unknown probe kind 'offcup'; did you mean: "
		 "offcpu? (offcpu uprobe uretprobe usdt syscall tracepoint "
		 "profile)");
	plan_err("zzz", 1, "unknown probe kind 'zzz' (offcpu uprobe uretprobe "
		 "usdt syscall tracepoint profile)");
	plan_err("syscall:reed", 9, "unknown syscall 'reed'; did you mean: "
		 "read, readv, rseq? (scry -l 'syscall:*' lists them)");
	plan_err("syscall:read,wrte", 14, "unknown syscall 'wrte'; did you "
		 "mean: write, writev? (scry -l 'syscall:*' lists them)");
	plan_err("syscall:read,,write", 14, "expected a syscall name");
	plan_err("uprobe:libc", 1, "uprobe probes are written uprobe:LIB:FUNC");
	plan_err("offcpu:x", 8, "offcpu probes are written offcpu");
	plan_err("profile:0", 9, "profile rate must be 1 to 10000 Hz, e.g. "
		 "profile:99");
	plan_err("profile:99x", 9, "profile rate must be 1 to 10000 Hz, e.g. "
		 "profile:99");
	plan_err("uprobe:libc:mall*", 13, "'mall*' is a glob: globs are for "
		 "listing (scry -l 'uprobe:...'); name one probe");
	plan_err("offcpu /pdi == 1/", 9, "unknown field 'pdi'; did you mean: "
		 "pid? (fields: pid tid uid comm cpu arg0..arg5 retval latency "
		 "state errno fd.path args.FIELD)");
	plan_err("uprobe:libc:malloc /retval > 1/", 21, "'retval' needs a "
		 "probe with a return: use uretprobe");
	plan_err("uprobe:libc:malloc /state > 1/", 21, "field 'state' does "
		 "not exist for uprobe probes");
	plan_err("offcpu /arg0 > 1/", 9, "field 'arg0' does not exist for "
		 "offcpu probes");
	plan_err("tracepoint:test:ev /args.nope/", 21, "tracepoint test:ev "
		 "has no field 'nope' (fields: n name path)");
	plan_err("offcpu /kstack/", 9, "'kstack' is a key, not a value a "
		 "predicate can test");
	plan_err("offcpu /comm/", 9, "compare comm with a string: comm == "
		 "\"name\"");
	plan_err("offcpu /pid == \"x\"/", 16, "a string can only be compared "
		 "with comm");
	plan_err("offcpu /comm < \"x\"/", 9, "strings compare with == and != "
		 "only");
	plan_err("offcpu /comm == \"0123456789abcdef\"/", 17, "string longer "
		 "than a comm (15 characters): comm can never equal it");
	plan_err("offcpu { @ = frob(latency) }", 14, "unknown aggregation "
		 "'frob' (count sum min max avg quantize lquantize)");
	plan_err("offcpu { @ = sum() }", 14, "sum() takes 1 argument");
	plan_err("offcpu { @ = count(pid) }", 14, "count() takes 0 arguments");
	plan_err("offcpu { @ = sum(comm) }", 18, "sum() needs a number; 'comm' "
		 "is not one");
	plan_err("offcpu { @ = sum(5) }", 18, "sum() aggregates a field, e.g. "
		 "sum(arg0)");
	plan_err("offcpu { @[pid, pid] = count() }", 17, "key 'pid' given "
		 "twice");
	plan_err("offcpu { @[pid, tid, uid, cpu, state] = count() }", 32,
		 "too many numeric keys (at most 4)");
}

int main(void)
{
	test_kinds();
	test_targets();
	test_split();
	test_pred_limit();
	test_keys();
	test_lquantize();
	test_errors();
	return CHECK_DONE();
}
