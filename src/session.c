// SPDX-License-Identifier: GPL-2.0
/*
 * session: attach, wait, drain, print.
 *
 * The wait is one poll() over: the stop eventfd (a signal watcher thread
 * raises it, and the stop flag of include/scry/stop.h, the moment SIGINT,
 * SIGTERM or SIGHUP arrives, whatever the main thread is busy with), one
 * pidfd per traced process (readable when it exits), the engine's notice
 * ring buffer (new pids, exec and code mmaps: mappings to read and unwind
 * tables to load), the -c command's held execs and mmaps (cmd.c), the -d
 * deadline, the --interval ticks, and a short timeout to read the JIT
 * perf maps inotify saw written, while their processes live.
 * Whatever ends the wait, collection stops first (every probe turns
 * inert, attached still) and everything aggregated so far is printed:
 * nothing collected is lost. Then the -c command is ended (or left
 * running with --keep-running), and the probes are detached last, their
 * slow closes in the background (detach.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <scry/addrspace.h>
#include <scry/attach.h>
#include <scry/cmd.h>
#include <scry/drain.h>
#include <scry/events.h>
#include <scry/expr.h>
#include <scry/format.h>
#include <scry/log.h>
#include <scry/obj.h>
#include <scry/out.h>
#include <scry/outfile.h>
#include <scry/plan.h>
#include <scry/proc.h>
#include <scry/report.h>
#include <scry/resolve.h>
#include <scry/session.h>
#include <scry/source.h>
#include <scry/stop.h>
#include <scry/sym.h>
#include <scry/unwind.h>
#include <scry/unwind_early.h>
#include "scry.skel.h"

#define JIT_POLL_MS	250

struct session {
	const struct scry_opts *o;
	struct attach a;
	struct syms *syms;
	struct unwind_store *unwind;	/* DWARF tables, NULL with --unwind=fp */
	struct ring_buffer *rb;
	struct outfile *out;		/* -o FILE or stdout, opened first */
	int stopfd;		/* eventfd: a stop signal arrived */
	pthread_t watcher;
	bool watching;
	atomic_bool unwatch;	/* the watcher is to end */
	int pidfds[SCRY_MAX_TARGETS];	/* -1 once the process exited */
	int npidfds;
	int nalive;
	bool no_pidfd;		/* pidfd_open unsupported (valgrind): poll pids */
	struct cmd *cmd;	/* -c command, or NULL */
	struct scry_notice *pending;	/* notices not handled yet */
	size_t npending, done_pending, cap_pending;
	__u64 notices_skipped;	/* the queue was full */
	double stop_at;		/* -d deadline, or 0 */
	_Atomic double stop_watch;	/* the same, for the signal watcher */
	double next_jit_poll;	/* when to look at perf maps again */
	size_t nexited;		/* exits told since the last eviction */
	double next_evict;	/* when exited processes may be evicted */
	int snapshots;		/* --interval snapshots printed */
	struct events *events;	/* printf() and the like, as they come */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int pidfd_open(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

/*
 * Read @pid's mappings (again, with @refresh) for its names and, with
 * @tables, give the walker its list. The generation is read first
 * (unwind_store_pid says why).
 */
static int load_pid(struct session *s, int pid, bool refresh, bool tables)
{
	__u32 gen = s->unwind ? unwind_store_gen(s->unwind, pid) : 0;
	int err;

	err = refresh ? syms_refresh_pid(s->syms, pid) :
			syms_add_pid(s->syms, pid);
	if (tables && s->unwind)
		unwind_store_pid(s->unwind, pid,	/* gone: FP is all */
				 syms_addrspace(s->syms, pid), gen);
	return err;
}

/*
 * Notices are queued as they arrive and handled in slices between the
 * loop's other duties: reading a new process's mappings and building its
 * tables can take long on a busy host, and must never make scry late for
 * a --interval tick, -d, or a signal.
 */
#define NOTICES_MAX	16384

static int on_notice(void *ctx, void *data, size_t len)
{
	struct session *s = ctx;
	struct scry_notice *q;

	if (len < sizeof(*s->pending))
		return 0;
	if (s->npending == s->cap_pending) {
		size_t cap = s->cap_pending ? s->cap_pending * 2 : 64;

		q = cap <= NOTICES_MAX ?
		    realloc(s->pending, cap * sizeof(*q)) : NULL;
		if (!q) {
			s->notices_skipped++;
			return 0;
		}
		s->pending = q;
		s->cap_pending = cap;
	}
	memcpy(&s->pending[s->npending++], data, sizeof(*s->pending));
	return 0;
}

static void notice_apply(struct session *s, const struct scry_notice *n,
			 bool tables)
{
	__u32 gen;
	int err;

	/*
	 * A first sighting only adds: re-reading a process that is exiting
	 * would swap a good snapshot for a half torn-down one. Mappings that
	 * change (exec, code mmap) are read again.
	 */
	if (n->kind == SCRY_NOTICE_FORK) {
		syms_fork(s->syms, n->ppid, n->pid);
		return;
	}
	if (n->kind == SCRY_NOTICE_EXIT) {
		syms_exited(s->syms, n->pid);
		s->nexited++;
		return;
	}
	gen = s->unwind ? unwind_store_gen(s->unwind, n->pid) : n->gen;
	err = syms_notice_pid(s->syms, n->pid, n->gen,
			      n->kind != SCRY_NOTICE_PID);
	/* (a fork's copy has its parent's list already: the engine's) */
	if (err != 1 && tables && s->unwind)
		unwind_store_pid(s->unwind, n->pid,	/* gone: FP is all */
				 syms_addrspace(s->syms, n->pid), gen);
	log_debug("notice at %.3f: pid %d %s: %s", now_s(), n->pid,
		  n->kind != SCRY_NOTICE_PID ? "mappings changed" :
		  "first seen", err < 0 ? strerror(-err) :
		  err ? "known" : "mappings read");
}

/*
 * Exited processes whose stacks no row holds are evicted (sym.c says
 * why). Their pids are collected from the aggregation's keys in one pass,
 * at most every EVICT_EVERY_S seconds and never more than 2 % of the
 * time (a pass over a big map is ~1 us a key); a process is kept for
 * EVICT_AGE_S after its exit, for samples taken during its exit that
 * land after the notice.
 */
#define EVICT_EVERY_S	5.0
#define EVICT_AGE_S	1.0

struct pidset {
	int *v;
	size_t n, cap;
};

static int pid_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static bool pidset_has(void *ctx, int pid)
{
	const struct pidset *ps = ctx;

	return ps->n &&
	       bsearch(&pid, ps->v, ps->n, sizeof(*ps->v), pid_cmp) != NULL;
}

static int pidset_add(struct pidset *ps, int pid)
{
	int *v;

	if (!pid)
		return 0;
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 1024;
		v = realloc(ps->v, ps->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		ps->v = v;
	}
	ps->v[ps->n++] = pid;
	return 0;
}

static int pidset_add_key(void *ctx, const struct scry_key *key,
			  const struct scry_val *val)
{
	(void)val;
	return pidset_add(ctx, key->pid);
}

/*
 * The pids the aggregation's keys hold, a batch of keys a call
 * (drain_aggs_each): one get_next_key call per key was 16 000 system
 * calls a pass over a full map. Key by key if the kernel has no batch
 * lookup.
 */
static int rows_pids(struct attach *a, struct pidset *ps)
{
	int fd = bpf_map__fd(attach_map(a, false, false));
	/* the kernel writes the map's prefix of it (plan_key_size) */
	struct scry_key key = { 0 }, next = { 0 }, *prev = NULL;
	int err = drain_aggs_each(a, false, pidset_add_key, ps);

	if (err != -EOPNOTSUPP)
		return err;
	ps->n = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (pidset_add(ps, key.pid))
			return -ENOMEM;
	}
	return 0;
}

static void evict_exited(struct session *s)
{
	struct pidset ps = {};
	double t0 = now_s(), spent;
	size_t freed;

	if (!s->nexited || t0 < s->next_evict || !s->a.skel)
		return;
	if (rows_pids(&s->a, &ps))
		goto out;	/* keep everything: try later */
	if (ps.n)	/* (qsort and bsearch take no NULL, even for 0) */
		qsort(ps.v, ps.n, sizeof(*ps.v), pid_cmp);
	freed = syms_evict_exited(s->syms, t0, EVICT_AGE_S, pidset_has, &ps);
	s->nexited = 0;
	log_debug("evicted %zu exited processes (%zu rows scanned)", freed,
		  ps.n);
out:
	free(ps.v);
	spent = now_s() - t0;
	s->next_evict = now_s() + (spent * 50 > EVICT_EVERY_S ?
				   spent * 50 : EVICT_EVERY_S);
}

/*
 * Handle queued notices until @until (CLOCK_MONOTONIC seconds); with
 * @tables, also the unwind tables (not once probes are detached). Stops
 * early when stop was asked for, unless @at_stop (the last pass, which
 * names what it can within its budget).
 */
/*
 * A process that execs and then has ld.so map its libraries sends an
 * exec notice and one per library, all at once: each read /proc/PID/maps
 * whole, two thirds of the reads on a compiling host. A notice that
 * reads @n's process is left to a later one in the queue that reads it
 * again (within NOTICE_AHEAD), unless the process exits or forks in
 * between (the fork's child copies what is read before it).
 */
#define NOTICE_AHEAD	64

static bool notice_superseded(struct session *s, size_t i)
{
	struct scry_notice *n = &s->pending[i], *m;
	size_t j, end = s->npending - i > NOTICE_AHEAD ?
			i + NOTICE_AHEAD : s->npending;

	if (n->kind == SCRY_NOTICE_EXIT || n->kind == SCRY_NOTICE_FORK)
		return false;
	for (j = i + 1; j < end; j++) {
		m = &s->pending[j];
		if (m->kind == SCRY_NOTICE_FORK && m->ppid == n->pid)
			return false;
		if (m->pid != n->pid || m->kind == SCRY_NOTICE_FORK)
			continue;
		if (m->kind == SCRY_NOTICE_EXIT)
			return false;
		/* the later read is a re-read if this one was */
		if (m->kind == SCRY_NOTICE_PID)
			m->kind = n->kind;
		return true;
	}
	return false;
}

static void handle_notices(struct session *s, double until, bool tables,
			   bool at_stop)
{
	while (s->done_pending < s->npending) {
		if ((!at_stop && stop_requested()) || now_s() >= until)
			return;
		if (notice_superseded(s, s->done_pending)) {
			s->done_pending++;
			continue;
		}
		notice_apply(s, &s->pending[s->done_pending++], tables);
	}
	s->npending = s->done_pending = 0;
}

static int watch_targets(struct session *s)
{
	int i;

	for (i = 0; i < s->a.npids; i++) {
		s->pidfds[i] = pidfd_open(s->a.pids[i]);
		if (s->pidfds[i] < 0 && errno == ENOSYS) {
			s->no_pidfd = true;
		} else if (s->pidfds[i] < 0) {
			log_err("pid %d: %s", s->a.pids[i], errno == ESRCH ?
				"no such process" : strerror(errno));
			return -ESRCH;
		}
		s->npidfds = i + 1;
	}
	s->nalive = s->npidfds;
	return 0;
}

/* Without pidfds: a target is gone once kill(pid, 0) fails (or reaped). */
static void check_alive(struct session *s)
{
	pid_t child = cmd_pid(s->cmd);
	bool reaped = cmd_reaped(s->cmd);
	int i;

	for (i = 0; i < s->npidfds; i++) {
		if (s->pidfds[i] == -2)
			continue;
		if ((s->a.pids[i] == child && reaped) ||
		    (s->a.pids[i] != child && kill(s->a.pids[i], 0) &&
		     errno == ESRCH)) {
			s->pidfds[i] = -2;
			s->nalive--;
		}
	}
}

/*
 * Wakes the watcher when the session ends: without it, its join waited
 * out the rest of a 50 ms tick after the answer was written (measured:
 * 13 to 47 ms of each -c run). Blocked like the stop signals, and taken
 * only by the watcher; the -c child gets an empty mask (cmd.c).
 */
#define WATCH_WAKE	SIGRTMIN

/*
 * The signal watcher: the only thread that takes SIGINT, SIGTERM and
 * SIGHUP (all threads block them). It raises the stop flag at once, so
 * long work anywhere (loading, building tables, symbolizing) can notice,
 * and wakes the wait loop. A second signal while stopping is left to its
 * default action only once output is done: scry never dies half-written.
 */
static void *watch_signals(void *arg)
{
	struct timespec tick = { 0, 50 * 1000000L };
	struct session *s = arg;
	__u64 one = 1;
	sigset_t set;
	double at;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, WATCH_WAKE);
	while (!s->unwatch) {
		/* -d too: its deadline stops long work like a signal does */
		sig = sigtimedwait(&set, NULL, &tick);
		if (sig == WATCH_WAKE)
			continue;	/* the session ends: unwatch is set */
		if (sig < 0) {
			at = s->stop_watch;
			if (!at || now_s() < at || stop_requested())
				continue;
		}
		stop_request();
		if (write(s->stopfd, &one, sizeof(one)) < 0)
			continue;
	}
	return NULL;
}

/*
 * A thread of the -c command waits for scry: not its own off-CPU time.
 * Held in an mmap, its mappings stand still and hold every library
 * mapped so far: the moment to give the walker its list, without racing
 * the process for /proc.
 */
static void on_cmd_held(void *ctx, int tid, int tgid, bool exec)
{
	struct session *s = ctx;
	__u32 key = tid;
	__u8 one = 1;

	if (s->a.skel->rodata->cmd_holds)
		bpf_map__update_elem(s->a.skel->maps.held, &key, sizeof(key),
				     &one, sizeof(one), BPF_ANY);
	if (!exec && s->unwind)
		load_pid(s, tgid, true, true);
}

/*
 * A process of the -c command exits: its mappings, while they last, for
 * every plan that names user addresses (stacks in keys, and usym() or
 * ustack in printf: threadsnoop's usym(arg2) of a command that exited
 * before its events were read printed 0x55... as a zombie has no maps).
 */
static void on_cmd_exiting(void *ctx, int tgid)
{
	struct session *s = ctx;

	if (s->a.plan->names_user)
		syms_refresh_pid(s->syms, tgid);
}

/*
 * The walker's list of the held process (on_cmd_held wrote the mappings
 * so far) with the one its mmap is about to make, where MAP_FIXED says:
 * ld.so's text segment of each library (the first segment, mapped where
 * the kernel likes, reserves the span read-only). Once the mmap returns,
 * the process runs on without scry, and its notice may wait for a CPU
 * the program keeps busy: an 8-thread program's stacks walked without a
 * list for its whole run, asking the kernel for each mapping, refused
 * while another thread held the mmap lock (frame pointers, and libc's
 * frames lost). The notice's read replaces the guess with what is there.
 */
static void list_the_mapping_to_come(struct session *s,
				     const struct cmd_file *f, struct obj *o,
				     const struct stat *st)
{
	long page = sysconf(_SC_PAGESIZE);
	__u32 gen = unwind_store_gen(s->unwind, f->tgid);
	struct addrspace_map m = {
		.start = f->addr,
		.end = f->addr + f->len,
		.pgoff = f->off,
		.dev = st->st_dev,
		.ino = st->st_ino,
		.obj = o,
	};

	if (page > 0)
		m.end = (m.end + page - 1) / page * page;
	if (!f->len || m.end <= m.start ||
	    syms_add_mapping(s->syms, f->tgid, &m))
		return;
	unwind_store_pid(s->unwind, f->tgid, syms_addrspace(s->syms, f->tgid),
			 gen);
}

/* The -c command is about to run code from a file: its table first. */
static void on_cmd_file(void *ctx, const struct cmd_file *f)
{
	struct session *s = ctx;
	struct stat st;
	struct obj *o;
	int err;

	/* probes that follow the files the process loads (uprobe:*:) */
	attach_on_file(&s->a, f);
	if (!s->unwind || f->role == CMD_FILE_SCRIPT || fstat(f->fd, &st))
		return;
	o = obj_cache_fd(syms_objs(s->syms), f->fd, f->name);
	err = o ? unwind_store_file(s->unwind, o, st.st_dev, st.st_ino) :
		  -errno;
	log_debug("-c: pid %d %s %s: unwind table %s", f->pid,
		  f->role == CMD_FILE_LIB ? "maps" : "runs", f->name,
		  err ? strerror(-err) : "loaded");
	if (!err && f->at_fixed)
		list_the_mapping_to_come(s, f, o, &st);
}

/*
 * Wait for the first stop condition (returns 0) or the next --interval
 * tick at @tick (returns 1; 0 means no ticks). Returns -errno on failure.
 */
static int wait_loop(struct session *s, double tick)
{
	struct pollfd fds[SCRY_MAX_TARGETS + 3];
	double deadline = s->stop_at, slice;
	int i, n, timeout;

	for (;;) {
		n = 0;
		fds[n++] = (struct pollfd){ .fd = s->stopfd, .events = POLLIN };
		fds[n++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(s->rb),
					    .events = POLLIN };
		fds[n++] = (struct pollfd){ .fd = cmd_notify_fd(s->cmd),
					    .events = POLLIN };
		/* poll() skips the negative fds of exited processes */
		for (i = 0; i < s->npidfds; i++)
			fds[n++] = (struct pollfd){ .fd = s->pidfds[i],
						    .events = POLLIN };
		/* wake now and then to read JITs' growing perf maps; at once
		 * while notices wait to be handled */
		timeout = s->done_pending < s->npending ? 0 :
			  s->no_pidfd ? 100 : JIT_POLL_MS;
		if (deadline) {
			double left = deadline - now_s();

			if (left <= 0)
				return 0;
			if (timeout < 0 || left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		if (tick) {
			double left = tick - now_s();

			if (left <= 0)
				return 1;
			if (timeout < 0 || left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		if (poll(fds, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* notices first: a process that just exited still has to be named */
		ring_buffer__consume(s->rb);
		slice = now_s() + 0.05;
		if (deadline && deadline < slice)
			slice = deadline;
		if (tick && tick < slice)
			slice = tick;
		handle_notices(s, slice, true, false);
		if (events_exit(s->events))
			return 0;	/* a clause called exit() */
		/*
		 * The stream's reader is gone (| head) or its disk is full:
		 * nothing more can be said, so the run ends as at a stop.
		 */
		if (events_error(s->events))
			return 0;
		/* a held exec or mmap waits for its table */
		cmd_serve(s->cmd, &(struct cmd_hooks){
			.held = on_cmd_held, .file = on_cmd_file,
			.exiting = on_cmd_exiting, .ctx = s });
		if (now_s() >= s->next_jit_poll) {
			syms_poll_jit(s->syms);
			s->next_jit_poll = now_s() + JIT_POLL_MS / 1000.0;
		}
		evict_exited(s);
		if ((fds[0].revents & POLLIN) || stop_requested())
			return 0;
		for (i = 0; i < s->npidfds; i++) {
			if (s->pidfds[i] < 0 || !(fds[3 + i].revents & POLLIN))
				continue;
			close(s->pidfds[i]);
			s->pidfds[i] = -1;
			s->nalive--;
		}
		if (s->no_pidfd)
			check_alive(s);
		if (s->npidfds && s->nalive == 0)
			return 0;
	}
}

static void fill_header(const struct session *s, const struct plan *p,
			struct report *r, double secs)
{
	r->question = p->expr->text;
	r->header = s->o->header;
	r->unit = s->o->unit;	/* else the map's own (drain) */
	r->duration_s = secs;
	r->folded_div = s->o->folded_div;
	r->count_label = s->o->count_label;
	r->name = s->o->question;
	r->palette = s->o->palette;
	r->value_name = s->o->value_name;
	r->sum_label = s->o->sum_label;
	r->files_verb = s->o->files_verb;
	/* one profile probe on every CPU: each sample stands for 1/hz s */
	if (p->nprobes == 1 && p->probes[0].hz && !p->probes[0].one_cpu)
		r->period_ns = 1000000000ULL / p->probes[0].hz;
}

/*
 * Format the snapshot straight into its destination (outfile.c says how
 * a snapshot stays whole: -o is replaced all at once, and nothing comes
 * between the buffers written in place), so 12 000 stacks' text is never
 * held whole in memory.
 */
static int print_report(const struct session *s, struct report *r)
{
	FILE *f;
	int err, werr;

	report_sort(r);
	if (s->o->top)
		report_keep_top(r, s->o->top);
	err = outfile_begin(s->out, &f);
	if (err)
		return err;
	err = s->o->format->print(f, r);
	werr = outfile_end(s->out, !err);
	if (werr)
		err = werr;	/* outfile_end said it */
	else if (err)
		log_err("formatting the report: %s", strerror(-err));
	out_stats(stderr, r);
	return err;
}

/*
 * Where what clauses print (printf, print, time) goes: stdout, unless the
 * answer goes there in a format a program reads (JSON, folded, SVG,
 * pprof), which a line of printf would make unreadable: then stderr, as
 * docs/JSON.md says. Text is for a person and keeps both, in order.
 */
static FILE *events_stream(const struct scry_opts *o)
{
	if (!o->output && o->format && o->format != format_text())
		return stderr;
	return stdout;
}

static void session_banner(const struct session *s, const struct plan *p)
{
	char who[64] = "all processes";

	if (s->cmd)
		snprintf(who, sizeof(who), "the command (pid %d)",
			 cmd_pid(s->cmd));
	else if (s->a.npids == 1)
		snprintf(who, sizeof(who), "pid %d", s->a.pids[0]);
	else if (s->a.npids)
		snprintf(who, sizeof(who), "%d processes", s->a.npids);
	if (s->o->duration_s > 0)
		log_info("tracing %s of %s for %g s; Ctrl-C to stop early",
			 plan_what(p), who, s->o->duration_s);
	else
		log_info("tracing %s of %s; Ctrl-C to stop", plan_what(p),
			 who);
}

/* Load the DWARF tables of the traced processes known so far. */
static int unwind_start(struct session *s)
{
	struct scry *skel = s->a.skel;
	struct unwind_store_maps maps = {
		.rows_fd = bpf_map__fd(skel->maps.unwind_rows),
		.max_rows = s->o->max_unwind_rows,
		.tables_fd = bpf_map__fd(skel->maps.unwind_tables),
		.max_tables = bpf_map__max_entries(skel->maps.unwind_tables),
		.procs_fd = bpf_map__fd(skel->maps.unwind_procs),
		.files_fd = bpf_map__fd(skel->maps.unwind_files),
		.gens_fd = bpf_map__fd(skel->maps.gens),
		.epoch = &skel->bss->who_epoch,
	};
	int i;

	if (!attach_dwarf(&s->a))
		return 0;
	s->unwind = unwind_store_new(&maps);
	if (!s->unwind) {
		log_err("DWARF unwinder: %s", strerror(errno));
		return -errno;
	}
	unwind_store_vdso(s->unwind, syms_objs(s->syms));
	for (i = 0; i < s->o->npids; i++)
		unwind_store_pid(s->unwind, s->o->pids[i],
				 syms_addrspace(s->syms, s->o->pids[i]),
				 unwind_store_gen(s->unwind, s->o->pids[i]));
	return 0;
}

static void unwind_report(const struct session *s)
{
	const struct unwind_store_stats *st;

	if (!s->unwind)
		return;
	st = unwind_store_stats(s->unwind);
	/*
	 * Tables that did not fit are said always, like the engine's
	 * losses: their steps fell back to frame pointers, and the counter
	 * the user sees otherwise ("not loaded yet") names no cause.
	 */
	if (st->rows_full || st->tables_full)
		fprintf(stderr, "scry: unwind tables not loaded: %zu (%s)\n",
			st->rows_full + st->tables_full, st->rows_full ?
			"rows full: raise --max-unwind-rows" :
			"4096 files' tables already loaded");
	if (st->procs_failed)
		fprintf(stderr, "scry: unwind tables not given to %zu "
			"processes (%u processes' lists already loaded)\n",
			st->procs_failed, bpf_map__max_entries(
				s->a.skel->maps.unwind_procs));
	if (!(s->o->stats || s->o->verbose))
		return;
	fprintf(stderr, "scry: unwind tables: %zu files, %zu tables, %u row and index slots "
		"(%.1f MiB of %.1f MiB, in %u chunks of %.1f MiB), %zu "
		"processes; %zu files without CFI\n", st->files, st->tables,
		st->rows_used, st->rows_used * 8.0 / (1 << 20),
		s->o->max_unwind_rows * 8.0 / (1 << 20), st->chunks,
		SCRY_UNWIND_CHUNK_ROWS * 8.0 / (1 << 20), st->procs,
		st->no_cfi);
	if (st->too_big)
		fprintf(stderr, "scry: unwind tables not built: %zu files with "
			"more than %u rows (frame pointers used there)\n",
			st->too_big, UNWIND_MAX_ROWS);
	unwind_stats_print(stderr, "scry: unwind rows", &st->sum);
}

static int start_watcher(struct session *s)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, WATCH_WAKE);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -errno;
	s->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->stopfd < 0)
		return -errno;
	if (pthread_create(&s->watcher, NULL, watch_signals, s))
		return -EAGAIN;
	s->watching = true;
	return 0;
}

static int start_cmd(struct session *s)
{
	struct cmd_opts co = {
		.line = s->o->cmd, .user = s->o->user, .keep = s->o->keep,
		/*
		 * DWARF tables must be in before the code they unwind runs,
		 * mappings read before a process that exits takes them, and
		 * uprobe:*: probes placed before the file runs
		 */
		.hold = s->a.plan->key_ustack || attach_follows_files(&s->a),
	};

	s->cmd = cmd_start(&co);
	if (!s->cmd) {
		log_err("-c: cannot start the command: %s", strerror(errno));
		return -errno;
	}
	/* -a: the command runs, everything is traced (bpftrace's -c) */
	s->a.filter_targets = !s->o->all;
	s->a.follow_forks = true;
	s->a.holds = cmd_notify_fd(s->cmd) >= 0;
	return 0;
}

/*
 * The -c command's first files, their DWARF tables built while the
 * engine loads (unwind_early.h): the program it execs and its ld.so,
 * which the kernel maps at the exec, and libc, which nearly every
 * program maps next. A guess that misses costs a build on the other
 * CPU: the held calls build what is missing, as before.
 */
static struct unwind_early *unwind_ahead(struct session *s)
{
	char exe[PATH_MAX], interp[PATH_MAX], libc[PATH_MAX];
	const char *paths[3];
	size_t n = 0;

	if (!s->cmd || !s->a.holds || !attach_dwarf(&s->a))
		return NULL;
	if (!cmd_files(s->cmd, exe, sizeof(exe), interp, sizeof(interp))) {
		paths[n++] = exe;
		if (*interp)
			paths[n++] = interp;
	}
	if (!resolve_lib("libc", -1, libc, sizeof(libc), NULL, 0))
		paths[n++] = libc;
	return unwind_early_start(paths, n);
}

static int session_start(struct session *s, const struct plan *p)
{
	struct unwind_early *early;
	int err, i;

	err = start_watcher(s);
	if (err)
		return err;
	for (i = 0; i < s->o->npids; i++) {
		err = attach_add_target(&s->a, s->o->pids[i],
					SCRY_TARGET_TRACED);
		if (err)
			return err;
		syms_add_pid(s->syms, s->o->pids[i]);
	}
	if (s->o->cmd) {
		err = start_cmd(s);
		if (err)
			return err;
	}
	s->a.cpid = cmd_pid(s->cmd);
	early = unwind_ahead(s);
	err = attach_load(&s->a);
	unwind_early_finish(early, err ? NULL : syms_objs(s->syms));
	err = err ? : unwind_start(s);
	err = err ? : attach_probes(&s->a);
	if (err)
		return err;
	s->rb = ring_buffer__new(bpf_map__fd(s->a.skel->maps.notices),
				 on_notice, s, NULL);
	if (!s->rb)
		return -errno;
	/* what clauses print, in order as it comes: BEGIN's first */
	s->events = events_new(&s->a, s->syms, events_stream(s->o));
	if (!s->events ||
	    ring_buffer__add(s->rb, bpf_map__fd(s->a.skel->maps.events),
			     events_consume, s->events))
		return -ENOMEM;
	ring_buffer__consume(s->rb);
	/*
	 * The child is followed, and watched, before it may run and exit;
	 * its own code until exec (scry's), and the /bin/sh that runs a
	 * compound command, are never counted (abi.h: SCRY_TARGET_*).
	 */
	if (s->cmd) {
		err = attach_add_target(&s->a, cmd_pid(s->cmd),
					cmd_shell(s->cmd) ? SCRY_TARGET_WRAPPER :
							    SCRY_TARGET_PENDING);
		if (err) {
			log_err("-c: cannot trace the command: %s",
				strerror(-err));
			return err;
		}
	}
	err = watch_targets(s);
	if (!err && s->cmd)
		err = cmd_release(s->cmd);
	if (err)
		return err;
	session_banner(s, p);
	return 0;
}

/*
 * What scry's time namespace adds to CLOCK_BOOTTIME, in ns: /proc shows
 * a process's start in the reader's namespace.
 */
static long long boottime_offset_ns(void)
{
	long long sec = 0, nsec = 0;
	char buf[256], *b;

	if (proc_read(getpid(), "timens_offsets", buf, sizeof(buf)) <= 0 ||
	    !(b = strstr(buf, "boottime")) ||
	    sscanf(b, "boottime %lld %lld", &sec, &nsec) != 2)
		return 0;
	return sec * 1000000000LL + nsec;
}

/*
 * Is @pid still the process targets entry @t is of (abi.h: struct
 * scry_target)? An entry stays an RCU grace period past its process's
 * reap, and the pid may be another's by then: its start says, to /proc's
 * clock tick (@offset_ns: boottime_offset_ns). One not stamped yet is of
 * a process that has not exited (its exit stamps it): the pid is still
 * its own.
 */
static bool target_holds(int pid, const struct scry_target *t,
			 long long offset_ns)
{
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long ticks;

	if (!t->start)
		return true;
	if (hz <= 0 || proc_start_ticks(pid, &ticks))
		return false;
	return (t->start + (unsigned long long)offset_ns) /
	       (1000000000ULL / (unsigned long long)hz) == ticks;
}

/*
 * Processes the -c command started that are still followed: the targets
 * the kernel added, without the -p ones the user named, nor a process
 * that was given the pid of one already gone (it is not the command's,
 * and is never signalled for it).
 */
static int cmd_others(struct session *s, int *out, int max)
{
	__u32 key, next, *prev = NULL;
	long long offset_ns = boottime_offset_ns();
	struct scry_target t;
	int fd, n = 0, i;

	if (!s->a.skel)
		return 0;
	fd = bpf_map__fd(s->a.skel->maps.targets);
	while (n < max && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		for (i = 0; i < s->o->npids; i++)
			if ((int)key == s->o->pids[i])
				break;
		if (i < s->o->npids || (pid_t)key == cmd_pid(s->cmd) ||
		    bpf_map_lookup_elem(fd, &key, &t) ||
		    !target_holds((int)key, &t, offset_ns))
			continue;
		out[n++] = key;
	}
	return n;
}

/* Drain (and with @clear, empty) the aggregation and print it. */
/*
 * Were notices lost (the engine's ring buffer full, or the queue here)?
 * Then an exec may have gone untold, and processes are checked for one
 * before their frames are named (syms_notices_lost).
 */
static bool notices_lost(const struct session *s)
{
	__u64 lost = 0;

	if (s->notices_skipped > 0)
		return true;
	if (s->a.skel)
		drain_stat(&s->a, SCRY_STAT_NOTICE_LOST, &lost);
	return lost > 0;
}

static int snapshot(struct session *s, const struct plan *p, double *t0,
		    bool clear)
{
	struct report r = {};
	double now = now_s();
	struct timespec wall;
	int err;

	ring_buffer__consume(s->rb);
	/* the last answer: after every record (a second signal's too) */
	if (!clear)
		events_release(s->events);
	/* names for what the snapshot shows, within a bounded time */
	handle_notices(s, now_s() + 0.5, clear, !clear);
	if (notices_lost(s))
		syms_notices_lost(s->syms);
	/*
	 * The last snapshot has read its events and notices: nothing reads
	 * the rings again, and their mappings (2 MiB resident: the notices'
	 * pages are mapped twice) would add to the drain's peak.
	 */
	if (!clear) {
		ring_buffer__free(s->rb);
		s->rb = NULL;
	}
	fill_header(s, p, &r, now - *t0);
	clock_gettime(CLOCK_REALTIME, &wall);
	r.time_ns = wall.tv_sec * 1000000000LL + wall.tv_nsec;
	r.snapshot = s->o->interval_s > 0 ? ++s->snapshots : 0;
	err = drain_report(&s->a, s->syms, &r, clear);
	if (err)
		log_err("reading the aggregation: %s", strerror(-err));
	else
		err = print_report(s, &r);
	report_clear(&r);
	*t0 = now;
	return err;
}

int session_run(const struct scry_opts *o, const struct plan *p)
{
	struct session s = { .o = o, .stopfd = -1 };
	static int others[SCRY_MAX_FOLLOWED];
	int nothers;
	double start, t0;
	int err, derr, i;

	s.a.plan = p;
	s.a.opts = o;
	/* before anything is traced: a bad -o must not cost the run */
	err = outfile_open(o->output, &s.out);
	if (err)
		return err == -ENOMEM ? 1 : 2;
	s.syms = syms_new();
	if (!s.syms) {
		log_err("out of memory");
		outfile_free(s.out);
		return 1;
	}
	syms_set_flags(s.syms, (o->lines ? SYMS_LINES : 0) |
		       (o->no_demangle ? SYMS_NO_DEMANGLE : 0) |
		       (o->format->mappings ? SYMS_MAPPINGS : 0));
	s.a.objs = syms_objs(s.syms);
	err = session_start(&s, p);
	start = t0 = now_s();
	/*
	 * A -c run sets up the perf-map watch on /tmp at its first poll
	 * period, not now: adding it walks every dentry the kernel keeps of
	 * /tmp (negative ones too: 10-15 ms of CPU on a host that made many
	 * files there, most of a short run's), and until then the command's
	 * few processes are looked at directly. Other runs start among the
	 * host's processes, where the watch saves a look at each.
	 */
	if (s.cmd)
		s.next_jit_poll = start + JIT_POLL_MS / 1000.0;
	if (o->duration_s > 0)
		s.stop_at = s.stop_watch = t0 + o->duration_s;
	while (!err) {
		double tick = o->interval_s > 0 ?
			      start + o->interval_s * (s.snapshots + 1) : 0;
		int ret = wait_loop(&s, tick);

		if (ret <= 0) {
			err = ret;
			break;
		}
		/* --interval: print what came since the last tick, clear it */
		if (snapshot(&s, p, &t0, true) == -EPIPE)
			break;
	}
	/*
	 * Stop collecting before reading, so the snapshot is consistent:
	 * one store makes every probe inert. Detaching them (slow for
	 * uprobes) waits until the answer is out, at the end.
	 */
	attach_stop(&s.a);
	/* what the CPUs still add up goes into the maps, before any read */
	if (s.a.skel) {
		derr = drain_pend(&s.a);
		if (derr)
			log_err("reading the aggregation: %s", strerror(-derr));
	}
	/*
	 * The stop that ended the wait is served: naming what was gathered
	 * may take its time now. Another signal gives the names up and
	 * prints at once.
	 */
	s.stop_watch = 0;
	stop_reset();
	/* what came while stopping, named now, before END's and the answer */
	events_release(s.events);
	/* END runs once every probe is inert, before the maps print */
	if (s.a.skel && s.rb && !attach_run_special(&s.a, true))
		ring_buffer__consume(s.rb);
	nothers = s.cmd ? cmd_others(&s, others, SCRY_MAX_FOLLOWED) : 0;
	if (s.a.skel && s.rb) {
		derr = snapshot(&s, p, &t0, false);
		if (derr != -EPIPE)
			err = err ? : derr;
	}
	/* the printed stream failed: said once; a closed pipe is not */
	derr = events_error(s.events);
	if (derr && derr != -EPIPE) {
		log_err("writing the output: %s", strerror(-derr));
		err = err ? : derr;
	}
	/* the answer is out; now the command, and all it started, ends */
	cmd_stop(s.cmd, others, nothers);
	cmd_report(s.cmd);
	/* a loss like the engine's, and said like them (out_stats) */
	if (s.notices_skipped || s.done_pending < s.npending)
		fprintf(stderr, "%llu processes not read in time (their names "
			"may be missing)\n", (unsigned long long)
			(s.notices_skipped + s.npending - s.done_pending));
	free(s.pending);
	cmd_free(s.cmd);
	unwind_report(&s);
	unwind_store_free(s.unwind);
	for (i = 0; i < s.npidfds; i++)
		if (s.pidfds[i] >= 0)
			close(s.pidfds[i]);
	ring_buffer__free(s.rb);
	events_free(s.events);
	syms_free(s.syms);
	outfile_free(s.out);
	if (s.watching) {
		/* (no pthread_cancel: under ASan its sigtimedwait is not a
		 * cancellation point) */
		s.unwatch = true;
		pthread_kill(s.watcher, WATCH_WAKE);
		pthread_join(s.watcher, NULL);
	}
	if (s.stopfd >= 0)
		close(s.stopfd);
	/*
	 * The answer is written, -o closed and the status known: only now
	 * do the probes go, slow closes handed to a child (detach.c). What
	 * stdio still buffers is flushed by this process's exit alone.
	 */
	attach_close(&s.a);
	if (err && s.a.usage_error)
		return 2;
	return err ? 1 : 0;
}
