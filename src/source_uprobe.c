// SPDX-License-Identifier: GPL-2.0
/*
 * source_uprobe: uprobe:LIB:FUNC, uretprobe:LIB:FUNC and
 * usdt:BIN:PROVIDER:NAME. LIB and FUNC are resolved here (resolve.c) so
 * errors name what the user wrote; the probes attach per traced process
 * when -p is given (other processes pay nothing), system-wide otherwise
 * (-c too, whose children are followed in the kernel's target filter).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/bind.h>
#include <scry/cmd.h>
#include <scry/expr.h>
#include <scry/list.h>
#include <scry/log.h>
#include <scry/obj.h>
#include <scry/plan.h>
#include <scry/proc.h>
#include <scry/resolve.h>
#include <scry/session.h>
#include <scry/source.h>
#include <scry/uprobe_early.h>
#include "scry.skel.h"

/* FUNC names one function: globs are for listing, for now */
static int uprobe_plan(struct plan *p, struct plan_probe *pp,
		       struct expr_error *err)
{
	int i;

	(void)p;
	for (i = 0; i < pp->ntarget; i++) {
		if (!*pp->target[i])
			return plan_fail(err, pp->target_cols[i], "empty probe "
					 "part: %s probes are written %s",
					 pp->src->name, pp->src->usage);
		if (i && strpbrk(pp->target[i], "*?["))
			return plan_fail(err, pp->target_cols[i], "'%s' is a "
					 "glob: globs are for listing (scry -l "
					 "'%s:...'); name one probe",
					 pp->target[i], pp->src->name);
	}
	return 0;
}

/* Per-pid attachment only for -p; -c and system-wide use -1. */
static int attach_pids(const struct attach *a, int *pids)
{
	int i;

	if (a->follow_forks || a->npids == 0) {
		pids[0] = -1;
		return 1;
	}
	for (i = 0; i < a->npids; i++)
		pids[i] = a->pids[i];
	return a->npids;
}

static int keep(struct attach *a, struct bpf_link *l, const char *what,
		int pid)
{
	int err;

	if (!l) {
		err = -errno;
		if (pid > 0)
			log_err("%s: attach to pid %d failed: %s", what, pid,
				strerror(-err));
		else
			log_err("%s: attach failed: %s", what, strerror(-err));
		return err;
	}
	return attach_keep(a, l);
}

/* The probe as written: "uprobe:libc:malloc", for messages. */
static const char *probe_text(const struct plan_probe *pp, char *buf,
			      size_t len)
{
	int i, n = snprintf(buf, len, "%s", pp->src->name);

	for (i = 0; i < pp->ntarget && n < (int)len; i++)
		n += snprintf(buf + n, len - n, ":%s", pp->target[i]);
	return buf;
}

static int attach_func(struct attach *a, const struct plan_probe *pp,
		       const char *path, __u64 off, int pid)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = pp->cookie0);
	struct bpf_program *prog;
	struct bpf_link *l;
	char what[256];
	int err;

	probe_text(pp, what, sizeof(what));
	if (pp->src == &source_uprobe) {
		prog = attach_clause_prog(a, "uprobe", pp->clause);
		if (!prog)
			return -ENOENT;
		l = bpf_program__attach_uprobe_opts(prog, pid, path, off,
						    &opts);
		return keep(a, l, what, pid);
	}
	prog = attach_clause_prog(a, "uprobe_park", pp->clause);
	if (!prog)
		return -ENOENT;
	l = bpf_program__attach_uprobe_opts(prog, pid, path, off, &opts);
	err = keep(a, l, what, pid);
	if (err)
		return err;
	opts.retprobe = true;
	prog = attach_clause_prog(a, "uretprobe", pp->clause);
	if (!prog)
		return -ENOENT;
	l = bpf_program__attach_uprobe_opts(prog, pid, path, off, &opts);
	return keep(a, l, what, pid);
}

/*
 * LIB as the user means it: the file the traced process maps, else the
 * ld.so cache. For -p with several processes, each may map its own copy.
 */
static int lib_path(struct attach *a, const struct plan_probe *pp, int pid,
		    char *path, size_t len)
{
	char why[RESOLVE_ERR_LEN];
	int err;

	err = resolve_lib(pp->target[0], pid > 0 ? pid : -1, path, len,
			  why, sizeof(why));
	if (err) {
		log_err("%s", why);
		a->usage_error = true;
	}
	return err;
}


static int attach_path(struct attach *a, const struct plan_probe *pp,
		       const char *path, int pid)
{
	char why[RESOLVE_ERR_LEN];
	__u64 off;
	int err;

	err = resolve_func(path, pp->target[1], &off, why, sizeof(why));
	if (err) {
		log_err("%s", why);
		return err;
	}
	log_debug("%s: %s at file offset 0x%llx%s", pp->target[1], path,
		  (unsigned long long)off, pid > 0 ? "" : " (all processes)");
	return attach_func(a, pp, path, off, pid);
}

/*
 * LIB "*": FUNC as each process binds it (bind.h). For -p, the file each
 * pid binds to; for -c, each file a process loads is looked at before it
 * runs (uprobe_on_file); system-wide (and for -c where calls cannot be
 * held: no seccomp listener, as under valgrind), libc's and those of the
 * allocators Debian ships (jemalloc, tcmalloc, mimalloc) when installed.
 */
#define BOUND_TGIDS	1024
#define BOUND_FILES	32

struct bound {
	int tgids[BOUND_TGIDS];		/* -c processes already bound, a ring */
	unsigned int next;
	struct { __u64 dev, ino; } files[BOUND_FILES];	/* probed files */
	int nfiles;
	/* libc's uprobes, opened while the engine loads (early_start) */
	struct uprobe_early *early;
};

static bool lib_any(const struct plan_probe *pp)
{
	return !strcmp(pp->target[0], "*");
}

/* Probe @pp's binding state: a->priv holds one per probe of the plan. */
static struct bound *bound_of(struct attach *a, const struct plan_probe *pp)
{
	if (!a->priv)
		a->priv = calloc(PLAN_MAX_PROBES, sizeof(struct bound));
	return a->priv ? (struct bound *)a->priv + (pp - a->plan->probes) :
			 NULL;
}

/*
 * uprobe:*:FUNC under -c attaches at the held exec or mmap of the first
 * file that exports FUNC (bind_file): for most commands, libc at its
 * mmap. Registering a uprobe waits for an RCU grace period (6-17 ms of a
 * 45 ms launch to main, uprobe_early.h), which the command spent held.
 * For libc that wait begins here, on a thread, while the engine loads;
 * bind_file takes the event when libc is the file, and a command that
 * binds elsewhere (a DT_NEEDED jemalloc) is attached as before: the
 * unused event's close goes to the detach child (uprobe_close).
 */
static void early_start(struct attach *a, const struct plan_probe *pp)
{
	char path[PATH_MAX];
	struct bound *b;

	if (!lib_any(pp) || !a->follow_forks || !a->holds ||
	    resolve_lib("libc", -1, path, sizeof(path), NULL, 0))
		return;
	b = bound_of(a, pp);
	/* (a second load, with all of vmlinux BTF, finds it started) */
	if (b && !b->early)
		b->early = uprobe_early_start(path, pp->target[1],
					      pp->src == &source_uretprobe);
}

/*
 * Attach @pp to the file of @st through its early uprobes, if they probe
 * that file. Returns -ENOENT when they do not (or their open failed):
 * the usual attach then does it, and says what fails.
 */
static int early_attach(struct attach *a, const struct plan_probe *pp,
			struct bound *b, const struct stat *st)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = pp->cookie0);
	const char *prog_names[2] = {
		pp->src == &source_uprobe ? "uprobe" : "uprobe_park",
		"uretprobe",
	};
	struct bpf_program *prog;
	char what[256];
	int i, n, err = 0, pfd[2];
	__u64 off;

	if (!b->early || uprobe_early_take(b->early, st->st_dev, st->st_ino,
					   pfd, &off))
		return -ENOENT;
	probe_text(pp, what, sizeof(what));
	n = pp->src == &source_uretprobe ? 2 : 1;
	for (i = 0; i < n; i++) {
		prog = err ? NULL : attach_clause_prog(a, prog_names[i],
						       pp->clause);
		if (!err && (pfd[i] < 0 || !prog)) {
			errno = pfd[i] < 0 ? -pfd[i] : ENOENT;
			err = keep(a, NULL, what, -1);
		} else if (!err) {
			err = keep(a, bpf_program__attach_perf_event_opts(
					      prog, pfd[i], &opts), what, -1);
			if (!err)
				continue;
		}
		/* not attached: closed here, its unregistering waited for */
		if (pfd[i] >= 0)
			close(pfd[i]);
	}
	if (!err)
		log_debug("%s: libc at file offset 0x%llx (all processes, "
			  "opened early)", pp->target[1],
			  (unsigned long long)off);
	return err ? -1 : 0;
}

static int uprobe_prepare(struct attach *a, const struct plan_probe *pp)
{
	int err;

	if (pp->src != &source_usdt)
		early_start(a, pp);
	if (pp->src == &source_uprobe)
		return attach_want(a, "uprobe", pp->clause);
	if (pp->src == &source_usdt)
		return attach_want(a, "usdt", pp->clause);
	err = attach_want(a, "uprobe_park", pp->clause);
	return err ? : attach_want(a, "uretprobe", pp->clause);
}

static bool is_libc(const char *path)
{
	const char *b = strrchr(path, '/');

	return !strncmp(b ? b + 1 : path, "libc.so", 7);
}

static int attach_bound(struct attach *a, const struct plan_probe *pp,
			int pid)
{
	static const char *const allocators[] = {
		"libc", "libjemalloc", "libtcmalloc", "libtcmalloc_minimal",
		"libmimalloc",
	};
	const char *func = pp->target[1];
	char path[PATH_MAX], why[RESOLVE_ERR_LEN];
	struct bind_choice ch;
	size_t i;
	int err;

	if (a->follow_forks && a->holds)
		return 0;	/* each process's files, as it loads them */
	if (pid > 0) {
		err = bind_pid(pid, a->objs, func, &ch);
		if (err) {
			log_err("pid %d: no file it maps defines %s%s", pid,
				func, err == -ESRCH ? " (it has exited)" : "");
			a->usage_error = err == -ENOENT;
			return err;
		}
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx",
			 pid, ch.start, ch.end);
		if (!is_libc(obj_path(ch.obj)))
			log_info("%s: pid %d binds to %s's", func, pid,
				 obj_path(ch.obj));
		return attach_path(a, pp, path, pid);
	}
	for (i = 0; i < sizeof(allocators) / sizeof(allocators[0]); i++) {
		if (resolve_lib(allocators[i], -1, path, sizeof(path), why,
				sizeof(why)) ||
		    resolve_func(path, func, &(__u64){ 0 }, NULL, 0))
			continue;	/* not installed, or no such function */
		if (i)
			log_info("%s: also probing %s", func, path);
		err = attach_path(a, pp, path, -1);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Probe @pp (uprobe:*:FUNC) follows the file @f a -c process is about to
 * run: the first file in ld.so's search order that exports FUNC is the
 * one the process calls, and ld.so maps files in that order (the
 * executable, LD_PRELOAD, then DT_NEEDED breadth first): probe it before
 * it runs. Once per process image, once per file.
 */
static void bind_file(struct attach *a, const struct plan_probe *pp,
		      struct bound *b, const struct cmd_file *f)
{
	char path[64];
	struct stat st;
	struct obj *o;
	unsigned int i;
	bool known = false;

	for (i = 0; i < BOUND_TGIDS && !known; i++)
		known = b->tgids[i] == f->tgid;
	if (f->role == CMD_FILE_EXE) {	/* a new image binds afresh */
		for (i = 0; i < BOUND_TGIDS; i++)
			if (b->tgids[i] == f->tgid)
				b->tgids[i] = 0;
		known = false;
	}
	o = known || fstat(f->fd, &st) ? NULL :
	    obj_cache_fd(a->objs, f->fd, f->name);
	if (!o || !obj_elf(o) ||
	    !bind_exports(obj_elf(o), pp->target[1],
			  f->role == CMD_FILE_EXE && bind_is_static(obj_elf(o))))
		return;
	b->tgids[b->next++ % BOUND_TGIDS] = f->tgid;
	for (i = 0; i < (unsigned int)b->nfiles; i++)
		if (b->files[i].dev == st.st_dev && b->files[i].ino == st.st_ino)
			return;		/* probed already, for all processes */
	if (b->nfiles == BOUND_FILES)
		return;
	b->files[b->nfiles].dev = st.st_dev;
	b->files[b->nfiles++].ino = st.st_ino;
	if (!is_libc(obj_path(o)))
		log_info("%s: pid %d binds to %s's", pp->target[1], f->tgid,
			 obj_path(o));
	if (!early_attach(a, pp, b, &st))
		return;
	/* scry's own descriptor names the very inode the process maps */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", f->fd);
	attach_path(a, pp, path, -1);
}

static void uprobe_on_file(struct attach *a, const struct cmd_file *f)
{
	struct bound *b;
	int i;

	if (f->role == CMD_FILE_SCRIPT || f->role == CMD_FILE_INTERP)
		return;
	for (i = 0; i < a->plan->nprobes; i++) {
		const struct plan_probe *pp = &a->plan->probes[i];

		if ((pp->src != &source_uprobe &&
		     pp->src != &source_uretprobe) || !lib_any(pp))
			continue;
		b = bound_of(a, pp);
		if (!b)
			return;
		bind_file(a, pp, b, f);
	}
}

/*
 * An early uprobe no process bound to is closed after the detach child
 * took it (attach_keep_fd): its close waits for the unregistering.
 */
static void uprobe_close(struct attach *a)
{
	struct bound *b = a->priv;
	int i, j, pfd[2];

	for (i = 0; b && i < PLAN_MAX_PROBES; i++) {
		uprobe_early_free(b[i].early, pfd);
		for (j = 0; j < 2; j++)
			if (pfd[j] >= 0 && attach_keep_fd(a, pfd[j]))
				close(pfd[j]);
	}
	free(a->priv);
	a->priv = NULL;
}

/*
 * FUNC that LIB lacks but a library LIB needs (its DT_NEEDED, in order)
 * defines: what a program linked against LIB calls. glibc 2.34 moved
 * libpthread's, libdl's and librt's functions into libc.so.6 and left
 * those files as stubs that need it, so threadsnoop.bt's
 * uprobe:libpthread:pthread_create is libc's pthread_create (bpftrace
 * 0.17 attaches nothing there and says nothing). @path becomes that
 * library's; stderr says which.
 */
static int needed_func(struct attach *a, const struct plan_probe *pp,
		       int pid, char *path, size_t len, __u64 *off)
{
	const char *needed[16], *soname;
	char to[PATH_MAX], why[RESOLVE_ERR_LEN];
	struct obj *o = obj_cache_path(a->objs, path);
	size_t n, i;

	if (!o || !obj_elf(o))
		return -ENOENT;
	n = bind_needed(obj_elf(o), &soname, needed, 16);
	for (i = 0; i < n; i++) {
		if (resolve_lib(needed[i], pid > 0 ? pid : -1, to, sizeof(to),
				why, sizeof(why)) ||
		    resolve_func(to, pp->target[1], off, NULL, 0))
			continue;
		log_info("%s: not in %s but in %s, which it needs (glibc 2.34 "
			 "and later keep libpthread, libdl and librt as stubs): "
			 "probing %s", pp->target[1], pp->target[0], needed[i],
			 to);
		snprintf(path, len, "%s", to);
		return 0;
	}
	return -ENOENT;
}

/*
 * Does @pid map the file at @path as code? By identity, against the file
 * the hardened layer opened for @path (obj_holds_inode: the open pins
 * the inode number), or by the path /proc shows (where a file system's
 * stat device is not the one /proc shows: btrfs subvolumes). A process
 * gone is said elsewhere.
 */
static bool pid_maps(struct attach *a, int pid, const char *path)
{
	struct obj *o = obj_cache_path(a->objs, path);
	struct proc_map *m;
	bool found = false;
	size_t n, i;

	if (proc_maps_read(pid, PROC_MAPS_CODE, &m, &n))
		return true;
	for (i = 0; i < n && !found; i++)
		found = obj_holds_inode(o, m[i].dev, m[i].ino) ||
			(m[i].path && !strcmp(m[i].path, path));
	proc_maps_free(m, n);
	return found;
}

static int attach_uprobes(struct attach *a, const struct plan_probe *pp,
			  int pid)
{
	char path[PATH_MAX], why[RESOLVE_ERR_LEN];
	__u64 off;
	int err;

	if (lib_any(pp))
		return attach_bound(a, pp, pid);
	err = lib_path(a, pp, pid, path, sizeof(path));
	if (err)
		return err;
	err = resolve_func(path, pp->target[1], &off, why, sizeof(why));
	if (err == -ENOENT)
		err = needed_func(a, pp, pid, path, sizeof(path), &off);
	if (err) {
		log_err("%s", why);
		a->usage_error = true;
		return err;
	}
	log_debug("%s: %s at file offset 0x%llx%s", pp->target[1], path,
		  (unsigned long long)off, pid > 0 ? "" : " (all processes)");
	/*
	 * A file given by path that -p's process has not loaded: the probe
	 * fires once it does (dlopen), as the kernel places it in every new
	 * mapping of the file; until then nothing counts, which is said,
	 * or a typo in the path would look like a function never called.
	 */
	if (pid > 0 && !pid_maps(a, pid, path)) {
		char what[256];

		log_err("%s: pid %d does not map %s (yet): probed all the "
			"same, it counts once the process loads it",
			probe_text(pp, what, sizeof(what)), pid, path);
	}
	return attach_func(a, pp, path, off, pid);
}

static int attach_usdt(struct attach *a, const struct plan_probe *pp, int pid)
{
	char path[PATH_MAX], why[RESOLVE_ERR_LEN], what[256];
	struct bpf_program *prog;
	struct bpf_link *l;
	int err;

	err = lib_path(a, pp, pid, path, sizeof(path));
	if (err)
		return err;
	err = resolve_usdt_check(path, pp->target[1], pp->target[2], why,
				 sizeof(why));
	if (err) {
		log_err("%s", why);
		a->usage_error = true;
		return err;
	}
	prog = attach_clause_prog(a, "usdt", pp->clause);
	if (!prog)
		return -ENOENT;
	l = bpf_program__attach_usdt(prog, pid, path, pp->target[1],
				     pp->target[2], NULL);
	return keep(a, l, probe_text(pp, what, sizeof(what)), pid);
}

/*
 * A kernel thread (kthreadd, kworkers) maps no files and runs no user
 * code: no uprobe can fire in it. Said so, not as a process that maps no
 * such function or has exited, as its empty mappings would make it look.
 */
static int check_user_pid(struct attach *a, int pid)
{
	bool kthread = false;
	char comm[64] = "";
	int tgid;

	if (pid <= 0 || proc_task(pid, &tgid, &kthread) || !kthread)
		return 0;
	if (proc_read(pid, "comm", comm, sizeof(comm)) > 0)
		comm[strcspn(comm, "\n")] = '\0';
	log_err("pid %d%s%s%s is a kernel thread: it runs no user code for "
		"uprobes to trace (offcpu, profile and kprobes can)", pid,
		*comm ? " (" : "", comm, *comm ? ")" : "");
	a->usage_error = true;
	return -EINVAL;
}

static int uprobe_attach(struct attach *a, const struct plan_probe *pp)
{
	int pids[SCRY_MAX_TARGETS], n, i, err = 0;

	n = attach_pids(a, pids);
	for (i = 0; i < n && !err; i++)
		err = check_user_pid(a, pids[i]);
	for (i = 0; i < n && !err; i++) {
		if (pp->src == &source_usdt)
			err = attach_usdt(a, pp, pids[i]);
		else
			err = attach_uprobes(a, pp, pids[i]);
	}
	return err;
}

/* -l: LIB's path, as the probe would resolve it (for @pid when > 0) */
static int list_lib(const char *lib, int pid, char *path, size_t len)
{
	char why[RESOLVE_ERR_LEN];

	if (!resolve_lib(lib, pid, path, len, why, sizeof(why)))
		return 0;
	log_err("%s", why);
	return -ENOENT;
}

static int list_funcs(FILE *f, const char *kind, char *parts[], int nparts,
		      int pid)
{
	const char *glob = nparts > 1 && *parts[1] ? parts[1] : "*";
	char path[PATH_MAX];
	struct resolve_func *fn = NULL;
	size_t n = 0, i;
	int err;

	if (nparts < 1)
		return 2;
	if (list_lib(parts[0], pid, path, sizeof(path)))
		return 2;
	err = resolve_funcs(path, glob, &fn, &n);
	if (err) {
		log_err("%s: cannot read symbols: %s", path, strerror(-err));
		return 1;
	}
	for (i = 0; i < n; i++)
		list_line(f, kind, path, fn[i].name, NULL, NULL);
	resolve_funcs_free(fn, n);
	return n ? 0 : 1;
}

static int uprobe_list(FILE *f, char *parts[], int nparts, int pid)
{
	return list_funcs(f, "uprobe", parts, nparts, pid);
}

static int uretprobe_list(FILE *f, char *parts[], int nparts, int pid)
{
	return list_funcs(f, "uretprobe", parts, nparts, pid);
}

static int usdt_list(FILE *f, char *parts[], int nparts, int pid)
{
	const char *prov = nparts > 1 && *parts[1] ? parts[1] : "*";
	const char *name = nparts > 2 && *parts[2] ? parts[2] : "*";
	char path[PATH_MAX];
	struct resolve_usdt *u = NULL;
	size_t n = 0, i;
	int err;

	if (nparts < 1)
		return 2;
	if (list_lib(parts[0], pid, path, sizeof(path)))
		return 2;
	err = resolve_usdts(path, prov, name, &u, &n);
	if (err) {
		log_err("%s: cannot read USDT notes: %s", path, strerror(-err));
		return 1;
	}
	for (i = 0; i < n; i++)
		list_line(f, "usdt", path, u[i].provider, u[i].name,
			  *u[i].args ? u[i].args : NULL);
	resolve_usdts_free(u, n);
	return n ? 0 : 1;
}

const struct source source_uprobe = {
	.name = "uprobe",
	.alias = "u",
	.usage = "uprobe:LIB:FUNC",
	.what = "entry of a user function; arg0..arg5",
	.min_parts = 2,
	.max_parts = 2,
	.fields = SOURCE_F_ARGS | SOURCE_F_FUNC,
	.flags = SOURCE_AT_ENTRY | SOURCE_SLOW_DETACH | SOURCE_IN_TASK,
	.plan = uprobe_plan,
	.list = uprobe_list,
	.prepare = uprobe_prepare,
	.attach = uprobe_attach,
	.on_file = uprobe_on_file,
	.close = uprobe_close,
};

const struct source source_uretprobe = {
	.name = "uretprobe",
	.alias = "ur",
	.usage = "uretprobe:LIB:FUNC",
	.what = "return of a user function; retval, latency",
	.min_parts = 2,
	.max_parts = 2,
	.fields = SOURCE_F_ARGS | SOURCE_F_RETVAL | SOURCE_F_LATENCY |
		  SOURCE_F_FUNC,
	.flags = SOURCE_END | SOURCE_SLOW_DETACH | SOURCE_IN_TASK,
	.plan = uprobe_plan,
	.list = uretprobe_list,
	.prepare = uprobe_prepare,
	.attach = uprobe_attach,
	.on_file = uprobe_on_file,
	.close = uprobe_close,
};

const struct source source_usdt = {
	.name = "usdt",
	.alias = "U",
	.usage = "usdt:BIN:PROVIDER:NAME",
	.what = "a USDT probe; its arguments as arg0..",
	.min_parts = 3,
	.max_parts = 3,
	.fields = SOURCE_F_ARGS,
	.flags = SOURCE_SLOW_DETACH | SOURCE_IN_TASK,
	.plan = uprobe_plan,
	.list = usdt_list,
	.prepare = uprobe_prepare,
	.attach = uprobe_attach,
};
