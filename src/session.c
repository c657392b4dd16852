// SPDX-License-Identifier: GPL-2.0
/*
 * session: attach, wait, drain, print.
 *
 * The wait is one poll() over: a signalfd (SIGINT, SIGTERM, SIGHUP), one
 * pidfd per traced process (readable when it exits), the engine's notice
 * ring buffer (new pids, exec and code mmaps: mappings to read and unwind
 * tables to load), the -d deadline, the --interval ticks, and a short
 * timeout to read JITs' perf maps while their processes live.
 * Whatever ends the wait, the probes are detached first and everything
 * aggregated so far is printed: nothing collected is lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/drain.h>
#include <scry/events.h>
#include <scry/expr.h>
#include <scry/format.h>
#include <scry/log.h>
#include <scry/out.h>
#include <scry/outfile.h>
#include <scry/plan.h>
#include <scry/report.h>
#include <scry/session.h>
#include <scry/source.h>
#include <scry/sym.h>
#include <scry/unwind.h>
#include "scry.skel.h"

#define JIT_POLL_MS	250

struct session {
	const struct scry_opts *o;
	struct attach a;
	struct syms *syms;
	struct unwind_store *unwind;	/* DWARF tables, NULL with --unwind=fp */
	struct ring_buffer *rb;
	struct outfile *out;		/* -o FILE or stdout, opened first */
	int sigfd;
	int pidfds[SCRY_MAX_TARGETS];	/* -1 once the process exited */
	int npidfds;
	int nalive;
	bool no_pidfd;		/* pidfd_open unsupported (valgrind): poll pids */
	pid_t child;		/* -c command, or 0 */
	int child_status;
	bool child_reaped;
	int release_fd;		/* write end: lets the -c child exec */
	double stop_at;		/* -d deadline, or 0 */
	double next_jit_poll;	/* when to look at perf maps again */
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

static int on_notice(void *ctx, void *data, size_t len)
{
	struct session *s = ctx;
	const struct scry_notice *n = data;
	int err;

	if (len < sizeof(*n))
		return 0;
	/*
	 * A first sighting only adds: re-reading a process that is exiting
	 * would swap a good snapshot for a half torn-down one. Mappings that
	 * change (exec, code mmap) come as SCRY_NOTICE_MAPS, also for -p and
	 * -c processes forked but not yet exec'ed when first snapshotted.
	 */
	if (n->kind == SCRY_NOTICE_MAPS)
		err = syms_refresh_pid(s->syms, n->pid);
	else
		err = syms_add_pid(s->syms, n->pid);
	log_debug("notice at %.3f: pid %d %s: %s", now_s(), n->pid, n->kind == SCRY_NOTICE_MAPS ?
		  "mappings changed" : "first seen", err ? strerror(-err) :
		  "mappings read");
	if (s->unwind)
		unwind_store_pid(s->unwind, n->pid,	/* gone: FP is all */
				 syms_addrspace(s->syms, n->pid));
	return 0;
}

/*
 * A simple command (words, no shell syntax) is exec'ed directly, so the
 * traced process is the program from its first instruction, as dtrace -c
 * does; anything else runs through /bin/sh, whose children are followed.
 * The argv is built before fork: the child is traced once released, and
 * must not run (or allocate in) scry's code by then.
 */
static char **cmd_argv(const char *cmd)
{
	static const char *shell[] = { "/bin/sh", "-c", NULL, NULL };
	char **argv, *copy, *save = NULL;
	int n = 0;

	if (strpbrk(cmd, ";&|<>()$`\\\"'*?[]~{}=#\n")) {
		shell[2] = cmd;
		return (char **)shell;
	}
	copy = strdup(cmd);
	argv = calloc(strlen(cmd) / 2 + 2, sizeof(*argv));
	if (!copy || !argv) {
		free(copy);
		free(argv);
		return NULL;
	}
	for (argv[n] = strtok_r(copy, " \t", &save); argv[n];
	     argv[++n] = strtok_r(NULL, " \t", &save))
		;
	return argv;
}

static void cmd_argv_free(char **argv)
{
	if (!argv || !strcmp(argv[0], "/bin/sh"))
		return;
	free(argv[0]);
	free(argv);
}

/*
 * -c: fork a child that waits until the probes are attached and the
 * child is in the kernel's target set, then execs the command through
 * /bin/sh (so quoting works as typed). Its pre-exec wait is not traced:
 * it becomes a target only while blocked, before being released.
 */
static int launch(struct session *s)
{
	char **argv = cmd_argv(s->o->cmd);
	int pfd[2];
	char c;
	pid_t pid;

	if (!argv)
		return -ENOMEM;
	if (pipe2(pfd, O_CLOEXEC)) {
		cmd_argv_free(argv);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		cmd_argv_free(argv);
		return -errno;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(127);	/* scry gave up before attaching */
		execvp(argv[0], argv);
		_exit(127);
	}
	cmd_argv_free(argv);
	close(pfd[0]);
	s->child = pid;
	s->release_fd = pfd[1];
	return 0;
}

static int release_child(struct session *s)
{
	char go = 1;

	if (write(s->release_fd, &go, 1) != 1)
		return -errno;
	close(s->release_fd);
	s->release_fd = -1;
	return 0;
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

static void reap_child(struct session *s);

/* Without pidfds: a target is gone once kill(pid, 0) fails (or reaped). */
static void check_alive(struct session *s)
{
	int i;

	reap_child(s);
	for (i = 0; i < s->npidfds; i++) {
		if (s->pidfds[i] == -2)
			continue;
		if ((s->a.pids[i] == s->child && s->child_reaped) ||
		    (s->a.pids[i] != s->child && kill(s->a.pids[i], 0) &&
		     errno == ESRCH)) {
			s->pidfds[i] = -2;
			s->nalive--;
		}
	}
}

static void reap_child(struct session *s)
{
	if (s->child && !s->child_reaped &&
	    waitpid(s->child, &s->child_status, WNOHANG) == s->child)
		s->child_reaped = true;
}

/*
 * Wait for the first stop condition (returns 0) or the next --interval
 * tick at @tick (returns 1; 0 means no ticks). Returns -errno on failure.
 */
static int wait_loop(struct session *s, double tick)
{
	struct pollfd fds[SCRY_MAX_TARGETS + 2];
	double deadline = s->stop_at;
	int i, n, timeout;

	for (;;) {
		n = 0;
		fds[n++] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
		fds[n++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(s->rb),
					    .events = POLLIN };
		/* poll() skips the negative fds of exited processes */
		for (i = 0; i < s->npidfds; i++)
			fds[n++] = (struct pollfd){ .fd = s->pidfds[i],
						    .events = POLLIN };
		/* wake now and then to read JITs' growing perf maps */
		timeout = s->no_pidfd ? 100 : JIT_POLL_MS;
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
		if (events_exit(s->events))
			return 0;	/* a clause called exit() */
		if (now_s() >= s->next_jit_poll) {
			syms_poll_jit(s->syms);
			s->next_jit_poll = now_s() + JIT_POLL_MS / 1000.0;
		}
		if (fds[0].revents & POLLIN)
			return 0;
		for (i = 0; i < s->npidfds; i++) {
			if (s->pidfds[i] < 0 || !(fds[2 + i].revents & POLLIN))
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
 * Format the whole snapshot in memory, then write it at once (stdout or
 * -o, outfile.c says how and reports its failures), so snapshots never
 * interleave.
 */
static int print_report(const struct session *s, struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int err;

	report_sort(r);
	if (s->o->top)
		report_keep_top(r, s->o->top);
	m = open_memstream(&buf, &len);
	if (!m)
		return -errno;
	err = s->o->format->print(m, r);
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (err)
		log_err("formatting the report: %s", strerror(-err));
	else
		err = outfile_write(s->out, buf, len);
	free(buf);
	out_stats(stderr, r);
	return err;
}

static void report_child(struct session *s)
{
	if (!s->child)
		return;
	if (!s->child_reaped) {
		/* stopped by -d or a signal: leave the command running */
		log_info("-c: command (pid %d) still running", s->child);
		return;
	}
	if (WIFEXITED(s->child_status)) {
		if (WEXITSTATUS(s->child_status))
			log_err("-c: command exited with status %d",
				WEXITSTATUS(s->child_status));
	} else if (WIFSIGNALED(s->child_status)) {
		log_err("-c: command killed by signal %d (%s)",
			WTERMSIG(s->child_status),
			strsignal(WTERMSIG(s->child_status)));
	}
}

static void session_banner(const struct session *s, const struct plan *p)
{
	char who[64] = "all processes";

	if (s->child)
		snprintf(who, sizeof(who), "the command (pid %d)", s->child);
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
		.max_rows = bpf_map__max_entries(skel->maps.unwind_rows),
		.tables_fd = bpf_map__fd(skel->maps.unwind_tables),
		.max_tables = bpf_map__max_entries(skel->maps.unwind_tables),
		.procs_fd = bpf_map__fd(skel->maps.unwind_procs),
	};
	int i;

	if (!attach_dwarf(&s->a))
		return 0;
	s->unwind = unwind_store_new(&maps);
	if (!s->unwind) {
		log_err("DWARF unwinder: %s", strerror(errno));
		return -errno;
	}
	for (i = 0; i < s->o->npids; i++)
		unwind_store_pid(s->unwind, s->o->pids[i],
				 syms_addrspace(s->syms, s->o->pids[i]));
	return 0;
}

static void unwind_report(const struct session *s)
{
	const struct unwind_store_stats *st;

	if (!s->unwind || !(s->o->stats || s->o->verbose))
		return;
	st = unwind_store_stats(s->unwind);
	fprintf(stderr, "scry: unwind tables: %zu files, %zu tables, %u rows "
		"(%.1f MiB of %.1f MiB), %zu processes; %zu files without CFI"
		"\n", st->files, st->tables, st->rows_used,
		st->rows_used * 8.0 / (1 << 20),
		bpf_map__max_entries(s->a.skel->maps.unwind_rows) * 8.0 /
		(1 << 20), st->procs, st->no_cfi);
	if (st->rows_full || st->tables_full || st->procs_failed)
		fprintf(stderr, "scry: unwind tables not loaded: %zu (rows "
			"full: raise --max-unwind-rows), %zu processes\n",
			st->rows_full + st->tables_full, st->procs_failed);
	if (st->too_big)
		fprintf(stderr, "scry: unwind tables not built: %zu files with "
			"more than %u rows (frame pointers used there)\n",
			st->too_big, UNWIND_MAX_ROWS);
	unwind_stats_print(stderr, "scry: unwind rows", &st->sum);
}

static int session_start(struct session *s, const struct plan *p)
{
	sigset_t mask;
	int err, i;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -errno;
	s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (s->sigfd < 0)
		return -errno;
	for (i = 0; i < s->o->npids; i++) {
		err = attach_add_target(&s->a, s->o->pids[i]);
		if (err)
			return err;
		syms_add_pid(s->syms, s->o->pids[i]);
	}
	if (s->o->cmd) {
		err = launch(s);
		if (err) {
			log_err("-c: cannot start the command: %s",
				strerror(-err));
			return err;
		}
		/* -a: the command runs, everything is traced (bpftrace's -c) */
		s->a.filter_targets = !s->o->all;
		s->a.follow_forks = true;
	}
	s->a.cpid = s->child;
	err = attach_load(&s->a);
	err = err ? : unwind_start(s);
	err = err ? : attach_probes(&s->a);
	if (err)
		return err;
	s->rb = ring_buffer__new(bpf_map__fd(s->a.skel->maps.notices),
				 on_notice, s, NULL);
	if (!s->rb)
		return -errno;
	/* what clauses print, in order as it comes: BEGIN's first */
	s->events = events_new(&s->a, s->syms, stdout);
	if (!s->events ||
	    ring_buffer__add(s->rb, bpf_map__fd(s->a.skel->maps.events),
			     events_consume, s->events))
		return -ENOMEM;
	ring_buffer__consume(s->rb);
	/* the child is a target and watched before it may run, and exit */
	if (s->child) {
		err = attach_add_target(&s->a, s->child);
		if (err) {
			log_err("-c: cannot trace the command: %s",
				strerror(-err));
			return err;
		}
	}
	err = watch_targets(s);
	if (!err && s->child)
		err = release_child(s);
	if (err)
		return err;
	session_banner(s, p);
	return 0;
}

/* Drain (and with @clear, empty) the aggregation and print it. */
static int snapshot(struct session *s, const struct plan *p, double *t0,
		    bool clear)
{
	struct report r = {};
	double now = now_s();
	struct timespec wall;
	int err;

	ring_buffer__consume(s->rb);
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
	struct session s = { .o = o, .sigfd = -1, .release_fd = -1 };
	double start, t0;
	int err, i;

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
	err = session_start(&s, p);
	start = t0 = now_s();
	if (o->duration_s > 0)
		s.stop_at = t0 + o->duration_s;
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
	/* stop collecting before reading, so the snapshot is consistent */
	for (i = 0; i < s.a.nlinks; i++)
		bpf_link__destroy(s.a.links[i]);
	s.a.nlinks = 0;
	reap_child(&s);
	/* END runs once every probe is detached, before the maps print */
	if (s.a.skel && s.rb && !attach_run_special(&s.a, true))
		ring_buffer__consume(s.rb);
	if (s.a.skel && s.rb) {
		int derr = snapshot(&s, p, &t0, false);

		if (derr != -EPIPE)
			err = err ? : derr;
	}
	report_child(&s);
	unwind_report(&s);
	unwind_store_free(s.unwind);
	if (s.release_fd >= 0)
		close(s.release_fd);	/* a child never released exits */
	for (i = 0; i < s.npidfds; i++)
		if (s.pidfds[i] >= 0)
			close(s.pidfds[i]);
	ring_buffer__free(s.rb);
	events_free(s.events);
	attach_close(&s.a);
	syms_free(s.syms);
	outfile_free(s.out);
	if (s.sigfd >= 0)
		close(s.sigfd);
	if (err && s.a.usage_error)
		return 2;
	return err ? 1 : 0;
}
