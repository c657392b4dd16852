/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe language, syntax only (plan.c gives it meaning). A program is
 * one or more clauses, as in DTrace and bpftrace:
 *
 *   program  := clause { clause }
 *   clause   := probes [ '/' expr '/' ] [ block ]
 *   probes   := probe { ',' probe }
 *   probe    := kind { ':' part }       offcpu, uprobe:libc:malloc,
 *                                       syscall:read,write, profile:hz:99,
 *                                       tracepoint:sched:sched*, BEGIN
 *   part     := anything up to ':', '/', '{', ',' or a blank (a ','
 *               continues a part unless a blank, or WORD ':', follows it);
 *               may be double-quoted to hold those characters; may be empty
 *   block    := '{' { stmt } '}'
 *   stmt     := 'if' '(' expr ')' block [ 'else' ( block | stmt-if ) ]
 *             | simple ( ';' | before '}' )
 *   simple   := lvalue ( '=' | OP'=' ) expr      OP: + - * / % & | ^ << >>
 *             | lvalue ( '++' | '--' ) | ( '++' | '--' ) lvalue
 *             | expr                            a call: printf(...), ...
 *   lvalue   := map | '$' ident | 'self' '->' ident | 'this' '->' ident
 *   map      := '@' [ident] [ '[' expr { ',' expr } ']' ]
 *   expr     := lor [ '?' expr ':' expr ]
 *   lor      := land { '||' land }
 *   land     := bor { '&&' bor }
 *   bor      := bxor { '|' bxor }       bxor := band { '^' band }
 *   band     := cmp { '&' cmp }
 *   cmp      := shift [ ( '==' | '!=' | '<' | '<=' | '>' | '>=' ) shift ]
 *   shift    := add { ( '<<' | '>>' ) add }
 *   add      := mul { ( '+' | '-' ) mul }
 *   mul      := unary { ( '*' | '/' | '%' ) unary }
 *   unary    := ( '!' | '~' | '-' | '*' ) unary | '(' type ')' unary
 *             | postfix
 *   postfix  := primary { '->' ident | '.' ident | '[' expr ']' }
 *   primary  := number | string | ident | ident '(' [ args ] ')' | map
 *             | '$' ident | 'self' '->' ident | 'this' '->' ident
 *             | '(' expr ')'
 *   ident    := [A-Za-z_][A-Za-z0-9_]* ( '.' [A-Za-z_][A-Za-z0-9_]* )*
 *   number   := decimal | 0x hex (up to 2^63, which only '-' may precede)
 *   string   := '"' chars with \" \\ \n \t escapes '"'
 *   type     := ( 'struct' | 'union' ) ident '*' { '*' } | int types ...
 *
 * Comparisons do not chain ("a < b < c" is an error). In a predicate, a
 * '/' that '{' or the end follows closes it (a clause without a block
 * ends the program); any other '/' divides. Comments: C block comments
 * anywhere a token may start, and lines whose first non-blank characters
 * are '//' or '#' (a script's #! line, DTrace's #pragma).
 *
 * Every node carries the 1-based column where it starts, so errors can
 * put a caret under it.
 */
#ifndef SCRY_EXPR_H
#define SCRY_EXPR_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#define EXPR_MAX_PARTS	4

enum expr_node_kind {
	EXPR_IDENT,		/* name: "pid", "arg0", "fd.path", "args.filename" */
	EXPR_INT,		/* ival */
	EXPR_STR,		/* sval (unescaped) */
	EXPR_BINARY,		/* op, left, right */
	EXPR_UNARY,		/* op (EXPR_NOT, _BNOT, _NEG, _DEREF), left */
	EXPR_COND,		/* left ? right : other */
	EXPR_CALL,		/* name(args) */
	EXPR_MAP,		/* @name[args]; name "" for @ */
	EXPR_VAR,		/* $name */
	EXPR_TLS,		/* self->name */
	EXPR_CLAUSE_VAR,	/* this->name (DTrace clause-local) */
	EXPR_MEMBER,		/* left->name (arrow) or left.name */
	EXPR_INDEX,		/* left[right] */
	EXPR_CAST,		/* (name) left: name is the type as written */
};

enum expr_op {
	/* binary, loosest first */
	EXPR_LOR, EXPR_LAND, EXPR_BOR, EXPR_BXOR, EXPR_BAND,
	EXPR_EQ, EXPR_NE, EXPR_LT, EXPR_LE, EXPR_GT, EXPR_GE,
	EXPR_SHL, EXPR_SHR, EXPR_ADD, EXPR_SUB, EXPR_MUL, EXPR_DIV,
	EXPR_MOD,
	/* unary */
	EXPR_NOT, EXPR_BNOT, EXPR_NEG, EXPR_DEREF,
	EXPR_NOPS,
};

struct expr_node {
	enum expr_node_kind kind;
	int col;
	enum expr_op op;
	struct expr_node *left, *right, *other;
	char *name;		/* IDENT, CALL, MAP, VAR, TLS, MEMBER, CAST */
	bool arrow;		/* MEMBER: '->' rather than '.' */
	__s64 ival;
	char *sval;
	struct expr_node **args;	/* CALL arguments, MAP keys */
	int nargs;
	bool has_keys;		/* MAP: written with [...] */
};

enum expr_stmt_kind {
	EXPR_STMT_EXPR,		/* value: a call such as printf(...) */
	EXPR_STMT_ASSIGN,	/* target op= value; op EXPR_NOPS for '=' */
	EXPR_STMT_INCR,		/* target++ (op EXPR_ADD) or target-- (EXPR_SUB) */
	EXPR_STMT_IF,		/* if (value) then else other */
};

struct expr_block {
	struct expr_stmt **stmts;
	int n;
};

struct expr_stmt {
	enum expr_stmt_kind kind;
	int col;
	enum expr_op op;
	bool prefix;		/* INCR written ++x */
	struct expr_node *target;
	struct expr_node *value;
	struct expr_block then, other;
	bool has_else;
};

struct expr_probe {
	char *kind;		/* first part: "offcpu", "uprobe", ... */
	int kind_col;
	char *parts[EXPR_MAX_PARTS];	/* the rest: "libc", "malloc" */
	int part_cols[EXPR_MAX_PARTS];
	int nparts;
};

struct expr_clause {
	struct expr_probe *probes;
	int nprobes;
	struct expr_node *pred;	/* NULL when there is no predicate */
	struct expr_block body;
	bool has_body;		/* false: the clause had no { } */
};

struct expr {
	char *text;		/* the source, as given */
	struct expr_clause *clauses;
	int nclauses;
};

struct expr_error {
	int col;		/* 1-based column of the problem */
	char msg[256];		/* "expected ')'" */
};

/* Parse @text. Returns NULL with errno = EINVAL and @err filled on bad syntax. */
struct expr *expr_parse(const char *text, struct expr_error *err);
void expr_free(struct expr *e);

/*
 * Print the error to @f in three lines: "scry: MSG at column N", the
 * expression and a caret under column N for a one-line program; for one
 * of several lines, or read from @file (-f; NULL for -e),
 * "scry: FILE:LINE:COL: MSG" (or "scry: MSG at line L, column C"), then
 * only that line and its caret.
 */
void expr_print_error(FILE *f, const char *text, const char *file,
		      const struct expr_error *err);

/*
 * Write the program back in canonical form (used by -v): clauses on one
 * line each, separated by "\n". Returns bytes or -errno.
 */
int expr_format(const struct expr *e, char *buf, size_t len);

/* One expression in canonical form; returns bytes or -errno, as above. */
int expr_format_node(const struct expr_node *n, char *buf, size_t len);

/* The spelling of an operator: "&&", "<<", "!" ... */
const char *expr_op_name(enum expr_op op);

#endif /* SCRY_EXPR_H */
