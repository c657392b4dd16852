// SPDX-License-Identifier: GPL-2.0
/*
 * events: what clauses print while tracing. Records arrive through the
 * ring buffer `events` in the order the kernel wrote them: printf()
 * formatted here with the plan's conversions (symbols, probe names and
 * stored strings resolved now), print(@map) as the map is at that moment,
 * clear() and zero(), time(), and exit(), which ends the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <scry/attach.h>
#include <scry/drain.h>
#include <scry/events.h>
#include <scry/log.h>
#include <scry/out.h>
#include <scry/outfile.h>
#include <scry/plan.h>
#include <scry/report.h>
#include <scry/sane.h>
#include <scry/stop.h>
#include <scry/sym.h>

/* A record that came while scry was asked to stop, kept as it came. */
struct held {
	void *data;
	size_t len;
};

struct events {
	struct attach *a;
	struct syms *syms;
	FILE *out;		/* where a record's text goes: dest or line */
	FILE *dest;		/* where the lines go */
	FILE *line;		/* one record's text, until it is known named */
	char *line_buf;
	size_t line_size;
	struct held *held;	/* records held until the stop is served */
	size_t nheld, cap_held;
	bool releasing;		/* printing them: names or not, they go */
	bool exit;		/* exit() was called */
	int err;		/* the first write error */
};

struct events *events_new(struct attach *a, struct syms *syms, FILE *out)
{
	struct events *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->a = a;
	e->syms = syms;
	e->out = e->dest = out;
	e->line = open_memstream(&e->line_buf, &e->line_size);
	if (!e->line) {
		free(e);
		return NULL;
	}
	return e;
}

void events_free(struct events *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nheld; i++)
		free(e->held[i].data);
	free(e->held);
	fclose(e->line);
	free(e->line_buf);
	free(e);
}

bool events_exit(const struct events *e)
{
	return e && e->exit;
}

int events_error(const struct events *e)
{
	return e ? e->err : 0;
}

/*
 * A string value through %s (with its width, precision), escaped like
 * every name a traced process gives (sane.h): a comm or a path must not
 * drive the terminal or forge a line.
 */
static void put_string(FILE *f, const char *spec, const char *s)
{
	char esc[4 * SCRY_PATH_MAX + 1];

	sane_str(esc, sizeof(esc), s, 0);
	fprintf(f, spec, esc);
}

/* A user frame in no mapping scry knows of the process */
static bool unmapped_frame(const struct report_stack *st)
{
	int i;

	for (i = 0; i < st->nr; i++)
		if (!st->frames[i].kernel && !st->frames[i].module)
			return true;
	return false;
}

/*
 * A stack by id, one frame a line, as the text output prints keys. The
 * event may come before the notice of the mmap its frames are in (the
 * notices wait their turn, handle_notices): a frame in no known mapping
 * has the process's mappings read now, while it still runs, so that a
 * printed stack is named as the same stack in a map is, never guessed
 * unknown.
 */
static void put_stack_value(struct events *e, const struct plan_type *t,
			    __s64 id, int pid)
{
	struct report_stack st = { 0 };
	int err = drain_stack(e->a, e->syms, t, id, pid, &st);

	if (!err && t->fmt == PLAN_F_USTACK && pid > 0 &&
	    unmapped_frame(&st) && !syms_catch_up(e->syms, pid)) {
		report_stack_free(&st);
		err = drain_stack(e->a, e->syms, t, id, pid, &st);
	}
	if (!err)
		out_stack(e->out, &st);
	report_stack_free(&st);
}

/* One value of a printf, as its conversion and type say. */
static void put_value(struct events *e, const struct plan_conv *cv,
		      const void *data, const struct scry_out_hdr *h)
{
	const struct plan_type *t = &cv->type;
	char *s;
	__s64 v;

	if (t->kind == PLAN_V_STR) {
		const struct scry_path *p = data;
		char buf[SCRY_PATH_MAX + 1];
		size_t n = p->len < SCRY_PATH_MAX ? p->len : SCRY_PATH_MAX - 1;

		memcpy(buf, p->str, n);
		buf[n] = '\0';
		put_string(e->out, cv->spec, buf);
		return;
	}
	memcpy(&v, data, sizeof(v));
	if (t->fmt == PLAN_F_KSTACK || t->fmt == PLAN_F_USTACK) {
		put_stack_value(e, t, v, h->pid);
		return;
	}
	s = drain_format_value(e->a, e->syms, t, v, h->pid);
	/*
	 * usym() left in hex: the address may be in a mapping whose notice
	 * has not come yet, the same race as a stack's (put_stack_value).
	 */
	if (s && t->fmt == PLAN_F_USYM && h->pid > 0 &&
	    !strncmp(s, "0x", 2) && !syms_catch_up(e->syms, h->pid)) {
		free(s);
		s = drain_format_value(e->a, e->syms, t, v, h->pid);
	}
	if (s) {
		if (strchr(cv->spec, 's'))
			put_string(e->out, cv->spec, s);
		else	/* a number conversion of a named value: the number */
			fprintf(e->out, cv->spec, (long long)v);
		free(s);
		return;
	}
	if (strchr(cv->spec, 's')) {
		/* plan only lets named values reach %s: a number stays one */
		fprintf(e->out, "%lld", (long long)v);
		return;
	}
	fprintf(e->out, cv->spec, (long long)v);
}

static void put_printf(struct events *e, const struct plan_out *o,
		       const struct scry_out_hdr *h, size_t len)
{
	const char *data = (const char *)(h + 1);
	size_t off = 0, need;
	int i;

	for (i = 0; i < o->nconvs; i++) {
		need = o->def.args[i] == SCRY_OUT_STR ?
		       sizeof(struct scry_path) : sizeof(__s64);
		if (sizeof(*h) + off + need > len)
			return;		/* a short record: not ours */
		fputs(o->convs[i].text, e->out);
		put_value(e, &o->convs[i], data + off, h);
		off += need;
	}
	fputs(o->tail ? o->tail : "", e->out);
}

/* join(): the strings, SEP between, on a line */
static void put_join(struct events *e, const struct plan_out *o,
		     const struct scry_out_hdr *h, size_t len)
{
	const __u64 *n = (const void *)(h + 1);
	const char *strs = (const char *)(n + 1);
	char buf[SCRY_JOIN_LEN];
	__u64 i;

	if (len < sizeof(*h) + sizeof(*n) + SCRY_JOIN_ARGS * SCRY_JOIN_LEN)
		return;
	for (i = 0; i < *n && i < SCRY_JOIN_ARGS; i++) {
		memcpy(buf, strs + i * SCRY_JOIN_LEN, sizeof(buf));
		buf[sizeof(buf) - 1] = '\0';
		if (i)
			fputs(o->sep, e->out);
		put_string(e->out, "%s", buf);
	}
	fputc('\n', e->out);
}

/* print(@m): the map now, as the text output prints it at the end. */
static int put_map(struct events *e, int map, __s64 top)
{
	struct report r = { 0 };
	int err;

	err = drain_one(e->a, e->syms, map, &r);
	/* under its name, as at the end */
	if (!err) {
		r.maps = calloc(1, sizeof(*r.maps));
		err = r.maps ? 0 : -ENOMEM;
	}
	if (!err) {
		r.maps[0] = &r;
		r.nmaps = 1;
		report_sort(&r);
		if (top > 0)
			report_keep_top(&r, top);
		err = out_text(e->out, &r);
	}
	report_clear(&r);
	return err;
}

static void put_time(struct events *e, const char *fmt)
{
	char buf[256];
	struct tm tm;
	time_t now = time(NULL);

	if (localtime_r(&now, &tm) && strftime(buf, sizeof(buf), fmt, &tm))
		fputs(buf, e->out);
}

/* A copy of the record, printed by events_release; false: no memory. */
static bool hold(struct events *e, const void *data, size_t len)
{
	struct held *v;

	if (e->nheld == e->cap_held) {
		size_t cap = e->cap_held ? e->cap_held * 2 : 16;

		v = realloc(e->held, cap * sizeof(*v));
		if (!v)
			return false;
		e->held = v;
		e->cap_held = cap;
	}
	v = &e->held[e->nheld];
	v->data = malloc(len);
	if (!v->data)
		return false;
	memcpy(v->data, data, len);
	v->len = len;
	e->nheld++;
	return true;
}

static void handle(struct events *e, const struct plan_out *o,
		   const struct scry_out_hdr *h, size_t len)
{
	const struct plan *p = e->a->plan;
	int err = 0;

	switch (o->kind) {
	case PLAN_OUT_PRINTF:
	case PLAN_OUT_VALUE:
		put_printf(e, o, h, len);
		break;
	case PLAN_OUT_PRINT:
		err = put_map(e, o->map, o->top);
		break;
	case PLAN_OUT_CLEAR:
	case PLAN_OUT_ZERO:
		err = drain_reset(e->a, o->map, o->kind == PLAN_OUT_ZERO);
		if (err)
			log_err("%s(%s): %s", o->kind == PLAN_OUT_ZERO ?
				"zero" : "clear", p->maps[o->map].name,
				strerror(-err));
		break;
	case PLAN_OUT_TIME:
		put_time(e, o->fmt);
		break;
	case PLAN_OUT_EXIT:
		e->exit = true;
		break;
	case PLAN_OUT_JOIN:
		put_join(e, o, h, len);
		break;
	}
}

/* Does the record's text hold names: symbols, stacks, a map's keys? */
static bool names(const struct plan_out *o)
{
	return o->kind == PLAN_OUT_PRINTF || o->kind == PLAN_OUT_VALUE ||
	       o->kind == PLAN_OUT_PRINT;
}

/*
 * A record is printed in order as it comes, its text made first: when
 * scry was asked to stop meanwhile (-d, a signal), the names in it may
 * have been given up (obj.c), so it is held instead, with every record
 * after it, until the stop is served (events_release): a printed stack
 * is named as the same stack in a map is, never guessed unknown.
 */
int events_consume(void *ctx, void *data, size_t len)
{
	struct events *e = ctx;
	const struct scry_out_hdr *h = data;
	const struct plan *p = e->a->plan;
	const struct plan_out *o;
	long n;

	if (len < sizeof(*h) || h->out >= (__u32)p->nouts)
		return 0;
	o = &p->outs[h->out];
	if (!e->releasing && (e->nheld || stop_requested()) &&
	    hold(e, data, len))
		return 0;
	rewind(e->line);
	e->out = e->line;
	handle(e, o, h, len);
	e->out = e->dest;
	n = ftell(e->line);
	if (fflush(e->line) || n < 0)
		n = 0;
	/* (what names nothing is done: a clear() is not done twice) */
	if (!e->releasing && stop_requested() && names(o) &&
	    hold(e, data, len))
		return 0;
	/*
	 * Past stdio, straight to the fd, so a reader of a pipe sees each
	 * event as it happens and a non-blocking one's EAGAIN is waited out
	 * (stdio drops what a failed flush held). What stdio holds of
	 * earlier output goes first. A closed pipe (EPIPE) ends the run
	 * quietly, another error with a line (session.c).
	 */
	if (fflush(e->dest) && !e->err)
		e->err = -errno;
	if (n && !e->err)
		e->err = outfile_write_fd(fileno(e->dest), e->line_buf, n);
	return 0;
}

void events_release(struct events *e)
{
	size_t i;

	if (!e || !e->nheld)
		return;
	e->releasing = true;
	for (i = 0; i < e->nheld; i++) {
		events_consume(e, e->held[i].data, e->held[i].len);
		free(e->held[i].data);
	}
	e->nheld = 0;
	e->releasing = false;
}
