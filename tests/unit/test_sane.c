/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sanitizer (sane.h, docs/ESCAPING.md): every class of byte, UTF-8
 * edge cases, the flags, the bounded form, a failing stream, and
 * log.c's messages. The expected text of single bytes is computed here
 * from the documented scheme, not from sane.c, and random strings must
 * decode (as printf '%b' would) back to their bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scry/log.h>
#include <scry/sane.h>

#include "check.h"
#include "test_util.h"

/* sane_fputs into a string; NULL if it failed. */
static char *esc(const char *s, unsigned int flags, size_t *cols)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int err;

	if (!m)
		abort();
	err = sane_fputs(m, s, flags, cols);
	if (fclose(m) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void check_esc(const char *in, unsigned int flags, const char *want,
		      const char *what)
{
	char *got = esc(in, flags, NULL);
	char small[512];
	size_t need;

	CHECK_STR(got, want, what);
	/* the bounded form says the same when it has room */
	need = sane_str(small, sizeof(small), in, flags);
	CHECK(need == strlen(want) && !strcmp(small, want), what);
	free(got);
}

/* The scheme for one byte alone, written from docs/ESCAPING.md. */
static void spec_byte(unsigned char c, char *out)
{
	if (c == '\\')
		strcpy(out, "\\\\");
	else if (c == '\n')
		strcpy(out, "\\n");
	else if (c == '\t')
		strcpy(out, "\\t");
	else if (c == '\r')
		strcpy(out, "\\r");
	else if (c < 0x20 || c >= 0x7f)	/* C0, DEL, no UTF-8 alone */
		sprintf(out, "\\x%02x", c);
	else
		sprintf(out, "%c", c);
}

static void every_byte(void)
{
	char in[2] = "", want[8], what[64];
	int c, bad = 0;
	char *got;

	for (c = 1; c < 256; c++) {
		in[0] = (char)c;
		spec_byte((unsigned char)c, want);
		got = esc(in, 0, NULL);
		if (!got || strcmp(got, want)) {
			snprintf(what, sizeof(what), "byte 0x%02x", c);
			CHECK_STR(got, want, what);
			bad++;
		}
		free(got);
	}
	CHECK_INT(bad, 0, "each of the 255 bytes alone escapes as specified");
}

/* U+0080..U+00BF: C1 controls (first 32) escaped per byte, the rest pass. */
static void c1_controls(void)
{
	char in[3] = "\xc2", want[16];
	int c, bad = 0;
	char *got;

	for (c = 0x80; c <= 0xbf; c++) {
		in[1] = (char)c;
		if (c <= 0x9f)
			sprintf(want, "\\xc2\\x%02x", c);
		else
			strcpy(want, in);
		got = esc(in, 0, NULL);
		if (!got || strcmp(got, want)) {
			CHECK_STR(got, want, "C1 range");
			bad++;
		}
		free(got);
	}
	CHECK_INT(bad, 0, "U+0080-U+009F escaped, U+00A0-U+00BF pass");
}

static const struct {
	const char *in;
	unsigned int flags;
	const char *want;
	const char *what;
} cases[] = {
	{ "", 0, "", "empty" },
	{ "plain text 123 ~!@#$%^&*()_+{}|:\"<>?", 0,
	  "plain text 123 ~!@#$%^&*()_+{}|:\"<>?", "printable ASCII passes" },
	{ "nl\nFAKE 999999 line", 0, "nl\\nFAKE 999999 line",
	  "a newline cannot forge a row" },
	{ "\x1b]2;PWN\a", 0, "\\x1b]2;PWN\\x07", "OSC title sequence" },
	{ "evil\x1b[2Jcomm", 0, "evil\\x1b[2Jcomm", "CSI clear screen" },
	{ "a\xc2\x9b" "31mb", 0, "a\\xc2\\x9b31mb", "C1 CSI (U+009B)" },
	{ "\x9b" "31m", 0, "\\x9b31m", "a lone 0x9b byte" },
	{ "back\\slash", 0, "back\\\\slash", "backslash doubled" },
	{ "\\x1b", 0, "\\\\x1b", "a literal \\x1b is not an escape" },
	{ "tab\tcr\rdel\x7f", 0, "tab\\tcr\\rdel\\x7f", "tab, CR, DEL" },
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe4\xb8\xad", 0,
	  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe4\xb8\xad",
	  "valid 2, 3, 4-byte UTF-8 passes" },
	{ "\xc2\xa0\xef\xbf\xbd\xf4\x8f\xbf\xbf", 0,
	  "\xc2\xa0\xef\xbf\xbd\xf4\x8f\xbf\xbf",
	  "NBSP, U+FFFD, U+10FFFF pass" },
	{ "\xc0\x80\xc1\xbf", 0, "\\xc0\\x80\\xc1\\xbf", "overlong 2-byte" },
	{ "\xe0\x80\xaf", 0, "\\xe0\\x80\\xaf", "overlong 3-byte" },
	{ "\xf0\x8f\xbf\xbf", 0, "\\xf0\\x8f\\xbf\\xbf", "overlong 4-byte" },
	{ "\xed\xa0\x80", 0, "\\xed\\xa0\\x80", "UTF-16 surrogate" },
	{ "\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80", "above U+10FFFF" },
	{ "\xf5\xbf\xbf\xbf", 0, "\\xf5\\xbf\\xbf\\xbf", "lead byte 0xf5" },
	{ "x\xe2\x82", 0, "x\\xe2\\x82", "sequence cut by the end" },
	{ "\xe2\x82" "A", 0, "\\xe2\\x82" "A", "sequence cut by ASCII" },
	{ "\xc3\xc3\xa9", 0, "\\xc3\xc3\xa9", "bad lead then a good one" },
	{ "\x80\xbf", 0, "\\x80\\xbf", "lone continuation bytes" },
	{ "a\xe2\x80\xae" "txt.exe", 0, "a\\xe2\\x80\\xae" "txt.exe",
	  "bidi override U+202E" },
	{ "\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 0,
	  "\\xe2\\x81\\xa6\\xe2\\x81\\xa9\\xe2\\x80\\x8e\\xe2\\x80\\x8f"
	  "\\xd8\\x9c", "bidi isolates, LRM, RLM, ALM" },
	{ "a\xe2\x80\xa8" "b\xe2\x80\xa9", 0,
	  "a\\xe2\\x80\\xa8" "b\\xe2\\x80\\xa9", "line/paragraph separator" },
	{ "\xe2\x80\xad\xe2\x80\xaa", 0, "\\xe2\\x80\\xad\\xe2\\x80\\xaa",
	  "LRO, LRE" },
	{ "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa", 0,
	  "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa",
	  "neighbours of the escaped ranges pass" },
	{ "\xef\xbf\xbe\xef\xbf\xbf", 0, "\\xef\\xbf\\xbe\\xef\\xbf\\xbf",
	  "noncharacters U+FFFE, U+FFFF" },
	{ "op;er;x", SANE_FOLDED, "op:er:x", "folded: ';' -> ':'" },
	{ "op;er", 0, "op;er", "';' passes outside folded" },
	{ "a\nb\tc\rd\x1b", SANE_LINES, "a\nb\tc\\rd\\x1b",
	  "lines: only newline and tab pass" },
};

static void table(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_esc(cases[i].in, cases[i].flags, cases[i].want,
			  cases[i].what);
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* printf '%b' for the escapes sane emits; NULL on any other escape. */
static char *decode(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out)
		abort();
	while (*s) {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		switch (s[1]) {
		case '\\': *o++ = '\\'; s += 2; break;
		case 'n': *o++ = '\n'; s += 2; break;
		case 't': *o++ = '\t'; s += 2; break;
		case 'r': *o++ = '\r'; s += 2; break;
		case 'x':
			if (!strchr("0123456789abcdef", s[2]) || !s[2] ||
			    !strchr("0123456789abcdef", s[3]) || !s[3]) {
				free(out);
				return NULL;
			}
			*o++ = (char)(hexval(s[2]) << 4 | hexval(s[3]));
			s += 4;
			break;
		default:
			free(out);
			return NULL;
		}
	}
	*o = '\0';
	return out;
}

/* Nothing that reaches a terminal is a control or malformed UTF-8. */
static int safe_output(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int cp;
	size_t n;

	while (*p) {
		if (*p < 0x20 || *p == 0x7f)
			return 0;
		n = sane_utf8_len(p, &cp);
		if (!n || (cp >= 0x80 && cp <= 0x9f) ||
		    (cp >= 0x2028 && cp <= 0x202e))
			return 0;
		p += n;
	}
	return 1;
}

static unsigned int rnd_state = 0x5eed1234;

static unsigned int rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* Random bytes, biased toward the interesting ones. */
static void random_string(char *s, size_t max)
{
	static const unsigned char pick[] = {
		'\\', '\n', '\x1b', ';', 'x', '0', 0x7f, 0x80, 0x9b, 0xbf,
		0xc2, 0xc3, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xff, 0xa0, 0xae,
	};
	size_t n = rnd() % max, i;
	unsigned char c;

	for (i = 0; i < n; i++) {
		c = rnd() % 2 ? pick[rnd() % sizeof(pick)] : rnd() % 256;
		s[i] = c ? (char)c : 'z';
	}
	s[n] = '\0';
}

static void round_trip(void)
{
	char in[48], *out, *back;
	int i, lost = 0, unsafe = 0;

	for (i = 0; i < 50000; i++) {
		random_string(in, sizeof(in));
		out = esc(in, 0, NULL);
		back = out ? decode(out) : NULL;
		if (!back || strcmp(back, in))
			lost++;
		if (!out || !safe_output(out))
			unsafe++;
		free(out);
		free(back);
	}
	CHECK_INT(lost, 0, "50000 random strings: escaped text decodes back");
	CHECK_INT(unsafe, 0, "50000 random strings: no control, no bad UTF-8");
}

static void columns(void)
{
	size_t cols = 99;
	char *got = esc("caf\xc3\xa9\x1b\xe4\xb8\xad", 0, &cols);

	CHECK_STR(got, "caf\xc3\xa9\\x1b\xe4\xb8\xad", "columns: text");
	CHECK_INT(cols, 9, "columns: one per character, 4 per escape");
	free(got);
	got = esc("", 0, &cols);
	CHECK_INT(cols, 0, "columns: empty");
	free(got);
}

static void bounded(void)
{
	char buf[16];
	size_t need;

	memset(buf, 'Q', sizeof(buf));
	need = sane_str(buf, 6, "ab\x1b" "cd", 0);
	CHECK_INT(need, 8, "bounded: needs the whole length");
	CHECK_STR(buf, "ab", "bounded: an escape is never cut");
	need = sane_str(buf, 7, "ab\x1b" "cd", 0);
	CHECK_STR(buf, "ab\\x1b", "bounded: an escape that fits");
	CHECK_INT(need, 8, "bounded: still the whole length");
	need = sane_str(buf, 3, "a\xc3\xa9", 0);
	CHECK_STR(buf, "a", "bounded: a UTF-8 character is never cut");
	CHECK_INT(need, 3, "bounded: UTF-8 length");
	need = sane_str(buf, 1, "\x1b", 0);
	CHECK_STR(buf, "", "bounded: room for the NUL only");
	memset(buf, 'Q', sizeof(buf));
	need = sane_str(buf, 0, "abc", 0);
	CHECK(need == 3 && buf[0] == 'Q', "bounded: length 0 writes nothing");
}

static void failing_stream(void)
{
	FILE *f = fopen("/dev/full", "w");
	int err;

	if (!f) {
		CHECK(0, "open /dev/full");
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);
	err = sane_fputs(f, "abc\x1b", 0, NULL);
	CHECK_INT(err, -EIO, "a failing stream gives -EIO");
	fclose(f);
}

static int errno_after;

static void log_hostile(void *arg)
{
	(void)arg;
	errno = ENOSPC;
	log_err("%s: cannot open: %s", "/tmp/a\x1b]2;PWN\a\nFAKE b\\c",
		"No such file");
	errno_after = errno;
}

static void log_long(void *arg)
{
	char name[1200];

	(void)arg;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	name[700] = '\n';
	log_err("long %s end", name);
}

static void logging(void)
{
	char *got = capture_stderr(log_hostile, NULL);
	char want[1300];

	CHECK_STR(got, "scry: /tmp/a\\x1b]2;PWN\\x07\\nFAKE b\\\\c: cannot "
		  "open: No such file\n", "log_err escapes the whole message");
	CHECK_INT(errno_after, ENOSPC, "log_err keeps errno");
	free(got);
	got = capture_stderr(log_long, NULL);
	memset(want, 0, sizeof(want));
	strcpy(want, "scry: long ");
	memset(want + strlen(want), 'n', 700);
	strcat(want, "\\n");
	memset(want + strlen(want), 'n', 1199 - 701);
	strcat(want, " end\n");
	CHECK_STR(got, want, "log_err: a message longer than its buffer");
	free(got);
}

int main(void)
{
	every_byte();
	c1_controls();
	table();
	round_trip();
	columns();
	bounded();
	failing_stream();
	logging();
	return CHECK_DONE();
}
