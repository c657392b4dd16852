/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session: one run from attach to printed output. Holds the options that
 * outlive parsing, the traced processes and the stop conditions.
 */
#ifndef SCRY_SESSION_H
#define SCRY_SESSION_H

#include <stdbool.h>
#include <scry/abi.h>

struct plan;
struct format;

struct scry_opts {
	int pids[SCRY_MAX_TARGETS];	/* -p, repeatable */
	int npids;
	const char *cmd;		/* -c: launched, traced, waited for */
	const char *user;		/* -u: run -c as this user */
	bool keep;			/* --keep-running: -c outlives scry */
	double duration_s;		/* -d; 0 = until stopped */
	const struct format *format;	/* output format (format.h) */
	bool verbose;			/* -v */
	bool quiet;			/* -q: no banners on stderr */
	bool idle;			/* profile: sample the idle task too */
	bool lines;			/* --lines: file:line of frames */
	bool unwind_fp;			/* --unwind=fp: frame pointers only */
	bool stats;			/* --stats: unwinder table memory etc. */
	__u32 max_unwind_rows;		/* --max-unwind-rows */
	bool no_demangle;		/* --no-demangle: raw C++ names */
	__u32 max_keys;			/* --max-keys */
	__u32 buffer_size;		/* --buffer-size: printf's ring, bytes */
	bool unsafe;			/* --unsafe: signal() allowed */
	bool all;			/* -a: with -c, trace every process */
	const char *map;		/* --map @name: the one to fold/draw */
	__u32 max_stacks;		/* --max-stacks */
	const char *question;		/* "offcpu" or NULL for an expression */
	const char *header;		/* text-output header for the question */
	__u64 folded_div;		/* folded value divisor (ns -> us) */
	const char *unit;		/* overrides the plan's unit, if set */
	const char *output;		/* -o FILE, written atomically */
	double interval_s;		/* --interval: snapshot and clear */
	__u32 top;			/* --top N: the N largest rows */
	const char *files_verb;		/* read/write: the per-file table */
	int palette;			/* enum report_palette */
	const char *value_name;		/* "off-CPU time", "samples", ... */
	const char *count_label;	/* per-row totals: "calls" ... */
	const char *sum_label;		/* ... and "bytes" */
};

/*
 * Run @p under @o: attach, wait for -d, a signal, or the traced processes
 * to exit, then drain, symbolize and print. Returns the process exit
 * status (0, 1 runtime failure, 2 usage error).
 */
int session_run(const struct scry_opts *o, const struct plan *p);

#endif /* SCRY_SESSION_H */
