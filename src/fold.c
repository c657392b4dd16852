// SPDX-License-Identifier: GPL-2.0
/*
 * fold: the row-to-frames walk every stack-drawing format shares
 * (include/scry/fold.h has the order and the names).
 */
#include <stdio.h>
#include <string.h>
#include <scry/fold.h>
#include <scry/report.h>

struct walk {
	fold_fn fn;
	void *ctx;
	int n;			/* frames emitted */
	int err;
};

static int nkeys(const struct report_row *row)
{
	if (row->nkeys < 0)
		return 0;
	return row->nkeys < REPORT_MAX_KEYS ? row->nkeys : REPORT_MAX_KEYS;
}

static void emit(struct walk *w, const struct fold_step *st)
{
	w->n++;
	if (!w->err)
		w->err = w->fn(w->ctx, st);
}

/* comm, a path, a marker, an int key: "[unknown]" when empty */
static void text(struct walk *w, const char *s, bool literal)
{
	struct fold_step st = {
		.pre = "", .post = "", .mark = "",
		.text = s && *s ? s : "[unknown]",
		.literal = literal || !s || !*s,
	};

	emit(w, &st);
}

/* Symbol only: modules and offsets would split one function in two. */
static void frame(struct walk *w, const struct report_frame *fr, bool kernel)
{
	struct fold_step st = {
		.pre = "", .post = "", .fr = fr, .kernel = kernel,
		.inlined = fr->inlined,
		.mark = fr->inlined ? "_[i]" : kernel ? "_[k]" : "",
	};

	if (fr->sym) {
		st.text = fr->sym;
	} else if (fr->module) {
		st.pre = "[";
		st.text = fr->module;
		st.post = "]";
	} else {
		st.text = "[unknown]";
		st.literal = true;
	}
	emit(w, &st);
}

/* Stacks are stored leaf first; the path wants the root first. */
static void stack(struct walk *w, const struct report_key *k)
{
	const struct report_stack *st = &k->stack;
	bool kstack = k->kind == REPORT_KEY_KSTACK;
	int i;

	if (st->lost) {
		text(w, "[stack lost]", true);
		return;
	}
	if (st->truncated)
		text(w, "[truncated]", true);
	for (i = st->nr - 1; st->frames && i >= 0; i--)
		frame(w, &st->frames[i], kstack || st->frames[i].kernel);
}

static void stacks(struct walk *w, const struct report_row *row,
		   enum report_key_kind kind)
{
	int i;

	for (i = 0; i < nkeys(row); i++)
		if (row->keys[i].kind == kind)
			stack(w, &row->keys[i]);
}

/*
 * An errno key (`read`, `write`: @[path, errno]): a call that worked
 * adds no frame, so a file's bytes are "path bytes" as in any folded
 * profile, not "path;0"; a failed one is split off under its name
 * (EISDIR), as the text table's failed calls are.
 */
static void errno_frame(struct walk *w, __s64 e)
{
	const char *name = e > 0 && e < 4096 ? strerrorname_np((int)e) : NULL;
	char num[24];

	if (!e)
		return;
	if (!name) {
		snprintf(num, sizeof(num), "errno %lld", (long long)e);
		name = num;
	}
	text(w, name, true);
}

int fold_row(const struct report_row *row, fold_fn fn, void *ctx)
{
	const struct report_key *comm = report_key_find(row, SCRY_F_COMM);
	struct walk w = { .fn = fn, .ctx = ctx };
	const struct report_key *k;
	char num[24];
	int i;

	/* comm first: a flame graph's first split is by process */
	if (comm && comm->kind == REPORT_KEY_STR)
		text(&w, comm->s, false);
	stacks(&w, row, REPORT_KEY_USTACK);
	stacks(&w, row, REPORT_KEY_KSTACK);
	for (i = 0; i < nkeys(row); i++) {
		k = &row->keys[i];
		if (k == comm && k->kind == REPORT_KEY_STR)
			continue;
		if (k->kind == REPORT_KEY_INT && k->field == SCRY_F_ERRNO) {
			errno_frame(&w, k->i);
		} else if (k->kind == REPORT_KEY_INT) {
			snprintf(num, sizeof(num), "%lld", (long long)k->i);
			text(&w, num, true);
		} else if (k->kind == REPORT_KEY_STR) {
			text(&w, k->s, false);
		}
	}
	/* flamegraph.pl needs a frame: keyless rows and empty stacks get one */
	if (!w.n)
		text(&w, "[total]", true);
	return w.err;
}

bool fold_has_stack(const struct report_row *row)
{
	int i;

	for (i = 0; i < nkeys(row); i++)
		if (row->keys[i].kind == REPORT_KEY_KSTACK ||
		    row->keys[i].kind == REPORT_KEY_USTACK)
			return true;
	return false;
}
