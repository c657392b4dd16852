/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A self-contained interactive flame graph, laid out as flamegraph.pl
 * lays out folded stacks: every stack-keyed row becomes the same path of
 * frames as its out_folded line (fold_row: comm, user frames, kernel
 * frames, other keys; root first), paths are sorted frame by frame so equal prefixes
 * are adjacent, and one walk over the sorted paths merges those prefixes
 * into frames whose widths are the summed row values.
 *
 * Positions are integers (value units, then tenths of a pixel), so the
 * output is exact, deterministic and independent of LC_NUMERIC.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scry/fold.h>
#include <scry/out.h>
#include <scry/report.h>
#include <scry/sane.h>

/* Row values are __s64, so their sum needs more than 64 bits. */
typedef unsigned __int128 u128;

#define SVG_WIDTH	1200
#define XPAD		10	/* left and right margins */
#define FRAMES_X10	((SVG_WIDTH - 2 * XPAD) * 10)	/* frame area, 0.1 px */
#define FRAME_H		16
#define TOP		60	/* title, subtitle, controls */
#define BOTTOM		34	/* status line */
#define CHAR_X100	708	/* Verdana 12 px: 0.59 em per char, 0.01 px */
#define TITLE_CHARS	110	/* what fits across at 17 px */
#define SUB_CHARS	160
#define DEC_LEN		48	/* any u128 in decimal */

/* ---- writing ---- */

/* The first failed write sticks; the printer then returns it. */
struct svg {
	FILE *f;
	int err;
	const struct report *r;
	u128 total;		/* sum of all drawn row values: the root */
	int depth;		/* deepest frame wide enough to draw */
	int height;
	bool draw;		/* second walk: write the frames */
};

__attribute__((format(printf, 2, 3)))
static void sput(struct svg *s, const char *fmt, ...)
{
	va_list ap;

	if (s->err)
		return;
	va_start(ap, fmt);
	if (vfprintf(s->f, fmt, ap) < 0)
		s->err = -EIO;
	va_end(ap);
}

static void sraw(struct svg *s, const char *str)
{
	if (!s->err && fputs(str, s->f) == EOF)
		s->err = -EIO;
}

static char *u128_dec(char buf[DEC_LEN], u128 v)
{
	char tmp[DEC_LEN];
	int n = 0, i;

	do {
		tmp[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return buf;
}

/* ---- names: valid XML text, whatever the binaries and processes say ---- */

/*
 * Copy @str into @m as the text writers print it (sane.h): controls and
 * bytes outside well-formed UTF-8 escaped as \xHH, and U+FFFE/U+FFFF,
 * which XML forbids, too; what is left is valid XML character data. With
 * @semi, ';' becomes ':' as in out_folded, so frames merge exactly as
 * flamegraph.pl would merge scry --folded.
 */
static int clean_to(FILE *m, const char *str, bool semi)
{
	return sane_fputs(m, str, semi ? SANE_FOLDED : 0, NULL) ? -ENOMEM : 0;
}

static bool is_lead(char c)
{
	return ((unsigned char)c & 0xc0) != 0x80;
}

static size_t chars(const char *str)
{
	size_t n = 0;

	for (; *str; str++)
		n += is_lead(*str);
	return n;
}

static void put_esc(struct svg *s, char c)
{
	const char *ent = NULL;

	switch (c) {
	case '&':
		ent = "&amp;";
		break;
	case '<':
		ent = "&lt;";
		break;
	case '>':
		ent = "&gt;";
		break;
	case '"':
		ent = "&quot;";
		break;
	case '\'':
		ent = "&#39;";
		break;
	}
	if (ent)
		sraw(s, ent);
	else if (!s->err && putc(c, s->f) == EOF)
		s->err = -EIO;
}

/*
 * Clean text @str, XML-escaped; longer than @max characters it keeps
 * max - 2 of them and ends in "..", as flamegraph.pl elides names.
 */
static void put_xml(struct svg *s, const char *str, size_t max)
{
	size_t keep = SIZE_MAX, i = 0;
	bool cut = chars(str) > max;

	if (cut)
		keep = max > 2 ? max - 2 : 0;
	for (; *str && !s->err; str++) {
		if (is_lead(*str) && i++ == keep)
			break;
		put_esc(s, *str);
	}
	if (cut)
		sraw(s, "..");
}

/*
 * Text built from pieces in a memstream, then written escaped. @buf and
 * @len are the stream's: they are only valid once it is closed.
 */
static void put_built(struct svg *s, char **buf, size_t *len, FILE *m,
		      size_t max)
{
	bool bad = ferror(m);

	if (fclose(m) == EOF || bad || !*buf) {
		if (!s->err)
			s->err = -ENOMEM;
	} else if (*len) {
		put_xml(s, *buf, max);
	}
	free(*buf);
}

/* ---- paths: one per row, the frames of its folded line ---- */

struct sframe {
	size_t off;		/* name: offset into the path's names */
	bool kernel;
	bool inlined;
};

struct spath {
	struct sframe *fr;
	int nr;
	char *names;		/* NUL-terminated names, back to back */
	__u64 value;
};

struct builder {
	FILE *m;
	struct spath *p;
	int cap;
	int err;
};

static void b_lit(struct builder *b, const char *str)
{
	if (!b->err && fputs(str, b->m) == EOF)
		b->err = -ENOMEM;
}

/* One frame of the row's path: its name goes to the names stream. */
static int b_step(void *ctx, const struct fold_step *st)
{
	struct builder *b = ctx;
	struct sframe *fr;
	off_t pos = ftello(b->m);

	if (pos < 0)
		return -ENOMEM;
	if (b->p->nr == b->cap) {
		int ncap = b->cap ? b->cap * 2 : 32;

		fr = realloc(b->p->fr, (size_t)ncap * sizeof(*fr));
		if (!fr)
			return -ENOMEM;
		b->p->fr = fr;
		b->cap = ncap;
	}
	fr = &b->p->fr[b->p->nr++];
	fr->off = (size_t)pos;
	fr->kernel = st->kernel;
	fr->inlined = st->inlined;
	b_lit(b, st->pre);
	if (!b->err)
		b->err = clean_to(b->m, st->text, true);
	b_lit(b, st->post);
	b_lit(b, st->mark);
	if (!b->err && fputc('\0', b->m) == EOF)
		b->err = -ENOMEM;
	return b->err;
}

static int build_path(struct spath *p, const struct report_row *row)
{
	struct builder b = { .p = p };
	size_t len = 0;
	int err;

	b.m = open_memstream(&p->names, &len);
	if (!b.m)
		return -ENOMEM;
	err = fold_row(row, b_step, &b);
	if (fclose(b.m) == EOF || !p->names)
		err = -ENOMEM;
	return err;
}

static void free_paths(struct spath *paths, size_t n)
{
	size_t i;

	for (i = 0; paths && i < n; i++) {
		free(paths[i].fr);
		free(paths[i].names);
	}
	free(paths);
}

/* The rows --top left out: one frame, so every share is of the whole. */
#define LEFT_OUT_NAME	"[left out by --top]"

static int left_out_path(struct spath *p, __u64 value)
{
	p->fr = calloc(1, sizeof(*p->fr));
	p->names = strdup(LEFT_OUT_NAME);
	if (!p->fr || !p->names)
		return -ENOMEM;
	p->nr = 1;
	p->value = value;
	return 0;
}

/*
 * Rows with a positive value, whatever their keys: the graph is what
 * flamegraph.pl draws of --folded, so `scry read -o r.svg` is its paths.
 * With --top, what it left out is drawn too, as one frame beside them:
 * the root and every title's share are of all the samples, as the text's
 * total and SHARE are (scry(1) --top).
 */
static int build_paths(const struct report *r, struct spath **out,
		       size_t *np)
{
	struct spath *paths;
	const struct report_row *row;
	size_t i, n = 0;
	__s64 v;
	int err;

	*out = NULL;
	*np = 0;
	paths = calloc(r->nrows + 1, sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	v = report_left_out_value(r);
	if (v > 0) {
		err = left_out_path(&paths[n++], (__u64)v);
		if (err) {
			free_paths(paths, n);
			return err;
		}
	}
	for (i = 0; r->rows && i < r->nrows; i++) {
		row = &r->rows[i];
		v = report_row_value(r, row);
		if (v <= 0)
			continue;
		paths[n].value = (__u64)v;
		err = build_path(&paths[n++], row);
		if (err) {
			free_paths(paths, n);
			return err;
		}
	}
	*out = paths;
	*np = n;
	return 0;
}

static const char *frame_name(const struct spath *p, int i)
{
	return p->names + p->fr[i].off;
}

/* Frame by frame, so a path sorts right after its own prefix. */
static int cmp_paths(const void *pa, const void *pb)
{
	const struct spath *a = pa, *b = pb;
	int i, c;

	for (i = 0; i < a->nr && i < b->nr; i++) {
		c = strcmp(frame_name(a, i), frame_name(b, i));
		if (c)
			return c;
	}
	return (a->nr > b->nr) - (a->nr < b->nr);
}

static int common_prefix(const struct spath *a, const struct spath *b)
{
	int i;

	for (i = 0; i < a->nr && i < b->nr; i++)
		if (strcmp(frame_name(a, i), frame_name(b, i)))
			break;
	return i;
}

/* ---- colours ---- */

/* Channel = base + span * (hash byte) / 256; which byte drives which. */
struct hue {
	unsigned char base[3];
	unsigned char span[3];
	unsigned char var[3];
};

/*
 * [palette][0 user, 1 kernel]. User frames: flamegraph.pl's hot, blue
 * and green families. Kernel frames take another family, so time in the
 * kernel is seen at a glance: aqua among the hot colours and the blues
 * (violet was too close to flamegraph.pl's blue), olive among the greens.
 */
static const struct hue hues[3][2] = {
	[REPORT_PALETTE_HOT] = {
		{ { 205, 0, 0 }, { 50, 230, 55 }, { 2, 0, 1 } },
		{ { 50, 165, 165 }, { 60, 55, 55 }, { 0, 0, 0 } },
	},
	[REPORT_PALETTE_BLUE] = {
		{ { 80, 80, 190 }, { 60, 60, 55 }, { 0, 0, 0 } },
		{ { 50, 165, 165 }, { 60, 55, 55 }, { 0, 0, 0 } },
	},
	[REPORT_PALETTE_GREEN] = {
		{ { 40, 190, 40 }, { 60, 65, 60 }, { 0, 0, 0 } },
		{ { 180, 175, 40 }, { 50, 45, 40 }, { 1, 1, 1 } },
	},
};

/* FNV-1a: the same name gets the same colour in every graph. */
static __u32 name_hash(const char *str)
{
	__u32 h = 2166136261u;

	for (; *str; str++)
		h = (h ^ (unsigned char)*str) * 16777619u;
	return h;
}

static void colour(const struct report *r, const char *name,
		   const struct sframe *fr, int rgb[3])
{
	unsigned int pal = r->palette <= REPORT_PALETTE_GREEN ?
			   r->palette : REPORT_PALETTE_HOT;
	const struct hue *h = &hues[pal][fr && fr->kernel];
	__u32 hash = name_hash(name);
	int i, byte;

	for (i = 0; i < 3; i++) {
		byte = (hash >> (8 * h->var[i])) & 0xff;
		rgb[i] = h->base[i] + h->span[i] * byte / 256;
		/* Inlined code has no frame of its own: paler. */
		if (fr && fr->inlined)
			rgb[i] += (255 - rgb[i]) * 2 / 5;
	}
}

/* ---- values for humans ---- */

/* v / div, one decimal, rounded: "12.3 ms" */
static void fixed1(char *buf, size_t len, u128 v, u128 div, const char *unit)
{
	u128 t = (v * 10 + div / 2) / div;
	char dec[DEC_LEN];

	snprintf(buf, len, "%s.%d %s", u128_dec(dec, t / 10), (int)(t % 10),
		 unit);
}

static void fmt_ns(char *buf, size_t len, u128 v)
{
	char dec[DEC_LEN];

	if (v < 1000)
		snprintf(buf, len, "%s ns", u128_dec(dec, v));
	else if (v < 1000000)
		fixed1(buf, len, v, 1000, "us");
	else if (v < 1000000000)
		fixed1(buf, len, v, 1000000, "ms");
	else
		fixed1(buf, len, v, 1000000000, "s");
}

static void fmt_bytes(char *buf, size_t len, u128 v)
{
	static const char *const units[] = {
		"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB",
	};
	char dec[DEC_LEN];
	u128 div = 1024;
	int u = 0;

	if (v < 1024) {
		snprintf(buf, len, "%s bytes", u128_dec(dec, v));
		return;
	}
	while (u < 6 && v >= div * 1024) {
		div *= 1024;
		u++;
	}
	fixed1(buf, len, v, div, units[u]);
}

static void fmt_value(const struct report *r, char *buf, size_t len, u128 v)
{
	char dec[DEC_LEN];

	if (r->unit && !strcmp(r->unit, "ns"))
		fmt_ns(buf, len, v);
	else if (r->unit && !strcmp(r->unit, "bytes"))
		fmt_bytes(buf, len, v);
	else
		snprintf(buf, len, "%s %s", u128_dec(dec, v),
			 r->unit ? r->unit :
			 r->value_name ? r->value_name : "samples");
}

/* ---- frames ---- */

/* Position in tenths of a pixel, rounded: neighbours share an edge. */
static int x10(const struct svg *s, u128 pos)
{
	return XPAD * 10 + (int)((pos * FRAMES_X10 + s->total / 2) / s->total);
}

/* flamegraph.pl's --minwidth 0.1: narrower frames are not drawn. */
static bool visible(const struct svg *s, u128 a, u128 b)
{
	return (b - a) * FRAMES_X10 >= s->total;
}

static void put_title(struct svg *s, const char *name, u128 a, u128 b)
{
	char val[96], dec[DEC_LEN];
	u128 pct = ((b - a) * 10000 + s->total / 2) / s->total;

	fmt_value(s->r, val, sizeof(val), b - a);
	sraw(s, "<title>");
	put_xml(s, name, SIZE_MAX);
	sput(s, " (%s, %s.%02d%%)</title>", val, u128_dec(dec, pct / 100),
		 (int)(pct % 100));
}

static void draw(struct svg *s, const char *name, const struct sframe *fr,
		 int depth, u128 a, u128 b)
{
	int x = x10(s, a), w = x10(s, b) - x;
	int y = TOP + (s->depth - depth) * FRAME_H;
	int n = w > 30 ? (w - 30) * 10 / CHAR_X100 : 0;
	char da[DEC_LEN], db[DEC_LEN];
	int rgb[3];

	colour(s->r, name, fr, rgb);
	/* data-s/-e: exact extents, for the script's zoom and search. */
	sput(s, "<g class=\"f\" data-s=\"%s\" data-e=\"%s\">",
		 u128_dec(da, a), u128_dec(db, b));
	put_title(s, name, a, b);
	sput(s, "<rect x=\"%d.%d\" y=\"%d\" width=\"%d.%d\" height=\"%d\" "
		 "fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
		 x / 10, x % 10, y, w / 10, w % 10, FRAME_H - 1,
		 rgb[0], rgb[1], rgb[2]);
	/* Always a <text>, empty when too narrow: zooming fills it in. */
	sput(s, "<text x=\"%d.%d\" y=\"%d.5\">", (x + 30) / 10,
		 (x + 30) % 10, y + 11);
	if (n >= 3)
		put_xml(s, name, (size_t)n);
	sraw(s, "</text></g>\n");
}

/* First walk: how deep the drawn graph is; second: draw it. */
static void frame(struct svg *s, const char *name, const struct sframe *fr,
		  int depth, u128 a, u128 b)
{
	if (!visible(s, a, b))
		return;
	if (s->draw)
		draw(s, name, fr, depth, a, b);
	else if (depth > s->depth)
		s->depth = depth;
}

/* Close @p's frames from its leaf down to depth @keep, ending at @end. */
static void close_to(struct svg *s, const struct spath *p, int keep,
		     const u128 *start, u128 end)
{
	int d;

	for (d = p ? p->nr - 1 : -1; d >= keep; d--)
		frame(s, frame_name(p, d), &p->fr[d], d + 1, start[d], end);
}

/*
 * flamegraph.pl's flow: over sorted paths, a frame stays open while the
 * next path shares it, and closes (is drawn) when a path diverges below
 * it. @start holds each open frame's left edge; "all" is the root.
 */
static void flow(struct svg *s, const struct spath *paths, size_t n,
		 u128 *start)
{
	const struct spath *prev = NULL;
	u128 cur = 0;
	size_t i;
	int c, d;

	for (i = 0; i < n; i++) {
		c = prev ? common_prefix(prev, &paths[i]) : 0;
		close_to(s, prev, c, start, cur);
		for (d = c; d < paths[i].nr; d++)
			start[d] = cur;
		cur += paths[i].value;
		prev = &paths[i];
	}
	close_to(s, prev, 0, start, cur);
	frame(s, "all", NULL, 0, 0, cur);
}

/* ---- the document ---- */

static const char css[] =
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	"#title { text-anchor: middle; font-size: 17px; }\n"
	"#subtitle { text-anchor: middle; fill: rgb(96,96,96); }\n"
	"#empty { text-anchor: middle; font-size: 17px; fill: rgb(96,96,96); }\n"
	"#search, #matched { text-anchor: end; }\n"
	".button { cursor: pointer; opacity: 0.6; }\n"
	".button:hover { opacity: 1; text-decoration: underline; }\n"
	"#frames > g { cursor: pointer; }\n"
	"#frames > g:hover > rect { stroke: black; stroke-width: 0.5; }\n"
	".hide { display: none; }\n"
	".parent { opacity: 0.5; }\n";

/*
 * The script runs at the end of the document, when every frame exists.
 * It does what flamegraph.pl's does, and tests/tool/browser.sh checks it
 * in chromium: click zooms, Reset Zoom, Ctrl-F / Search with "Matched:
 * N%", Escape, and the URL parameters ?s=REGEX and ?x=X&y=Y, read on
 * load and written back (history.replaceState) on click and search.
 * Each frame is <g data-s data-e><title/><rect/><text/></g>; data-s and
 * data-e are its exact extent in value units, so zoom tells subtree from
 * neighbour without rounding trouble. Never write "]]" + ">" in here.
 */
static const char script[] =
	"\"use strict\";\n"
	"(function () {\n"
	"\tvar W = 1200, PAD = 10, CHARW = 7.08, MATCH = \"rgb(230,0,230)\";\n"
	"\tvar framesEl = document.getElementById(\"frames\");\n"
	"\tvar details = document.getElementById(\"details\").firstChild;\n"
	"\tvar matched = document.getElementById(\"matched\").firstChild;\n"
	"\tvar all = [], byEl = new Map(), total = 0, re = null;\n"
	"\n"
	"\tfunction fit(f, w) {\n"
	"\t\tvar n = Math.floor((w - 3) / CHARW), s = f.name;\n"
	"\t\tf.text.textContent = n < 3 ? \"\" :\n"
	"\t\t\ts.length <= n ? s : s.substring(0, n - 2) + \"..\";\n"
	"\t}\n"
	"\tfunction place(f, x, w) {\n"
	"\t\tf.rect.setAttribute(\"x\", x.toFixed(1));\n"
	"\t\tf.rect.setAttribute(\"width\", w.toFixed(1));\n"
	"\t\tf.text.setAttribute(\"x\", (x + 3).toFixed(1));\n"
	"\t\tfit(f, w);\n"
	"\t}\n"
	"\tfunction mark(f, cls) {\n"
	"\t\tf.el.classList.remove(\"hide\", \"parent\");\n"
	"\t\tif (cls)\n"
	"\t\t\tf.el.classList.add(cls);\n"
	"\t}\n"
	"\tfunction owner(e) {\n"
	"\t\tfor (; e && e !== framesEl; e = e.parentNode)\n"
	"\t\t\tif (byEl.has(e))\n"
	"\t\t\t\treturn byEl.get(e);\n"
	"\t\treturn null;\n"
	"\t}\n"
	"\t/*\n"
	"\t * flamegraph.pl's URL parameters: ?s=REGEX searches, ?x=X&y=Y zooms to\n"
	"\t * the frame whose rect has that x and y; zooming and searching write\n"
	"\t * them back, so a link shows what its sender saw.\n"
	"\t */\n"
	"\tfunction params() {\n"
	"\t\treturn new URLSearchParams(window.location.search);\n"
	"\t}\n"
	"\tfunction setParams(p) {\n"
	"\t\tvar q = p.toString();\n"
	"\t\ttry {\n"
	"\t\t\thistory.replaceState(null, \"\", q ? \"?\" + q : window.location.pathname);\n"
	"\t\t} catch (err) {\n"
	"\t\t\t/* a page that may not rewrite its URL still zooms and searches */\n"
	"\t\t}\n"
	"\t}\n"
	"\tfunction zoomTo(f) {\n"
	"\t\tvar p = params();\n"
	"\t\tzoom(f);\n"
	"\t\tp.set(\"x\", f.ox);\n"
	"\t\tp.set(\"y\", f.oy);\n"
	"\t\tsetParams(p);\n"
	"\t}\n"
	"\tfunction searchFor(r) {\n"
	"\t\tvar p = params();\n"
	"\t\tsearch(r);\n"
	"\t\tif (r === null)\n"
	"\t\t\tp.delete(\"s\");\n"
	"\t\telse\n"
	"\t\t\tp.set(\"s\", r.source);\n"
	"\t\tsetParams(p);\n"
	"\t}\n"
	"\t/* ancestors span the width, dimmed; the subtree scales; others hide */\n"
	"\tfunction zoom(z) {\n"
	"\t\tvar k = (W - 2 * PAD) / (z.e - z.s);\n"
	"\t\tif (!(k > 0) || !isFinite(k))\n"
	"\t\t\treturn;\n"
	"\t\tall.forEach(function (f) {\n"
	"\t\t\tif (f.y > z.y && f.s <= z.s && f.e >= z.e) {\n"
	"\t\t\t\tmark(f, \"parent\");\n"
	"\t\t\t\tplace(f, PAD, W - 2 * PAD);\n"
	"\t\t\t} else if (f.y <= z.y && f.s >= z.s && f.e <= z.e) {\n"
	"\t\t\t\tmark(f, null);\n"
	"\t\t\t\tplace(f, PAD + (f.s - z.s) * k, (f.e - f.s) * k);\n"
	"\t\t\t} else {\n"
	"\t\t\t\tmark(f, \"hide\");\n"
	"\t\t\t}\n"
	"\t\t});\n"
	"\t}\n"
	"\tfunction unzoom() {\n"
	"\t\tall.forEach(function (f) {\n"
	"\t\t\tmark(f, null);\n"
	"\t\t\tplace(f, f.x, f.w);\n"
	"\t\t});\n"
	"\t\tvar p = params();\n"
	"\t\tp.delete(\"x\");\n"
	"\t\tp.delete(\"y\");\n"
	"\t\tsetParams(p);\n"
	"\t}\n"
	"\t/* a match inside a match counts once: the outermost */\n"
	"\tfunction search(r) {\n"
	"\t\tvar spans = [], sum = 0, end = -Infinity;\n"
	"\t\tre = r;\n"
	"\t\tall.forEach(function (f) {\n"
	"\t\t\tvar hit = r !== null && r.test(f.name);\n"
	"\t\t\tf.rect.setAttribute(\"fill\", hit ? MATCH : f.fill);\n"
	"\t\t\tif (hit)\n"
	"\t\t\t\tspans.push({ s: f.s, e: f.e });\n"
	"\t\t});\n"
	"\t\tspans.sort(function (a, b) { return a.s - b.s || b.e - a.e; });\n"
	"\t\tspans.forEach(function (sp) {\n"
	"\t\t\tif (sp.e <= end)\n"
	"\t\t\t\treturn;\n"
	"\t\t\tsum += sp.e - Math.max(sp.s, end);\n"
	"\t\t\tend = sp.e;\n"
	"\t\t});\n"
	"\t\tmatched.nodeValue = r === null ? \" \" : \"Matched: \" +\n"
	"\t\t\t(total > 0 ? 100 * sum / total : 0).toFixed(1) + \"%\";\n"
	"\t}\n"
	"\tfunction ask() {\n"
	"\t\tvar t = window.prompt(\"Search (regular expression):\", re ? re.source : \"\");\n"
	"\t\tif (t === null)\n"
	"\t\t\treturn;\n"
	"\t\tif (t === \"\")\n"
	"\t\t\treturn searchFor(null);\n"
	"\t\ttry {\n"
	"\t\t\tsearchFor(new RegExp(t));\n"
	"\t\t} catch (err) {\n"
	"\t\t\tdetails.nodeValue = \"bad regular expression: \" + err.message;\n"
	"\t\t}\n"
	"\t}\n"
	"\n"
	"\tArray.prototype.forEach.call(framesEl.children, function (g) {\n"
	"\t\tvar title = g.children[0].textContent, rect = g.children[1];\n"
	"\t\tvar f = {\n"
	"\t\t\tel: g, rect: rect, text: g.children[2], label: title,\n"
	"\t\t\tname: title.substring(0, title.lastIndexOf(\" (\")),\n"
	"\t\t\ts: parseFloat(g.getAttribute(\"data-s\")),\n"
	"\t\t\te: parseFloat(g.getAttribute(\"data-e\")),\n"
	"\t\t\tx: parseFloat(rect.getAttribute(\"x\")),\n"
	"\t\t\tw: parseFloat(rect.getAttribute(\"width\")),\n"
	"\t\t\ty: parseFloat(rect.getAttribute(\"y\")),\n"
	"\t\t\tox: rect.getAttribute(\"x\"),\n"
	"\t\t\toy: rect.getAttribute(\"y\"),\n"
	"\t\t\tfill: rect.getAttribute(\"fill\")\n"
	"\t\t};\n"
	"\t\ttotal = Math.max(total, f.e);\n"
	"\t\tall.push(f);\n"
	"\t\tbyEl.set(g, f);\n"
	"\t});\n"
	"\tframesEl.addEventListener(\"mouseover\", function (ev) {\n"
	"\t\tvar f = owner(ev.target);\n"
	"\t\tif (f)\n"
	"\t\t\tdetails.nodeValue = f.label;\n"
	"\t});\n"
	"\tframesEl.addEventListener(\"mouseout\", function () {\n"
	"\t\tdetails.nodeValue = \" \";\n"
	"\t});\n"
	"\tframesEl.addEventListener(\"click\", function (ev) {\n"
	"\t\tvar f = owner(ev.target);\n"
	"\t\tif (f)\n"
	"\t\t\tzoomTo(f);\n"
	"\t});\n"
	"\tdocument.getElementById(\"unzoom\").addEventListener(\"click\", unzoom);\n"
	"\tdocument.getElementById(\"search\").addEventListener(\"click\", ask);\n"
	"\twindow.addEventListener(\"keydown\", function (ev) {\n"
	"\t\tif ((ev.ctrlKey || ev.metaKey) && (ev.key === \"f\" || ev.key === \"F\")) {\n"
	"\t\t\tev.preventDefault();\n"
	"\t\t\task();\n"
	"\t\t} else if (ev.key === \"Escape\") {\n"
	"\t\t\tsearchFor(null);\n"
	"\t\t}\n"
	"\t});\n"
	"\t/* on load: zoom first, so a search's highlights land on the zoomed view */\n"
	"\t(function () {\n"
	"\t\tvar p = params(), x = p.get(\"x\"), y = p.get(\"y\"), s = p.get(\"s\");\n"
	"\t\tif (x !== null && y !== null) {\n"
	"\t\t\tall.some(function (f) {\n"
	"\t\t\t\tif (parseFloat(f.ox) !== parseFloat(x) ||\n"
	"\t\t\t\t    parseFloat(f.oy) !== parseFloat(y))\n"
	"\t\t\t\t\treturn false;\n"
	"\t\t\t\tzoom(f);\n"
	"\t\t\t\treturn true;\n"
	"\t\t\t});\n"
	"\t\t}\n"
	"\t\tif (s !== null && s !== \"\") {\n"
	"\t\t\ttry {\n"
	"\t\t\t\tsearch(new RegExp(s));\n"
	"\t\t\t} catch (err) {\n"
	"\t\t\t\tdetails.nodeValue = \"bad regular expression: \" + err.message;\n"
	"\t\t\t}\n"
	"\t\t}\n"
	"\t})();\n"
	"})();\n";

static const char *const bg_end[] = {
	[REPORT_PALETTE_HOT] = "#eeeeb0",
	[REPORT_PALETTE_BLUE] = "#dde4f6",
	[REPORT_PALETTE_GREEN] = "#ddf0dd",
};

/* Seconds with one decimal, without printf's locale-dependent point. */
static void put_seconds(FILE *m, double sec)
{
	long long t;

	if (!isfinite(sec) || sec < 0)
		sec = 0;
	if (sec > 9e15)
		sec = 9e15;
	t = (long long)(sec * 10 + 0.5);	/* no libm: sec >= 0 */
	fprintf(m, "%lld.%lld s", t / 10, t % 10);
}

/* "offcpu (10.0 s)", or the expression when the run was one */
static void put_heading(struct svg *s)
{
	const struct report *r = s->r;
	const char *what = r->name ? r->name : r->question;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		s->err = s->err ? s->err : -ENOMEM;
		return;
	}
	clean_to(m, what ? what : "scry", false);
	fputs(" (", m);
	put_seconds(m, r->duration_s);
	if (r->snapshot)
		fprintf(m, ", snapshot %d", r->snapshot);
	fputs(")", m);
	put_built(s, &buf, &len, m, TITLE_CHARS);
}

/* "off-CPU time (ns): the expression" */
static void put_subheading(struct svg *s)
{
	const struct report *r = s->r;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		s->err = s->err ? s->err : -ENOMEM;
		return;
	}
	clean_to(m, r->value_name ? r->value_name : "samples", false);
	if (r->unit) {
		fputs(" (", m);
		clean_to(m, r->unit, false);
		fputs(")", m);
	}
	if (r->name && r->question) {
		fputs(": ", m);
		clean_to(m, r->question, false);
	}
	put_built(s, &buf, &len, m, SUB_CHARS);
}

static void put_head(struct svg *s)
{
	unsigned int pal = s->r->palette <= REPORT_PALETTE_GREEN ?
			   s->r->palette : REPORT_PALETTE_HOT;
	int h = s->height;

	sput(s, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		 "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		 "xmlns=\"http://www.w3.org/2000/svg\">\n"
		 "<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
		 "<stop stop-color=\"#eeeeee\" offset=\"5%%\"/>"
		 "<stop stop-color=\"%s\" offset=\"95%%\"/></linearGradient></defs>\n"
		 "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n"
		 "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#background)\"/>\n",
		 SVG_WIDTH, h, SVG_WIDTH, h, bg_end[pal], css, SVG_WIDTH, h);
	sput(s, "<text id=\"title\" x=\"%d\" y=\"24\">", SVG_WIDTH / 2);
	put_heading(s);
	sput(s, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"44\">",
		 SVG_WIDTH / 2);
	put_subheading(s);
	sput(s, "</text>\n"
		 "<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
		 "<text id=\"search\" class=\"button\" x=\"%d\" y=\"24\">Search</text>\n"
		 "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		 "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n",
		 XPAD, SVG_WIDTH - XPAD, XPAD, h - 12, SVG_WIDTH - XPAD, h - 12);
}

static void put_tail(struct svg *s)
{
	sput(s, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n"
		 "</svg>\n", script);
}

int out_svg(FILE *f, const struct report *r)
{
	struct svg s = { .f = f, .r = r };
	struct spath *paths;
	u128 *start = NULL;
	size_t n, i;
	int maxnr = 1, err;

	err = build_paths(r, &paths, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		s.total += paths[i].value;
		if (paths[i].nr > maxnr)
			maxnr = paths[i].nr;
	}
	if (s.total) {
		start = calloc((size_t)maxnr, sizeof(*start));
		if (!start) {
			err = -ENOMEM;
			goto out;
		}
		qsort(paths, n, sizeof(*paths), cmp_paths);
		flow(&s, paths, n, start);
	}
	s.height = TOP + (s.depth + 1) * FRAME_H + BOTTOM;
	if (!s.total)
		s.height += FRAME_H;
	put_head(&s);
	sraw(&s, "<g id=\"frames\">\n");
	if (s.total) {
		s.draw = true;
		flow(&s, paths, n, start);
	}
	sraw(&s, "</g>\n");
	if (!s.total)
		sput(&s, "<text id=\"empty\" x=\"%d\" y=\"%d\">nothing to draw</text>\n",
			 SVG_WIDTH / 2, TOP + FRAME_H + 6);
	put_tail(&s);
	err = s.err;
	/* Buffered streams fail late: flush so the error is ours to report. */
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
out:
	free(start);
	free_paths(paths, n);
	return err;
}
