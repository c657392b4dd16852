/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe-language parser: syntax only. A small lexer hands out one
 * token of lookahead with its column; one recursive-descent function per
 * rule of the grammar in include/scry/expr.h builds the AST. plan.c gives
 * names their meaning later, using the columns recorded here.
 *
 * Columns are 1-based byte offsets into the whole text. A newline is just
 * whitespace and counts as one column like any other byte, so an error in
 * a multi-line program still has one column; expr_print_error() turns it
 * into FILE:LINE:COL and shows that line with the caret under it.
 * End of input is reported at column strlen(text) + 1.
 *
 * Precedence is C's, with one exception: comparisons do not chain, and
 * all six share one level ("a < b == c" is an error rather than a
 * surprise). As in C, unary operators bind tighter than any binary one:
 * "!a == b" is "(!a) == b".
 *
 * Probes are lexed on their own (see parse_probe()), since their parts
 * hold characters such as '.', '/', '*', '-' and ',' that mean something
 * else, or nothing, in the rest of a clause.
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
 * Parentheses, unary operators, calls and blocks recurse in the parser,
 * and every node recurses in expr_free(), expr_format() and plan.c: bound
 * both, so no input (the fuzzer's included) can run the stack out.
 */
#define EXPR_MAX_DEPTH	64
#define EXPR_MAX_NODES	4096
#define EXPR_MAX_ARGS	16	/* call arguments, map keys */

enum tok_kind {
	TOK_ERROR,		/* lexing failed; the error is set */
	TOK_EOF,
	TOK_IDENT,
	TOK_INT,
	TOK_STR,
	TOK_AT,			/* '@', and the map name after it */
	TOK_VAR,		/* '$' and the name after it */
	TOK_LPAREN,
	TOK_RPAREN,
	TOK_LBRACE,
	TOK_RBRACE,
	TOK_LBRACK,
	TOK_RBRACK,
	TOK_COMMA,
	TOK_SEMI,
	TOK_QUESTION,
	TOK_COLON,
	TOK_DOT,
	TOK_ARROW,
	TOK_ASSIGN,		/* '=' */
	TOK_OPASSIGN,		/* '+=' ... '>>=', the operator in op */
	TOK_INC,
	TOK_DEC,
	TOK_NOT,
	TOK_TILDE,
	TOK_OP,			/* a binary operator (or '-', '*'), in op */
};

/* How messages name a token: "expected an operand after '&&'". */
static const char *const tok_names[] = {
	[TOK_ERROR]	= "error",
	[TOK_EOF]	= "end of input",
	[TOK_IDENT]	= "identifier",
	[TOK_INT]	= "number",
	[TOK_STR]	= "string",
	[TOK_AT]	= "@",
	[TOK_VAR]	= "$",
	[TOK_LPAREN]	= "(",
	[TOK_RPAREN]	= ")",
	[TOK_LBRACE]	= "{",
	[TOK_RBRACE]	= "}",
	[TOK_LBRACK]	= "[",
	[TOK_RBRACK]	= "]",
	[TOK_COMMA]	= ",",
	[TOK_SEMI]	= ";",
	[TOK_QUESTION]	= "?",
	[TOK_COLON]	= ":",
	[TOK_DOT]	= ".",
	[TOK_ARROW]	= "->",
	[TOK_ASSIGN]	= "=",
	[TOK_OPASSIGN]	= "op=",
	[TOK_INC]	= "++",
	[TOK_DEC]	= "--",
	[TOK_NOT]	= "!",
	[TOK_TILDE]	= "~",
	[TOK_OP]	= "operator",
};

static const char *const op_names[EXPR_NOPS] = {
	[EXPR_LOR] = "||", [EXPR_LAND] = "&&", [EXPR_BOR] = "|",
	[EXPR_BXOR] = "^", [EXPR_BAND] = "&", [EXPR_EQ] = "==",
	[EXPR_NE] = "!=", [EXPR_LT] = "<", [EXPR_LE] = "<=",
	[EXPR_GT] = ">", [EXPR_GE] = ">=", [EXPR_SHL] = "<<",
	[EXPR_SHR] = ">>", [EXPR_ADD] = "+", [EXPR_SUB] = "-",
	[EXPR_MUL] = "*", [EXPR_DIV] = "/", [EXPR_MOD] = "%",
	[EXPR_NOT] = "!", [EXPR_BNOT] = "~", [EXPR_NEG] = "-",
	[EXPR_DEREF] = "*",
};

const char *expr_op_name(enum expr_op op)
{
	return (unsigned)op < EXPR_NOPS ? op_names[op] : "?";
}

struct token {
	enum tok_kind kind;
	int col;
	const char *start;	/* where the token starts in the text */
	const char *name;	/* identifier, or the name after '@' / '$' */
	size_t len;		/* of name */
	enum expr_op op;	/* TOK_OP, TOK_OPASSIGN */
	__u64 uval;		/* TOK_INT: 0 .. 2^63 */
	bool closes;		/* '/' that ends a predicate */
	char *str;		/* TOK_STR, unescaped; owned until taken */
};

struct parser {
	const char *text;
	size_t pos;		/* next byte for the lexer */
	struct token tok;	/* the lookahead */
	struct token prev;	/* the token before it, for messages */
	struct expr_error *err;
	int errnum;		/* 0 until the first error */
	int depth;
	int assign_depth;	/* depth of a statement's own expression, where
				 * '=' assigns; -1 elsewhere */
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

/* The token as a message names it: "'&&'", "end of input", "'pid'". */
static const char *tok_text(const struct token *t, char *buf, size_t len)
{
	switch (t->kind) {
	case TOK_OP:
	case TOK_OPASSIGN:
		snprintf(buf, len, "'%s%s'", op_names[t->op],
			 t->kind == TOK_OPASSIGN ? "=" : "");
		break;
	case TOK_IDENT:
	case TOK_INT:
		snprintf(buf, len, "'%.*s'", (int)(t->len < 40 ? t->len : 40),
			 t->start);
		break;
	case TOK_EOF:
	case TOK_STR:
	case TOK_ERROR:
		snprintf(buf, len, "%s", tok_names[t->kind]);
		break;
	default:
		snprintf(buf, len, "'%s'", tok_names[t->kind]);
		break;
	}
	return buf;
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

/* Unquoted probe-part characters, '/' and ',' aside (see parse_part()). */
static bool is_part_char(char c)
{
	return is_ident_char(c) || (c && strchr(".*?[]-+@$", c));
}

/* The characters that end a probe, besides end of input. */
static bool ends_probe(char c)
{
	return c == '\0' || is_space(c) || c == '/' || c == '{';
}

/* Only blanks between the last newline (or the start) and @pos. */
static bool at_line_start(const char *s, size_t pos)
{
	while (pos > 0 && (s[pos - 1] == ' ' || s[pos - 1] == '\t'))
		pos--;
	return pos == 0 || s[pos - 1] == '\n';
}

/*
 * Blanks and comments: C block comments anywhere, "//" to the end of the
 * line anywhere between tokens (bpftrace's tools end lines with them: no
 * two tokens of the language are "/" and "/"), and a line whose first
 * non-blank character is "#" (a script's #! line, #include, DTrace's
 * #pragma). Returns false, with the error set, on an unterminated comment.
 */
static bool skip_space(struct parser *p)
{
	const char *s = p->text;
	size_t open;

	for (;;) {
		while (is_space(s[p->pos]))
			p->pos++;
		if (s[p->pos] == '/' && s[p->pos + 1] == '*') {
			open = p->pos;
			p->pos += 2;
			while (s[p->pos] && !(s[p->pos] == '*' &&
					      s[p->pos + 1] == '/'))
				p->pos++;
			if (!s[p->pos]) {
				fail(p, col_at(open), "unterminated comment");
				return false;
			}
			p->pos += 2;
			continue;
		}
		if ((s[p->pos] == '/' && s[p->pos + 1] == '/') ||
		    (s[p->pos] == '#' && at_line_start(s, p->pos))) {
			while (s[p->pos] && s[p->pos] != '\n')
				p->pos++;
			continue;
		}
		return true;
	}
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
 * decimal | 0x hex. The value may reach 2^63, which only a '-' before it
 * makes a valid __s64 (the parser checks); hex is not a way to spell
 * unsigned values. Digits run on after an overflow, so the error names
 * the whole number.
 */
static void lex_number(struct parser *p, struct token *t)
{
	const char *s = p->text;
	size_t i = p->pos;
	bool overflow = false;
	__u64 v = 0, limit = (__u64)INT64_MAX + 1;
	int base = 10, d;

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
	for (;; i++) {
		/* bpftrace's 1_000_000: '_' between two digits */
		if (s[i] == '_' && i > p->pos && hex_value(s[i - 1]) >= 0 &&
		    hex_value(s[i + 1]) >= 0 && hex_value(s[i + 1]) < base)
			continue;
		d = hex_value(s[i]);
		if (d < 0 || d >= base)
			break;
		if (v > (limit - d) / base)
			overflow = true;
		else
			v = v * base + d;
	}
	/* bpftrace's 1e6: a decimal integer times a power of ten */
	if (base == 10 && (s[i] == 'e' || s[i] == 'E') && is_digit(s[i + 1])) {
		unsigned int e = 0;

		for (i++; is_digit(s[i]); i++)
			e = e > 100 ? e : e * 10 + (s[i] - '0');
		for (; e && v; e--) {
			if (v > limit / 10) {
				overflow = true;
				break;
			}
			v *= 10;
		}
	}
	if (overflow) {
		fail(p, t->col, "number out of range");
		return;
	}
	/* "10ms": no suffixes (yet), and "12abc" is no number either. */
	if (s[i] == '.' && is_digit(s[i + 1])) {
		fail(p, col_at(i), "numbers are integers: no '.'");
		return;
	}
	if (is_ident_char(s[i])) {
		fail_char(p, i, " in number");
		return;
	}
	t->kind = TOK_INT;
	t->uval = v;
	t->len = i - p->pos;
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

/*
 * A '/' in a predicate closes it when '{' or the end of the text comes
 * next: a clause with a predicate either has a block or ends the program.
 * Any other '/' divides.
 */
static bool slash_closes(struct parser *p, size_t after)
{
	struct parser q = *p;

	q.pos = after;
	q.errnum = 0;
	if (!skip_space(&q))
		return true;	/* let the comment error come from the lexer */
	return q.text[q.pos] == '{' || q.text[q.pos] == '\0';
}

static void lex_word(struct parser *p, struct token *t)
{
	t->len = ident_len(p, p->pos);
	if (!t->len)
		return;
	t->kind = TOK_IDENT;
	t->name = t->start;
	p->pos += t->len;
}

/* '@' [ident], '$' ident */
static void lex_sigil(struct parser *p, struct token *t, enum tok_kind kind)
{
	const char *s = p->text;
	size_t i;

	p->pos++;
	t->kind = kind;
	t->name = s + p->pos;
	if (kind == TOK_AT) {
		if (!is_ident_start(s[p->pos]))
			return;
		t->len = ident_len(p, p->pos);
		if (!t->len)
			t->kind = TOK_ERROR;
		p->pos += t->len;
		return;
	}
	/* $name, $1 (a positional parameter) */
	for (i = p->pos; is_ident_char(s[i]); i++)
		;
	if (i == p->pos) {
		fail(p, t->col, "expected a variable name after '$'");
		t->kind = TOK_ERROR;
		return;
	}
	t->len = i - p->pos;
	p->pos = i;
}

/* An operator: c, c=, cc, cc= where they exist. */
static void lex_operator(struct parser *p, struct token *t)
{
	static const struct {
		const char *text;
		enum tok_kind kind;
		enum expr_op op;
	} ops[] = {	/* longest first */
		{ "<<=", TOK_OPASSIGN, EXPR_SHL }, { ">>=", TOK_OPASSIGN, EXPR_SHR },
		{ "==", TOK_OP, EXPR_EQ }, { "!=", TOK_OP, EXPR_NE },
		{ "<=", TOK_OP, EXPR_LE }, { ">=", TOK_OP, EXPR_GE },
		{ "<<", TOK_OP, EXPR_SHL }, { ">>", TOK_OP, EXPR_SHR },
		{ "&&", TOK_OP, EXPR_LAND }, { "||", TOK_OP, EXPR_LOR },
		{ "->", TOK_ARROW, 0 }, { "++", TOK_INC, 0 },
		{ "--", TOK_DEC, 0 },
		{ "+=", TOK_OPASSIGN, EXPR_ADD }, { "-=", TOK_OPASSIGN, EXPR_SUB },
		{ "*=", TOK_OPASSIGN, EXPR_MUL }, { "/=", TOK_OPASSIGN, EXPR_DIV },
		{ "%=", TOK_OPASSIGN, EXPR_MOD }, { "&=", TOK_OPASSIGN, EXPR_BAND },
		{ "|=", TOK_OPASSIGN, EXPR_BOR }, { "^=", TOK_OPASSIGN, EXPR_BXOR },
		{ "<", TOK_OP, EXPR_LT }, { ">", TOK_OP, EXPR_GT },
		{ "+", TOK_OP, EXPR_ADD }, { "-", TOK_OP, EXPR_SUB },
		{ "*", TOK_OP, EXPR_MUL }, { "/", TOK_OP, EXPR_DIV },
		{ "%", TOK_OP, EXPR_MOD }, { "&", TOK_OP, EXPR_BAND },
		{ "|", TOK_OP, EXPR_BOR }, { "^", TOK_OP, EXPR_BXOR },
		{ "=", TOK_ASSIGN, 0 }, { "!", TOK_NOT, 0 },
		{ "~", TOK_TILDE, 0 },
	};
	const char *s = p->text + p->pos;
	size_t i, n;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		n = strlen(ops[i].text);
		if (strncmp(s, ops[i].text, n))
			continue;
		t->kind = ops[i].kind;
		t->op = ops[i].op;
		p->pos += n;
		if (t->kind == TOK_OP && t->op == EXPR_DIV)
			t->closes = slash_closes(p, p->pos);
		return;
	}
	fail_char(p, p->pos, "");
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
	case '?':	return TOK_QUESTION;
	case ':':	return TOK_COLON;
	case '.':	return TOK_DOT;
	default:	return TOK_ERROR;
	}
}

/* Replace the lookahead with the next token. */
static void lex(struct parser *p)
{
	struct token *t = &p->tok;
	const char *s = p->text;
	char c;

	free(p->prev.str);
	p->prev = *t;
	p->prev.str = NULL;
	free(t->str);
	memset(t, 0, sizeof(*t));
	t->kind = TOK_ERROR;
	if (p->errnum || !skip_space(p))
		return;
	c = s[p->pos];
	t->col = col_at(p->pos);
	t->start = s + p->pos;

	if (c == '\0') {
		t->kind = TOK_EOF;
	} else if (c == '"') {
		t->str = lex_string(p);
		if (t->str)
			t->kind = TOK_STR;
	} else if (c == '@') {
		lex_sigil(p, t, TOK_AT);
	} else if (c == '$') {
		lex_sigil(p, t, TOK_VAR);
	} else if (single_char_token(c) != TOK_ERROR) {
		t->kind = single_char_token(c);
		p->pos++;
	} else if (is_digit(c)) {
		lex_number(p, t);
	} else if (is_ident_start(c)) {
		lex_word(p, t);
	} else {
		lex_operator(p, t);
	}
}

static bool is_word(const struct token *t, const char *word)
{
	return t->kind == TOK_IDENT && t->len == strlen(word) &&
	       !strncmp(t->name, word, t->len);
}

/* ---- nodes ----------------------------------------------------------- */

/* Count one more node; @col is where to point if that is one too many. */
static bool count_node(struct parser *p, int col)
{
	if (++p->nnodes > EXPR_MAX_NODES) {
		fail(p, col, "program too long (at most %d nodes)",
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
	int i;

	if (!n)
		return;
	node_free(n->left);
	node_free(n->right);
	node_free(n->other);
	for (i = 0; i < n->nargs; i++)
		node_free(n->args[i]);
	free(n->args);
	free(n->name);
	free(n->sval);
	free(n);
}

/* A binary node over two finished subtrees; frees them if it cannot. */
static struct expr_node *new_binary(struct parser *p, enum expr_op op,
				    struct expr_node *left,
				    struct expr_node *right)
{
	struct expr_node *n = NULL;

	/*
	 * The node starts where its left operand does, but a long chain
	 * is best blamed where it grew too long: at the right operand.
	 */
	if (count_node(p, right->col))
		n = alloc_node(p, EXPR_BINARY, left->col);
	if (!n) {
		node_free(left);
		node_free(right);
		return NULL;
	}
	n->op = op;
	n->left = left;
	n->right = right;
	return n;
}

/* Enter one level of nesting, refusing to go deeper than the limit. */
static bool nest(struct parser *p)
{
	if (++p->depth > EXPR_MAX_DEPTH) {
		fail(p, p->tok.col, "nesting too deep (at most %d)",
		     EXPR_MAX_DEPTH);
		return false;
	}
	return true;
}

/* ---- probes ------------------------------------------------------------ */

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

/*
 * A ',' inside a part continues it ("syscall:read,write") unless a blank
 * follows, or a word and a ':' ("uprobe:a:f,uprobe:b:g"): then it
 * separates two probes of one clause.
 */
static bool comma_ends_probe(const char *s, size_t i)
{
	size_t j = i + 1;

	if (is_space(s[j]) || s[j] == '\0')
		return true;
	while (is_ident_char(s[j]))
		j++;
	return j > i + 1 && s[j] == ':';
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
		if (s[i] == ',' && !comma_ends_probe(s, i))
			continue;
		if (!is_part_char(s[i]))
			break;
	}
	p->pos = i;
	return dup_n(p, s + start, i - start, col);
}

/* probe := word ( ':' part )*, at p->pos (the lexer is not involved) */
static int parse_probe(struct parser *p, struct expr_probe *pr)
{
	const char *s = p->text;
	size_t start;
	int col;

	if (!skip_space(p))
		return -1;
	start = p->pos;
	col = col_at(start);
	if (s[start] == ':') {
		fail(p, col, "empty probe kind");
		return -1;
	}
	if (ends_probe(s[start]) || s[start] == ',') {
		fail(p, col, "empty probe");
		return -1;
	}
	/* DTrace's pid provider: pid$target, pid1234 */
	while (is_ident_char(s[p->pos]) || s[p->pos] == '$')
		p->pos++;
	if (p->pos == start) {
		fail_char(p, start, " in probe");
		return -1;
	}
	/* DTrace's unqualified tick-1sec, profile-997 */
	if (s[p->pos] == '-' && is_ident_char(s[p->pos + 1]) &&
	    ((p->pos - start == 4 && !strncmp(s + start, "tick", 4)) ||
	     (p->pos - start == 7 && !strncmp(s + start, "profile", 7))))
		for (p->pos++; is_ident_char(s[p->pos]); p->pos++)
			;
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
	if (!ends_probe(s[p->pos]) && s[p->pos] != ',') {
		fail_char(p, p->pos, " in probe");
		return -1;
	}
	return 0;
}

/* probes := probe { ',' probe }, blanks allowed around the ',' */
static int parse_probes(struct parser *p, struct expr_clause *c)
{
	struct expr_probe *pr;
	size_t at;

	for (;;) {
		pr = realloc(c->probes, (c->nprobes + 1) * sizeof(*pr));
		if (!pr) {
			fail_nomem(p, col_at(p->pos));
			return -1;
		}
		c->probes = pr;
		pr = &c->probes[c->nprobes++];
		memset(pr, 0, sizeof(*pr));
		if (!count_node(p, col_at(p->pos)) || parse_probe(p, pr))
			return -1;
		at = p->pos;
		if (!skip_space(p))
			return -1;
		if (p->text[p->pos] != ',') {
			p->pos = at;
			return 0;
		}
		p->pos++;
	}
}

/* ---- expressions ------------------------------------------------------- */

static struct expr_node *parse_expr(struct parser *p);

static bool expect(struct parser *p, enum tok_kind kind, const char *what)
{
	char buf[64];

	if (p->tok.kind == kind)
		return true;
	fail(p, p->tok.col, "expected %s, not %s", what,
	     tok_text(&p->tok, buf, sizeof(buf)));
	return false;
}

/* args := expr { ',' expr }, up to @close (consumed) */
static int parse_args(struct parser *p, struct expr_node *n,
		      enum tok_kind close, const char *what)
{
	struct expr_node *a, **v;
	char want[32];

	snprintf(want, sizeof(want), "',' or '%s'", tok_names[close]);
	lex(p);
	if (p->tok.kind == close) {
		lex(p);
		return 0;
	}
	for (;;) {
		if (n->nargs == EXPR_MAX_ARGS) {
			fail(p, p->tok.col, "too many %s (at most %d)", what,
			     EXPR_MAX_ARGS);
			return -1;
		}
		a = parse_expr(p);
		if (!a)
			return -1;
		v = realloc(n->args, (n->nargs + 1) * sizeof(*v));
		if (!v) {
			node_free(a);
			fail_nomem(p, p->tok.col);
			return -1;
		}
		n->args = v;
		n->args[n->nargs++] = a;
		if (p->tok.kind == close) {
			lex(p);
			return 0;
		}
		if (!expect(p, TOK_COMMA, want))
			return -1;
		lex(p);
	}
}

/* A node named by the lookahead's name (ident, @name, $name). */
static struct expr_node *named_node(struct parser *p, enum expr_node_kind kind)
{
	struct token *t = &p->tok;
	struct expr_node *n = new_node(p, kind, t->col);

	if (!n)
		return NULL;
	n->name = dup_n(p, t->name ? t->name : "", t->len, t->col);
	if (!n->name) {
		free(n);
		return NULL;
	}
	return n;
}

/* self->x, this->x: the lookahead is 'self' or 'this' */
static struct expr_node *parse_thread_var(struct parser *p,
					  enum expr_node_kind kind)
{
	int col = p->tok.col;
	struct expr_node *n;

	lex(p);
	if (!expect(p, TOK_ARROW, "'->'"))
		return NULL;
	lex(p);
	if (p->tok.kind != TOK_IDENT || memchr(p->tok.name, '.', p->tok.len)) {
		fail(p, p->tok.col, "expected a variable name after '->'");
		return NULL;
	}
	n = named_node(p, kind);
	if (n) {
		n->col = col;
		lex(p);
	}
	return n;
}

/* '@' [name] [ '[' keys ']' ] */
static struct expr_node *parse_map(struct parser *p)
{
	struct expr_node *n = named_node(p, EXPR_MAP);

	if (!n)
		return NULL;
	lex(p);
	if (p->tok.kind != TOK_LBRACK)
		return n;
	n->has_keys = true;
	if (!nest(p) || parse_args(p, n, TOK_RBRACK, "keys")) {
		node_free(n);
		return NULL;
	}
	p->depth--;
	if (!n->nargs) {
		fail(p, n->col, "empty key: write @%s without []", n->name);
		node_free(n);
		return NULL;
	}
	return n;
}

/* A C type in a cast: struct NAME *, unsigned int, u64 ... */
static bool is_type_word(const struct token *t)
{
	static const char *const words[] = {
		"struct", "union", "unsigned", "signed", "char", "short",
		"int", "long", "void", "const", "u8", "u16", "u32", "u64",
		"s8", "s16", "s32", "s64", "uint8_t", "uint16_t", "uint32_t",
		"uint64_t", "int8_t", "int16_t", "int32_t", "int64_t",
		"__u8", "__u16", "__u32", "__u64", "__s8", "__s16",
		"__s32", "__s64", "bool", "size_t",
		/* bpftrace's */
		"uint8", "uint16", "uint32", "uint64", "int8", "int16",
		"int32", "int64",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (is_word(t, words[i]))
			return true;
	return false;
}

/*
 * '(' type ')' unary, the '(' consumed and a type word the lookahead.
 * The type is kept as written, normalized: words one blank apart, '*'s
 * after a blank: "struct path *", "unsigned long".
 */
static struct expr_node *parse_unary(struct parser *p);

static struct expr_node *parse_cast(struct parser *p, int col)
{
	char type[128] = "";
	size_t n = 0;
	struct expr_node *c, *operand;

	while (p->tok.kind == TOK_IDENT ||
	       (p->tok.kind == TOK_OP && p->tok.op == EXPR_MUL)) {
		bool star = p->tok.kind == TOK_OP;
		const char *sep = !n ? "" : star && type[n - 1] == '*' ? "" : " ";

		if (n + p->tok.len + 3 >= sizeof(type)) {
			fail(p, p->tok.col, "type name too long");
			return NULL;
		}
		n += snprintf(type + n, sizeof(type) - n, "%s%.*s", sep,
			      star ? 1 : (int)p->tok.len,
			      star ? "*" : p->tok.name);
		lex(p);
	}
	if (!expect(p, TOK_RPAREN, "')' after the type"))
		return NULL;
	lex(p);
	operand = parse_unary(p);
	if (!operand)
		return NULL;
	c = new_node(p, EXPR_CAST, col);
	if (c)
		c->name = dup_n(p, type, n, col);
	if (!c || !c->name) {
		free(c);
		node_free(operand);
		return NULL;
	}
	c->left = operand;
	return c;
}

/* '(' expr ')' or a cast, the '(' being the lookahead */
static struct expr_node *parse_paren(struct parser *p)
{
	struct expr_node *n;
	int col = p->tok.col;

	if (!nest(p))
		return NULL;
	lex(p);
	if (is_type_word(&p->tok)) {
		n = parse_cast(p, col);
		p->depth--;
		return n;
	}
	n = parse_expr(p);
	p->depth--;
	if (!n)
		return NULL;
	if (!expect(p, TOK_RPAREN, "')'")) {
		node_free(n);
		return NULL;
	}
	lex(p);
	return n;
}

/* An integer literal; -2^63 only through negate(). */
static struct expr_node *parse_int(struct parser *p, bool negate, int col)
{
	struct expr_node *n;

	if (!negate && p->tok.uval > INT64_MAX) {
		fail(p, p->tok.col, "number out of range");
		return NULL;
	}
	n = new_node(p, EXPR_INT, col);
	if (!n)
		return NULL;
	n->ival = negate ? (__s64)(0 - p->tok.uval) : (__s64)p->tok.uval;
	lex(p);
	return n;
}

/*
 * primary := number | string | ident | call | map | $var | self->x |
 *            this->x | '(' expr ')'
 */
static struct expr_node *parse_primary(struct parser *p)
{
	struct token *t = &p->tok;
	struct expr_node *n;
	char buf[64];

	switch (t->kind) {
	case TOK_INT:
		return parse_int(p, false, t->col);
	case TOK_STR:
		n = new_node(p, EXPR_STR, t->col);
		if (n) {
			n->sval = t->str;
			t->str = NULL;
			lex(p);
		}
		return n;
	case TOK_AT:
		return parse_map(p);
	case TOK_VAR:
		n = named_node(p, EXPR_VAR);
		if (n)
			lex(p);
		return n;
	case TOK_LPAREN:
		return parse_paren(p);
	case TOK_IDENT:
		if (is_word(t, "self"))
			return parse_thread_var(p, EXPR_TLS);
		if (is_word(t, "this"))
			return parse_thread_var(p, EXPR_CLAUSE_VAR);
		n = named_node(p, EXPR_IDENT);
		if (!n)
			return NULL;
		lex(p);
		if (t->kind != TOK_LPAREN)
			return n;
		n->kind = EXPR_CALL;
		if (!nest(p) || parse_args(p, n, TOK_RPAREN, "arguments")) {
			node_free(n);
			return NULL;
		}
		p->depth--;
		return n;
	default:
		if (p->prev.kind == TOK_ERROR)
			fail(p, t->col, "expected an expression");
		else
			fail(p, t->col, "expected an operand after %s",
			     tok_text(&p->prev, buf, sizeof(buf)));
		return NULL;
	}
}

/* postfix := primary { '->' ident | '.' ident | '[' expr ']' } */
static struct expr_node *parse_postfix(struct parser *p)
{
	struct expr_node *n = parse_primary(p), *m;
	int depth = 0;

	while (n && (p->tok.kind == TOK_ARROW || p->tok.kind == TOK_DOT ||
		     p->tok.kind == TOK_LBRACK)) {
		bool arrow = p->tok.kind == TOK_ARROW;

		if (!nest(p))
			break;
		depth++;
		if (p->tok.kind == TOK_LBRACK) {
			m = new_node(p, EXPR_INDEX, n->col);
			if (!m)
				break;
			m->left = n;
			n = m;
			lex(p);
			m->right = parse_expr(p);
			if (!m->right || !expect(p, TOK_RBRACK, "']'"))
				break;
			lex(p);
			continue;
		}
		lex(p);
		if (p->tok.kind != TOK_IDENT) {
			fail(p, p->tok.col, "expected a field name after '%s'",
			     arrow ? "->" : ".");
			break;
		}
		m = named_node(p, EXPR_MEMBER);
		if (!m)
			break;
		m->col = n->col;
		m->arrow = arrow;
		m->left = n;
		n = m;
		lex(p);
	}
	p->depth -= depth;
	if (p->errnum) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* unary := ( '!' | '~' | '-' | '*' ) unary | postfix */
static struct expr_node *parse_unary(struct parser *p)
{
	struct token *t = &p->tok;
	struct expr_node *n, *child;
	enum expr_op op;
	int col = t->col;

	if (t->kind == TOK_NOT)
		op = EXPR_NOT;
	else if (t->kind == TOK_TILDE)
		op = EXPR_BNOT;
	else if (t->kind == TOK_OP && t->op == EXPR_SUB)
		op = EXPR_NEG;
	else if (t->kind == TOK_OP && t->op == EXPR_MUL)
		op = EXPR_DEREF;
	else
		return parse_postfix(p);
	if (!nest(p))
		return NULL;
	lex(p);
	/* "-5" is a number: the only way to write -2^63 */
	if (op == EXPR_NEG && t->kind == TOK_INT) {
		p->depth--;
		return parse_int(p, true, col);
	}
	child = parse_unary(p);
	p->depth--;
	if (!child)
		return NULL;
	n = new_node(p, EXPR_UNARY, col);
	if (!n) {
		node_free(child);
		return NULL;
	}
	n->op = op;
	n->left = child;
	return n;
}

/* Binary levels, loosest first; each left-associative. */
enum level {
	LVL_LOR, LVL_LAND, LVL_BOR, LVL_BXOR, LVL_BAND, LVL_CMP, LVL_SHIFT,
	LVL_ADD, LVL_MUL, LVL_UNARY,
};

static enum level op_level(enum expr_op op)
{
	switch (op) {
	case EXPR_LOR:	return LVL_LOR;
	case EXPR_LAND:	return LVL_LAND;
	case EXPR_BOR:	return LVL_BOR;
	case EXPR_BXOR:	return LVL_BXOR;
	case EXPR_BAND:	return LVL_BAND;
	case EXPR_EQ: case EXPR_NE: case EXPR_LT: case EXPR_LE:
	case EXPR_GT: case EXPR_GE:
		return LVL_CMP;
	case EXPR_SHL: case EXPR_SHR:
		return LVL_SHIFT;
	case EXPR_ADD: case EXPR_SUB:
		return LVL_ADD;
	case EXPR_MUL: case EXPR_DIV: case EXPR_MOD:
		return LVL_MUL;
	default:
		return LVL_UNARY;
	}
}

/* The lookahead as a binary operator of @lvl, or false. */
static bool binary_at(struct parser *p, enum level lvl, enum expr_op *op)
{
	const struct token *t = &p->tok;

	if (t->kind != TOK_OP || op_level(t->op) != lvl)
		return false;
	/* a predicate's closing '/' is no division */
	if (t->op == EXPR_DIV && t->closes)
		return false;
	*op = t->op;
	return true;
}

static struct expr_node *parse_level(struct parser *p, enum level lvl)
{
	struct expr_node *left, *right;
	enum expr_op op, next;

	if (lvl == LVL_UNARY)
		return parse_unary(p);
	left = parse_level(p, lvl + 1);
	while (left && binary_at(p, lvl, &op)) {
		lex(p);
		right = parse_level(p, lvl + 1);
		if (!right) {
			node_free(left);
			return NULL;
		}
		if (lvl == LVL_CMP && binary_at(p, LVL_CMP, &next)) {
			fail(p, p->tok.col, "comparisons do not chain");
			node_free(left);
			node_free(right);
			return NULL;
		}
		left = new_binary(p, op, left, right);
	}
	if (left && lvl == LVL_CMP && p->tok.kind == TOK_ASSIGN &&
	    p->depth != p->assign_depth) {
		fail(p, p->tok.col, "use '==' to compare");
		node_free(left);
		return NULL;
	}
	return left;
}

/* expr := lor [ '?' expr ':' expr ]; the branches nest */
static struct expr_node *parse_expr(struct parser *p)
{
	struct expr_node *cond, *n;

	cond = parse_level(p, LVL_LOR);
	if (!cond || p->tok.kind != TOK_QUESTION)
		return cond;
	if (!nest(p)) {
		node_free(cond);
		return NULL;
	}
	n = new_node(p, EXPR_COND, cond->col);
	if (!n) {
		node_free(cond);
		p->depth--;
		return NULL;
	}
	n->left = cond;
	lex(p);
	n->right = parse_expr(p);
	if (n->right && expect(p, TOK_COLON, "':' of '?:'")) {
		lex(p);
		n->other = parse_expr(p);
	}
	p->depth--;
	if (!n->other) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* ---- statements -------------------------------------------------------- */

static void block_free(struct expr_block *b);

static void stmt_free(struct expr_stmt *s)
{
	if (!s)
		return;
	node_free(s->target);
	node_free(s->value);
	block_free(&s->then);
	block_free(&s->other);
	free(s);
}

static void block_free(struct expr_block *b)
{
	int i;

	for (i = 0; i < b->n; i++)
		stmt_free(b->stmts[i]);
	free(b->stmts);
	b->stmts = NULL;
	b->n = 0;
}

static bool is_lvalue(const struct expr_node *n)
{
	return n->kind == EXPR_MAP || n->kind == EXPR_VAR ||
	       n->kind == EXPR_TLS || n->kind == EXPR_CLAUSE_VAR;
}

static int parse_block(struct parser *p, struct expr_block *b);

/* 'if' '(' expr ')' block [ 'else' ( block | if ) ], 'if' the lookahead */
static int parse_if(struct parser *p, struct expr_stmt *s)
{
	struct expr_stmt *elif;

	s->kind = EXPR_STMT_IF;
	lex(p);
	if (!expect(p, TOK_LPAREN, "'(' after 'if'"))
		return -1;
	lex(p);
	s->value = parse_expr(p);
	if (!s->value || !expect(p, TOK_RPAREN, "')'"))
		return -1;
	lex(p);
	if (parse_block(p, &s->then))
		return -1;
	if (!is_word(&p->tok, "else"))
		return 0;
	s->has_else = true;
	lex(p);
	if (!is_word(&p->tok, "if"))
		return parse_block(p, &s->other);
	/* else if: a block of one if-statement */
	elif = calloc(1, sizeof(*elif));
	s->other.stmts = calloc(1, sizeof(*s->other.stmts));
	if (!elif || !s->other.stmts) {
		free(elif);
		fail_nomem(p, p->tok.col);
		return -1;
	}
	s->other.stmts[0] = elif;
	s->other.n = 1;
	elif->col = p->tok.col;
	if (!nest(p))
		return -1;
	if (parse_if(p, elif))
		return -1;
	p->depth--;
	return 0;
}

/* simple := lvalue op= expr | lvalue ++ | ++ lvalue | expr */
static int parse_simple(struct parser *p, struct expr_stmt *s)
{
	struct token *t = &p->tok;
	char buf[64];

	if (t->kind == TOK_INC || t->kind == TOK_DEC) {
		s->kind = EXPR_STMT_INCR;
		s->op = t->kind == TOK_INC ? EXPR_ADD : EXPR_SUB;
		s->prefix = true;
		lex(p);
		s->target = parse_postfix(p);
		if (s->target && !is_lvalue(s->target)) {
			fail(p, s->target->col, "'%s' needs a variable: @map, "
			     "$var or self->var", s->op == EXPR_ADD ? "++" :
			     "--");
			return -1;
		}
		return s->target ? 0 : -1;
	}
	/* '=' assigns only after this expression, not inside it */
	p->assign_depth = p->depth;
	s->value = parse_expr(p);
	p->assign_depth = -1;
	if (!s->value)
		return -1;
	if (t->kind == TOK_INC || t->kind == TOK_DEC) {
		s->kind = EXPR_STMT_INCR;
		s->op = t->kind == TOK_INC ? EXPR_ADD : EXPR_SUB;
	} else if (t->kind == TOK_ASSIGN || t->kind == TOK_OPASSIGN) {
		s->kind = EXPR_STMT_ASSIGN;
		s->op = t->kind == TOK_ASSIGN ? EXPR_NOPS : t->op;
	} else {
		s->kind = EXPR_STMT_EXPR;
		return 0;
	}
	s->target = s->value;
	s->value = NULL;
	if (!is_lvalue(s->target)) {
		fail(p, t->col, "%s assigns to a variable: @map, $var or "
		     "self->var", tok_text(t, buf, sizeof(buf)));
		return -1;
	}
	lex(p);
	if (s->kind == EXPR_STMT_INCR)
		return 0;
	s->value = parse_expr(p);
	return s->value ? 0 : -1;
}

static int parse_stmt(struct parser *p, struct expr_stmt *s)
{
	char buf[64];

	s->col = p->tok.col;
	if (is_word(&p->tok, "if")) {
		if (parse_if(p, s))
			return -1;
		if (p->tok.kind == TOK_SEMI)
			lex(p);
		return 0;
	}
	if (parse_simple(p, s))
		return -1;
	if (p->tok.kind == TOK_SEMI) {
		lex(p);
		return 0;
	}
	if (p->tok.kind == TOK_RBRACE)
		return 0;
	fail(p, p->tok.col, "expected ';' or '}' after the statement, not %s",
	     tok_text(&p->tok, buf, sizeof(buf)));
	return -1;
}

/* block := '{' { stmt } '}', the '{' being the lookahead */
static int parse_block(struct parser *p, struct expr_block *b)
{
	struct expr_stmt *s, **v;

	if (!expect(p, TOK_LBRACE, "'{'") || !nest(p))
		return -1;
	lex(p);
	while (p->tok.kind != TOK_RBRACE) {
		if (p->tok.kind == TOK_SEMI) {	/* an empty statement */
			lex(p);
			continue;
		}
		if (p->tok.kind == TOK_EOF) {
			fail(p, p->tok.col, "expected '}'");
			return -1;
		}
		s = calloc(1, sizeof(*s));
		v = s ? realloc(b->stmts, (b->n + 1) * sizeof(*v)) : NULL;
		if (!v) {
			free(s);
			fail_nomem(p, p->tok.col);
			return -1;
		}
		b->stmts = v;
		b->stmts[b->n++] = s;
		if (!count_node(p, p->tok.col) || parse_stmt(p, s))
			return -1;
	}
	p->depth--;
	lex(p);
	return 0;
}

/*
 * clause := probes [ '/' expr '/' ] [ block ]. A clause with no block
 * ends the program: what follows a predicate or a bare probe can only be
 * its block.
 */
static int parse_clause(struct parser *p, struct expr_clause *c, bool *last)
{
	struct token *t = &p->tok;

	if (parse_probes(p, c))
		return -1;
	lex(p);
	if (t->kind == TOK_OP && t->op == EXPR_DIV) {
		lex(p);
		if (t->kind == TOK_OP && t->op == EXPR_DIV) {
			fail(p, t->col, "empty predicate");
			return -1;
		}
		c->pred = parse_expr(p);
		if (!c->pred)
			return -1;
		if (t->kind != TOK_OP || t->op != EXPR_DIV || !t->closes) {
			fail(p, t->col, "expected '/' to close the predicate");
			return -1;
		}
		lex(p);
	}
	if (t->kind == TOK_EOF) {
		*last = true;
		return 0;
	}
	if (t->kind != TOK_LBRACE) {
		fail(p, t->col, c->pred ? "expected '{' after the predicate" :
		     "expected '/' or '{' after the probe");
		return -1;
	}
	c->has_body = true;
	if (parse_block(p, &c->body) || p->errnum)
		return -1;
	*last = t->kind == TOK_EOF;
	/* the next clause's probe is lexed from where this token starts */
	p->pos = t->start - p->text;
	return 0;
}

static void parse_program(struct parser *p, struct expr *e)
{
	struct expr_clause *c;
	bool last = false;

	while (!last) {
		c = realloc(e->clauses, (e->nclauses + 1) * sizeof(*c));
		if (!c) {
			fail_nomem(p, col_at(p->pos));
			return;
		}
		e->clauses = c;
		c = &e->clauses[e->nclauses++];
		memset(c, 0, sizeof(*c));
		if (parse_clause(p, c, &last))
			return;
	}
}

struct expr *expr_parse(const char *text, struct expr_error *err)
{
	struct expr_error dummy;
	struct parser p = { .text = text, .err = err ? err : &dummy,
			    .assign_depth = -1 };
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

	parse_program(&p, e);
	free(p.tok.str);
	free(p.prev.str);
	if (p.errnum) {
		expr_free(e);
		errno = p.errnum;
		return NULL;
	}
	return e;
}

void expr_free(struct expr *e)
{
	int i, j, k;

	if (!e)
		return;
	free(e->text);
	for (i = 0; i < e->nclauses; i++) {
		struct expr_clause *c = &e->clauses[i];

		for (j = 0; j < c->nprobes; j++) {
			free(c->probes[j].kind);
			for (k = 0; k < c->probes[j].nparts; k++)
				free(c->probes[j].parts[k]);
		}
		free(c->probes);
		node_free(c->pred);
		block_free(&c->body);
	}
	free(e->clauses);
	free(e);
}

/* One line of source as it stands, then the caret under byte @upto of it. */
static void print_caret(FILE *f, const char *line, size_t len, size_t upto)
{
	size_t i;

	fputs("    ", f);
	for (i = 0; i < len; i++) {
		unsigned char c = line[i];

		fputc(c == '\t' || (c >= 0x20 && c != 0x7f) ? c : ' ', f);
	}
	fputs("\n    ", f);
	for (i = 0; i < upto && i < len; i++) {
		unsigned char c = line[i];

		if ((c & 0xc0) == 0x80)
			continue;
		fputc(c == '\t' ? '\t' : ' ', f);
	}
	fputs("^\n", f);
}

/*
 * A one-line program goes out whole, its control characters as spaces,
 * tabs kept (and copied into the caret line so the caret lands under the
 * same spot); the column counts bytes, the caret line skips UTF-8
 * continuation bytes, so on a UTF-8 terminal the caret still lines up
 * after non-ASCII text. A program of several lines is told by line and
 * column ("MSG at line L, column C"; a -f file's as compilers name a
 * spot, FILE:LINE:COL: MSG), the column in bytes of that line, and only
 * that line is shown.
 */
void expr_print_error(FILE *f, const char *text, const char *file,
		      const struct expr_error *err)
{
	size_t len, off, bol, eol, line = 1, i;
	const char *nl;

	if (!text)
		text = "";
	len = strlen(text);
	/* A column past the end (a caller's bug) still ends the line. */
	off = err->col > 1 ? (size_t)err->col - 1 : 0;
	if (off > len)
		off = len;
	nl = memchr(text, '\n', len);
	if (!file && (!nl || nl == text + len - 1)) {
		fprintf(f, "scry: %s at column %d\n", err->msg, err->col);
		print_caret(f, text, nl ? len - 1 : len, off);
		return;
	}
	/* the end of a file that ends its last line: that line's end */
	if (off == len && off && text[off - 1] == '\n')
		off--;
	for (i = bol = 0; i < off; i++)
		if (text[i] == '\n') {
			line++;
			bol = i + 1;
		}
	nl = memchr(text + bol, '\n', len - bol);
	eol = nl ? (size_t)(nl - text) : len;
	if (file)
		fprintf(f, "scry: %s:%zu:%zu: %s\n", file, line, off - bol + 1,
			err->msg);
	else
		fprintf(f, "scry: %s at line %zu, column %zu\n", err->msg,
			line, off - bol + 1);
	print_caret(f, text + bol, eol - bol, off - bol);
}

/* ---- canonical form ---------------------------------------------------- */

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
 * Quote a part unless it reads back the same bare: only part characters;
 * any '/' in it safe by the rule of slash_in_part(), which only a leading
 * '/' or '.' guarantees wherever the part stands; a ',' only in the last
 * part, and not at its end, where what follows it is always more part.
 * An empty part is written bare ("syscall::read:entry") unless it is the
 * last, where it would read as nothing at all.
 */
static bool part_needs_quotes(const char *s, bool last)
{
	const char *c;

	if (!*s)
		return last;
	for (c = s; *c; c++) {
		if (*c == '/' && s[0] != '/' && s[0] != '.')
			return true;
		if (*c == ',' && (!last || !c[1] || !is_part_char(c[1])))
			return true;
		if (*c != '/' && *c != ',' && !is_part_char(*c))
			return true;
	}
	return false;
}

/* Binding strength: a child weaker than its slot needs parentheses. */
enum {
	PREC_COND = 1,
	PREC_BIN,		/* + enum level */
	PREC_UNARY = PREC_BIN + LVL_UNARY,
	PREC_POSTFIX,
	PREC_ATOM,
};

static int node_prec(const struct expr_node *n)
{
	switch (n->kind) {
	case EXPR_COND:		return PREC_COND;
	case EXPR_BINARY:	return PREC_BIN + op_level(n->op);
	case EXPR_UNARY:
	case EXPR_CAST:		return PREC_UNARY;
	case EXPR_MEMBER:
	case EXPR_INDEX:	return PREC_POSTFIX;
	case EXPR_INT:		return n->ival < 0 ? PREC_UNARY : PREC_ATOM;
	default:		return PREC_ATOM;
	}
}

static void put_node(struct out *o, const struct expr_node *n, int min_prec);

static void put_list(struct out *o, struct expr_node *const *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (i)
			put(o, ", ");
		put_node(o, v[i], PREC_COND);
	}
}

/* The node that prints first: "*p" in "*p + 1" */
static const struct expr_node *leftmost(const struct expr_node *n)
{
	while (n->kind == EXPR_BINARY || n->kind == EXPR_COND ||
	       n->kind == EXPR_MEMBER || n->kind == EXPR_INDEX)
		n = n->left;
	return n;
}

/* Would @n print starting with '-'? ("- -x" must not become "--x") */
static bool starts_with_minus(const struct expr_node *n)
{
	while (n->kind == EXPR_BINARY)
		n = n->left;
	return (n->kind == EXPR_UNARY && n->op == EXPR_NEG) ||
	       (n->kind == EXPR_INT && n->ival < 0);
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
	case EXPR_BINARY:
		/*
		 * Left-associative: the right child of the same level keeps
		 * its parentheses, so the tree reads back unchanged;
		 * comparisons do not chain at all.
		 */
		put_node(o, n->left, op_level(n->op) == LVL_CMP ? prec + 1 :
			 prec);
		put(o, " %s ", op_names[n->op]);
		put_node(o, n->right, prec + 1);
		break;
	case EXPR_UNARY:
		put(o, "%s", op_names[n->op]);
		/* "- -0" is NEG(0): "-0" would read back as the number 0 */
		if (n->op == EXPR_NEG && n->left->kind == EXPR_INT) {
			put(o, "(%lld)", (long long)n->left->ival);
			break;
		}
		put_node(o, n->left, n->op == EXPR_NEG &&
			 starts_with_minus(n->left) ? PREC_ATOM : PREC_UNARY);
		break;
	case EXPR_CAST:
		put(o, "(%s)", n->name);
		put_node(o, n->left, PREC_UNARY);
		break;
	case EXPR_COND:
		put_node(o, n->left, PREC_COND + 1);
		put(o, " ? ");
		put_node(o, n->right, PREC_COND);
		put(o, " : ");
		put_node(o, n->other, PREC_COND);
		break;
	case EXPR_CALL:
		put(o, "%s(", n->name);
		put_list(o, n->args, n->nargs);
		put(o, ")");
		break;
	case EXPR_MAP:
		put(o, "@%s", n->name);
		if (n->has_keys) {
			put(o, "[");
			put_list(o, n->args, n->nargs);
			put(o, "]");
		}
		break;
	case EXPR_VAR:
		put(o, "$%s", n->name);
		break;
	case EXPR_TLS:
		put(o, "self->%s", n->name);
		break;
	case EXPR_CLAUSE_VAR:
		put(o, "this->%s", n->name);
		break;
	case EXPR_MEMBER:
		/* "(a).b" stays: "a.b" would read back as one name */
		put_node(o, n->left, !n->arrow && n->left->kind == EXPR_IDENT ?
			 PREC_ATOM + 1 : PREC_POSTFIX);
		put(o, "%s%s", n->arrow ? "->" : ".", n->name);
		break;
	case EXPR_INDEX:
		put_node(o, n->left, PREC_POSTFIX);
		put(o, "[");
		put_node(o, n->right, PREC_COND);
		put(o, "]");
		break;
	}
	if (prec < min_prec)
		put(o, ")");
}

static void put_block(struct out *o, const struct expr_block *b);

static void put_stmt(struct out *o, const struct expr_stmt *s)
{
	switch (s->kind) {
	case EXPR_STMT_EXPR:
		put_node(o, s->value, PREC_COND);
		break;
	case EXPR_STMT_ASSIGN:
		put_node(o, s->target, PREC_ATOM);
		put(o, " %s= ", s->op == EXPR_NOPS ? "" : op_names[s->op]);
		put_node(o, s->value, PREC_COND);
		break;
	case EXPR_STMT_INCR:
		if (s->prefix)
			put(o, "%s", s->op == EXPR_ADD ? "++" : "--");
		put_node(o, s->target, PREC_ATOM);
		if (!s->prefix)
			put(o, "%s", s->op == EXPR_ADD ? "++" : "--");
		break;
	case EXPR_STMT_IF:
		put(o, "if (");
		put_node(o, s->value, PREC_COND);
		put(o, ")");
		put_block(o, &s->then);
		if (!s->has_else)
			break;
		put(o, " else");
		if (s->other.n == 1 && s->other.stmts[0]->kind ==
		    EXPR_STMT_IF) {
			put(o, " ");
			put_stmt(o, s->other.stmts[0]);
		} else {
			put_block(o, &s->other);
		}
		break;
	}
}

/* " { a; b }", " { }" */
static void put_block(struct out *o, const struct expr_block *b)
{
	int i;

	put(o, " {");
	for (i = 0; i < b->n; i++) {
		put(o, "%s", i ? "; " : " ");
		put_stmt(o, b->stmts[i]);
	}
	put(o, " }");
}

static void put_probe(struct out *o, const struct expr_probe *pr)
{
	int i;

	put(o, "%s", pr->kind);
	for (i = 0; i < pr->nparts; i++) {
		put(o, ":");
		if (part_needs_quotes(pr->parts[i], i == pr->nparts - 1))
			put_quoted(o, pr->parts[i]);
		else
			put(o, "%s", pr->parts[i]);
	}
}

int expr_format_node(const struct expr_node *n, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = buf ? len : 0 };

	if (!n)
		return -EINVAL;
	put_node(&o, n, PREC_COND);
	if (o.pos >= o.len || o.pos > INT_MAX)
		return -ENOSPC;
	return (int)o.pos;
}

/* PROBE, PROBE /PRED/ { STMT; STMT }, one clause a line */
int expr_format(const struct expr *e, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = buf ? len : 0 };
	int i, j;

	if (!e)
		return -EINVAL;
	for (i = 0; i < e->nclauses; i++) {
		const struct expr_clause *c = &e->clauses[i];

		if (i)
			put(&o, "\n");
		for (j = 0; j < c->nprobes; j++) {
			if (j)
				put(&o, ", ");
			put_probe(&o, &c->probes[j]);
		}
		if (c->pred) {
			const struct expr_node *l = leftmost(c->pred);

			/* a blank between "/" and "*p": no comment opens */
			put(&o, " /%s", l->kind == EXPR_UNARY &&
			    l->op == EXPR_DEREF ? " " : "");
			put_node(&o, c->pred, PREC_COND);
			put(&o, "/");
		}
		if (c->has_body)
			put_block(&o, &c->body);
	}
	if (o.pos >= o.len || o.pos > INT_MAX)
		return -ENOSPC;
	return (int)o.pos;
}
