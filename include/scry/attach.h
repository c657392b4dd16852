/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attach: plan -> the engine's skeleton, configured, loaded and attached.
 * Every attachment is an fd-based bpf_link, so nothing outlives scry, not
 * even after kill -9. Hook kinds plug in as sources (source.h).
 */
#ifndef SCRY_ATTACH_H
#define SCRY_ATTACH_H

#include <stdbool.h>
#include <scry/mapmem.h>
#include <scry/plan.h>

struct scry;
struct plan;
struct bpf_object_open_opts;
struct obj_cache;
struct cmd_file;
struct bpf_link;
struct bpf_program;
struct scry_opts;
struct selfprog;
struct parload;

/*
 * The engine's object (bpf/scry.bpf.c, built three ways: Makefile).
 * attach_engine_open() opens any with the skeleton, whose programs, maps
 * and data all have. NULL, errno set, on failure.
 */
enum attach_engine {
	ENGINE_ONE,		/* clause slot 0 alone: one-clause plans */
	ENGINE_LEAN,		/* ... without prog_abi.h's SCRY_OPS_RARE */
	ENGINE_ALL,		/* every clause slot */
	ENGINE_BUILDS,
};
const void *attach_engine_bytes(enum attach_engine e, size_t *size);
struct scry *attach_engine_open(enum attach_engine e,
				const struct bpf_object_open_opts *oo);

/* The build that loads @p: the least that has what it needs. */
enum attach_engine attach_engine_for(const struct plan *p);

struct attach {
	struct scry *skel;
	const struct plan *plan;
	const struct scry_opts *opts;
	struct bpf_link **links;	/* every attachment, destroyed on close */
	int nlinks, links_cap;
	int *slow_fds;			/* attach_keep_fd()'s, closed on close */
	size_t nslow_fds, slow_fds_cap;
	int cpid;			/* the -c command, for `cpid` */
	int pids[SCRY_MAX_TARGETS];	/* processes filtered in the kernel */
	__u8 states[SCRY_MAX_TARGETS];	/* SCRY_TARGET_* of each */
	int npids;
	bool filter_targets;		/* filter even while pids is empty (-c) */
	bool follow_forks;		/* children of targets become targets (-c) */
	bool usage_error;		/* failed on what the user wrote (exit 2) */
	struct mapmem need;		/* kernel memory the sized maps take */
	enum attach_engine engine;	/* the build loaded */
	bool corebtf;			/* CO-RE against corebtf.c's cut */
	int corebtf_fd;			/* that cut, open until the load */
	struct obj_cache *objs;		/* the file cache, shared with symbols */
	bool holds;			/* -c's execs and mmaps are held (cmd.h) */
	bool warm;			/* maps' caches filled before attaching */
	void *priv;			/* the source's own (source.h: close) */
	struct selfprog *self;		/* its programs' JIT code (drain) */
	struct parload *side;		/* programs loaded on CPU 2 */
};

/*
 * Open, configure and load the engine for a->plan and a->opts, with
 * a->pids as the kernel-side process filter (none: system-wide).
 * Returns 0 or -errno, having printed the reason.
 */
int attach_load(struct attach *a);

/* Attach the plan's probes. Returns 0 or -errno, having printed why. */
int attach_probes(struct attach *a);

/* True when user stacks are unwound with DWARF tables (not --unwind=fp). */
bool attach_dwarf(const struct attach *a);

/* Attach @prog if it was loaded (autoload), keeping its link. */
int attach_prog(struct attach *a, struct bpf_program *prog);

/*
 * Adapter @name's program for clause @clause ("uprobe", 3: uprobe_3), or
 * NULL, having said so (a scry bug).
 */
struct bpf_program *attach_clause_prog(struct attach *a, const char *name,
				       int clause);

/* Load adapter @name's program for @clause. Returns 0 or -ENOENT. */
int attach_want(struct attach *a, const char *name, int clause);

/*
 * Run the BEGIN clauses (@end false) or the END clauses, in program
 * order, as scry's own events. Returns 0 or -errno, having said why.
 */
int attach_run_special(struct attach *a, bool end);

/* Keep a link so attach_close() destroys it. */
int attach_keep(struct attach *a, struct bpf_link *l);

/*
 * Keep @fd, whose last close waits for the kernel's grace periods (a
 * uprobe perf event no program was attached to), for attach_close() to
 * leave to the detach child with the links. Returns 0, or -ENOMEM: the
 * caller closes it.
 */
int attach_keep_fd(struct attach *a, int fd);

/*
 * Add a process to the kernel-side filter: SCRY_TARGET_TRACED (-p) or
 * SCRY_TARGET_PENDING (the -c child, traced from its exec on).
 */
int attach_add_target(struct attach *a, int pid, __u8 state);

/* True when a probe of the plan looks at the files -c processes load. */
bool attach_follows_files(const struct attach *a);

/*
 * A -c process is about to run code from @f (held: cmd.h): each kind's
 * on_file hook may attach probes to it first (source.h).
 */
void attach_on_file(struct attach *a, const struct cmd_file *f);

/*
 * Stop collecting: from now on every program but BEGIN's and END's
 * returns at once, while the probes stay attached (maps.bpf.h: stopped).
 * NULL-safe, and a no-op before the engine is loaded.
 */
void attach_stop(struct attach *a);

/*
 * The aggregation map (@vars: the variables map) the probes write now,
 * or with @retired the one attach_flip() took them off.
 */
struct bpf_map *attach_map(const struct attach *a, bool vars, bool retired);

/*
 * Move the probes to the other pair of maps and wait until none is
 * left writing the old pair, which --interval then reads and empties
 * with nothing landing in it (bpf/maps.bpf.h: side).
 */
void attach_flip(struct attach *a);

/*
 * Detach everything and free the skeleton (NULL-safe). Links whose close
 * waits for the kernel's grace periods (SOURCE_SLOW_DETACH) are closed by
 * a child after scry lets go of them (detach.h): call it once the answer
 * is out, last.
 */
void attach_close(struct attach *a);

#endif /* SCRY_ATTACH_H */
