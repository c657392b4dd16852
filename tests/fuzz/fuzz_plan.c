/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libFuzzer target for plan.c: whatever parses is planned against a fake
 * system (every tracepoint has an int field `n` and a string `s`; the
 * kernel's BTF is tests/unit/fake_btf.h's). No
 * crash, leak or undefined behaviour; a rejected plan's error column lies
 * within the text; an accepted one's clause programs are well formed
 * (each ends within its slots, jumps forward inside it, names maps,
 * keys and records that exist).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scry/expr.h>
#include <scry/plan.h>
#include "../unit/fake_btf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fake_tp_field(const char *cat, const char *name, const char *field,
			 struct plan_tp_field *out, char *why, size_t len)
{
	(void)cat;
	(void)name;
	memset(out, 0, sizeof(*out));
	if (!strcmp(field, "n")) {
		out->offset = 8;
		out->size = 8;
		out->is_signed = true;
		return 0;
	}
	if (!strcmp(field, "s")) {
		out->offset = 16;
		out->size = 16;
		out->is_string = true;
		return 0;
	}
	snprintf(why, len, "no field '%s'", field);
	return -ENOENT;
}

static int fake_tp_glob(const char *cat, const char *name,
			void (*fn)(void *ctx, const char *cat, const char *name),
			void *ctx)
{
	fn(ctx, cat, name);
	return 1;
}

static bool fake_has_kprobes(void)
{
	return true;
}

static int fake_trampoline(int func)
{
	return func > 0 ? 0 : -EINVAL;
}

/* kernel structs and fentry's args through tests/unit/fake_btf.h */
static const struct plan_env fake_env = {
	.tp_field = fake_tp_field,
	.tp_glob = fake_tp_glob,
	.has_kprobes = fake_has_kprobes,
	.trampoline = fake_trampoline,
	.btf = fake_get_btf,
};

/*
 * A program the engine can run: it ends within its slots, its jumps go
 * forward to an instruction of it, its operands are in range.
 */
static void check_prog(const struct plan *p, const struct scry_insn *code,
		       int max)
{
	int i, end = -1;

	for (i = 0; i < max; i++)
		if (code[i].op == SCRY_OP_END) {
			end = i;
			break;
		}
	if (end < 0 || end == max)
		abort();	/* no END: the engine would run off the program */
	for (i = 0; i < end; i++) {
		const struct scry_insn *in = &code[i];

		if (in->op >= SCRY_NOPS)
			abort();
		if ((in->op == SCRY_OP_JMP || in->op == SCRY_OP_JZ) &&
		    ((int)in->d <= i || (int)in->d > end))
			abort();
		if (in->op >= SCRY_OP_MLOAD && in->op <= SCRY_OP_MAGG &&
		    (in->a >= p->nmaps || in->b >= p->nkeyspecs))
			abort();
		if (in->op == SCRY_OP_OUT && in->imm >= p->nouts)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct expr_error err;
	struct plan p;
	struct expr *e;
	char *text;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	e = expr_parse(text, &err);
	if (e) {
		int i;

		if (plan_build(e, &p, &fake_env, true, &err)) {
			if (err.col < 1 || (size_t)err.col > strlen(text) + 1 ||
			    !err.msg[0])
				abort();
		} else {
			for (i = 0; i < p.nclauses; i++) {
				check_prog(&p, p.clauses[i].begin,
					   SCRY_MAX_BEGIN_INSNS);
				check_prog(&p, p.clauses[i].body,
					   SCRY_MAX_INSNS);
			}
		}
		plan_free(&p);
	}
	expr_free(e);
	free(text);
	return 0;
}
