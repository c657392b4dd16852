/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libFuzzer target for the probe-expression parser. Whatever the input:
 * no crash, no leak, no undefined behaviour; a rejected input's error
 * column lies within the text (or just past its end); an accepted one
 * formats to a canonical form that parses back and formats identically.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -D_GNU_SOURCE \
 *	tests/fuzz/fuzz_expr.c src/expr.c -o /tmp/fuzz_expr
 *   /tmp/fuzz_expr -max_total_time=60 tests/fuzz/corpus
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scry/expr.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Format @e into a buffer grown until it fits; aborts on any other error. */
static char *format_all(const struct expr *e)
{
	size_t len = 256;
	char *buf;
	int n;

	for (;;) {
		buf = malloc(len);
		if (!buf)
			abort();
		n = expr_format(e, buf, len);
		if (n >= 0)
			break;
		if (n != -ENOSPC)
			abort();
		free(buf);
		len *= 2;
	}
	/* The length is exact: one byte less must not fit. */
	if (strlen(buf) != (size_t)n || expr_format(e, buf, n) != -ENOSPC)
		abort();
	/* expr_format() above wrote a truncated copy: redo the full one. */
	if (expr_format(e, buf, len) != n)
		abort();
	return buf;
}

static void check_error(const char *text, const struct expr_error *err)
{
	static FILE *null;

	if (err->col < 1 || (size_t)err->col > strlen(text) + 1)
		abort();
	if (!err->msg[0] || !memchr(err->msg, '\0', sizeof(err->msg)))
		abort();
	/* Exercise the caret printer too, for out-of-range reads. */
	if (!null)
		null = fopen("/dev/null", "w");
	if (null)
		expr_print_error(null, text, NULL, err);
		expr_print_error(null, text, "f.bt", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct expr_error err;
	struct expr *e, *again;
	char *text, *first, *second;

	/* The parser takes a C string: stop at the first NUL, like argv. */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	e = expr_parse(text, &err);
	if (!e) {
		if (errno != EINVAL)
			abort();
		check_error(text, &err);
		free(text);
		return 0;
	}
	if (strcmp(e->text, text))
		abort();

	first = format_all(e);
	again = expr_parse(first, &err);
	if (!again) {
		fprintf(stderr, "canonical form does not parse: %s\n", first);
		expr_print_error(stderr, first, NULL, &err);
		abort();
	}
	second = format_all(again);
	if (strcmp(first, second)) {
		fprintf(stderr, "format not stable:\n  %s\n  %s\n", first,
			second);
		abort();
	}

	free(second);
	expr_free(again);
	free(first);
	expr_free(e);
	free(text);
	return 0;
}
