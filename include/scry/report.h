/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The drained, symbolized result of a run: what every output format
 * prints. Printers see only this, never BPF maps, so they are unit tested
 * with synthetic rows.
 */
#ifndef SCRY_REPORT_H
#define SCRY_REPORT_H

#include <stdio.h>
#include <stdbool.h>
#include <scry/abi.h>

#define REPORT_MAX_KEYS 8

/* The file mapping a user address fell in: pprof's Mapping. */
struct report_mapping {
	char *file;		/* path as mapped, or "[vdso]" */
	char *build_id;		/* lowercase hex, or NULL */
	__u64 start, limit;	/* the mapping's address range */
	__u64 offset;		/* file offset of start */
};

/* The strings of a frame are intern()ed: shared, given back by intern_put(). */
struct report_frame {
	char *module;		/* "kernel", a file's basename, "[vdso]"; NULL if unknown */
	char *sym;		/* function name; NULL if unknown */
	__u64 off;		/* offset into sym (or into module if sym is NULL) */
	__u64 addr;		/* raw address */
	bool kernel;
	bool inlined;		/* logical frame of inlined code (folded: _[i]) */
	int line;		/* source line, 0 if unknown (beside the bools:
				 * 56 bytes a frame, not 64) */
	char *file;		/* source file (--lines), or NULL */
	struct report_mapping *map;	/* with SYMS_MAPPINGS only, else NULL */
};

/* Frames are leaf first, as captured. */
struct report_stack {
	struct report_frame *frames;
	int nr;
	bool truncated;		/* the walk hit its frame limit */
	bool lost;		/* not stored (stack store full) */
};

enum report_key_kind {
	REPORT_KEY_KSTACK,
	REPORT_KEY_USTACK,
	REPORT_KEY_INT,		/* pid, tid, cpu, uid, argN, retval, ... */
	REPORT_KEY_STR,		/* comm, paths */
};

struct report_key {
	enum report_key_kind kind;
	enum scry_field field;	/* what the column holds: SCRY_F_COMM, _ERRNO, ... */
	const char *name;	/* column name as written: "ustack", "pid", "comm" */
	struct report_stack stack;
	__s64 i;
	char *s;
};

/*
 * A row's value: scry_val's totals, and its SCRY_NBUCKETS histogram
 * slots only in rows of quantize and lquantize (NULL in the others:
 * 512 bytes a row that 12 000 stacks would hold for nothing).
 */
struct report_val {
	__u64 count;
	__s64 sum;
	__s64 min;
	__s64 max;
	__u64 *slots;		/* owned by the row; NULL: all zero */
};

struct report_row {
	struct report_key *keys;	/* owned; room for the columns the
					 * map has (at most REPORT_MAX_KEYS),
					 * nkeys of them filled */
	int nkeys;
	struct report_val val;
	char *vstr;		/* a variable map's value, when not a number */
};

struct report_stat {
	const char *what;	/* "aggregation drops" */
	const char *fix;	/* "raise --max-keys"; may be NULL */
	__u64 count;
};

enum report_palette {
	REPORT_PALETTE_HOT,	/* CPU: reds and yellows, as flamegraph.pl */
	REPORT_PALETTE_BLUE,	/* off-CPU and I/O */
	REPORT_PALETTE_GREEN,	/* memory */
};

struct report {
	const char *name;	/* the question ("offcpu"), or NULL for an expression */
	const char *question;	/* the expression as run */
	const char *header;	/* first line of text output, or NULL */
	const char *unit;	/* "ns", "bytes", NULL for plain numbers */
	enum scry_agg agg;
	__u64 folded_div;	/* folded value = row value / folded_div (ns -> us: 1000); 0 = 1 */
	enum report_palette palette;	/* flame graph colours */
	const char *value_name;	/* what the value is: "off-CPU time", "samples", "bytes" */
	int snapshot;		/* --interval: 1, 2, ...; 0 for a whole run */
	const char *count_label;/* when set, each row and the end print */
	const char *sum_label;	/*   "calls: N, bytes: M (1.2 MiB)" totals */
	const char *files_verb;	/* read/write: text is the per-file table */
	const char *map_name;	/* "@ns"; "@" for the anonymous map */
	bool var;		/* a variable map: each row holds a value */
	struct report **maps;	/* every map of the program, in program order,
				 * this report among them (the others owned
				 * by it); NULL: this one alone */
	size_t nmaps;
	__u64 period_ns;	/* profile: the time one sample stands for */
	__s64 lq_low, lq_high, lq_step;	/* lquantize parameters */
	double duration_s;
	__s64 time_ns;		/* wall clock (CLOCK_REALTIME) at the end; 0 unknown */
	struct report_row *rows;
	size_t nrows;
	/*
	 * --top: the rows it left out, summed (count, sum; no slots), so
	 * totals and shares count every row, not only those shown; of them,
	 * the rows of a failed call (an errno key), which the files table
	 * counts apart
	 */
	struct report_val left_out;
	struct report_val left_out_failed;
	struct report_stat *stats;	/* non-zero loss counters */
	size_t nstats;
};

/*
 * Merge rows whose keys print the same (stacks compared by their
 * symbolized frames): one logical key, one row. Leaves rows in key order.
 */
void report_merge(struct report *r);

/*
 * @into's count, sum, min and max += @v's, as the kernel would have had
 * them as one key; slots are report_merge's to move.
 */
void report_val_add(struct report_val *into, const struct report_val *v);

/* The row's first key column holding @field, or NULL. */
const struct report_key *report_key_find(const struct report_row *row,
					 enum scry_field field);

/* "count", "sum", ... "lquantize" (docs/JSON.md), or NULL if unknown. */
const char *report_agg_name(enum scry_agg agg);

/* The row's SCRY_NBUCKETS histogram slots (zeros when it holds none). */
const __u64 *report_row_slots(const struct report_row *row);

/* The value printa orders rows by, for the report's aggregation. */
__s64 report_row_value(const struct report *r, const struct report_row *row);

/*
 * What the rows --top left out add up to, in report_row_value's terms:
 * their count or sum; 0 where values do not add up (min, max, avg).
 */
__s64 report_left_out_value(const struct report *r);

/*
 * Sort rows ascending by report_row_value (ties by key), like printa; of
 * every map the report holds.
 */
void report_sort(struct report *r);

/*
 * After report_sort: keep the @n largest rows (--top) of each map; what
 * the others held is summed into its left_out.
 */
void report_keep_top(struct report *r, size_t n);

/* Free a stack's frames and their strings (not the struct). */
void report_stack_free(struct report_stack *st);

/* Free a frame's mapping and its strings (NULL is fine). */
void report_mapping_free(struct report_mapping *m);

/*
 * Free every row, frame and string the report owns, and the other maps'
 * reports (not the struct).
 */
void report_clear(struct report *r);

#endif /* SCRY_REPORT_H */
