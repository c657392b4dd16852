/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sane: the one sanitizer for text a person reads (text reports, folded
 * stacks, -l listings, diagnostics). Names scry prints come from traced
 * processes and their files: a comm, a path, a symbol name must neither
 * drive the terminal nor forge a line. docs/ESCAPING.md is the scheme:
 *
 *   valid, printable UTF-8     unchanged
 *   backslash                  \\
 *   tab, newline, return       \t \n \r
 *   any other byte of a C0 control (0x00-0x1f), DEL (0x7f), a C1
 *   control (U+0080-U+009F), a line or paragraph separator (U+2028,
 *   U+2029), a bidirectional control (U+061C, U+200E, U+200F,
 *   U+202A-U+202E, U+2066-U+2069), a noncharacter U+FFFE/U+FFFF, or a
 *   byte that is not part of well-formed UTF-8:
 *                              \xHH per byte (two lower-case hex digits)
 *
 * Every escape stands for bytes of the input and a backslash is always
 * escaped, so the escaped text is unambiguous: printf '%b' gives back
 * the original bytes. JSON (out_json.c) escapes per RFC 8259 instead.
 */
#ifndef SCRY_SANE_H
#define SCRY_SANE_H

#include <stddef.h>
#include <stdio.h>

/* Folded stacks: ';' separates frames, so a ';' in a name becomes ':'
 * (as FlameGraph's stackcollapse scripts do; not reversible). */
#define SANE_FOLDED	(1u << 0)
/* Multi-line diagnostics (libbpf's verifier log): '\n' and '\t' pass. */
#define SANE_LINES	(1u << 1)

/*
 * Length of the well-formed UTF-8 sequence at @p (no overlongs,
 * surrogates or code points above U+10FFFF), its code point in @cp; 0 if
 * there is none. A NUL ends a sequence early: never reads past the string.
 */
size_t sane_utf8_len(const unsigned char *p, unsigned int *cp);

/*
 * Write @s to @f escaped as above, with @flags (SANE_*). When @cols is
 * not NULL it receives the characters written (one per code point), for
 * padding columns. Returns 0, or -EIO when the stream failed.
 */
int sane_fputs(FILE *f, const char *s, unsigned int flags, size_t *cols);

/*
 * Escape @s into @buf of @len bytes, always NUL-terminated (when @len >
 * 0) and never cut inside an escape or a UTF-8 sequence. Returns the
 * length the whole escaped text needs, without the NUL, as snprintf
 * does: a result >= @len means it was cut.
 */
size_t sane_str(char *buf, size_t len, const char *s, unsigned int flags);

#endif /* SCRY_SANE_H */
