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
	{ "uprobe:\"\":f", "uprobe::f" },
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
	  "x { @ = f(a, 1, \"s\", b == 2) }" },
	{ "x { @ = f((a)) }", "x { @ = f(a) }" },
	{ "x { @ = f((!a)) }", "x { @ = f(!a) }" },
	{ "x { @ = f(-5, 0x10) }", "x { @ = f(-5, 16) }" },
	/* bpftrace's forms: an exponent, '_' between digits */
	{ "x { @ = f(1e6, 2E3, 0e99, 9e18) }",
	  "x { @ = f(1000000, 2000, 0, 9000000000000000000) }" },
	{ "x { @ = f(1_000_000, 0x1_0) }", "x { @ = f(1000000, 16) }" },
	{ "x { @ = count(); }", "x { @ = count() }" },
	{ "x { @ = count() ; }", "x { @ = count() }" },
	{ "x /a/ { @ = count() }", "x /a/ { @ = count() }" },

	/* programs: clauses a line each, probe lists, empty parts */
	{ "BEGIN { printf(\"hi\\n\") } END { exit() }",
	  "BEGIN { printf(\"hi\\n\") }\nEND { exit() }" },
	{ "kprobe:a,kprobe:b , tracepoint:x:y{}",
	  "kprobe:a, kprobe:b, tracepoint:x:y { }" },
	{ "syscall:read,write,  BEGIN {}", "syscall:read,write, BEGIN { }" },
	{ "syscall::read:entry { }", "syscall::read:entry { }" },
	{ "profile:::profile-997 { @[stack()] = count() }",
	  "profile:::profile-997 { @[stack()] = count() }" },
	{ "pid$target::malloc:entry", "pid$target::malloc:entry" },
	{ "x:\"a,b\":c", "x:\"a,b\":c" },
	{ "x:\"a,\"", "x:\"a,\"" },
	{ "x:\"\"", "x:\"\"" },
	{ "#!/bin/bpftrace\n// hi\nx { /* c */ @a = 1 }\n  # no\n",
	  "x { @a = 1 }" },

	/* statements */
	{ "x { @start[tid] = nsecs; @x++; --@y[1]; $v += 2; self->t = 1;"
	  " this->u <<= 3 }",
	  "x { @start[tid] = nsecs; @x++; --@y[1]; $v += 2; self->t = 1;"
	  " this->u <<= 3 }" },
	{ "x { if (a) { b() } else if (c) { d() } else { e() } f() }",
	  "x { if (a) { b() } else if (c) { d() } else { e() }; f() }" },
	{ "x { if (a) { } ; ; }", "x { if (a) { } }" },
	{ "x { ;; @a = 1;; }", "x { @a = 1 }" },

	/* expressions: C's precedence, minimal parentheses */
	{ "x /a+b*c-d/", "x /a + b * c - d/" },
	{ "x /(a+b)*c/", "x /(a + b) * c/" },
	{ "x /a-(b-c)/", "x /a - (b - c)/" },
	{ "x /a << 1 | b & 0xff ^ c/", "x /a << 1 | b & 255 ^ c/" },
	{ "x /(a | b) == c/", "x /(a | b) == c/" },
	{ "x /a == (b | c)/", "x /a == (b | c)/" },
	{ "x /- -a/", "x /-(-a)/" },
	{ "x /-(-5)/", "x /-(-5)/" },
	{ "x /a - -5/", "x /a - -5/" },
	{ "x /~a + !b/", "x /~a + !b/" },
	{ "x / *p/", "x / *p/" },
	{ "x /a ? b : c ? d : e/", "x /a ? b : c ? d : e/" },
	{ "x /(a ? b : c) ? d : e/", "x /(a ? b : c) ? d : e/" },
	{ "x /a / b/", "x /a / b/" },
	{ "x /a % 3 == 1/", "x /a % 3 == 1/" },
	{ "x { @[comm, \"ns\"] = quantize(latency / 1000) }",
	  "x { @[comm, \"ns\"] = quantize(latency / 1000) }" },
	{ "x { @[ustack()] = count() }", "x { @[ustack()] = count() }" },
	{ "x { printf(\"%s\", str(args->filename)) }",
	  "x { printf(\"%s\", str(args->filename)) }" },
	{ "x { @ = str(((struct path*)arg0)->dentry->d_name.name) }",
	  "x { @ = str(((struct path *)arg0)->dentry->d_name.name) }" },
	{ "x /(unsigned long) a/", "x /(unsigned long)a/" },
	{ "x /(a).b/", "x /(a).b/" },
	{ "x /$a.b/", "x /$a.b/" },
	{ "x /a[1][$i]/", "x /a[1][$i]/" },
	{ "x /curtask->mm->owner/", "x /curtask->mm->owner/" },
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
	{ "", 1, "empty probe" },
	{ "   ", 4, "empty probe" },
	{ "/x/", 1, "empty probe" },
	{ "  { @ = count() }", 3, "empty probe" },
	{ ":libc", 1, "empty probe kind" },
	{ "a:b:c:d:e:f", 11, "too many probe parts (at most 4)" },
	{ "#x", 3, "empty probe" },
	{ "\"uprobe\":f", 1, "unexpected character '\"' in probe" },
	{ "./a.out:f", 1, "unexpected character '.' in probe" },
	{ "off-cpu", 4, "unexpected character '-' in probe" },
	{ "uprobe:foo;bar", 11, "unexpected character ';' in probe" },
	{ "uprobe:\"a\"b", 11, "unexpected character 'b' in probe" },
	{ "uprobe:f}", 9, "unexpected character '}' in probe" },
	{ "uprobe:./a.out/arg0>1/", 20, "unexpected character '>' in probe" },
	{ "uprobe:\"abc", 8, "unterminated string" },
	{ "uprobe:\"a\\qb\"", 11, "unknown escape '\\q'" },
	{ "x /comm == \"ab/", 12, "unterminated string" },
	{ "x /comm == \"a\\", 12, "unterminated string" },
	{ "x /s == \"\\x\"/", 11, "unknown escape '\\x'" },
	{ "x /s == \"\\'\"/", 11, "unknown escape '\\''" },
	{ "x /s == \"\\\x01" "\"/", 11, "unexpected character '\\x01' after '\\'" },
	{ "x /a # b/", 6, "unexpected character '#'" },
	{ "x /a \xc3" "\xa9" "/", 6, "unexpected character '\\xc3'" },
	{ "x /a\x7f" "/", 5, "unexpected character '\\x7f'" },
	{ "x /a $ b/", 6, "expected a variable name after '$'" },
	{ "x /1.5/", 5, "numbers are integers: no '.'" },
	{ "x /0x/", 6, "expected hex digits after '0x'" },
	{ "x /-0xg/", 7, "expected hex digits after '0x'" },
	{ "x /0123/", 4, "octal numbers are not supported" },
	{ "x /-00/", 5, "octal numbers are not supported" },
	{ "x /9223372036854775808/", 4, "number out of range" },
	{ "x /1e19/", 4, "number out of range" },
	{ "x /1e/", 5, "unexpected character 'e' in number" },
	{ "x /1_/", 5, "unexpected character '_' in number" },
	{ "x /-9223372036854775809/", 5, "number out of range" },
	{ "x /0x8000000000000000/", 4, "number out of range" },
	{ "x /-0x8000000000000001/", 5, "number out of range" },
	{ "x /0xffffffffffffffff/", 4, "number out of range" },
	{ "x /99999999999999999999999999/", 4, "number out of range" },
	{ "x /a == 18446744073709551616/", 9, "number out of range" },
	{ "x /1000ms/", 8, "unexpected character 'm' in number" },
	{ "x /12abc/", 6, "unexpected character 'a' in number" },
	{ "x /0xfg/", 7, "unexpected character 'g' in number" },
	{ "x /fd./", 7, "expected a field name after '.'" },
	{ "x /fd.1/", 7, "expected a field name after '.'" },
	{ "x /fd..a/", 7, "expected a field name after '.'" },
	{ "x / /", 5, "empty predicate" },
	{ "x /a", 5, "expected '/' to close the predicate" },
	{ "x /a b/", 6, "expected '/' to close the predicate" },
	{ "x /a { @ = count() }", 6, "expected '/' to close the predicate" },
	{ "x /a/ b", 8, "expected '/' to close the predicate" },
	{ "x /a/ /b/", 7, "expected an operand after '/'" },
	{ "x b", 3, "expected '/' or '{' after the probe" },
	{ "x ( a )", 3, "expected '/' or '{' after the probe" },
	{ "x /(a/", 6, "expected ')', not '/'" },
	{ "x /(a b)/", 7, "expected ')', not 'b'" },
	{ "x /((a)/", 8, "expected ')', not '/'" },
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
	{ "x /a < b == c/", 10, "comparisons do not chain" },
	{ "x {", 4, "expected '}'" },
	{ "x { @x count() }", 8, "expected ';' or '}' after the statement, not 'count'" },
	{ "x { @ lat = count() }", 7, "expected ';' or '}' after the statement, not 'lat'" },
	{ "x { @a. = count() }", 8, "expected a field name after '.'" },
	{ "x { @[] = count() }", 5, "empty key: write @ without []" },
	{ "x { @[a,] = count() }", 9, "expected an operand after ','" },
	{ "x { @[a b] = count() }", 9, "expected ',' or ']', not 'b'" },
	{ "x { @[a", 8, "expected ',' or ']', not end of input" },
	{ "x { @ = }", 9, "expected an operand after '='" },
	{ "x { @ = 1() }", 10, "expected ';' or '}' after the statement, not '('" },
	{ "x { @ = count( }", 16, "expected an operand after '('" },
	{ "x { @ = f(a,) }", 13, "expected an operand after ','" },
	{ "x { @ = f(,a) }", 11, "expected an operand after '('" },
	{ "x { @ = f(a b) }", 13, "expected ',' or ')', not 'b'" },
	{ "x { @ = f((a) }", 15, "expected ',' or ')', not '}'" },
	{ "x { @ = count()", 16, "expected ';' or '}' after the statement, not end of input" },
	{ "x { @ = count() @ = count() }", 17, "expected ';' or '}' after the statement, not '@'" },
	{ "x { @ = count() } #", 19, "unexpected character '#'" },
	{ "x { @ = count() }}", 18, "unexpected character '}' in probe" },
	{ "x { @ = count() }\n\t;", 20, "unexpected character ';' in probe" },
	{ "x { 1 = 2 }", 7, "'=' assigns to a variable: @map, $var or self->var" },
	{ "x { a = 2 }", 7, "'=' assigns to a variable: @map, $var or self->var" },
	{ "x { a++ }", 6, "'++' assigns to a variable: @map, $var or self->var" },
	{ "x { ++1 }", 7, "'++' needs a variable: @map, $var or self->var" },
	{ "x { $ = 1 }", 5, "expected a variable name after '$'" },
	{ "x { self.x = 1 }", 12, "'=' assigns to a variable: @map, $var or self->var" },
	{ "x { self->1 = 1 }", 11, "expected a variable name after '->'" },
	{ "x { if a { } }", 8, "expected '(' after 'if', not 'a'" },
	{ "x { if (a) @x = 1 }", 12, "expected '{', not '@'" },
	{ "x { if (a) { } else }", 21, "expected '{', not '}'" },
	{ "x { @x = a ? b }", 16, "expected ':' of '?:', not '}'" },
	{ "x { @x = a ? b : }", 18, "expected an operand after ':'" },
	{ "x /(struct path *)/", 19, "expected an operand after ')'" },
	{ "x /a->/", 7, "expected a field name after '->'" },
	{ "x /a->1/", 7, "expected a field name after '->'" },
	{ "x /a[1/", 7, "expected ']', not '/'" },
	{ "x { @x[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17] = 1 }", 47, "too many keys (at most 16)" },
	{ "x { /* oops }", 5, "unterminated comment" },
	{ "syscall:read, {}", 15, "empty probe" },
	{ "syscall:read,", 14, "empty probe" },
	{ "x /a/ y { }", 9, "expected '/' to close the predicate" },
	{ "BEGIN END", 7, "expected '/' or '{' after the probe" },
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

/* A binary node of @op. */
static const struct expr_node *bin_ok(const struct expr_node *n,
				      enum expr_op op, int col,
				      const char *name)
{
	n = node_ok(n, EXPR_BINARY, col, name);
	if (n)
		CHECK_INT(n->op, op, label("%s: op", name));
	return n;
}

/* A node's shape, fully parenthesized: "(a + (b * c))". */
static void tree_text(const struct expr_node *n, char *buf, size_t len)
{
	char l[80], r[80], o[80];
	int i;

	switch (n->kind) {
	case EXPR_BINARY:
		tree_text(n->left, l, sizeof(l));
		tree_text(n->right, r, sizeof(r));
		snprintf(buf, len, "(%s %s %s)", l, expr_op_name(n->op), r);
		return;
	case EXPR_UNARY:
		tree_text(n->left, l, sizeof(l));
		snprintf(buf, len, "(%s%s)", expr_op_name(n->op), l);
		return;
	case EXPR_COND:
		tree_text(n->left, l, sizeof(l));
		tree_text(n->right, r, sizeof(r));
		tree_text(n->other, o, sizeof(o));
		snprintf(buf, len, "(%s ? %s : %s)", l, r, o);
		return;
	case EXPR_CAST:
		tree_text(n->left, l, sizeof(l));
		snprintf(buf, len, "((%s)%s)", n->name, l);
		return;
	case EXPR_MEMBER:
		tree_text(n->left, l, sizeof(l));
		snprintf(buf, len, "(%s%s%s)", l, n->arrow ? "->" : ".",
			 n->name);
		return;
	case EXPR_INDEX:
		tree_text(n->left, l, sizeof(l));
		tree_text(n->right, r, sizeof(r));
		snprintf(buf, len, "(%s[%s])", l, r);
		return;
	case EXPR_CALL:
	case EXPR_MAP:
		snprintf(buf, len, "%s%s%s", n->kind == EXPR_MAP ? "@" : "",
			 n->name, n->kind == EXPR_CALL || n->has_keys ?
			 (n->kind == EXPR_CALL ? "(" : "[") : "");
		for (i = 0; i < n->nargs; i++) {
			tree_text(n->args[i], l, sizeof(l));
			strncat(buf, i ? ", " : "", len - strlen(buf) - 1);
			strncat(buf, l, len - strlen(buf) - 1);
		}
		if (n->kind == EXPR_CALL || n->has_keys)
			strncat(buf, n->kind == EXPR_CALL ? ")" : "]",
				len - strlen(buf) - 1);
		return;
	default:
		expr_format_node(n, buf, len);
		return;
	}
}

/* The AST of a full clause: every field, every column. */
static void test_ast_clause(void)
{
	static const char in[] = "syscall:read /comm == \"cat\" && "
				 "(retval < 0 || pid != 1)/ { @[fd.path] = sum(retval) }";
	struct expr_error err;
	struct expr *e = expr_parse(in, &err);
	const struct expr_clause *c;
	const struct expr_stmt *st;
	const struct expr_node *n;

	CHECK(e != NULL, "ast: parses");
	if (!e)
		return;
	CHECK_STR(e->text, in, "ast: text kept as given");
	CHECK(e->text != in, "ast: text is a copy");
	CHECK_INT(e->nclauses, 1, "ast: one clause");
	c = &e->clauses[0];
	CHECK_INT(c->nprobes, 1, "ast: one probe");
	CHECK_STR(c->probes[0].kind, "syscall", "ast: probe kind");
	CHECK_INT(c->probes[0].kind_col, 1, "ast: probe kind column");
	CHECK_INT(c->probes[0].nparts, 1, "ast: probe parts");
	CHECK_STR(c->probes[0].parts[0], "read", "ast: probe part");
	CHECK_INT(c->probes[0].part_cols[0], 9, "ast: probe part column");

	n = bin_ok(c->pred, EXPR_LAND, 15, "ast: &&");
	if (n) {
		const struct expr_node *eq = bin_ok(n->left, EXPR_EQ, 15, "ast: ==");
		const struct expr_node *or = bin_ok(n->right, EXPR_LOR, 33, "ast: ||");

		if (eq) {
			if (node_ok(eq->left, EXPR_IDENT, 15, "ast: comm"))
				CHECK_STR(eq->left->name, "comm", "ast: comm name");
			if (node_ok(eq->right, EXPR_STR, 23, "ast: \"cat\""))
				CHECK_STR(eq->right->sval, "cat", "ast: \"cat\" value");
		}
		if (or) {
			const struct expr_node *lt = bin_ok(or->left, EXPR_LT, 33, "ast: <");
			const struct expr_node *ne = bin_ok(or->right, EXPR_NE, 47, "ast: !=");

			if (lt && node_ok(lt->right, EXPR_INT, 42, "ast: 0"))
				CHECK_INT(lt->right->ival, 0, "ast: 0 value");
			if (ne && node_ok(ne->right, EXPR_INT, 54, "ast: 1"))
				CHECK_INT(ne->right->ival, 1, "ast: 1 value");
		}
	}

	CHECK(c->has_body, "ast: has a body");
	CHECK_INT(c->body.n, 1, "ast: one statement");
	st = c->body.n ? c->body.stmts[0] : NULL;
	if (st) {
		CHECK_INT(st->kind, EXPR_STMT_ASSIGN, "ast: an assignment");
		CHECK_INT(st->op, EXPR_NOPS, "ast: plain '='");
		CHECK_INT(st->col, 60, "ast: statement column");
		n = node_ok(st->target, EXPR_MAP, 60, "ast: @[...]");
		if (n) {
			CHECK_STR(n->name, "", "ast: anonymous map");
			CHECK(n->has_keys, "ast: keys written");
			CHECK_INT(n->nargs, 1, "ast: one key");
			if (n->nargs && node_ok(n->args[0], EXPR_IDENT, 62, "ast: key"))
				CHECK_STR(n->args[0]->name, "fd.path", "ast: dotted key");
		}
		n = node_ok(st->value, EXPR_CALL, 73, "ast: sum(...)");
		if (n) {
			CHECK_STR(n->name, "sum", "ast: func");
			CHECK_INT(n->nargs, 1, "ast: one arg");
			if (n->nargs && node_ok(n->args[0], EXPR_IDENT, 77, "ast: arg"))
				CHECK_STR(n->args[0]->name, "retval", "ast: arg name");
		}
	}
	expr_free(e);
}

/* Several clauses, probe lists, statements of each kind. */
static void test_ast_program(void)
{
	static const char in[] =
		"kprobe:vfs_read, tracepoint:a:b { @start[tid] = nsecs; }\n"
		"kretprobe:vfs_read /@start[tid]/ { @ns[comm] = hist(nsecs - @start[tid]);"
		" delete(@start[tid]); $x += 2; self->t++; --this->u;"
		" if (a) { printf(\"%d\\n\", a) } else if (b) { exit() } else { } }\n"
		"END";
	struct expr_error err;
	struct expr *e = expr_parse(in, &err);
	const struct expr_clause *c;
	const struct expr_stmt *st;
	const struct expr_node *n;

	CHECK(e != NULL, "program: parses");
	if (!e) {
		printf("#   %s at %d\n", err.msg, err.col);
		return;
	}
	CHECK_INT(e->nclauses, 3, "program: three clauses");
	c = &e->clauses[0];
	CHECK_INT(c->nprobes, 2, "program: a probe list");
	CHECK_STR(c->probes[1].kind, "tracepoint", "program: second probe");
	CHECK_INT(c->probes[1].kind_col, 18, "program: its column");
	CHECK(c->pred == NULL, "program: no predicate");
	c = &e->clauses[1];
	n = node_ok(c->pred, EXPR_MAP, 78, "program: /@start[tid]/");
	CHECK_INT(c->body.n, 6, "program: six statements");
	if (c->body.n == 6) {
		st = c->body.stmts[0];
		n = node_ok(st->value, EXPR_CALL, 105, "program: hist()");
		if (n && n->nargs == 1)
			bin_ok(n->args[0], EXPR_SUB, 110, "program: nsecs - @start[tid]");
		st = c->body.stmts[1];
		CHECK_INT(st->kind, EXPR_STMT_EXPR, "program: delete() a statement");
		st = c->body.stmts[2];
		CHECK(st->kind == EXPR_STMT_ASSIGN && st->op == EXPR_ADD &&
		      st->target->kind == EXPR_VAR &&
		      !strcmp(st->target->name, "x"), "program: $x += 2");
		st = c->body.stmts[3];
		CHECK(st->kind == EXPR_STMT_INCR && st->op == EXPR_ADD &&
		      !st->prefix && st->target->kind == EXPR_TLS &&
		      !strcmp(st->target->name, "t"), "program: self->t++");
		st = c->body.stmts[4];
		CHECK(st->kind == EXPR_STMT_INCR && st->op == EXPR_SUB &&
		      st->prefix && st->target->kind == EXPR_CLAUSE_VAR,
		      "program: --this->u");
		st = c->body.stmts[5];
		CHECK(st->kind == EXPR_STMT_IF && st->has_else &&
		      st->then.n == 1 && st->other.n == 1 &&
		      st->other.stmts[0]->kind == EXPR_STMT_IF &&
		      st->other.stmts[0]->has_else &&
		      st->other.stmts[0]->other.n == 0, "program: if/else if/else");
	}
	c = &e->clauses[2];
	CHECK(!c->has_body && !c->pred && c->nprobes == 1 &&
	      !strcmp(c->probes[0].kind, "END"), "program: bare END last");
	expr_free(e);
}

/* Precedence and associativity, as tree shapes. */
static void test_ast_shapes(void)
{
	static const struct {
		const char *in;		/* a predicate */
		const char *tree;	/* its shape, fully parenthesized */
	} cases[] = {
		{ "!a == b", "((!a) == b)" },
		{ "!(a == b)", "(!(a == b))" },
		{ "a || b && c", "(a || (b && c))" },
		{ "a && b || c", "((a && b) || c)" },
		{ "a || b || c", "((a || b) || c)" },
		{ "a || (b || c)", "(a || (b || c))" },
		{ "a | b ^ c & d", "(a | (b ^ (c & d)))" },
		{ "a & b == c", "(a & (b == c))" },
		{ "a == b << 1", "(a == (b << 1))" },
		{ "a << 1 + 2", "(a << (1 + 2))" },
		{ "a + b * c - d", "((a + (b * c)) - d)" },
		{ "a - b - c", "((a - b) - c)" },
		{ "a / b % c", "((a / b) % c)" },
		{ "-a * ~b", "((-a) * (~b))" },
		{ "- -a", "(-(-a))" },
		{ "-5", "-5" },
		{ " *p + 1", "((*p) + 1)" },
		{ "a ? b : c ? d : e", "(a ? b : (c ? d : e))" },
		{ "a || b ? c : d", "((a || b) ? c : d)" },
		{ "(struct path *)arg0", "((struct path *)arg0)" },
		{ "args->f->g.h", "((args->f)->g.h)" },
		{ "a[1][2]", "((a[1])[2])" },
		{ "@m[k] + $v", "(@m[k] + $v)" },
		{ "f(a, b + 1)", "f(a, (b + 1))" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char in[256], got[256] = "";
		struct expr_error err;
		struct expr *e;

		snprintf(in, sizeof(in), "x /%s/", cases[i].in);
		e = expr_parse(in, &err);
		CHECK(e != NULL, label("shape parses: %s", in));
		if (!e)
			continue;
		tree_text(e->clauses[0].pred, got, sizeof(got));
		CHECK_STR(got, cases[i].tree, label("shape: %s", in));
		expr_free(e);
	}
}

static void test_ast_ops(void)
{
	static const struct {
		const char *op;
		enum expr_op want;
	} ops[] = {
		{ "==", EXPR_EQ }, { "!=", EXPR_NE }, { "<", EXPR_LT },
		{ "<=", EXPR_LE }, { ">", EXPR_GT }, { ">=", EXPR_GE },
		{ "+", EXPR_ADD }, { "-", EXPR_SUB }, { "*", EXPR_MUL },
		{ "/", EXPR_DIV }, { "%", EXPR_MOD }, { "&", EXPR_BAND },
		{ "|", EXPR_BOR }, { "^", EXPR_BXOR }, { "<<", EXPR_SHL },
		{ ">>", EXPR_SHR }, { "&&", EXPR_LAND }, { "||", EXPR_LOR },
	};
	struct expr_error err;
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		char in[32];
		struct expr *e;

		snprintf(in, sizeof(in), "x /a %s 1/", ops[i].op);
		e = expr_parse(in, &err);
		CHECK(e && e->clauses[0].pred->kind == EXPR_BINARY &&
		      e->clauses[0].pred->op == ops[i].want,
		      label("op: %s", in));
		CHECK_STR(expr_op_name(ops[i].want), ops[i].op,
			  label("op name: %s", ops[i].op));
		expr_free(e);
	}
	/* compound assignments and their operators */
	for (i = 6; i < 16; i++) {
		char in[48];
		struct expr *e;

		snprintf(in, sizeof(in), "x { @a %s= 1 }", ops[i].op);
		e = expr_parse(in, &err);
		CHECK(e && e->clauses[0].body.stmts[0]->kind ==
		      EXPR_STMT_ASSIGN &&
		      e->clauses[0].body.stmts[0]->op == ops[i].want,
		      label("assign op: %s", in));
		expr_free(e);
	}
}

static void test_ast_probe(void)
{
	static const char in[] = "  usdt:\"/opt/my app\":\"\":a\\:b:x/y:z";
	struct expr_error err;
	struct expr *e;
	const struct expr_probe *pr;

	/* '\' is no part character outside quotes */
	e = expr_parse(in, &err);
	CHECK(e == NULL && err.col == 26, "probe: backslash outside quotes");
	expr_free(e);

	e = expr_parse("  usdt:\"/opt/my app\":\"\":\"a:b\"", &err);
	CHECK(e != NULL, "probe: quoted parts parse");
	if (e) {
		pr = &e->clauses[0].probes[0];
		CHECK_STR(pr->kind, "usdt", "probe: kind");
		CHECK_INT(pr->kind_col, 3, "probe: kind column after blanks");
		CHECK_INT(pr->nparts, 3, "probe: three parts");
		CHECK_STR(pr->parts[0], "/opt/my app", "probe: quoted path");
		CHECK_INT(pr->part_cols[0], 8, "probe: column of the quote");
		CHECK_STR(pr->parts[1], "", "probe: empty quoted part");
		CHECK_INT(pr->part_cols[1], 22, "probe: empty part column");
		CHECK_STR(pr->parts[2], "a:b", "probe: quoted ':'");
		CHECK_INT(pr->part_cols[2], 25, "probe: third part column");
	}
	expr_free(e);

	e = expr_parse("uprobe:bin/server:main/arg0/", &err);
	pr = e ? &e->clauses[0].probes[0] : NULL;
	CHECK(pr && pr->nparts == 2, "slash rule: relative path part");
	if (pr) {
		CHECK_STR(pr->parts[0], "bin/server", "slash rule: bin/server");
		CHECK_STR(pr->parts[1], "main", "slash rule: main");
		CHECK(e->clauses[0].pred &&
		      e->clauses[0].pred->kind == EXPR_IDENT,
		      "slash rule: then the predicate");
	}
	expr_free(e);

	e = expr_parse("uprobe:libc:malloc/arg0>1/", &err);
	CHECK(e && !strcmp(e->clauses[0].probes[0].parts[1], "malloc"),
	      "slash rule: word part ends at '/'");
	CHECK(e && e->clauses[0].pred && e->clauses[0].pred->col == 20,
	      "slash rule: predicate column");
	expr_free(e);

	/* the ',' rule: a list inside a part, or a list of probes */
	e = expr_parse("syscall:read,pread64,tracepoint:a:b,BEGIN, END {}", &err);
	CHECK(e && e->clauses[0].nprobes == 3, "comma rule: three probes");
	if (e && e->clauses[0].nprobes == 3) {
		CHECK_STR(e->clauses[0].probes[0].parts[0], "read,pread64",
			  "comma rule: a syscall list is one part");
		CHECK_STR(e->clauses[0].probes[1].parts[1], "b,BEGIN",
			  "comma rule: no ':' after the word: still the part");
		CHECK_STR(e->clauses[0].probes[2].kind, "END",
			  "comma rule: a blank after ',' starts a probe");
	}
	expr_free(e);

	/* DTrace's empty parts and $ in kinds */
	e = expr_parse("syscall::read:entry, pid$target::malloc:entry", &err);
	CHECK(e && e->clauses[0].nprobes == 2 &&
	      !strcmp(e->clauses[0].probes[0].parts[0], "") &&
	      !strcmp(e->clauses[0].probes[1].kind, "pid$target"),
	      "probe: DTrace descriptions");
	expr_free(e);

	/* comments and a script's #! line */
	e = expr_parse("#!/usr/bin/env bpftrace\n// a line\nBEGIN /* c */ {\n"
		       "  # pragma\n  @x = 1; /* more */\n}\n", &err);
	CHECK(e && e->nclauses == 1 && e->clauses[0].body.n == 1,
	      "comments: skipped");
	expr_free(e);
	/* "//" ends a line anywhere (ssllatency.bt, writeback.bt) */
	e = expr_parse("BEGIN /pid > 1/ // why\n{\n\t@x = comm; // store\n"
		       "\tprintf(\"%d\\n\",\t// a value\n\t    1 // one\n);}"
		       "// end", &err);
	CHECK(e && e->nclauses == 1 && e->clauses[0].pred &&
	      e->clauses[0].body.n == 2, "comments: // after tokens");
	expr_free(e);
	e = expr_parse("x //", &err);
	CHECK(e && e->nclauses == 1 && !e->clauses[0].pred,
	      "comments: 'x //' is x and a comment, as in bpftrace");
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

		const struct expr_node *n = e ? e->clauses[0].pred : NULL;

		CHECK(n && n->kind == EXPR_INT && n->ival == ints[i].want,
		      label("int: %s", ints[i].in));
		expr_free(e);
	}
}

/* The exact three lines, and where the caret goes. */
static void test_print_error(void)
{
	static const struct {
		const char *in;
		const char *out;
		const char *file;	/* -f's */
	} cases[] = {
		{ "uprobe:libc:malloc /(arg0 > 1/ { @ = count() }",
		  "scry: expected ')', not '/' at column 30\n"
		  "    uprobe:libc:malloc /(arg0 > 1/ { @ = count() }\n"
		  "                                 ^\n", NULL },
		/* tabs stay tabs in the caret line */
		{ "x /\ta ==\t#/",
		  "scry: unexpected character '#' at column 10\n"
		  "    x /\ta ==\t#/\n"
		  "       \t    \t^\n", NULL },
		/* several lines: the spot by line and column, its line only */
		{ "offcpu\n/pid ==\n/",
		  "scry: expected an operand after '==' at line 3, column 1\n"
		  "    /\n"
		  "    ^\n", NULL },
		/* a file: FILE:LINE:COL, the line's tabs kept for the caret */
		{ "BEGIN\n{\n\tprintf(\"hi\\n\");\n\t$x = 1 + ;\n}\n",
		  "scry: t.bt:4:11: expected an operand after '+'\n"
		  "    \t$x = 1 + ;\n"
		  "    \t         ^\n", "t.bt" },
		/* a one-line file is still FILE:1:COL */
		{ "BEGIN { @ = ( }\n",
		  "scry: t.bt:1:15: expected an operand after '('\n"
		  "    BEGIN { @ = ( }\n"
		  "                  ^\n", "t.bt" },
		/* the end of a file: after its last line's text */
		{ "BEGIN\n{\n\t@ = count()\n",
		  "scry: t.bt:3:13: expected ';' or '}' after the statement, "
		  "not end of input\n"
		  "    \t@ = count()\n"
		  "    \t           ^\n", "t.bt" },
		/* a one-line -e with its newline: as before */
		{ "x /a\n",
		  "scry: expected '/' to close the predicate at column 6\n"
		  "    x /a\n"
		  "        ^\n", NULL },
		/* end of input: the caret goes just past the text */
		{ "x /a",
		  "scry: expected '/' to close the predicate at column 5\n"
		  "    x /a\n"
		  "        ^\n", NULL },
		/* UTF-8: one space per character, not per byte */
		{ "x /\"\xc3\xa9\" # /",
		  "scry: unexpected character '#' at column 9\n"
		  "    x /\"\xc3\xa9\" # /\n"
		  "           ^\n", NULL },
		{ "",
		  "scry: empty probe at column 1\n"
		  "    \n"
		  "    ^\n", NULL },
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
		expr_print_error(f, cases[i].in, cases[i].file, &err);
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
	CHECK(e && e->clauses[0].pred &&
	      e->clauses[0].pred->kind == EXPR_IDENT, "depth: 64 '(' ok");
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

	/*
	 * "a||a||...": n terms make 2n - 1 nodes, the probe one more; 4096
	 * is the limit
	 */
	s = malloc(3 + 2049 * 3 + 2);
	p = s + sprintf(s, "x /a");
	for (i = 1; i < 2048; i++)
		p += sprintf(p, "||a");
	strcpy(p, "/");
	e = expr_parse(s, &err);
	CHECK(e != NULL, "nodes: 4096 ok");
	expr_free(e);
	strcpy(p, "||a/");
	check_error(s, (int)(p - s) + 3, "program too long (at most 4096 nodes)");
	free(s);

	e = expr_parse("x { @[a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p] = "
		       "f(a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p) }", &err);
	CHECK(e && e->clauses[0].body.stmts[0]->target->nargs == 16 &&
	      e->clauses[0].body.stmts[0]->value->nargs == 16,
	      "limits: 16 keys and arguments");
	expr_free(e);
	check_error("x { @[a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q] = 1 }", 39,
		    "too many keys (at most 16)");
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
	test_ast_program();
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
