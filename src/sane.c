// SPDX-License-Identifier: GPL-2.0
/*
 * sane: escape text a person reads, so that names taken from traced
 * processes (comm, paths, symbols, USDT notes) neither drive the terminal
 * nor forge lines. The scheme is in include/scry/sane.h and
 * docs/ESCAPING.md; this file is its only implementation.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <scry/sane.h>

#define ESC_MAX	5	/* "\xHH" and its NUL */

size_t sane_utf8_len(const unsigned char *p, unsigned int *cp)
{
	size_t n, i;

	*cp = p[0];
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		*cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3;
		*cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		*cp = p[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && *cp < 0x800) || (n == 4 && *cp < 0x10000) ||
	    *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * Code points above ASCII that are well-formed but still escaped: C1
 * controls (U+009B is CSI to xterm), characters that break a line or
 * reorder what is displayed ("Trojan Source", CVE-2021-42574) so that a
 * row could pass for another, and the two noncharacters XML forbids (the
 * SVG writer prints its names through here too).
 */
static bool cp_escaped(unsigned int cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c ||
	       cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0xfffe || cp == 0xffff;
}

/* Bytes of the one character at @p if it passes unchanged, else 0. */
static size_t passes(const unsigned char *p, unsigned int flags)
{
	unsigned int cp;
	size_t n;

	if (p[0] < 0x80) {
		if ((flags & SANE_LINES) && (p[0] == '\n' || p[0] == '\t'))
			return 1;
		if (p[0] < 0x20 || p[0] == 0x7f || p[0] == '\\' ||
		    ((flags & SANE_FOLDED) && p[0] == ';'))
			return 0;
		return 1;
	}
	n = sane_utf8_len(p, &cp);
	return n && !cp_escaped(cp) ? n : 0;
}

/* What a byte that does not pass is written as. */
static void escape(unsigned char c, unsigned int flags, char esc[ESC_MAX])
{
	static const char hex[] = "0123456789abcdef";

	switch (c) {
	case '\\': strcpy(esc, "\\\\"); return;
	case '\n': strcpy(esc, "\\n"); return;
	case '\t': strcpy(esc, "\\t"); return;
	case '\r': strcpy(esc, "\\r"); return;
	case ';':
		if (flags & SANE_FOLDED) {
			strcpy(esc, ":");
			return;
		}
		break;
	}
	/*
	 * Byte by byte: a C1 control U+009B (c2 9b) is "\xc2\x9b", since
	 * after its first byte the rest is no longer well-formed UTF-8.
	 */
	esc[0] = '\\';
	esc[1] = 'x';
	esc[2] = hex[c >> 4];
	esc[3] = hex[c & 15];
	esc[4] = '\0';
}

/* A piece of output: a run of the input that passes, or one escape. */
struct piece {
	const char *text;
	size_t len;		/* bytes of text */
	size_t cols;		/* characters of text */
	size_t used;		/* input bytes it stands for */
	char esc[ESC_MAX];
};

/* The next piece at @p (not at its NUL); with @one, one character only. */
static void next_piece(const unsigned char *p, unsigned int flags, bool one,
		       struct piece *pc)
{
	size_t n = 0, l;

	pc->cols = 0;
	while (p[n] && (l = passes(p + n, flags))) {
		n += l;
		pc->cols++;
		if (one)
			break;
	}
	if (n) {
		pc->text = (const char *)p;
		pc->len = pc->used = n;
		return;
	}
	escape(p[0], flags, pc->esc);
	pc->text = pc->esc;
	pc->len = pc->cols = strlen(pc->esc);
	pc->used = 1;
}

int sane_fputs(FILE *f, const char *s, unsigned int flags, size_t *cols)
{
	const unsigned char *p = (const unsigned char *)s;
	struct piece pc;
	size_t total = 0;

	while (*p) {
		next_piece(p, flags, false, &pc);
		if (fwrite(pc.text, 1, pc.len, f) != pc.len)
			return -EIO;
		total += pc.cols;
		p += pc.used;
	}
	if (cols)
		*cols = total;
	return 0;
}

size_t sane_str(char *buf, size_t len, const char *s, unsigned int flags)
{
	const unsigned char *p = (const unsigned char *)s;
	struct piece pc;
	size_t need = 0, fit = 0;

	if (len)
		buf[0] = '\0';
	while (*p) {
		next_piece(p, flags, true, &pc);
		/* once a piece does not fit, later ones are only counted */
		if (fit == need && need + pc.len < len) {
			memcpy(buf + need, pc.text, pc.len);
			fit = need + pc.len;
			buf[fit] = '\0';
		}
		need += pc.len;
		p += pc.used;
	}
	return need;
}
