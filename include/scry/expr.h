/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe-expression language, syntax only (plan.c gives it meaning):
 *
 *   clause   := probe [ '/' pred '/' ] [ '{' action '}' ]
 *   probe    := word ( ':' part )*          offcpu, uprobe:libc:malloc,
 *                                           usdt:./srv:app:start, profile:99
 *   part     := word | path | glob | number (anything up to ':', '/', '{' or blank;
 *               a part may be double-quoted to hold those characters)
 *   pred     := or
 *   or       := and ( '||' and )*
 *   and      := cmp ( '&&' cmp )*
 *   cmp      := unary [ ( '==' | '!=' | '<' | '<=' | '>' | '>=' ) unary ]
 *   unary    := '!' unary | operand
 *   operand  := ident | number | string | '(' pred ')'
 *   ident    := [A-Za-z_][A-Za-z0-9_]* ( '.' [A-Za-z_][A-Za-z0-9_]* )*
 *   number   := decimal | 0x hex, optionally negative
 *   string   := '"' chars with \" \\ \n \t escapes '"'
 *   action   := '@' [ident] [ '[' keys ']' ] '=' agg '(' [ args ] ')' [ ';' ]
 *   keys     := ident ( ',' ident )*
 *   args     := operand ( ',' operand )*
 *
 * Every node carries the 1-based column where it starts, so errors can
 * put a caret under it.
 */
#ifndef SCRY_EXPR_H
#define SCRY_EXPR_H

#include <stdio.h>
#include <linux/types.h>

#define EXPR_MAX_PARTS	4
#define EXPR_MAX_KEYS	8
#define EXPR_MAX_ARGS	4

enum expr_node_kind {
	EXPR_IDENT,		/* name: "pid", "arg0", "fd.path", "args.filename" */
	EXPR_INT,		/* ival */
	EXPR_STR,		/* sval (unescaped) */
	EXPR_CMP,		/* op, left, right */
	EXPR_AND,		/* left, right */
	EXPR_OR,		/* left, right */
	EXPR_NOT,		/* left */
};

enum expr_cmp_op { EXPR_EQ, EXPR_NE, EXPR_LT, EXPR_LE, EXPR_GT, EXPR_GE };

struct expr_node {
	enum expr_node_kind kind;
	int col;
	enum expr_cmp_op op;
	struct expr_node *left, *right;
	char *name;
	__s64 ival;
	char *sval;
};

struct expr_probe {
	char *kind;		/* first part: "offcpu", "uprobe", ... */
	int kind_col;
	char *parts[EXPR_MAX_PARTS];	/* the rest: "libc", "malloc" */
	int part_cols[EXPR_MAX_PARTS];
	int nparts;
};

struct expr_action {
	char *map_name;		/* "@name" without '@', or NULL for "@" */
	char *keys[EXPR_MAX_KEYS];
	int key_cols[EXPR_MAX_KEYS];
	int nkeys;
	char *func;		/* "count", "quantize", ... */
	int func_col;
	struct expr_node *args[EXPR_MAX_ARGS];
	int nargs;
};

struct expr {
	char *text;		/* the source, as given */
	struct expr_probe probe;
	struct expr_node *pred;	/* NULL when there is no predicate */
	struct expr_action action;
	int has_action;		/* 0: the clause had no { } */
};

struct expr_error {
	int col;		/* 1-based column of the problem */
	char msg[256];		/* "expected ')'" */
};

/* Parse @text. Returns NULL with errno = EINVAL and @err filled on bad syntax. */
struct expr *expr_parse(const char *text, struct expr_error *err);
void expr_free(struct expr *e);

/*
 * Print "scry: MSG at column N", then the expression and a caret under
 * column N, to @f (three lines).
 */
void expr_print_error(FILE *f, const char *text, const struct expr_error *err);

/* Write the clause back in canonical form (used by -v); returns bytes or -errno. */
int expr_format(const struct expr *e, char *buf, size_t len);

#endif /* SCRY_EXPR_H */
