// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer: addresses -> report frames. This file only composes: per
 * process it keeps the mappings (addrspace) and the JIT perf map
 * (jitmap); what a file yields comes from the file cache (obj: symbols,
 * debug files, DWARF), the kernel's from ksym.
 *
 * Stacks are drained long after they were captured, when the process may
 * have exited or its binary been replaced, so everything a later lookup
 * needs is captured when a pid is first added: the code mappings and an
 * open descriptor for every mapped file. Symbol tables are only read on
 * the first lookup that needs them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <scry/addrspace.h>
#include <scry/demangle.h>
#include <scry/dwinfo.h>
#include <scry/framememo.h>
#include <scry/fsafe.h>
#include <scry/intern.h>
#include <scry/jitmap.h>
#include <scry/ksym.h>
#include <scry/log.h>
#include <scry/obj.h>
#include <scry/proc.h>
#include <scry/report.h>
#include <scry/stop.h>
#include <scry/sym.h>
#include <scry/symtab.h>

#define PID_BUCKETS	1024
/*
 * JIT frames share one module name whatever the pid, so stacks of
 * several processes running the same JIT fold together.
 */
#define JIT_MODULE	"[jit]"

/* /tmp/perf-PID.map as last read, and what the file was then. */
struct jit {
	struct jitmap *map;	/* NULL until read */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	bool reported;		/* truncation said once */
};

struct sproc {
	struct sproc *next;
	int pid;
	bool gone;		/* implicit add failed: do not retry */
	double exited;		/* when its exit was told (syms_exited), or 0 */
	/*
	 * Notices were lost since the exit was told: the pid may now be a
	 * new process's that was never announced. Looked at once, by the
	 * next add (syms_notices_lost).
	 */
	bool recheck;
	unsigned int looked;	/* the drain pass that last asked /proc */
	/*
	 * Announced by the engine (syms_notice_pid): its execs and code
	 * mmaps are told, so nothing is asked of /proc to find them, and
	 * @gen is the address space its mappings were read for.
	 */
	bool told;
	__u32 gen;
	double caught_up;	/* when syms_catch_up read it, 0 since a notice */
	bool exe_known;		/* exe_dev/ino read (not for told ones) */
	bool no_exe;		/* not told, and no exe when read */
	dev_t exe_dev;		/* what /proc/PID/exe was at the last read */
	ino_t exe_ino;
	struct addrspace *as;
	struct jit jit;
};

struct syms {
	struct obj_cache *objs;
	struct ksym_table *k;
	bool k_tried;
	int k_err;		/* sticky load error */
	struct sproc *procs[PID_BUCKETS];
	unsigned int flags;	/* SYMS_* */
	struct demangler *dem;
	/*
	 * Perf maps are re-read when inotify says /tmp/perf-PID.map was
	 * written (one watch on /tmp), not by a stat of every live process's
	 * path several times a second. -1: not set up yet (or no inotify:
	 * then every live process is polled, as before).
	 */
	int jit_watch;
	bool jit_tried;
	/*
	 * A drain (syms_drain_begin) names thousands of rows and frames of
	 * a few hundred processes: each live one is looked at in /proc (its
	 * exe, its perf map) once a pass, not once a row or a missed frame.
	 */
	unsigned int pass;
	bool draining;
	struct framememo *memo;	/* between syms_memo_begin() and _end() */
};

/* ---- frames ---------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* One logical frame before it is copied out; strings are borrowed. */
struct lframe {
	const char *sym;
	__u64 off;
	bool inlined;
	const char *file;
	int line;
};

static int frame_fill(struct syms *s, struct report_frame *fr,
		      const char *module, __u64 addr, const struct lframe *lf)
{
	memset(fr, 0, sizeof(*fr));
	fr->addr = addr;
	fr->off = lf->off;
	fr->inlined = lf->inlined;
	fr->line = lf->line;
	if (module && !(fr->module = intern(module)))
		goto nomem;
	if (lf->sym && !(fr->sym = intern_take(demangle_dup(
			s->flags & SYMS_NO_DEMANGLE ? NULL : s->dem, lf->sym))))
		goto nomem;
	if (lf->file && !(fr->file = intern(base_name(lf->file))))
		goto nomem;
	return 0;
nomem:
	syms_frame_clear(fr);
	return -ENOMEM;
}

void syms_frame_clear(struct report_frame *fr)
{
	if (!fr)
		return;
	intern_put(fr->module);
	intern_put(fr->sym);
	intern_put(fr->file);
	report_mapping_free(fr->map);
	fr->module = NULL;
	fr->sym = NULL;
	fr->file = NULL;
	fr->map = NULL;
	fr->line = 0;
}

int syms_frame_copy(struct report_frame *dst, const struct report_frame *src)
{
	struct report_mapping *m = NULL;

	if (src->map) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return -ENOMEM;
		*m = *src->map;
		m->file = src->map->file ? strdup(src->map->file) : NULL;
		m->build_id = src->map->build_id ?
			      strdup(src->map->build_id) : NULL;
		if ((src->map->file && !m->file) ||
		    (src->map->build_id && !m->build_id)) {
			report_mapping_free(m);
			return -ENOMEM;
		}
	}
	*dst = *src;
	dst->map = m;
	intern_ref(dst->module);
	intern_ref(dst->sym);
	intern_ref(dst->file);
	return 0;
}

/* ---- kernel ---------------------------------------------------------- */

int syms_kernel(struct syms *s, __u64 addr, struct report_frame *out)
{
	const char *name, *module;
	__u64 off;
	int ret;

	if (!s || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->kernel = true;
	if (!s->k_tried && stop_requested())
		return -EINTR;		/* asked to stop: no names, at once */
	if (!s->k_tried) {
		s->k = ksym_load();
		/* Loaded once: a failure is not retried for every frame. */
		s->k_err = s->k ? 0 : -errno;
		s->k_tried = s->k_err != -EINTR;
	}
	if (!s->k)
		return s->k_err ? s->k_err : -ENOENT;
	ret = ksym_find(s->k, addr, &name, &module, &off);
	if (ret)
		return ret == -ENOENT ? 1 : ret;
	out->module = intern(module);
	out->sym = intern(name);
	if (!out->module || !out->sym) {
		syms_frame_clear(out);
		return -ENOMEM;
	}
	out->off = off;
	return 1;
}

bool syms_is_bpf_frame(const struct report_frame *fr)
{
	/*
	 * Everything between the traced event and scry's program: the
	 * tracepoint's iterator (__traceiter_*, when the tracepoint has two
	 * or more callbacks: another BPF program on sched_switch), the BPF
	 * trampoline, the program. Trimming all of it keeps one stack one
	 * key whichever of them the kernel's unwinder shows.
	 */
	static const char *const prefixes[] = {
		"bpf_prog_", "bpf_trampoline_", "bpf_trace_run",
		"__bpf_trace_", "__traceiter_", "perf_trace_",
		"trace_event_raw_event_", "trace_call_bpf",
	};
	size_t i;

	if (!fr || !fr->sym)
		return false;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(fr->sym, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* ---- files ----------------------------------------------------------- */

/*
 * The out-of-line function: named by the ELF symbol as without DWARF
 * (so names do not change with debug info), else by DWARF's @fn.
 */
static void real_frame(const struct symtab *t, __u64 vaddr,
		       const struct dwinfo_func *fn, struct lframe *lf)
{
	const struct symtab_sym *y = symtab_find(t, vaddr);

	memset(lf, 0, sizeof(*lf));
	lf->off = vaddr;
	if (y) {
		lf->sym = symtab_name(t, y);
		lf->off = vaddr - y->addr;
	} else if (fn && (lf->sym = fn->name)) {
		lf->off = fn->has_entry && fn->entry <= vaddr ?
			  vaddr - fn->entry : 0;
	}
	if (fn) {
		lf->file = fn->file;
		lf->line = fn->line;
	}
}

/*
 * Logical frames for @vaddr of @o: inlined functions innermost first,
 * then the real one. With --lines the innermost gets the pc's line and
 * each outer frame the line its inlined callee was called from.
 */
static int file_frames(struct syms *s, const char *module, struct obj *o,
		       __u64 addr, __u64 vaddr, struct report_frame *out,
		       int max)
{
	struct dwinfo_func fn[DWINFO_MAX_INLINE + 1];
	struct lframe lf[DWINFO_MAX_INLINE + 1];
	const struct symtab *t = obj_symtab(o);
	struct dwinfo *dw;
	bool real = false;
	int i, k = -ENOENT, n, err;

	if (!t)
		return -errno;
	dw = obj_dwinfo(o);
	if (dw)
		k = dwinfo_funcs(dw, vaddr, fn, max, s->flags & SYMS_LINES);
	for (i = 0; i < k; i++) {
		if (!fn[i].inlined) {
			real_frame(t, vaddr, &fn[i], &lf[i]);
			real = true;
		} else {
			memset(&lf[i], 0, sizeof(lf[i]));
			lf[i].sym = fn[i].name;
			lf[i].inlined = true;
			lf[i].file = fn[i].file;
			lf[i].line = fn[i].line;
		}
	}
	n = k > 0 ? k : 0;
	/* No DWARF function here (or a broken chain): the ELF symbol. */
	if (!real && n < max) {
		real_frame(t, vaddr, NULL, &lf[n]);
		if (k >= 0) {
			lf[n].file = fn[n].file;
			lf[n].line = fn[n].line;
		}
		n++;
	}
	for (i = 0; i < n; i++) {
		err = frame_fill(s, &out[i], module, addr, &lf[i]);
		if (err) {
			while (i--)
				syms_frame_clear(&out[i]);
			return err;
		}
	}
	return n;
}

/* ---- processes ------------------------------------------------------- */

static struct sproc **proc_slot(struct syms *s, int pid)
{
	struct sproc **pp = &s->procs[(unsigned int)pid % PID_BUCKETS];

	while (*pp && (*pp)->pid != pid)
		pp = &(*pp)->next;
	return pp;
}

static void proc_free(struct sproc *p)
{
	addrspace_free(p->as);
	jitmap_free(p->jit.map);
	free(p);
}

static void jit_path(char *buf, size_t size, int pid)
{
	snprintf(buf, size, "/tmp/perf-%d.map", pid);
}

/* Say once per process what the bounds left out of its perf map. */
static void jit_report(struct sproc *p)
{
	const struct jitmap_stats *st = jitmap_stats(p->jit.map);

	if (p->jit.reported || !jitmap_truncated(p->jit.map))
		return;
	p->jit.reported = true;
	log_err("/tmp/perf-%d.map: %llu lines skipped (longer than %d bytes), "
		"%llu entries past the first %d, %llu bytes past the first "
		"%llu MiB not read; JIT frames there stay unnamed", p->pid,
		(unsigned long long)st->long_lines, JITMAP_LINE_MAX,
		(unsigned long long)st->over_entries, JITMAP_MAX_ENTRIES,
		(unsigned long long)st->over_bytes,
		(unsigned long long)(JITMAP_MAX_BYTES >> 20));
}

/*
 * A perf map last written before its process started is an earlier
 * process's with the same pid: JITs leave theirs behind for perf to read
 * after they exit, and the names in it are another program's. A second
 * of slack: the start time is good to a tick, and the clocks may drift.
 */
static bool jit_stale(int pid, const struct stat *st)
{
	struct timespec start;

	if (proc_start_time(pid, &start))
		return false;	/* gone, or unknown: as before */
	return st->st_mtim.tv_sec < start.tv_sec - 1;
}

/*
 * Anyone can create files in /tmp: only a regular file owned by the
 * process's user (or root) names its code, and the name itself must
 * not be a symlink (it could point at any file of any user).
 */
static int jit_read(struct sproc *p)
{
	struct fsafe_rules rules = {
		.max_size = ~0ULL,	/* jitmap reads its first bytes only */
		.nofollow = true,
	};
	struct jitmap *n = p->jit.map;
	char path[64];
	struct stat st, owner;
	bool stale;
	int fd, err;

	jit_path(path, sizeof(path), p->pid);
	fd = fsafe_open(path, &rules, &st);
	if (fd < 0)
		return fd;
	/*
	 * The owner check (fsafe's check_owner) made here, after the open
	 * of what fsafe proved a regular file (no side effect) and before a
	 * byte is read: most processes have no perf map, and now only those
	 * that do cost a stat of /proc/PID, not every process read.
	 */
	snprintf(path, sizeof(path), "/proc/%d", p->pid);
	if (stat(path, &owner) || (st.st_uid && st.st_uid != owner.st_uid)) {
		close(fd);
		return -EPERM;
	}
	stale = jit_stale(p->pid, &st);
	if (stale) {
		/* read as empty: its identity is kept below, so it is not
		 * read again until it changes (jit_changed) */
		log_debug("/tmp/perf-%d.map: older than the process: an "
			  "earlier process's with the same pid, not read",
			  p->pid);
		jitmap_free(n);
		p->jit.map = n = NULL;
	}
	if (!n)
		n = jitmap_new();
	err = !n ? -ENOMEM : stale ? 0 : jitmap_read(n, fd);
	close(fd);
	if (!p->jit.map && err)
		jitmap_free(n);
	if (err)
		return err;
	p->jit.map = n;
	p->jit.dev = st.st_dev;
	p->jit.ino = st.st_ino;
	p->jit.size = st.st_size;
	p->jit.mtime = st.st_mtim;
	jit_report(p);
	return 0;
}

/* Has the perf map appeared or been written since it was read? */
static bool jit_changed(const struct sproc *p)
{
	const struct jit *j = &p->jit;
	char path[64];
	struct stat st;

	jit_path(path, sizeof(path), p->pid);
	if (lstat(path, &st))
		return false;
	return !j->map || j->dev != st.st_dev || j->ino != st.st_ino ||
	       j->size != st.st_size ||
	       j->mtime.tv_sec != st.st_mtim.tv_sec ||
	       j->mtime.tv_nsec != st.st_mtim.tv_nsec;
}

/*
 * True the first time @p is asked about in this drain pass (or always,
 * outside a drain): whether to look at its /proc and perf map now.
 */
static bool first_look(const struct syms *s, struct sproc *p)
{
	if (!s->draining)
		return true;
	if (p->looked == s->pass)
		return false;
	p->looked = s->pass;
	return true;
}

static bool pid_alive(int pid)
{
	return !kill(pid, 0) || errno == EPERM;
}

/*
 * Only while the process lives: a dead one's map is never read, and was
 * polled (an lstat each) until the end of the run, thousands a second
 * on a host that starts many short processes.
 */
static void jit_refresh(struct sproc *p)
{
	if (!p->gone && !p->exited && jit_changed(p) && pid_alive(p->pid))
		jit_read(p);
}

/*
 * Code outside any ELF mapping: JIT code if the perf map names it. A JIT
 * appends as it compiles, so a miss reads the map once more while the
 * process lives and the file has changed. Returns 0 when not named.
 */
static int jit_frame(struct syms *s, struct sproc *p, __u64 addr,
		     struct report_frame *out)
{
	struct lframe lf = {};
	__u64 start;
	int err;

	lf.sym = p->jit.map ? jitmap_lookup(p->jit.map, addr, &start) : NULL;
	if (!lf.sym && first_look(s, p)) {
		jit_refresh(p);
		lf.sym = p->jit.map ? jitmap_lookup(p->jit.map, addr, &start) :
			 NULL;
	}
	if (!lf.sym)
		return 0;
	lf.off = addr - start;
	err = frame_fill(s, out, JIT_MODULE, addr, &lf);
	return err ? err : 1;
}

static struct sproc *proc_new(int pid)
{
	struct sproc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->as = addrspace_new();
	if (!p->as) {
		free(p);
		return NULL;
	}
	return p;
}

/* The inode /proc/@pid/exe leads to; false when it cannot be known. */
static bool exe_id(int pid, dev_t *dev, ino_t *ino)
{
	char path[40];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (stat(path, &st))
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

/*
 * Has @p exec'ed another binary since its mappings were read? A process
 * read just before it exec'ed (a -p target still between fork and exec,
 * an exec before the probes were attached) sends no notice of it, and
 * its old snapshot would name nothing of what now runs.
 */
static bool exec_since(const struct sproc *p)
{
	dev_t dev;
	ino_t ino;

	/*
	 * The engine tells its execs. No exe when it was read: a kernel
	 * thread (it never execs) or a process already exiting; asked again
	 * for every row of a kernel thread, it was a stat() each.
	 */
	if (p->told || p->no_exe)
		return false;
	return exe_id(p->pid, &dev, &ino) &&
	       (!p->exe_known || dev != p->exe_dev || ino != p->exe_ino);
}

/*
 * Read @p's mappings (into what it has) and its perf map. Its exe is
 * noted only when no notice will tell of its execs: a busy host starts
 * processes by the hundred a second, and each costs a /proc/PID/maps
 * read and nothing more.
 */
static int sproc_read(struct syms *s, struct sproc *p)
{
	int err;

	p->exe_known = !p->told &&
		       exe_id(p->pid, &p->exe_dev, &p->exe_ino);
	p->no_exe = !p->told && !p->exe_known;
	err = addrspace_read(p->as, s->objs, p->pid);
	if (err)
		return err;
	/* Most processes have no perf map: its absence is no error. */
	jit_read(p);
	return 0;
}

static void jit_poll_all(struct syms *s)
{
	struct sproc *p;
	size_t i;

	for (i = 0; i < PID_BUCKETS; i++)
		for (p = s->procs[i]; p; p = p->next)
			jit_refresh(p);
}

/* The pid of "perf-PID.map", or 0. */
static int jit_name_pid(const char *name)
{
	const char *d = name + 5;	/* after "perf-" */
	long pid = 0;

	/* any user names files in /tmp: digits only, no sign, no space */
	if (strncmp(name, "perf-", 5) || *d < '1' || *d > '9')
		return 0;
	for (; *d >= '0' && *d <= '9'; d++) {
		pid = pid * 10 + (*d - '0');
		if (pid > 4194304)	/* PID_MAX_LIMIT */
			return 0;
	}
	return strcmp(d, ".map") ? 0 : (int)pid;
}

void syms_poll_jit(struct syms *s)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	struct sproc *p;
	ssize_t len;
	char *at;
	int pid, reads;

	if (!s)
		return;
	if (!s->jit_tried) {
		s->jit_tried = true;
		s->jit_watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (s->jit_watch >= 0 &&
		    inotify_add_watch(s->jit_watch, "/tmp", IN_CREATE |
				      IN_MODIFY | IN_MOVED_TO |
				      IN_CLOSE_WRITE | IN_ONLYDIR) < 0) {
			close(s->jit_watch);
			s->jit_watch = -1;
		}
		/* what was written before the watch: looked at once */
		jit_poll_all(s);
		return;
	}
	if (s->jit_watch < 0) {
		jit_poll_all(s);
		return;
	}
	/*
	 * A few reads a poll: users can write files in /tmp faster than one
	 * thread reads their events, and the main loop must get back to the
	 * ring buffers, ticks and -d. What is left waits for the next poll
	 * (the queue overflowing means every process is looked at).
	 */
	for (reads = 0; reads < 8 &&
	     (len = read(s->jit_watch, buf, sizeof(buf))) > 0; reads++) {
		for (at = buf; at < buf + len;
		     at += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)at;
			if (ev->mask & IN_Q_OVERFLOW) {
				jit_poll_all(s);	/* events lost */
				continue;
			}
			pid = ev->len ? jit_name_pid(ev->name) : 0;
			if (pid && (p = *proc_slot(s, pid)))
				jit_refresh(p);
		}
	}
}

/* An entry for @pid, in the empty *pp, that says /proc has nothing of it. */
static struct sproc *put_gone(struct sproc **pp, int pid)
{
	struct sproc *p = proc_new(pid);

	if (p)
		p->gone = true;
	*pp = p;
	return p;
}

/*
 * A new entry for @pid, read from /proc, in *pp's place: the entry there
 * (a negative one left by a failed implicit add, or a gone process's)
 * is freed. @told: the engine announced the process (syms_notice_pid).
 */
static int proc_put_new(struct syms *s, struct sproc **pp, int pid,
			bool told)
{
	struct sproc *p = proc_new(pid);
	int err;

	if (!p)
		return -ENOMEM;
	p->told = told;
	err = sproc_read(s, p);
	if (err) {
		proc_free(p);
		return err;
	}
	if (*pp) {
		p->next = (*pp)->next;
		proc_free(*pp);
	}
	*pp = p;
	return 0;
}

/*
 * Notices were lost after @pp's process exited (or was found gone): its
 * pid may be a new process's, never announced. One look at /proc.
 */
static int add_recheck(struct syms *s, struct sproc **pp)
{
	struct sproc *p = *pp;

	p->recheck = false;
	if (p->gone)	/* a failure leaves the old entry as it was */
		return proc_put_new(s, pp, p->pid, false);
	if (!exec_since(p))
		return 0;	/* the same binary: the old snapshot stands */
	p->exited = 0;
	return sproc_read(s, p);
}

int syms_add_pid(struct syms *s, int pid)
{
	struct sproc **pp;
	int err;

	if (!s || pid <= 0)
		return -EINVAL;
	pp = proc_slot(s, pid);
	if (!*pp) {
		/*
		 * A failure is remembered (a gone entry), so a dead pid or a
		 * kernel thread costs one /proc lookup, not one per row or
		 * frame; a notice or a refresh replaces the entry. Not one
		 * of scry's own (no memory, no fd left): the process may be
		 * alive, and is asked again.
		 */
		err = proc_put_new(s, pp, pid, false);
		if (err && err != -ENOMEM && err != -EMFILE &&
		    err != -ENFILE && err != -EINTR && err != -EAGAIN)
			put_gone(pp, pid);
		return err;
	}
	/*
	 * The kernel said it exited, or its /proc was gone when looked at
	 * (a failed add, its entry kept so): nothing of it is asked of /proc
	 * again. The drain adds the pid of every row, and on a busy host
	 * most rows are of processes long gone: asking cost a stat() or
	 * more per row. A reused pid is announced by its own notice
	 * (syms_notice_pid), or, when notices were lost, looked at once.
	 */
	if ((*pp)->recheck)
		return add_recheck(s, pp);
	if ((*pp)->exited || (*pp)->gone)
		return (*pp)->gone ? -ESRCH : 0;
	if (!first_look(s, *pp))
		return 0;
	/*
	 * Known and alive: read again only after an exec we were not told
	 * of; else only its perf map may have grown since (a JIT writes it
	 * after mapping the code), and the process may be gone by the time
	 * its frames are resolved, so read that now.
	 */
	if (exec_since(*pp))
		sproc_read(s, *pp);	/* gone meanwhile: keep it */
	/* with the inotify watch, a write is told (syms_poll_jit) */
	if (s->jit_watch < 0)
		jit_refresh(*pp);
	return 0;
}

void syms_drain_begin(struct syms *s)
{
	if (!s)
		return;
	/* perf maps written since the last poll: read before naming */
	if (s->jit_tried)
		syms_poll_jit(s);
	s->pass++;
	s->draining = true;
}

void syms_drain_end(struct syms *s)
{
	if (s)
		s->draining = false;
}

void syms_notices_lost(struct syms *s)
{
	struct sproc *p;
	size_t i;

	for (i = 0; s && i < PID_BUCKETS; i++)
		for (p = s->procs[i]; p; p = p->next) {
			p->told = false;	/* exec_since asks /proc */
			p->recheck = p->exited || p->gone;
		}
}

int syms_notice_pid(struct syms *s, int pid, __u32 gen, bool changed)
{
	struct sproc **pp, *p;
	int err;

	if (!s || pid <= 0)
		return -EINVAL;
	pp = proc_slot(s, pid);
	p = *pp;
	if (p)
		p->caught_up = 0;
	/* read for this address space already (a fork's copy) */
	if (p && !p->gone && p->told && !p->exited && p->gen == gen &&
	    !changed)
		return 1;
	if (!p || p->gone) {
		err = proc_put_new(s, pp, pid, true);
		if (err)
			return err;
		p = *pp;
	} else {
		/* if the process is gone, the old mappings stay */
		p->told = true;
		p->exited = 0;
		err = sproc_read(s, p);
		if (err)
			return err;
	}
	p->gen = gen;
	return 0;
}

int syms_refresh_pid(struct syms *s, int pid)
{
	struct sproc **pp;

	if (!s || pid <= 0)
		return -EINVAL;
	pp = proc_slot(s, pid);
	if (!*pp)
		return syms_add_pid(s, pid);
	if ((*pp)->gone)	/* asked for: read again, whatever it was */
		return proc_put_new(s, pp, pid, false);
	/* if the process is gone, the old mappings stay */
	(*pp)->exited = 0;
	return sproc_read(s, *pp);
}

/* How often a process whose frames stay unknown is read again, at most. */
#define CATCH_UP_EVERY_S	0.1

int syms_catch_up(struct syms *s, int pid)
{
	struct sproc **pp;
	struct timespec ts;
	double now;

	if (!s || pid <= 0)
		return -EINVAL;
	pp = proc_slot(s, pid);
	if (!*pp)
		return syms_add_pid(s, pid);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec + ts.tv_nsec / 1e9;
	/*
	 * Once until a notice about it comes, or a while has passed: a
	 * second mmap may race its notice too, but a frame that is never
	 * named (a JIT's, with no perf map) must not cost a read of
	 * /proc/PID/maps each printed event.
	 */
	if ((*pp)->exited || (*pp)->gone ||
	    ((*pp)->caught_up && now - (*pp)->caught_up < CATCH_UP_EVERY_S))
		return 1;
	(*pp)->caught_up = now;
	return sproc_read(s, *pp);
}

int syms_add_mapping(struct syms *s, int pid, const struct addrspace_map *m)
{
	struct sproc **pp;

	if (!s || pid <= 0)
		return -EINVAL;
	pp = proc_slot(s, pid);
	if (!*pp) {
		*pp = proc_new(pid);
		if (!*pp)
			return -ENOMEM;
	}
	/* what the events say is what the process has */
	(*pp)->gone = false;
	(*pp)->exited = 0;
	(*pp)->caught_up = 0;
	return addrspace_add((*pp)->as, m);
}

int syms_fork(struct syms *s, int ppid, int pid)
{
	const struct addrspace_map *m;
	struct sproc **pp, *parent;
	size_t n, i;
	int err = 0;

	if (!s || ppid <= 0 || pid <= 0)
		return -EINVAL;
	parent = *proc_slot(s, ppid);
	pp = proc_slot(s, pid);
	if (!parent || parent->gone || *pp)
		return 0;	/* nothing known to copy, or known already */
	*pp = proc_new(pid);
	if (!*pp)
		return -ENOMEM;
	/* the engine told of the fork: it tells the child's execs too */
	(*pp)->told = true;
	(*pp)->gen = parent->gen;
	(*pp)->exe_known = parent->exe_known;
	(*pp)->exe_dev = parent->exe_dev;
	(*pp)->exe_ino = parent->exe_ino;
	m = addrspace_maps(parent->as, &n);
	for (i = 0; i < n && !err; i++)
		err = addrspace_add((*pp)->as, &m[i]);
	return err;
}

const struct addrspace *syms_addrspace(struct syms *s, int pid)
{
	struct sproc **pp;

	if (!s || pid <= 0)
		return NULL;
	pp = proc_slot(s, pid);
	return *pp && !(*pp)->gone ? (*pp)->as : NULL;
}

void syms_forget_pid(struct syms *s, int pid)
{
	struct sproc **pp, *p;

	if (!s || pid <= 0)
		return;
	pp = proc_slot(s, pid);
	p = *pp;
	if (!p)
		return;
	*pp = p->next;
	proc_free(p);
}

void syms_exited(struct syms *s, int pid)
{
	struct sproc **pp, *p;
	struct timespec ts;

	if (!s || pid <= 0)
		return;
	pp = proc_slot(s, pid);
	/*
	 * Not known (its /proc was gone when its first notice was read):
	 * a gone entry, so no later lookup of its rows asks /proc for it.
	 * It is evicted like any exited process.
	 */
	if (!*pp && !put_gone(pp, pid))
		return;
	p = *pp;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	p->exited = ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A long system-wide run sees processes come and go by the thousand: the
 * mappings of those no row refers to are dropped, so memory follows what
 * the answer holds, not every process that ever ran (issue 14: 1.47 GB
 * after 10 minutes on a busy host).
 */
size_t syms_evict_exited(struct syms *s, double now, double min_age,
			 bool (*keep)(void *ctx, int pid), void *ctx)
{
	struct sproc **pp, *p;
	size_t b, n = 0;

	if (!s)
		return 0;
	for (b = 0; b < PID_BUCKETS; b++) {
		pp = &s->procs[b];
		while ((p = *pp)) {
			if (!p->exited || now - p->exited < min_age ||
			    keep(ctx, p->pid)) {
				pp = &p->next;
				continue;
			}
			*pp = p->next;
			proc_free(p);
			n++;
		}
	}
	return n;
}

/*
 * The snapshot of @pid; a pid never added is snapshotted now, best
 * effort (syms_add_pid keeps a failure as a gone entry). NULL: no memory.
 */
static struct sproc *proc_get(struct syms *s, int pid)
{
	struct sproc **pp = proc_slot(s, pid);

	if (!*pp)
		syms_add_pid(s, pid);
	return *pp;
}

/*
 * SYMS_MAPPINGS: give each of @n frames the mapping @m (file, build-id,
 * range), which pprof lists so that tools can tell binaries and versions
 * apart. Returns @n, or -ENOMEM with the frames cleared.
 */
static int frames_map(const struct syms *s, const struct addrspace_map *m,
		      struct report_frame *out, int n)
{
	const struct obj_id *id = m->obj ? obj_id(m->obj) : NULL;
	struct report_mapping *rm;
	__u32 k;
	int i;

	for (i = 0; i < n && (s->flags & SYMS_MAPPINGS); i++) {
		rm = calloc(1, sizeof(*rm));
		if (!rm)
			goto nomem;
		out[i].map = rm;
		rm->start = m->start;
		rm->limit = m->end;
		rm->offset = m->pgoff;
		rm->file = strdup(m->obj ? obj_path(m->obj) : m->module);
		if (id && id->build_id_len)
			rm->build_id = malloc(id->build_id_len * 2 + 1);
		if (!rm->file || (id && id->build_id_len && !rm->build_id))
			goto nomem;
		for (k = 0; id && k < id->build_id_len; k++)
			sprintf(rm->build_id + 2 * k, "%02x", id->build_id[k]);
	}
	return n;
nomem:
	for (i = 0; i < n; i++)
		syms_frame_clear(&out[i]);
	return -ENOMEM;
}

int syms_user(struct syms *s, int pid, __u64 addr,
	      struct report_frame *out, int max)
{
	const struct addrspace_map *m;
	struct sproc *p;
	__u64 off, vaddr;
	int err;

	if (!s || !out || max < 1 || pid <= 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->addr = addr;

	p = proc_get(s, pid);
	if (!p)
		return -ENOMEM;
	m = addrspace_find(p->as, addr);
	off = m ? addr - m->start + m->pgoff : 0;
	if (m && m->obj && !obj_vaddr(m->obj, off, &vaddr)) {
		struct framememo_key k = {
			.obj = m->obj, .addr = addr, .start = m->start,
			.end = m->end, .pgoff = m->pgoff, .module = m->module,
			.max = max,
		};

		struct framememo *memo = m->module ? s->memo : NULL;

		err = framememo_get(memo, &k, out);
		if (err)
			return err;
		err = file_frames(s, m->module, m->obj, addr, vaddr, out, max);
		err = err < 0 ? err : frames_map(s, m, out, err);
		/* not remembered (no memory): asked again next time */
		if (err > 0 && memo)
			framememo_put(memo, &k, out, err);
		return err;
	}
	/* anonymous, or a file that is not ELF (a JIT's memfd) */
	err = jit_frame(s, p, addr, out);
	if (err)
		return err;	/* named, or -errno */
	if (!m)
		return 1;
	out->module = intern(m->module);
	if (!out->module)
		return -ENOMEM;
	out->off = off;
	return frames_map(s, m, out, 1);
}

/* ---- lifetime -------------------------------------------------------- */

struct syms *syms_new(void)
{
	struct syms *s = calloc(1, sizeof(*s));

	if (!s)
		goto nomem;
	s->jit_watch = -1;
	s->objs = obj_cache_new();
	s->dem = demangle_new();
	if (!s->objs || !s->dem)
		goto nomem;
	return s;
nomem:
	syms_free(s);
	errno = ENOMEM;
	return NULL;
}

void syms_set_flags(struct syms *s, unsigned flags)
{
	if (s)
		s->flags = flags;
}

int syms_memo_begin(struct syms *s)
{
	if (!s || s->memo)
		return 0;
	s->memo = framememo_new();
	return s->memo ? 0 : -ENOMEM;
}

void syms_memo_end(struct syms *s)
{
	if (!s)
		return;
	framememo_free(s->memo);
	s->memo = NULL;
}

struct obj_cache *syms_objs(struct syms *s)
{
	return s ? s->objs : NULL;
}

void syms_free(struct syms *s)
{
	struct sproc *p, *pn;
	size_t b;

	if (!s)
		return;
	for (b = 0; b < PID_BUCKETS; b++) {
		for (p = s->procs[b]; p; p = pn) {
			pn = p->next;
			proc_free(p);
		}
	}
	if (s->jit_watch >= 0)
		close(s->jit_watch);
	framememo_free(s->memo);
	obj_cache_free(s->objs);
	ksym_free(s->k);
	demangle_free(s->dem);
	free(s);
}

#ifdef SCRY_TESTING
/* File symbol tables read so far (not the vDSO): proves sharing. */
unsigned int syms_debug_files_loaded(const struct syms *s);
unsigned int syms_debug_files_loaded(const struct syms *s)
{
	return s ? obj_cache_symtabs_loaded(s->objs) : 0;
}
#endif
