/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output formats. Each printer takes a FILE and a report, checks every
 * write, and returns 0 or a negative errno (-EIO when the stream failed).
 */
#ifndef SCRY_OUT_H
#define SCRY_OUT_H

#include <stdio.h>
#include <scry/abi.h>

struct report;
struct report_frame;

/* DTrace printa layout: per row its key columns, then the value or histogram. */
int out_text(FILE *f, const struct report *r);

/*
 * Folded stacks for flamegraph.pl: one line per row, its fold_row path:
 * "comm;user frames;kernel frames_[k] VALUE". Rows without stack keys
 * print their key columns as frames.
 */
int out_folded(FILE *f, const struct report *r);

/*
 * Loss report, for stderr: one line per non-zero counter, in DTrace's
 * words ("37 aggregation drops: raise --max-keys"). Prints nothing when
 * nothing was lost.
 */
int out_stats(FILE *f, const struct report *r);

/*
 * JSON: one document per report (one line per snapshot with --interval),
 * as docs/JSON.md specifies: version, question, expression, duration,
 * per row its keys (stacks as arrays of frames) and values, losses.
 */
int out_json(FILE *f, const struct report *r);

/*
 * A self-contained interactive flame graph (SVG + embedded JavaScript) of
 * the report's stack-keyed rows: root at the bottom, siblings merged and
 * sorted alphabetically, widths by row value; hover titles, click to zoom,
 * search, reset, and flamegraph.pl's URL parameters (?s=REGEX, ?x=&y=).
 * r->palette picks the colours.
 */
int out_svg(FILE *f, const struct report *r);

/*
 * pprof: a gzipped profile.proto, one sample per row (its fold_row path
 * as locations, leaf first); sample types per question (docs/PPROF.md).
 */
int out_pprof(FILE *f, const struct report *r);

/*
 * Per-file byte table for `scry read` / `scry write`: rows keyed by
 * (path, errno) with sum(retval). Successful rows (errno 0) print bytes
 * exact and human, calls and share, biggest last, then a total; failed
 * calls follow by errno. @what is "read" or "write".
 */
int out_files(FILE *f, const struct report *r, const char *what);

/* Histogram primitives shared by every histogram kind. */
int out_quantize(FILE *f, const __u64 slots[SCRY_NBUCKETS]);
int out_lquantize(FILE *f, const __u64 slots[SCRY_NBUCKETS],
		  __s64 low, __s64 high, __s64 step);

/* 1536 -> "1.5 KiB": binary units, one decimal, plain below 1024. */
void out_human(__u64 v, char *buf, size_t len);

/*
 * A stack as a key prints: a newline, then a frame a line, indented,
 * names escaped (sane.h). printf() of a stack prints it the same way.
 */
struct report_stack;
int out_stack(FILE *f, const struct report_stack *st);

/* "module`sym+0xoff" (or "module`0xaddr", "[unknown]") into buf. */
int out_frame_name(const struct report_frame *fr, char *buf, size_t len);

#endif /* SCRY_OUT_H */
