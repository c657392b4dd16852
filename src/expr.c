/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe-expression parser: syntax only. A small lexer hands out one
 * token of lookahead with its column; one recursive-descent function per
 * rule of the grammar in include/scry/expr.h builds the AST. plan.c gives
 * names their meaning later, using the columns recorded here.
 *
 * Columns are 1-based byte offsets into the whole text. A newline is just
 * whitespace and counts as one column like any other byte, so an error in
 * a multi-line expression still has one column; expr_print_error() prints
 * the text on one line (newlines shown as spaces) with the caret under it.
 * End of input is reported at column strlen(text) + 1.
 *
 * Precedence, loosest first: '||', '&&', comparison, '!'. As in C, '!'
 * binds tighter than a comparison: "!a == b" is "(!a) == b". Comparisons
 * do not chain: "a < b < c" is an error rather than a surprise.
 *
 * The probe is lexed on its own (see parse_probe()), since its parts hold
 * characters such as '.', '/', '*' and '-' that mean something else, or
 * nothing, in the rest of the clause.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scry/expr.h>

/*
 * '(' and '!' recurse in the parser, and every node recurses in
 * expr_free(), expr_format() and plan.c: bound both, so no input (the
 * fuzzer's included) can run the stack out.
 */
#define EXPR_MAX_DEPTH	64
#define EXPR_MAX_NODES	1024

enum tok_kind {
	TOK_ERROR,		/* lexing failed; the error is set */
	TOK_EOF,
	TOK_IDENT,
	TOK_INT,
	TOK_STR,
	TOK_AT,			/* '@', and the map name after it */
	TOK_LPAREN,
	TOK_RPAREN,
	TOK_LBRACE,
	TOK_RBRACE,
	TOK_LBRACK,
	TOK_RBRACK,
	TOK_COMMA,
	TOK_SEMI,
	TOK_SLASH,
	TOK_ASSIGN,
	TOK_NOT,
	TOK_AND,
	TOK_OR,
	TOK_EQ,
	TOK_NE,
	TOK_LT,
	TOK_LE,
	TOK_GT,
	TOK_GE,
};

/* How messages name a token: "expected an operand after '&&'". */
static const char *const tok_names[] = {
	[TOK_ERROR]	= "error",
	[TOK_EOF]	= "end of input",
	[TOK_IDENT]	= "identifier",
	[TOK_INT]	= "number",
	[TOK_STR]	= "string",
	[TOK_AT]	= "@",
	[TOK_LPAREN]	= "(",
	[TOK_RPAREN]	= ")",
	[TOK_LBRACE]	= "{",
	[TOK_RBRACE]	= "}",
	[TOK_LBRACK]	= "[",
	[TOK_RBRACK]	= "]",
	[TOK_COMMA]	= ",",
	[TOK_SEMI]	= ";",
	[TOK_SLASH]	= "/",
	[TOK_ASSIGN]	= "=",
	[TOK_NOT]	= "!",
	[TOK_AND]	= "&&",
	[TOK_OR]	= "||",
	[TOK_EQ]	= "==",
	[TOK_NE]	= "!=",
	[TOK_LT]	= "<",
	[TOK_LE]	= "<=",
	[TOK_GT]	= ">",
	[TOK_GE]	= ">=",
};

struct token {
	enum tok_kind kind;
	int col;
	const char *start;	/* identifier, or the map name after '@' */
	size_t len;
	__s64 ival;
	char *str;		/* TOK_STR, unescaped; owned until taken */
};

struct parser {
	const char *text;
	size_t pos;		/* next byte for the lexer */
	struct token tok;	/* the lookahead */
	enum tok_kind prev;	/* the token before it, for messages */
	struct expr_error *err;
	int errnum;		/* 0 until the first error */
	int depth;
	int nnodes;
};

/* Only the first error counts: later ones are fallout from it. */
__attribute__((format(printf, 3, 4)))
static void fail(struct parser *p, int col, const char *fmt, ...)
{
	va_list ap;

	if (p->errnum)
		return;
	p->errnum = EINVAL;
	p->err->col = col;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
}

static void fail_nomem(struct parser *p, int col)
{
	fail(p, col, "out of memory");
	p->errnum = ENOMEM;
}

static int col_at(size_t pos)
{
	return (int)pos + 1;
}

/* Quote one byte for a message: '#', or '\x01' when it would not print. */
static const char *char_name(char c, char buf[12])
{
	unsigned char u = c;

	if (u >= 0x20 && u < 0x7f)
		snprintf(buf, 12, "'%c'", u);
	else
		snprintf(buf, 12, "'\\x%02x'", u);
	return buf;
}

static void fail_char(struct parser *p, size_t pos, const char *where)
{
	char buf[12];

	fail(p, col_at(pos), "unexpected character %s%s",
	     char_name(p->text[pos], buf), where);
}

static char *dup_n(struct parser *p, const char *s, size_t n, int col)
{
	char *d = strndup(s, n);

	if (!d)
		fail_nomem(p, col);
	return d;
}

/* ASCII only: a locale must not turn a UTF-8 byte into a letter. */
static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	       c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || is_digit(c);
}

static int hex_value(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unquoted probe-part characters, '/' aside (see slash_in_part()). */
static bool is_part_char(char c)
{
	return is_ident_char(c) || (c && strchr(".*?[]-+@,", c));
}

/* The characters that end a probe, besides end of input. */
static bool ends_probe(char c)
{
	return c == '\0' || is_space(c) || c == '/' || c == '{';
}

/*
 * Scan the string whose opening quote is at p->pos and return it
 * unescaped (malloc'ed), leaving p->pos after the closing quote. One pass
 * checks it and measures it, a second copies, so the allocation is exact.
 */
static char *lex_string(struct parser *p)
{
	const char *s = p->text;
	size_t open = p->pos, i, n = 0;
	char *out, *o, buf[12];

	for (i = open + 1; s[i] != '"'; i++, n++) {
		if (s[i] == '\0') {
			fail(p, col_at(open), "unterminated string");
			return NULL;
		}
		if (s[i] != '\\')
			continue;
		i++;
		if (s[i] == '\0') {
			fail(p, col_at(open), "unterminated string");
			return NULL;
		}
		if (!strchr("\"\\nt", s[i])) {
			if (s[i] >= 0x20 && s[i] < 0x7f)
				fail(p, col_at(i), "unknown escape '\\%c'",
				     s[i]);
			else
				fail(p, col_at(i),
				     "unexpected character %s after '\\'",
				     char_name(s[i], buf));
			return NULL;
		}
	}

	out = malloc(n + 1);
	if (!out) {
		fail_nomem(p, col_at(open));
		return NULL;
	}
	for (o = out, i = open + 1; s[i] != '"'; i++) {
		if (s[i] == '\\') {
			i++;
			*o++ = s[i] == 'n' ? '\n' : s[i] == 't' ? '\t' : s[i];
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	p->pos = i + 1;
	return out;
}

/*
 * decimal | 0x hex, with an optional '-' right before it. The value must
 * fit an __s64 in either base; hex is not a way to spell unsigned values.
 * Digits run on after an overflow, so the error names the whole number.
 */
static void lex_number(struct parser *p, struct token *t)
{
	const char *s = p->text;
	size_t i = p->pos;
	bool neg = false, overflow = false;
	__u64 v = 0, limit;
	int base = 10, d;

	if (s[i] == '-') {
		neg = true;
		i++;
	}
	if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
		if (hex_value(s[i]) < 0) {
			fail(p, col_at(i), "expected hex digits after '0x'");
			return;
		}
	} else if (s[i] == '0' && is_digit(s[i + 1])) {
		/* C would read 0755 as octal; better refuse than guess. */
		fail(p, t->col, "octal numbers are not supported");
		return;
	}

	limit = neg ? (__u64)INT64_MAX + 1 : (__u64)INT64_MAX;
	for (;; i++) {
		d = hex_value(s[i]);
		if (d < 0 || d >= base)
			break;
		if (v > (limit - d) / base)
			overflow = true;
		else
			v = v * base + d;
	}
	if (overflow) {
		fail(p, t->col, "number out of range");
		return;
	}
	/* "10ms": no suffixes (yet), and "12abc" is no number either. */
	if (is_ident_char(s[i])) {
		fail_char(p, i, " in number");
		return;
	}

	t->kind = TOK_INT;
	if (!neg)
		t->ival = (__s64)v;
	else if (v == (__u64)INT64_MAX + 1)
		t->ival = INT64_MIN;
	else
		t->ival = -(__s64)v;
	p->pos = i;
}

/* ident := [A-Za-z_][A-Za-z0-9_]* ( '.' [A-Za-z_][A-Za-z0-9_]* )* */
static size_t ident_len(struct parser *p, size_t start)
{
	const char *s = p->text;
	size_t i = start;

	for (;;) {
		while (is_ident_char(s[i]))
			i++;
		if (s[i] != '.')
			return i - start;
		if (!is_ident_start(s[i + 1])) {
			fail(p, col_at(i + 1),
			     "expected a field name after '.'");
			return 0;
		}
		i++;
	}
}

/* One or two characters: '=' or "==", '<' or "<=", ... */
static void lex_op(struct parser *p, struct token *t, char second,
		   enum tok_kind two, enum tok_kind one)
{
	if (p->text[p->pos + 1] == second) {
		t->kind = two;
		p->pos += 2;
	} else {
		t->kind = one;
		p->pos++;
	}
}

/* '&&' and '||' have no one-character form to fall back on. */
static void lex_double(struct parser *p, struct token *t, enum tok_kind kind)
{
	char c = p->text[p->pos];

	if (p->text[p->pos + 1] != c) {
		fail(p, t->col, "expected '%c%c'", c, c);
		return;
	}
	t->kind = kind;
	p->pos += 2;
}

static void lex_word(struct parser *p, struct token *t)
{
	t->len = ident_len(p, p->pos);
	if (!t->len)
		return;
	t->kind = TOK_IDENT;
	p->pos += t->len;
}

static void lex_at(struct parser *p, struct token *t)
{
	p->pos++;
	t->kind = TOK_AT;
	t->start = p->text + p->pos;
	if (!is_ident_start(p->text[p->pos]))
		return;
	t->len = ident_len(p, p->pos);
	if (!t->len)
		t->kind = TOK_ERROR;
	p->pos += t->len;
}

static enum tok_kind single_char_token(char c)
{
	switch (c) {
	case '(':	return TOK_LPAREN;
	case ')':	return TOK_RPAREN;
	case '{':	return TOK_LBRACE;
	case '}':	return TOK_RBRACE;
	case '[':	return TOK_LBRACK;
	case ']':	return TOK_RBRACK;
	case ',':	return TOK_COMMA;
	case ';':	return TOK_SEMI;
	case '/':	return TOK_SLASH;
	default:	return TOK_ERROR;
	}
}

/* Replace the lookahead with the next token. */
static void lex(struct parser *p)
{
	struct token *t = &p->tok;
	const char *s = p->text;
	char c;

	p->prev = t->kind;
	free(t->str);
	memset(t, 0, sizeof(*t));
	t->kind = TOK_ERROR;
	if (p->errnum)
		return;

	while (is_space(s[p->pos]))
		p->pos++;
	c = s[p->pos];
	t->col = col_at(p->pos);
	t->start = s + p->pos;

	switch (c) {
	case '\0':
		t->kind = TOK_EOF;
		return;
	case '=':
		lex_op(p, t, '=', TOK_EQ, TOK_ASSIGN);
		return;
	case '!':
		lex_op(p, t, '=', TOK_NE, TOK_NOT);
		return;
	case '<':
		lex_op(p, t, '=', TOK_LE, TOK_LT);
		return;
	case '>':
		lex_op(p, t, '=', TOK_GE, TOK_GT);
		return;
	case '&':
		lex_double(p, t, TOK_AND);
		return;
	case '|':
		lex_double(p, t, TOK_OR);
		return;
	case '"':
		t->str = lex_string(p);
		if (t->str)
			t->kind = TOK_STR;
		return;
	case '@':
		lex_at(p, t);
		return;
	}

	t->kind = single_char_token(c);
	if (t->kind != TOK_ERROR) {
		p->pos++;
		return;
	}
	/* '-' only ever starts a negative number: there is no arithmetic. */
	if (is_digit(c) || (c == '-' && is_digit(s[p->pos + 1])))
		lex_number(p, t);
	else if (is_ident_start(c))
		lex_word(p, t);
	else
		fail_char(p, p->pos, "");
}

/* Count one more node; @col is where to point if that is one too many. */
static bool count_node(struct parser *p, int col)
{
	if (++p->nnodes > EXPR_MAX_NODES) {
		fail(p, col, "expression too long (at most %d nodes)",
		     EXPR_MAX_NODES);
		return false;
	}
	return true;
}

static struct expr_node *alloc_node(struct parser *p, enum expr_node_kind kind,
				    int col)
{
	struct expr_node *n = calloc(1, sizeof(*n));

	if (!n) {
		fail_nomem(p, col);
		return NULL;
	}
	n->kind = kind;
	n->col = col;
	return n;
}

static struct expr_node *new_node(struct parser *p, enum expr_node_kind kind,
				  int col)
{
	if (!count_node(p, col))
		return NULL;
	return alloc_node(p, kind, col);
}

static void node_free(struct expr_node *n)
{
	if (!n)
		return;
	node_free(n->left);
	node_free(n->right);
	free(n->name);
	free(n->sval);
	free(n);
}

/* A binary node over two finished subtrees; frees them if it cannot. */
static struct expr_node *new_binary(struct parser *p, enum expr_node_kind kind,
				    struct expr_node *left,
				    struct expr_node *right)
{
	struct expr_node *n = NULL;

	/*
	 * The node starts where its left operand does, but a long chain
	 * is best blamed where it grew too long: at the right operand.
	 */
	if (count_node(p, right->col))
		n = alloc_node(p, kind, left->col);
	if (!n) {
		node_free(left);
		node_free(right);
		return NULL;
	}
	n->left = left;
	n->right = right;
	return n;
}

/*
 * The probe ends at whitespace or '{', but a probe part can be a path, so
 * a '/' right after a part is ambiguous. It belongs to the part when the
 * part so far is empty ("/usr/lib/..."), starts with '.' ("./server",
 * "../bin/srv") or already holds a '/' ("/usr/lib/x"). After anything
 * else, a word or a glob ("malloc/arg0 > 1/"), it opens the predicate,
 * unless the part characters after it run into a ':' ("bin/server:main"),
 * which no predicate can do. So put a blank before a predicate that
 * follows a path: "uprobe:./a.out /arg0 > 1/" (or quote the path).
 */
static bool slash_in_part(const char *s, size_t start, size_t i)
{
	size_t j;

	if (i == start || s[start] == '.' || memchr(s + start, '/', i - start))
		return true;
	for (j = i + 1; s[j] == '/' || is_part_char(s[j]); j++)
		;
	return s[j] == ':';
}

/* part := "quoted" | run of part characters; returns it malloc'ed. */
static char *parse_part(struct parser *p, int col)
{
	const char *s = p->text;
	size_t start = p->pos, i;

	if (s[start] == '"')
		return lex_string(p);

	for (i = start; ; i++) {
		if (s[i] == '/' && slash_in_part(s, start, i))
			continue;
		if (!is_part_char(s[i]))
			break;
	}
	if (i == start) {
		fail(p, col, "empty probe part");
		return NULL;
	}
	p->pos = i;
	return dup_n(p, s + start, i - start, col);
}

/* probe := word ( ':' part )* */
static int parse_probe(struct parser *p, struct expr_probe *pr)
{
	const char *s = p->text;
	size_t start;
	int col;

	while (is_space(s[p->pos]))
		p->pos++;
	start = p->pos;
	col = col_at(start);
	if (s[start] == ':') {
		fail(p, col, "empty probe part");
		return -1;
	}
	if (ends_probe(s[start])) {
		fail(p, col, "empty probe");
		return -1;
	}
	while (is_ident_char(s[p->pos]))
		p->pos++;
	if (p->pos == start) {
		fail_char(p, start, " in probe");
		return -1;
	}
	pr->kind = dup_n(p, s + start, p->pos - start, col);
	pr->kind_col = col;
	if (!pr->kind)
		return -1;

	while (s[p->pos] == ':') {
		col = col_at(++p->pos);
		if (pr->nparts == EXPR_MAX_PARTS) {
			fail(p, col, "too many probe parts (at most %d)",
			     EXPR_MAX_PARTS);
			return -1;
		}
		pr->parts[pr->nparts] = parse_part(p, col);
		if (!pr->parts[pr->nparts])
			return -1;
		pr->part_cols[pr->nparts++] = col;
	}
	if (!ends_probe(s[p->pos])) {
		fail_char(p, p->pos, " in probe");
		return -1;
	}
	return 0;
}

static struct expr_node *parse_or(struct parser *p);

/* Enter one level of '(' or '!', refusing to go deeper than the limit. */
static bool nest(struct parser *p)
{
	if (++p->depth > EXPR_MAX_DEPTH) {
		fail(p, p->tok.col, "nesting too deep (at most %d)",
		     EXPR_MAX_DEPTH);
		return false;
	}
	return true;
}

/* '(' pred ')', the '(' being the lookahead */
static struct expr_node *parse_paren(struct parser *p)
{
	struct expr_node *n;

	if (!nest(p))
		return NULL;
	lex(p);
	n = parse_or(p);
	p->depth--;
	if (!n)
		return NULL;
	if (p->tok.kind != TOK_RPAREN) {
		fail(p, p->tok.col, "expected ')'");
		node_free(n);
		return NULL;
	}
	lex(p);
	return n;
}

/*
 * operand := ident | number | string | '(' pred ')'
 * @what names it for the message: "an operand", "an argument".
 */
static struct expr_node *parse_operand(struct parser *p, const char *what)
{
	struct token *t = &p->tok;
	struct expr_node *n;

	switch (t->kind) {
	case TOK_IDENT:
		n = new_node(p, EXPR_IDENT, t->col);
		if (n) {
			n->name = dup_n(p, t->start, t->len, t->col);
			if (!n->name) {
				free(n);
				return NULL;
			}
		}
		break;
	case TOK_INT:
		n = new_node(p, EXPR_INT, t->col);
		if (n)
			n->ival = t->ival;
		break;
	case TOK_STR:
		n = new_node(p, EXPR_STR, t->col);
		if (n) {
			n->sval = t->str;
			t->str = NULL;
		}
		break;
	case TOK_LPAREN:
		return parse_paren(p);
	default:
		fail(p, t->col, "expected %s after '%s'", what,
		     tok_names[p->prev]);
		return NULL;
	}
	if (n)
		lex(p);
	return n;
}

/* unary := '!' unary | operand */
static struct expr_node *parse_unary(struct parser *p)
{
	struct expr_node *n, *child;
	int col = p->tok.col;

	if (p->tok.kind != TOK_NOT)
		return parse_operand(p, "an operand");
	if (!nest(p))
		return NULL;
	lex(p);
	child = parse_unary(p);
	p->depth--;
	if (!child)
		return NULL;
	n = new_node(p, EXPR_NOT, col);
	if (!n) {
		node_free(child);
		return NULL;
	}
	n->left = child;
	return n;
}

static bool cmp_op(enum tok_kind kind, enum expr_cmp_op *op)
{
	switch (kind) {
	case TOK_EQ:	*op = EXPR_EQ; return true;
	case TOK_NE:	*op = EXPR_NE; return true;
	case TOK_LT:	*op = EXPR_LT; return true;
	case TOK_LE:	*op = EXPR_LE; return true;
	case TOK_GT:	*op = EXPR_GT; return true;
	case TOK_GE:	*op = EXPR_GE; return true;
	default:	return false;
	}
}

/* cmp := unary [ ( '==' | '!=' | '<' | '<=' | '>' | '>=' ) unary ] */
static struct expr_node *parse_cmp(struct parser *p)
{
	struct expr_node *left, *right, *n;
	enum expr_cmp_op op, next;

	left = parse_unary(p);
	if (!left)
		return NULL;
	if (!cmp_op(p->tok.kind, &op)) {
		if (p->tok.kind != TOK_ASSIGN)
			return left;
		fail(p, p->tok.col, "use '==' to compare");
		node_free(left);
		return NULL;
	}
	lex(p);
	right = parse_unary(p);
	if (!right) {
		node_free(left);
		return NULL;
	}
	if (cmp_op(p->tok.kind, &next)) {
		fail(p, p->tok.col, "comparisons do not chain");
		node_free(left);
		node_free(right);
		return NULL;
	}
	n = new_binary(p, EXPR_CMP, left, right);
	if (n)
		n->op = op;
	return n;
}

/* and := cmp ( '&&' cmp )*, left-associative */
static struct expr_node *parse_and(struct parser *p)
{
	struct expr_node *left = parse_cmp(p), *right;

	while (left && p->tok.kind == TOK_AND) {
		lex(p);
		right = parse_cmp(p);
		if (!right) {
			node_free(left);
			return NULL;
		}
		left = new_binary(p, EXPR_AND, left, right);
	}
	return left;
}

/* or := and ( '||' and )*, left-associative */
static struct expr_node *parse_or(struct parser *p)
{
	struct expr_node *left = parse_and(p), *right;

	while (left && p->tok.kind == TOK_OR) {
		lex(p);
		right = parse_and(p);
		if (!right) {
			node_free(left);
			return NULL;
		}
		left = new_binary(p, EXPR_OR, left, right);
	}
	return left;
}

/* keys := ident ( ',' ident )*, the '[' being the lookahead */
static int parse_keys(struct parser *p, struct expr_action *a)
{
	struct token *t = &p->tok;

	do {
		lex(p);
		if (t->kind != TOK_IDENT) {
			fail(p, t->col, "expected a key after '%s'",
			     tok_names[p->prev]);
			return -1;
		}
		if (a->nkeys == EXPR_MAX_KEYS) {
			fail(p, t->col, "too many keys (at most %d)",
			     EXPR_MAX_KEYS);
			return -1;
		}
		a->keys[a->nkeys] = dup_n(p, t->start, t->len, t->col);
		if (!a->keys[a->nkeys])
			return -1;
		a->key_cols[a->nkeys++] = t->col;
		lex(p);
	} while (t->kind == TOK_COMMA);

	if (t->kind != TOK_RBRACK) {
		fail(p, t->col, "expected ']'");
		return -1;
	}
	lex(p);
	return 0;
}

/* args := operand ( ',' operand )*, up to the ')' (not consumed) */
static int parse_args(struct parser *p, struct expr_action *a)
{
	struct expr_node *n;
	int col;

	if (p->tok.kind == TOK_RPAREN)
		return 0;
	for (;;) {
		col = p->tok.col;
		n = parse_operand(p, "an argument");
		if (!n)
			return -1;
		if (a->nargs == EXPR_MAX_ARGS) {
			fail(p, col, "too many arguments (at most %d)",
			     EXPR_MAX_ARGS);
			node_free(n);
			return -1;
		}
		a->args[a->nargs++] = n;
		if (p->tok.kind != TOK_COMMA)
			return 0;
		lex(p);
	}
}

/*
 * action := '@' [ident] [ '[' keys ']' ] '=' agg '(' [ args ] ')' [ ';' ]
 * The '{' is consumed; the '}' is checked by the caller.
 */
static int parse_action(struct parser *p, struct expr_action *a)
{
	struct token *t = &p->tok;

	if (t->kind == TOK_RBRACE) {
		fail(p, t->col, "empty action");
		return -1;
	}
	if (t->kind != TOK_AT) {
		fail(p, t->col, "expected '@' after '{'");
		return -1;
	}
	if (t->len) {
		a->map_name = dup_n(p, t->start, t->len, t->col);
		if (!a->map_name)
			return -1;
	}
	lex(p);
	if (t->kind == TOK_LBRACK && parse_keys(p, a))
		return -1;
	if (t->kind != TOK_ASSIGN) {
		fail(p, t->col, "expected '='");
		return -1;
	}
	lex(p);
	if (t->kind != TOK_IDENT) {
		fail(p, t->col, "expected an aggregation function after '='");
		return -1;
	}
	a->func = dup_n(p, t->start, t->len, t->col);
	if (!a->func)
		return -1;
	a->func_col = t->col;
	lex(p);
	if (t->kind != TOK_LPAREN) {
		fail(p, t->col, "expected '(' after the function name");
		return -1;
	}
	lex(p);
	if (parse_args(p, a))
		return -1;
	if (t->kind != TOK_RPAREN) {
		fail(p, t->col, "expected ')'");
		return -1;
	}
	lex(p);
	if (t->kind == TOK_SEMI)
		lex(p);
	return 0;
}

/*
 * After the '}' only whitespace may follow. Checked on the raw text, not
 * with the lexer, so "} #" says "trailing input" rather than complaining
 * about the '#' as a token.
 */
static void parse_end(struct parser *p)
{
	size_t i = p->pos;

	while (is_space(p->text[i]))
		i++;
	if (p->text[i])
		fail(p, col_at(i), "trailing input after '}'");
}

/* clause := probe [ '/' pred '/' ] [ '{' action '}' ] */
static void parse_clause(struct parser *p, struct expr *e)
{
	struct token *t = &p->tok;

	if (parse_probe(p, &e->probe))
		return;
	lex(p);
	if (t->kind == TOK_SLASH) {
		lex(p);
		if (t->kind == TOK_SLASH) {
			fail(p, t->col, "empty predicate");
			return;
		}
		e->pred = parse_or(p);
		if (!e->pred)
			return;
		if (t->kind != TOK_SLASH) {
			fail(p, t->col, "expected '/' to close the predicate");
			return;
		}
		lex(p);
	}
	if (t->kind == TOK_EOF)
		return;
	if (t->kind != TOK_LBRACE) {
		fail(p, t->col, e->pred ?
		     "expected '{' after the predicate" :
		     "expected '/' or '{' after the probe");
		return;
	}
	lex(p);
	if (parse_action(p, &e->action))
		return;
	if (t->kind != TOK_RBRACE) {
		fail(p, t->col, "expected '}'");
		return;
	}
	e->has_action = 1;
	parse_end(p);
}

struct expr *expr_parse(const char *text, struct expr_error *err)
{
	struct expr_error dummy;
	struct parser p = { .text = text, .err = err ? err : &dummy };
	struct expr *e;

	memset(p.err, 0, sizeof(*p.err));
	if (!text) {
		fail(&p, 1, "no expression");
		errno = EINVAL;
		return NULL;
	}
	/* Columns are ints. */
	if (strlen(text) >= INT_MAX) {
		fail(&p, 1, "expression too long");
		errno = EINVAL;
		return NULL;
	}

	e = calloc(1, sizeof(*e));
	if (e)
		e->text = strdup(text);
	if (!e || !e->text) {
		free(e);
		fail_nomem(&p, 1);
		errno = ENOMEM;
		return NULL;
	}

	parse_clause(&p, e);
	free(p.tok.str);
	if (p.errnum) {
		expr_free(e);
		errno = p.errnum;
		return NULL;
	}
	return e;
}

void expr_free(struct expr *e)
{
	int i;

	if (!e)
		return;
	free(e->text);
	free(e->probe.kind);
	for (i = 0; i < e->probe.nparts; i++)
		free(e->probe.parts[i]);
	node_free(e->pred);
	free(e->action.map_name);
	for (i = 0; i < e->action.nkeys; i++)
		free(e->action.keys[i]);
	free(e->action.func);
	for (i = 0; i < e->action.nargs; i++)
		node_free(e->action.args[i]);
	free(e);
}

/*
 * The text goes on one line: newlines and other control characters show
 * as spaces, tabs stay tabs (and are copied into the caret line so the
 * caret lands under the same spot). The column counts bytes; the caret
 * line skips UTF-8 continuation bytes, so on a UTF-8 terminal the caret
 * still lines up after non-ASCII text.
 */
void expr_print_error(FILE *f, const char *text, const struct expr_error *err)
{
	size_t len, i, upto;

	if (!text)
		text = "";
	len = strlen(text);
	fprintf(f, "scry: %s at column %d\n    ", err->msg, err->col);
	for (i = 0; i < len; i++) {
		unsigned char c = text[i];

		fputc(c == '\t' || (c >= 0x20 && c != 0x7f) ? c : ' ', f);
	}
	fputs("\n    ", f);
	/* A column past the end (a caller's bug) still ends the line. */
	upto = err->col > 1 ? (size_t)err->col - 1 : 0;
	if (upto > len)
		upto = len;
	for (i = 0; i < upto; i++) {
		unsigned char c = text[i];

		if ((c & 0xc0) == 0x80)
			continue;
		fputc(c == '\t' ? '\t' : ' ', f);
	}
	fputs("^\n", f);
}

/*
 * expr_format() output: everything is measured, only what fits is
 * written, so the caller learns whether the buffer was big enough.
 */
struct out {
	char *buf;
	size_t len;
	size_t pos;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (o->pos < o->len)
		n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += n;
}

static void put_quoted(struct out *o, const char *s)
{
	put(o, "\"");
	for (; *s; s++) {
		switch (*s) {
		case '"':	put(o, "\\\""); break;
		case '\\':	put(o, "\\\\"); break;
		case '\n':	put(o, "\\n"); break;
		case '\t':	put(o, "\\t"); break;
		default:	put(o, "%c", *s); break;
		}
	}
	put(o, "\"");
}

/*
 * Quote a part unless it reads back the same bare: not empty, only part
 * characters, and any '/' in it safe by the rule of slash_in_part(),
 * which only a leading '/' or '.' guarantees wherever the part stands.
 */
static bool part_needs_quotes(const char *s)
{
	const char *c;

	if (!*s)
		return true;
	for (c = s; *c; c++) {
		if (*c == '/' && s[0] != '/' && s[0] != '.')
			return true;
		if (*c != '/' && !is_part_char(*c))
			return true;
	}
	return false;
}

/* Binding strength: a child weaker than its slot needs parentheses. */
enum {
	PREC_OR = 1,
	PREC_AND,
	PREC_CMP,
	PREC_NOT,
	PREC_ATOM,
};

static int node_prec(const struct expr_node *n)
{
	switch (n->kind) {
	case EXPR_OR:	return PREC_OR;
	case EXPR_AND:	return PREC_AND;
	case EXPR_CMP:	return PREC_CMP;
	case EXPR_NOT:	return PREC_NOT;
	default:	return PREC_ATOM;
	}
}

static const char *const cmp_names[] = {
	[EXPR_EQ] = "==", [EXPR_NE] = "!=", [EXPR_LT] = "<",
	[EXPR_LE] = "<=", [EXPR_GT] = ">", [EXPR_GE] = ">=",
};

static void put_node(struct out *o, const struct expr_node *n, int min_prec);

static void put_binary(struct out *o, const struct expr_node *n, int prec,
		       const char *op)
{
	/*
	 * '&&' and '||' chain to the left, so a right child of the same
	 * kind keeps its parentheses and the tree reads back unchanged;
	 * comparisons do not chain at all.
	 */
	put_node(o, n->left, n->kind == EXPR_CMP ? prec + 1 : prec);
	put(o, " %s ", op);
	put_node(o, n->right, prec + 1);
}

static void put_node(struct out *o, const struct expr_node *n, int min_prec)
{
	int prec = node_prec(n);

	if (prec < min_prec)
		put(o, "(");
	switch (n->kind) {
	case EXPR_IDENT:
		put(o, "%s", n->name);
		break;
	case EXPR_INT:
		put(o, "%lld", (long long)n->ival);
		break;
	case EXPR_STR:
		put_quoted(o, n->sval);
		break;
	case EXPR_CMP:
		put_binary(o, n, prec, cmp_names[n->op]);
		break;
	case EXPR_AND:
		put_binary(o, n, prec, "&&");
		break;
	case EXPR_OR:
		put_binary(o, n, prec, "||");
		break;
	case EXPR_NOT:
		put(o, "!");
		put_node(o, n->left, PREC_NOT);
		break;
	}
	if (prec < min_prec)
		put(o, ")");
}

static void put_probe(struct out *o, const struct expr_probe *pr)
{
	int i;

	put(o, "%s", pr->kind);
	for (i = 0; i < pr->nparts; i++) {
		put(o, ":");
		if (part_needs_quotes(pr->parts[i]))
			put_quoted(o, pr->parts[i]);
		else
			put(o, "%s", pr->parts[i]);
	}
}

static void put_action(struct out *o, const struct expr_action *a)
{
	int i;

	put(o, " { @%s", a->map_name ? a->map_name : "");
	for (i = 0; i < a->nkeys; i++)
		put(o, "%s%s", i ? ", " : "[", a->keys[i]);
	if (a->nkeys)
		put(o, "]");
	put(o, " = %s(", a->func);
	for (i = 0; i < a->nargs; i++) {
		if (i)
			put(o, ", ");
		put_node(o, a->args[i], PREC_ATOM);
	}
	put(o, ") }");
}

/* PROBE /PRED/ { @NAME[K1, K2] = FUNC(ARGS) } */
int expr_format(const struct expr *e, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = buf ? len : 0 };

	if (!e)
		return -EINVAL;
	put_probe(&o, &e->probe);
	if (e->pred) {
		put(&o, " /");
		put_node(&o, e->pred, PREC_OR);
		put(&o, "/");
	}
	if (e->has_action)
		put_action(&o, &e->action);
	if (o.pos >= o.len || o.pos > INT_MAX)
		return -ENOSPC;
	return (int)o.pos;
}
