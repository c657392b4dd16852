/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libFuzzer target for plan.c: whatever parses is planned against a fake
 * system (every tracepoint has an int field `n` and a string `s`). No
 * crash, leak or undefined behaviour; a rejected plan's error column lies
 * within the text; an accepted one has a probe kind and well-formed
 * predicate programs (each ends, within its slots).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scry/expr.h>
#include <scry/plan.h>

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

static const struct plan_env fake_env = { .tp_field = fake_tp_field };

static void check_prog(const struct scry_pred_insn *prog)
{
	int i;

	for (i = 0; i < SCRY_MAX_PRED; i++)
		if (prog[i].op == SCRY_OP_END)
			return;
	abort();	/* no END: the engine would run off the program */
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
		if (plan_build(e, &p, &fake_env, &err)) {
			if (err.col < 1 || (size_t)err.col > strlen(text) + 1 ||
			    !err.msg[0])
				abort();
		} else {
			if (!p.src)
				abort();
			check_prog(p.pred_begin);
			check_prog(p.pred_end);
		}
	}
	expr_free(e);
	free(text);
	return 0;
}
