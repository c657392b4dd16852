/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fold: a report row as the path of frames that flame graphs and
 * profilers draw, root first. One walk serves every format that draws
 * stacks (folded, SVG, pprof), so they cannot disagree on the order:
 *
 *   comm; user frames; kernel frames; the other key columns
 *
 * A stack's truncated walk is marked "[truncated]" where its root-most
 * frames would be, a stack not stored is "[stack lost]", and a row that
 * gives no frame at all is "[total]".
 */
#ifndef SCRY_FOLD_H
#define SCRY_FOLD_H

#include <stdbool.h>

struct report_row;
struct report_frame;

/*
 * One frame of the path. Its name is pre + text + post + mark: @text is
 * the part that comes from outside (a symbol, module, comm, path; the
 * printer sanitizes it), the rest is scry's own punctuation:
 *   symbol      "malloc"          + mark
 *   no symbol   "[" module "]"    + mark (still groups by binary)
 *   unknown     "[unknown]"       + mark
 * @mark is flamegraph.pl's suffix: "_[k]" kernel, "_[i]" inlined, or "".
 */
struct fold_step {
	const char *pre;
	const char *text;	/* never NULL */
	const char *post;
	const char *mark;
	const struct report_frame *fr;	/* the stack frame, NULL otherwise */
	bool kernel;		/* a kernel frame */
	bool inlined;
	bool literal;		/* @text is scry's own: "[truncated]", "[total]" */
};

/* Called per frame, root first; a non-zero return stops the walk. */
typedef int (*fold_fn)(void *ctx, const struct fold_step *step);

/*
 * Walk @row's path, calling @fn per frame. The step and its strings are
 * valid during the call only. Returns 0 or the first non-zero @fn result.
 */
int fold_row(const struct report_row *row, fold_fn fn, void *ctx);

/* True when @row has a kernel or user stack column. */
bool fold_has_stack(const struct report_row *row);

#endif /* SCRY_FOLD_H */
