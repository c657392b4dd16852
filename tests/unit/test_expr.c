/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe-expression parser: every grammar rule, every error message
 * with its column, the AST it builds, the canonical form and round trips.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scry/expr.h>
#include "check.h"

static char what[512];

/*
 * A label for a check, "format: offcpu /x/", on one line whatever the
 * input holds: tests/run counts "ok"/"FAIL" lines.
 */
__attribute__((format(printf, 1, 2)))
static const char *label(const char *fmt, ...)
{
	char raw[sizeof(what)];
	size_t i, o = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	for (i = 0; raw[i] && o + 5 < sizeof(what); i++) {
		unsigned char c = raw[i];

		if (c == '\n')
			o += sprintf(what + o, "\\n");
		else if (c == '\t')
			o += sprintf(what + o, "\\t");
		else if (c < 0x20 || c == 0x7f)
			o += sprintf(what + o, "\\x%02x", c);
		else
			what[o++] = c;
	}
	what[o] = '\0';
	return what;
}

/* Parse @in, format it; NULL when either fails. */
static char *format_of(const char *in)
{
	struct expr_error err;
	struct expr *e = expr_parse(in, &err);
	char *buf;
	int n;

	if (!e)
		return NULL;
	buf = malloc(4096);
	n = expr_format(e, buf, 4096);
	expr_free(e);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* parse(x) formats as @want, and its format reads back to itself. */
static void check_format(const char *in, const char *want)
{
	char *got = format_of(in), *again;

	CHECK_STR(got, want, label("format: %s", in));
	again = got ? format_of(got) : NULL;
	CHECK_STR(again, got, label("round trip: %s", in));
	free(got);
	free(again);
}

static void check_error(const char *in, int col, const char *msg)
{
	struct expr_error err = { .col = -1 };
	struct expr *e;

	errno = 0;
	e = expr_parse(in, &err);
	CHECK(!e && errno == EINVAL, label("rejected: %s", in));
	CHECK_STR(err.msg, msg, label("message: %s", in));
	CHECK_INT(err.col, col, label("column: %s", in));
	expr_free(e);
}

struct format_case {
	const char *in;
	const char *want;
};

/* Every rule of the grammar, and the canonical form it prints as. */
static const struct format_case format_cases[] = {
	/* the examples users type */
	{ "offcpu /latency >= 1000000/ { @[kstack, ustack, comm] = quantize(latency) }",
	  "offcpu /latency >= 1000000/ { @[kstack, ustack, comm] = quantize(latency) }" },
	{ "uprobe:libc:malloc /arg0 > 4096/ { @[ustack] = quantize(arg0) }",
	  "uprobe:libc:malloc /arg0 > 4096/ { @[ustack] = quantize(arg0) }" },
	{ "uretprobe:libc:malloc { @[ustack] = count() }",
	  "uretprobe:libc:malloc { @[ustack] = count() }" },
	{ "uprobe:./server:handle_req { @[comm] = quantize(latency) }",
	  "uprobe:./server:handle_req { @[comm] = quantize(latency) }" },
	{ "usdt:./server:app:request_start { @[arg0] = count() }",
	  "usdt:./server:app:request_start { @[arg0] = count() }" },
	{ "usdt:/usr/lib/x86_64-linux-gnu/libc.so.6:libc:setjmp { @ = count() }",
	  "usdt:/usr/lib/x86_64-linux-gnu/libc.so.6:libc:setjmp { @ = count() }" },
	{ "syscall:read /comm == \"cat\" && (retval < 0 || pid != 1)/ { @[fd.path] = sum(retval) }",
	  "syscall:read /comm == \"cat\" && (retval < 0 || pid != 1)/ { @[fd.path] = sum(retval) }" },
	{ "syscall:read,pread64,readv { @[fd.path, errno] = sum(retval) }",
	  "syscall:read,pread64,readv { @[fd.path, errno] = sum(retval) }" },
	{ "tracepoint:sched:sched_process_exec { @[args.filename] = count(); }",
	  "tracepoint:sched:sched_process_exec { @[args.filename] = count() }" },
	{ "profile:99 { @[ustack] = count() }",
	  "profile:99 { @[ustack] = count() }" },
	{ "uprobe:libc:mall*", "uprobe:libc:mall*" },
	{ "offcpu { @lat[pid] = lquantize(latency, 0, 100, 10) }",
	  "offcpu { @lat[pid] = lquantize(latency, 0, 100, 10) }" },

	/* clause: probe alone, with predicate, with action, both */
	{ "offcpu", "offcpu" },
	{ "offcpu /pid == 1/", "offcpu /pid == 1/" },
	{ "offcpu{@=count()}", "offcpu { @ = count() }" },

	/* whitespace anywhere between tokens, of any kind */
	{ "  \t\noffcpu\n/\tpid\n==\n1\t/\n{\n@\n[\npid\n,\ncomm\n]\n=\ncount\n(\n)\n;\n}\n\t ",
	  "offcpu /pid == 1/ { @[pid, comm] = count() }" },
	{ "offcpu/pid==1/{@[pid,comm]=count();}",
	  "offcpu /pid == 1/ { @[pid, comm] = count() }" },

	/* probe parts: every character a bare part may hold */
	{ "kprobe:vfs_read+0x10", "kprobe:vfs_read+0x10" },
	{ "uprobe:libc:malloc@@GLIBC_2.2.5", "uprobe:libc:malloc@@GLIBC_2.2.5" },
	{ "uprobe:lib-1.2:f?o[a-z]*", "uprobe:lib-1.2:f?o[a-z]*" },
	{ "tracepoint:sched:*", "tracepoint:sched:*" },
	{ "a:b:c:d:e", "a:b:c:d:e" },

	/* quoted parts hold anything, and print quoted only when needed */
	{ "uprobe:\"libc\":\"malloc\"", "uprobe:libc:malloc" },
	{ "uprobe:\"/opt/my app/bin\":\"ns::f\"",
	  "uprobe:\"/opt/my app/bin\":\"ns::f\"" },
	{ "uprobe:\"\":f", "uprobe:\"\":f" },
	{ "uprobe:\"a\\\"b\\\\c\\nd\\te\":f", "uprobe:\"a\\\"b\\\\c\\nd\\te\":f" },
	{ "uprobe:\"a{b\":\"c/d\"", "uprobe:\"a{b\":\"c/d\"" },
	{ "uprobe:\"x\"/arg0/", "uprobe:x /arg0/" },
	{ "uprobe:\"x\" /arg0/", "uprobe:x /arg0/" },

	/* the '/' rule: paths keep their slashes, words end at one */
	{ "uprobe:./a.out:f /arg0 > 1/ { @ = count() }",
	  "uprobe:./a.out:f /arg0 > 1/ { @ = count() }" },
	{ "uprobe:libc:malloc/arg0>1/{@=count()}",
	  "uprobe:libc:malloc /arg0 > 1/ { @ = count() }" },
	{ "uprobe:./a.out:f/arg0>1/", "uprobe:./a.out:f /arg0 > 1/" },
	{ "uprobe:libc:mall*/arg0/", "uprobe:libc:mall* /arg0/" },
	{ "uprobe:libc:malloc@@GLIBC_2.2.5/arg0/",
	  "uprobe:libc:malloc@@GLIBC_2.2.5 /arg0/" },
	{ "offcpu/latency>1/", "offcpu /latency > 1/" },
	{ "uprobe:/usr/bin/x:main/arg0/", "uprobe:/usr/bin/x:main /arg0/" },
	{ "uprobe:./a.out /arg0/", "uprobe:./a.out /arg0/" },
	{ "uprobe:../bin/srv:f", "uprobe:../bin/srv:f" },
	{ "uprobe:/:f", "uprobe:/:f" },
	{ "uprobe:./dir/ /x/", "uprobe:./dir/ /x/" },
	{ "uprobe:bin/server:main", "uprobe:\"bin/server\":main" },
	{ "uprobe:bin/sub/server:main/x/", "uprobe:\"bin/sub/server\":main /x/" },
	{ "uprobe:lib/x/", "uprobe:lib /x/" },
	{ "kprobe:f/-1 == arg0/", "kprobe:f /-1 == arg0/" },

	/* operands */
	{ "x /fd.path/", "x /fd.path/" },
	{ "x /args.a.b_2/", "x /args.a.b_2/" },
	{ "x /_a1/", "x /_a1/" },
	{ "x /0/", "x /0/" },
	{ "x /-0/", "x /0/" },
	{ "x /0x0/", "x /0/" },
	{ "x /0xff == 0XFF/", "x /255 == 255/" },
	{ "x /0xDeadBeef/", "x /3735928559/" },
	{ "x /-0x10/", "x /-16/" },
	{ "x /9223372036854775807/", "x /9223372036854775807/" },
	{ "x /-9223372036854775808/", "x /-9223372036854775808/" },
	{ "x /0x7fffffffffffffff/", "x /9223372036854775807/" },
	{ "x /-0x8000000000000000/", "x /-9223372036854775808/" },
	{ "x /\"\"/", "x /\"\"/" },
	{ "x /\"a\\\"b\\\\c\\nd\\te\"/", "x /\"a\\\"b\\\\c\\nd\\te\"/" },
	{ "x /\"a\nb\tc\"/", "x /\"a\\nb\\tc\"/" },
	{ "x /\"has / and } and :\"/", "x /\"has / and } and :\"/" },

	/* comparisons, all six, with any operand on either side */
	{ "x /a==b/", "x /a == b/" },
	{ "x /a!=b/", "x /a != b/" },
	{ "x /a<b/", "x /a < b/" },
	{ "x /a<=b/", "x /a <= b/" },
	{ "x /a>b/", "x /a > b/" },
	{ "x /a>=b/", "x /a >= b/" },
	{ "x /a<-1/", "x /a < -1/" },
	{ "x /\"s\" == 1/", "x /\"s\" == 1/" },
	{ "x /(a == b) == (c < d)/", "x /(a == b) == (c < d)/" },

	/* '!' binds tighter than a comparison, as in C */
	{ "x /!a/", "x /!a/" },
	{ "x /!!a/", "x /!!a/" },
	{ "x /! a == b/", "x /!a == b/" },
	{ "x /(!a) == b/", "x /!a == b/" },
	{ "x /!(a == b)/", "x /!(a == b)/" },
	{ "x /a == !b/", "x /a == !b/" },
	{ "x /a!=!b/", "x /a != !b/" },
	{ "x /!(a)/", "x /!a/" },
	{ "x /!(a && b)/", "x /!(a && b)/" },
	{ "x /!-1/", "x /!-1/" },

	/* '&&' over '||', both left-associative; minimal parentheses */
	{ "x /a || b && c/", "x /a || b && c/" },
	{ "x /a && b || c/", "x /a && b || c/" },
	{ "x /(a || b) && c/", "x /(a || b) && c/" },
	{ "x /a && (b || c)/", "x /a && (b || c)/" },
	{ "x /a || b || c/", "x /a || b || c/" },
	{ "x /(a || b) || c/", "x /a || b || c/" },
	{ "x /a || (b || c)/", "x /a || (b || c)/" },
	{ "x /a && (b && c)/", "x /a && (b && c)/" },
	{ "x /((((a))))/", "x /a/" },
	{ "x /(a) && ((b == 1))/", "x /a && b == 1/" },
	{ "x /!a && !b || !(c || d)/", "x /!a && !b || !(c || d)/" },

	/* actions */
	{ "x { @ = count() }", "x { @ = count() }" },
	{ "x { @name = count() }", "x { @name = count() }" },
	{ "x { @a.b = count() }", "x { @a.b = count() }" },
	{ "x { @_m2[pid] = count() }", "x { @_m2[pid] = count() }" },
	{ "x { @[a,b,c,d,e,f,g,h] = count() }",
	  "x { @[a, b, c, d, e, f, g, h] = count() }" },
	{ "x { @ = f(a, 1, \"s\", (b == 2)) }",
	  "x { @ = f(a, 1, \"s\", (b == 2)) }" },
	{ "x { @ = f((a)) }", "x { @ = f(a) }" },
	{ "x { @ = f((!a)) }", "x { @ = f((!a)) }" },
	{ "x { @ = f(-5, 0x10) }", "x { @ = f(-5, 16) }" },
	{ "x { @ = count(); }", "x { @ = count() }" },
	{ "x { @ = count() ; }", "x { @ = count() }" },
	{ "x /a/ { @ = count() }", "x /a/ { @ = count() }" },
};

static void test_formats(void)
{
	size_t i;

	for (i = 0; i < sizeof(format_cases) / sizeof(format_cases[0]); i++)
		check_format(format_cases[i].in, format_cases[i].want);
}

struct error_case {
	const char *in;
	int col;
	const char *msg;
};

/* Every error message, and the column it points at. */
static const struct error_case error_cases[] = {
	/* probe */
	{ "", 1, "empty probe" },
	{ "   ", 4, "empty probe" },
	{ "/x/", 1, "empty probe" },
	{ "  { @ = count() }", 3, "empty probe" },
	{ ":libc", 1, "empty probe part" },
	{ "uprobe::malloc", 8, "empty probe part" },
	{ "uprobe:libc:", 13, "empty probe part" },
	{ "uprobe:libc: /x/", 13, "empty probe part" },
	{ "uprobe:libc:{ @ = count() }", 13, "empty probe part" },
	{ "profile:99:", 12, "empty probe part" },
	{ "a:b:c:d:e:f", 11, "too many probe parts (at most 4)" },
	{ "#x", 1, "unexpected character '#' in probe" },
	{ "\"uprobe\":f", 1, "unexpected character '\"' in probe" },
	{ "./a.out:f", 1, "unexpected character '.' in probe" },
	{ "off-cpu", 4, "unexpected character '-' in probe" },
	{ "uprobe:foo;bar", 11, "unexpected character ';' in probe" },
	{ "uprobe:\"a\"b", 11, "unexpected character 'b' in probe" },
	{ "uprobe:f}", 9, "unexpected character '}' in probe" },
	{ "uprobe:./a.out/arg0>1/", 20, "unexpected character '>' in probe" },
	{ "uprobe:\"abc", 8, "unterminated string" },
	{ "uprobe:\"a\\qb\"", 11, "unknown escape '\\q'" },

	/* lexer */
	{ "x /comm == \"ab/", 12, "unterminated string" },
	{ "x /comm == \"a\\", 12, "unterminated string" },
	{ "x /s == \"\\x\"/", 11, "unknown escape '\\x'" },
	{ "x /s == \"\\'\"/", 11, "unknown escape '\\''" },
	{ "x /s == \"\\\x01\"/", 11, "unexpected character '\\x01' after '\\'" },
	{ "x /a # b/", 6, "unexpected character '#'" },
	{ "x /a \xc3\xa9/", 6, "unexpected character '\\xc3'" },
	{ "x /a\x7f/", 5, "unexpected character '\\x7f'" },
	{ "x /a & b/", 6, "expected '&&'" },
	{ "x /a | b/", 6, "expected '||'" },
	{ "x /a - 1/", 6, "unexpected character '-'" },
	{ "x /a + 1/", 6, "unexpected character '+'" },
	{ "x /1.5/", 5, "unexpected character '.'" },
	{ "x /0x/", 6, "expected hex digits after '0x'" },
	{ "x /-0xg/", 7, "expected hex digits after '0x'" },
	{ "x /0123/", 4, "octal numbers are not supported" },
	{ "x /-00/", 4, "octal numbers are not supported" },
	{ "x /9223372036854775808/", 4, "number out of range" },
	{ "x /-9223372036854775809/", 4, "number out of range" },
	{ "x /0x8000000000000000/", 4, "number out of range" },
	{ "x /-0x8000000000000001/", 4, "number out of range" },
	{ "x /0xffffffffffffffff/", 4, "number out of range" },
	{ "x /99999999999999999999999999/", 4, "number out of range" },
	{ "x /a == 18446744073709551616/", 9, "number out of range" },
	{ "x /1000ms/", 8, "unexpected character 'm' in number" },
	{ "x /12abc/", 6, "unexpected character 'a' in number" },
	{ "x /0xfg/", 7, "unexpected character 'g' in number" },
	{ "x /fd./", 7, "expected a field name after '.'" },
	{ "x /fd.1/", 7, "expected a field name after '.'" },
	{ "x /fd..a/", 7, "expected a field name after '.'" },

	/* predicate */
	{ "x //", 4, "empty predicate" },
	{ "x / /", 5, "empty predicate" },
	{ "x /a", 5, "expected '/' to close the predicate" },
	{ "x /a b/", 6, "expected '/' to close the predicate" },
	{ "x /a { @ = count() }", 6, "expected '/' to close the predicate" },
	{ "x /a/ b", 7, "expected '{' after the predicate" },
	{ "x /a/ /b/", 7, "expected '{' after the predicate" },
	{ "x b", 3, "expected '/' or '{' after the probe" },
	{ "x ( a )", 3, "expected '/' or '{' after the probe" },
	{ "x /(a/", 6, "expected ')'" },
	{ "x /(a b)/", 7, "expected ')'" },
	{ "x /((a)/", 8, "expected ')'" },
	{ "x /", 4, "expected an operand after '/'" },
	{ "x / && a/", 5, "expected an operand after '/'" },
	{ "x /a == /", 9, "expected an operand after '=='" },
	{ "x /a <= {/", 9, "expected an operand after '<='" },
	{ "x /a && /", 9, "expected an operand after '&&'" },
	{ "x /a || )/", 9, "expected an operand after '||'" },
	{ "x /!/", 5, "expected an operand after '!'" },
	{ "x /()/", 5, "expected an operand after '('" },
	{ "x /a < b < c/", 10, "comparisons do not chain" },
	{ "x /a == b != c/", 11, "comparisons do not chain" },
	{ "x /!a == b >= c/", 12, "comparisons do not chain" },
	{ "x /a = 1/", 6, "use '==' to compare" },

	/* action */
	{ "x {}", 4, "empty action" },
	{ "x { }", 5, "empty action" },
	{ "x { count() }", 5, "expected '@' after '{'" },
	{ "x {", 4, "expected '@' after '{'" },
	{ "x { @ }", 7, "expected '='" },
	{ "x { @x count() }", 8, "expected '='" },
	{ "x { @ lat = count() }", 7, "expected '='" },
	{ "x { @[pid] == count() }", 12, "expected '='" },
	{ "x { @a. = count() }", 8, "expected a field name after '.'" },
	{ "x { @[] = count() }", 7, "expected a key after '['" },
	{ "x { @[a,] = count() }", 9, "expected a key after ','" },
	{ "x { @[a, 1] = count() }", 10, "expected a key after ','" },
	{ "x { @[\"s\"] = count() }", 7, "expected a key after '['" },
	{ "x { @[a b] = count() }", 9, "expected ']'" },
	{ "x { @[a", 8, "expected ']'" },
	{ "x { @[a,b,c,d,e,f,g,h,i] = count() }", 23, "too many keys (at most 8)" },
	{ "x { @ = }", 9, "expected an aggregation function after '='" },
	{ "x { @ = 1() }", 9, "expected an aggregation function after '='" },
	{ "x { @ = count }", 15, "expected '(' after the function name" },
	{ "x { @ = count( }", 16, "expected an argument after '('" },
	{ "x { @ = f(a,) }", 13, "expected an argument after ','" },
	{ "x { @ = f(,a) }", 11, "expected an argument after '('" },
	{ "x { @ = f(!a) }", 11, "expected an argument after '('" },
	{ "x { @ = f(a == b) }", 13, "expected ')'" },
	{ "x { @ = f(a b) }", 13, "expected ')'" },
	{ "x { @ = f((a) }", 15, "expected ')'" },
	{ "x { @ = f(a,b,c,d,e) }", 19, "too many arguments (at most 4)" },
	{ "x { @ = count()", 16, "expected '}'" },
	{ "x { @ = count();; }", 17, "expected '}'" },
	{ "x { @ = count() @ = count() }", 17, "expected '}'" },
	{ "x { @ = count() } y", 19, "trailing input after '}'" },
	{ "x { @ = count() } #", 19, "trailing input after '}'" },
	{ "x { @ = count() }}", 18, "trailing input after '}'" },
	{ "x { @ = count() }\n\t;", 20, "trailing input after '}'" },

	/* columns run over the whole text, newlines counting one each */
	{ "offcpu\n/pid ==\n/", 16, "expected an operand after '=='" },
	{ "offcpu\t/\tpid\t=\t1/", 14, "use '==' to compare" },
};

static void test_errors(void)
{
	size_t i;

	for (i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++)
		check_error(error_cases[i].in, error_cases[i].col,
			    error_cases[i].msg);
}

static const struct expr_node *node_ok(const struct expr_node *n,
				       enum expr_node_kind kind, int col,
				       const char *name)
{
	CHECK(n != NULL, label("%s: present", name));
	if (!n)
		return NULL;
	CHECK_INT(n->kind, kind, label("%s: kind", name));
	CHECK_INT(n->col, col, label("%s: column", name));
	return n;
}

/* The AST of a full clause: every field, every column. */
static void test_ast_clause(void)
{
	static const char in[] = "syscall:read /comm == \"cat\" && "
				 "(retval < 0 || pid != 1)/ { @[fd.path] = sum(retval) }";
	struct expr_error err;
	struct expr *e = expr_parse(in, &err);
	const struct expr_node *n;

	CHECK(e != NULL, "ast: parses");
	if (!e)
		return;
	CHECK_STR(e->text, in, "ast: text kept as given");
	CHECK(e->text != in, "ast: text is a copy");
	CHECK_STR(e->probe.kind, "syscall", "ast: probe kind");
	CHECK_INT(e->probe.kind_col, 1, "ast: probe kind column");
	CHECK_INT(e->probe.nparts, 1, "ast: probe parts");
	CHECK_STR(e->probe.parts[0], "read", "ast: probe part");
	CHECK_INT(e->probe.part_cols[0], 9, "ast: probe part column");

	n = node_ok(e->pred, EXPR_AND, 15, "ast: &&");
	if (n) {
		const struct expr_node *eq = node_ok(n->left, EXPR_CMP, 15, "ast: ==");
		const struct expr_node *or = node_ok(n->right, EXPR_OR, 33, "ast: ||");

		if (eq) {
			CHECK_INT(eq->op, EXPR_EQ, "ast: == op");
			if (node_ok(eq->left, EXPR_IDENT, 15, "ast: comm"))
				CHECK_STR(eq->left->name, "comm", "ast: comm name");
			if (node_ok(eq->right, EXPR_STR, 23, "ast: \"cat\""))
				CHECK_STR(eq->right->sval, "cat", "ast: \"cat\" value");
		}
		if (or) {
			const struct expr_node *lt = node_ok(or->left, EXPR_CMP, 33, "ast: <");
			const struct expr_node *ne = node_ok(or->right, EXPR_CMP, 47, "ast: !=");

			if (lt) {
				CHECK_INT(lt->op, EXPR_LT, "ast: < op");
				if (node_ok(lt->left, EXPR_IDENT, 33, "ast: retval"))
					CHECK_STR(lt->left->name, "retval", "ast: retval name");
				if (node_ok(lt->right, EXPR_INT, 42, "ast: 0"))
					CHECK_INT(lt->right->ival, 0, "ast: 0 value");
			}
			if (ne) {
				CHECK_INT(ne->op, EXPR_NE, "ast: != op");
				node_ok(ne->left, EXPR_IDENT, 47, "ast: pid");
				if (node_ok(ne->right, EXPR_INT, 54, "ast: 1"))
					CHECK_INT(ne->right->ival, 1, "ast: 1 value");
			}
		}
	}

	CHECK_INT(e->has_action, 1, "ast: has action");
	CHECK(e->action.map_name == NULL, "ast: anonymous map");
	CHECK_INT(e->action.nkeys, 1, "ast: one key");
	CHECK_STR(e->action.keys[0], "fd.path", "ast: dotted key");
	CHECK_INT(e->action.key_cols[0], 62, "ast: key column");
	CHECK_STR(e->action.func, "sum", "ast: func");
	CHECK_INT(e->action.func_col, 73, "ast: func column");
	CHECK_INT(e->action.nargs, 1, "ast: one arg");
	if (node_ok(e->action.args[0], EXPR_IDENT, 77, "ast: arg"))
		CHECK_STR(e->action.args[0]->name, "retval", "ast: arg name");
	expr_free(e);
}

static void test_ast_action(void)
{
	static const char in[] = "offcpu { @lat[pid, comm] = "
				 "lquantize(latency, -5, 0x10, \"s\\\"x\", ) }";
	static const char ok[] = "offcpu { @lat[pid,comm] = "
				 "lquantize(latency, -5, 0x10, \"s\\\"x\") }";
	struct expr_error err;
	struct expr *e;

	e = expr_parse(in, &err);
	CHECK(e == NULL, "ast action: trailing ',' in args rejected");
	expr_free(e);

	e = expr_parse(ok, &err);
	CHECK(e != NULL, "ast action: parses");
	if (!e)
		return;
	CHECK(e->pred == NULL, "ast action: no predicate");
	CHECK_INT(e->probe.nparts, 0, "ast action: kind only");
	CHECK_STR(e->action.map_name, "lat", "ast action: map name");
	CHECK_INT(e->action.nkeys, 2, "ast action: two keys");
	CHECK_STR(e->action.keys[0], "pid", "ast action: key 0");
	CHECK_STR(e->action.keys[1], "comm", "ast action: key 1");
	CHECK_INT(e->action.key_cols[0], 15, "ast action: key 0 column");
	CHECK_INT(e->action.key_cols[1], 19, "ast action: key 1 column");
	CHECK_STR(e->action.func, "lquantize", "ast action: func");
	CHECK_INT(e->action.func_col, 27, "ast action: func column");
	CHECK_INT(e->action.nargs, 4, "ast action: four args");
	node_ok(e->action.args[0], EXPR_IDENT, 37, "ast action: arg 0");
	if (node_ok(e->action.args[1], EXPR_INT, 46, "ast action: arg 1"))
		CHECK_INT(e->action.args[1]->ival, -5, "ast action: -5");
	if (node_ok(e->action.args[2], EXPR_INT, 50, "ast action: arg 2"))
		CHECK_INT(e->action.args[2]->ival, 16, "ast action: 0x10");
	if (node_ok(e->action.args[3], EXPR_STR, 56, "ast action: arg 3"))
		CHECK_STR(e->action.args[3]->sval, "s\"x", "ast action: unescaped");
	expr_free(e);

	e = expr_parse("offcpu", &err);
	CHECK(e != NULL, "ast bare: parses");
	if (!e)
		return;
	CHECK_INT(e->has_action, 0, "ast bare: no action");
	CHECK(e->pred == NULL, "ast bare: no predicate");
	CHECK(e->action.func == NULL && e->action.nkeys == 0 &&
	      e->action.nargs == 0, "ast bare: action empty");
	expr_free(e);

	e = expr_parse("x { @ = count() }", &err);
	CHECK(e && e->action.nargs == 0 && e->action.nkeys == 0 &&
	      !e->action.map_name, "ast: @ = count() has no keys, args, name");
	expr_free(e);
}

/* Precedence and associativity, as tree shapes. */
static void test_ast_shapes(void)
{
	struct expr_error err;
	struct expr *e;
	const struct expr_node *n;

	e = expr_parse("x /!a == b/", &err);
	n = e ? node_ok(e->pred, EXPR_CMP, 4, "!a == b: ==") : NULL;
	if (n) {
		node_ok(n->left, EXPR_NOT, 4, "!a == b: !");
		if (n->left)
			node_ok(n->left->left, EXPR_IDENT, 5, "!a == b: a");
		node_ok(n->right, EXPR_IDENT, 10, "!a == b: b");
	}
	expr_free(e);

	e = expr_parse("x /!(a == b)/", &err);
	n = e ? node_ok(e->pred, EXPR_NOT, 4, "!(a == b): !") : NULL;
	if (n)
		node_ok(n->left, EXPR_CMP, 6, "!(a == b): ==");
	expr_free(e);

	e = expr_parse("x /a || b && c/", &err);
	n = e ? node_ok(e->pred, EXPR_OR, 4, "a || b && c: ||") : NULL;
	if (n) {
		node_ok(n->left, EXPR_IDENT, 4, "a || b && c: a");
		node_ok(n->right, EXPR_AND, 9, "a || b && c: &&");
	}
	expr_free(e);

	e = expr_parse("x /a && b || c/", &err);
	n = e ? node_ok(e->pred, EXPR_OR, 4, "a && b || c: ||") : NULL;
	if (n) {
		node_ok(n->left, EXPR_AND, 4, "a && b || c: &&");
		node_ok(n->right, EXPR_IDENT, 14, "a && b || c: c");
	}
	expr_free(e);

	e = expr_parse("x /a || b || c/", &err);
	n = e ? node_ok(e->pred, EXPR_OR, 4, "a || b || c: outer") : NULL;
	if (n) {
		node_ok(n->left, EXPR_OR, 4, "a || b || c: left-deep");
		node_ok(n->right, EXPR_IDENT, 14, "a || b || c: c");
	}
	expr_free(e);

	e = expr_parse("x /a && b && c/", &err);
	n = e ? node_ok(e->pred, EXPR_AND, 4, "a && b && c: outer") : NULL;
	if (n)
		node_ok(n->left, EXPR_AND, 4, "a && b && c: left-deep");
	expr_free(e);

	e = expr_parse("x /a || (b || c)/", &err);
	n = e ? node_ok(e->pred, EXPR_OR, 4, "a || (b || c): outer") : NULL;
	if (n)
		node_ok(n->right, EXPR_OR, 10, "a || (b || c): right kept");
	expr_free(e);

	e = expr_parse("x /(((a)))/", &err);
	node_ok(e ? e->pred : NULL, EXPR_IDENT, 7, "(((a))): just a");
	expr_free(e);
}

static void test_ast_ops(void)
{
	static const struct {
		const char *in;
		enum expr_cmp_op op;
	} ops[] = {
		{ "x /a == 1/", EXPR_EQ }, { "x /a != 1/", EXPR_NE },
		{ "x /a < 1/", EXPR_LT },  { "x /a <= 1/", EXPR_LE },
		{ "x /a > 1/", EXPR_GT },  { "x /a >= 1/", EXPR_GE },
	};
	struct expr_error err;
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct expr *e = expr_parse(ops[i].in, &err);

		CHECK(e && e->pred && e->pred->kind == EXPR_CMP &&
		      e->pred->op == ops[i].op, label("op: %s", ops[i].in));
		expr_free(e);
	}
}

static void test_ast_probe(void)
{
	static const char in[] = "  usdt:\"/opt/my app\":\"\":a\\:b:x/y:z";
	struct expr_error err;
	struct expr *e;

	/* '\' is no part character outside quotes */
	e = expr_parse(in, &err);
	CHECK(e == NULL && err.col == 26, "probe: backslash outside quotes");
	expr_free(e);

	e = expr_parse("  usdt:\"/opt/my app\":\"\":\"a:b\"", &err);
	CHECK(e != NULL, "probe: quoted parts parse");
	if (e) {
		CHECK_STR(e->probe.kind, "usdt", "probe: kind");
		CHECK_INT(e->probe.kind_col, 3, "probe: kind column after blanks");
		CHECK_INT(e->probe.nparts, 3, "probe: three parts");
		CHECK_STR(e->probe.parts[0], "/opt/my app", "probe: quoted path");
		CHECK_INT(e->probe.part_cols[0], 8, "probe: column of the quote");
		CHECK_STR(e->probe.parts[1], "", "probe: empty quoted part");
		CHECK_INT(e->probe.part_cols[1], 22, "probe: empty part column");
		CHECK_STR(e->probe.parts[2], "a:b", "probe: quoted ':'");
		CHECK_INT(e->probe.part_cols[2], 25, "probe: third part column");
	}
	expr_free(e);

	e = expr_parse("uprobe:bin/server:main/arg0/", &err);
	CHECK(e && e->probe.nparts == 2, "slash rule: relative path part");
	if (e) {
		CHECK_STR(e->probe.parts[0], "bin/server", "slash rule: bin/server");
		CHECK_STR(e->probe.parts[1], "main", "slash rule: main");
		CHECK(e->pred && e->pred->kind == EXPR_IDENT,
		      "slash rule: then the predicate");
	}
	expr_free(e);

	e = expr_parse("uprobe:libc:malloc/arg0>1/", &err);
	CHECK(e && e->probe.nparts == 2 && !strcmp(e->probe.parts[1], "malloc"),
	      "slash rule: word part ends at '/'");
	CHECK(e && e->pred && e->pred->col == 20, "slash rule: predicate column");
	expr_free(e);

	e = expr_parse("uprobe:./a.out:f", &err);
	CHECK(e && e->probe.nparts == 2 && !strcmp(e->probe.parts[0], "./a.out"),
	      "slash rule: ./ path part");
	expr_free(e);

	e = expr_parse("a:1:2:3:4", &err);
	CHECK(e && e->probe.nparts == EXPR_MAX_PARTS,
	      "probe: EXPR_MAX_PARTS parts");
	CHECK(e && e->probe.part_cols[3] == 9, "probe: last part column");
	expr_free(e);
}

static void test_ints(void)
{
	static const struct {
		const char *in;
		__s64 want;
	} ints[] = {
		{ "x /0/", 0 },
		{ "x /-0/", 0 },
		{ "x /1/", 1 },
		{ "x /-1/", -1 },
		{ "x /0x7fffffffffffffff/", INT64_MAX },
		{ "x /9223372036854775807/", INT64_MAX },
		{ "x /-9223372036854775808/", INT64_MIN },
		{ "x /-0x8000000000000000/", INT64_MIN },
		{ "x /-9223372036854775807/", -INT64_MAX },
		{ "x /0xABCdef/", 0xabcdef },
	};
	struct expr_error err;
	size_t i;

	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		struct expr *e = expr_parse(ints[i].in, &err);

		CHECK(e && e->pred && e->pred->kind == EXPR_INT &&
		      e->pred->ival == ints[i].want, label("int: %s", ints[i].in));
		expr_free(e);
	}
}

/* The exact three lines, and where the caret goes. */
static void test_print_error(void)
{
	static const struct {
		const char *in;
		const char *out;
	} cases[] = {
		{ "uprobe:libc:malloc /(arg0 > 1/ { @ = count() }",
		  "scry: expected ')' at column 30\n"
		  "    uprobe:libc:malloc /(arg0 > 1/ { @ = count() }\n"
		  "                                 ^\n" },
		/* tabs stay tabs in the caret line */
		{ "x /\ta ==\t#/",
		  "scry: unexpected character '#' at column 10\n"
		  "    x /\ta ==\t#/\n"
		  "       \t    \t^\n" },
		/* newlines print as spaces; columns count them */
		{ "offcpu\n/pid ==\n/",
		  "scry: expected an operand after '==' at column 16\n"
		  "    offcpu /pid == /\n"
		  "                   ^\n" },
		/* end of input: the caret goes just past the text */
		{ "x /a",
		  "scry: expected '/' to close the predicate at column 5\n"
		  "    x /a\n"
		  "        ^\n" },
		/* UTF-8: one space per character, not per byte */
		{ "x /\"\xc3\xa9\" # /",
		  "scry: unexpected character '#' at column 9\n"
		  "    x /\"\xc3\xa9\" # /\n"
		  "           ^\n" },
		{ "",
		  "scry: empty probe at column 1\n"
		  "    \n"
		  "    ^\n" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct expr_error err;
		struct expr *e = expr_parse(cases[i].in, &err);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		CHECK(e == NULL, label("print_error: %zu fails", i));
		expr_free(e);
		if (!f)
			continue;
		expr_print_error(f, cases[i].in, &err);
		fclose(f);
		CHECK_STR(buf, cases[i].out, label("print_error: %zu", i));
		free(buf);
	}
}

static void test_format_space(void)
{
	static const char in[] = "offcpu /pid == 1/ { @[comm] = count() }";
	struct expr_error err;
	struct expr *e = expr_parse(in, &err);
	size_t want = strlen(in);
	char buf[128];

	CHECK(e != NULL, "format space: parses");
	if (!e)
		return;
	CHECK_INT(expr_format(e, buf, sizeof(buf)), want, "format: returns length");
	CHECK_STR(buf, in, "format: canonical text");
	CHECK_INT(expr_format(e, buf, want + 1), want, "format: exact fit");
	CHECK_INT(expr_format(e, buf, want), -ENOSPC, "format: one short");
	CHECK(memchr(buf, '\0', want) != NULL, "format: short still terminated");
	CHECK_INT(expr_format(e, buf, 1), -ENOSPC, "format: one byte");
	CHECK_INT(buf[0], 0, "format: one byte is empty");
	CHECK_INT(expr_format(e, NULL, 0), -ENOSPC, "format: no buffer");
	CHECK_INT(expr_format(NULL, buf, sizeof(buf)), -EINVAL, "format: no expr");
	expr_free(e);
}

/* Build "x /" + @n '(' + "a" + @n ')' + "/". */
static char *nested(const char *open, int n, const char *close)
{
	size_t ol = strlen(open), cl = strlen(close);
	char *s = malloc(8 + n * (ol + cl)), *p = s;
	int i;

	p += sprintf(p, "x /");
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s", open);
	*p++ = 'a';
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s", close);
	sprintf(p, "/");
	return s;
}

static void test_limits(void)
{
	struct expr_error err;
	struct expr *e;
	char *s, *p;
	int i;

	s = nested("(", 64, ")");
	e = expr_parse(s, &err);
	CHECK(e && e->pred && e->pred->kind == EXPR_IDENT, "depth: 64 '(' ok");
	expr_free(e);
	free(s);

	s = nested("(", 65, ")");
	check_error(s, 3 + 65, "nesting too deep (at most 64)");
	free(s);

	s = nested("!", 64, "");
	e = expr_parse(s, &err);
	CHECK(e != NULL, "depth: 64 '!' ok");
	expr_free(e);
	free(s);

	s = nested("!", 65, "");
	check_error(s, 3 + 65, "nesting too deep (at most 64)");
	free(s);

	s = nested("(!", 40, ")");
	check_error(s, 3 + 2 * 32 + 1, "nesting too deep (at most 64)");
	free(s);

	/* deep enough to blow the stack without the limit */
	s = nested("(", 100000, ")");
	check_error(s, 3 + 65, "nesting too deep (at most 64)");
	free(s);

	/* "a||a||...": n terms make 2n - 1 nodes; 1024 is the limit */
	s = malloc(3 + 513 * 3 + 2);
	p = s + sprintf(s, "x /a");
	for (i = 1; i < 512; i++)
		p += sprintf(p, "||a");
	strcpy(p, "/");
	e = expr_parse(s, &err);
	CHECK(e != NULL, "nodes: 1023 ok");
	expr_free(e);
	strcpy(p, "||a/");
	check_error(s, (int)(p - s) + 3, "expression too long (at most 1024 nodes)");
	free(s);

	e = expr_parse("x { @[a,b,c,d,e,f,g,h] = f(a,b,c,d) }", &err);
	CHECK(e && e->action.nkeys == EXPR_MAX_KEYS &&
	      e->action.nargs == EXPR_MAX_ARGS, "limits: max keys and args");
	expr_free(e);
}

static void test_misc(void)
{
	struct expr_error err;
	struct expr *e;

	errno = 0;
	e = expr_parse(NULL, &err);
	CHECK(!e && errno == EINVAL, "NULL text: EINVAL");
	CHECK_INT(err.col, 1, "NULL text: column");

	e = expr_parse("x /", NULL);
	CHECK(!e && errno == EINVAL, "NULL err: still fails cleanly");

	e = expr_parse("offcpu", NULL);
	CHECK(e != NULL, "NULL err: parses");
	expr_free(e);
	expr_free(NULL);

	/* the error of an expression is the first one, not later fallout */
	check_error("x /# && (/", 4, "unexpected character '#'");
	check_error("x /a == \"b/ { @ = count() }", 9, "unterminated string");
}

int main(void)
{
	test_formats();
	test_errors();
	test_ast_clause();
	test_ast_action();
	test_ast_shapes();
	test_ast_ops();
	test_ast_probe();
	test_ints();
	test_print_error();
	test_format_space();
	test_limits();
	test_misc();
	return CHECK_DONE();
}
