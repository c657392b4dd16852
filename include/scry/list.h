/* SPDX-License-Identifier: GPL-2.0 */
/* list: what `scry -l [PATTERN]` prints. */
#ifndef SCRY_LIST_H
#define SCRY_LIST_H

#include <stdio.h>

/*
 * Print the probes matching @pattern to @f, one per line: with no
 * pattern the probe kinds; "uprobe:LIB:GLOB" (or uretprobe) the functions
 * of LIB; "usdt:BIN[:PROVIDER[:NAME]]" (globs) the USDT probes of BIN;
 * "syscall:GLOB" syscalls; "tracepoint:CAT[:NAME]" (globs) tracepoints;
 * "fentry:GLOB" (fexit, kfunc, kretfunc) the kernel's functions in BTF,
 * with their parameters; a glob over the kinds otherwise. LIB resolves for @pid when > 0.
 * Returns the exit status: 0 something matched, 1 nothing did, 2 bad
 * pattern (reported on stderr).
 */
int list_probes(FILE *f, const char *pattern, int pid);

/*
 * One probe of a listing: "KIND:A[:B[:C]]" (NULL parts end it), each
 * part escaped (sane.h: a binary picks its symbol names, USDT notes and
 * the paths it maps), then "  # args: ARGS" when @args is not NULL (a
 * USDT probe's argument notes). Source list hooks print through it.
 */
void list_line(FILE *f, const char *kind, const char *a, const char *b,
	       const char *c, const char *args);

#endif /* SCRY_LIST_H */
