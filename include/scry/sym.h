/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolization: kernel addresses through /proc/kallsyms (ksym.c), user
 * addresses through each process's mappings (addrspace.c) and the file
 * cache (obj.c: symbols, debug files, DWARF), JIT code through
 * /tmp/perf-PID.map (jitmap.c), C++ names demangled (demangle.c).
 * Everything a file yields is read once and shared by every process
 * that maps the file.
 */
#ifndef SCRY_SYM_H
#define SCRY_SYM_H

#include <stdbool.h>
#include <linux/types.h>

struct syms;
struct report_frame;
struct obj;
struct obj_cache;
struct addrspace;
struct addrspace_map;

/* Options, set once after syms_new(). */
#define SYMS_LINES	(1U << 0)	/* fill report_frame.file/line */
#define SYMS_NO_DEMANGLE (1U << 1)	/* keep C++ names raw */
#define SYMS_MAPPINGS	(1U << 2)	/* fill report_frame.map (pprof) */

struct syms *syms_new(void);
void syms_set_flags(struct syms *s, unsigned flags);
void syms_free(struct syms *s);

/* The file cache the symbolizer fills (to share with the unwinder). */
struct obj_cache *syms_objs(struct syms *s);

/*
 * Snapshot the mappings of @pid now (and keep the mapped files open, so
 * they resolve after the process exits or the file is replaced). Calling
 * it again for a known pid reads them again only if the process has
 * exec'ed another binary since (/proc/PID/exe changed); a pid whose
 * exit was told (syms_exited) is not looked for in /proc at all, unless
 * notices were lost. Returns 0 or -errno (-ESRCH when the process is
 * gone).
 */
int syms_add_pid(struct syms *s, int pid);

/*
 * The engine announced @pid (notices: its first stack, exec, code mmap):
 * read its mappings for generation @gen of its address space, unless
 * they were read for it already and nothing @changed (a fork's copy).
 * From here on its execs are told, so none is looked for in /proc.
 * Returns 0 when read, 1 when already known, or -errno (-ESRCH: gone).
 */
int syms_notice_pid(struct syms *s, int pid, __u32 gen, bool changed);

/*
 * Notices were lost: a process the engine announced may have exec'd
 * untold. Each is checked for an exec (its /proc/PID/exe) before its
 * frames are named, as a process never announced is.
 */
void syms_notices_lost(struct syms *s);

/*
 * Read a known pid's mappings again (after exec, or a new executable
 * mapping: ld.so loading libraries, dlopen). When the process is already
 * gone the old snapshot stays. Returns 0 or -errno.
 */
int syms_refresh_pid(struct syms *s, int pid);

/*
 * A frame of @pid's in no mapping scry knows of (an event that came
 * before the notice of its mmap): its mappings read again, once until
 * the next notice about it or a tenth of a second. A frame that stays
 * unknown (JIT code with no perf map, a frame-pointer walk's junk last
 * frame) costs no read each event, and a process that exited keeps what
 * it had. Returns 0 when read again, 1 when not, or -errno.
 */
int syms_catch_up(struct syms *s, int pid);

/*
 * Record one mapping @m of @pid without reading /proc (a record from a
 * BPF event; see addrspace_add: m->obj NULL is an unknown file). It
 * replaces what it covers. A pid not known yet is created without a
 * /proc read. Returns 0 or -errno.
 */
int syms_add_mapping(struct syms *s, int pid, const struct addrspace_map *m);

/*
 * @pid was forked by @ppid: it starts with a copy of the parent's
 * mappings (it has them, until it execs or maps more), so even a child
 * that lives a moment, as a vfork child, resolves. Returns 0 or -errno.
 */
int syms_fork(struct syms *s, int ppid, int pid);

/* The mappings known for @pid, or NULL. */
const struct addrspace *syms_addrspace(struct syms *s, int pid);

/*
 * Re-read the /tmp/perf-PID.map of every known live process whose map
 * changed: JITs append as they compile, and a process may exit before its
 * frames are resolved. Call it now and then while tracing.
 */
void syms_poll_jit(struct syms *s);

/*
 * A drain names every row between these two: meanwhile each live process
 * is looked at in /proc (exe, perf map) at most once, however many rows
 * and frames it has. Pending perf-map changes are read first.
 */
void syms_drain_begin(struct syms *s);
void syms_drain_end(struct syms *s);

/* Forget a pid's mappings, so the next add re-reads them. */
void syms_forget_pid(struct syms *s, int pid);

/*
 * @pid has exited: its perf map is no longer polled (it can only be read
 * while the process lives), and its mappings may be evicted once nothing
 * needs them; a pid not known yet gets an entry that says so. A notice
 * or a refresh of the pid (a reused pid) undoes it.
 */
void syms_exited(struct syms *s, int pid);

/*
 * Free the mappings of processes that exited at least @min_age seconds
 * (CLOCK_MONOTONIC) before @now and for which @keep(@ctx, pid) is false;
 * returns how many were freed.
 */
size_t syms_evict_exited(struct syms *s, double now, double min_age,
			 bool (*keep)(void *ctx, int pid), void *ctx);

/*
 * Resolve one user address of @pid into @out (up to @max logical frames:
 * inlined callers follow the innermost function). Fields are malloc'ed
 * strings owned by the caller (free with syms_frame_clear). An address
 * that no mapping covers yields one frame named from /tmp/perf-PID.map
 * (module "[jit]") when that file names it, else module == NULL and
 * sym == NULL. Returns the number of frames written (>= 1) or -errno.
 */
int syms_user(struct syms *s, int pid, __u64 addr,
	      struct report_frame *out, int max);

/* Resolve a kernel address: module "vmlinux" for the core kernel, the module name (e.g. "ext4") otherwise. Returns 1 or -errno. */
int syms_kernel(struct syms *s, __u64 addr, struct report_frame *out);

/* True for BPF trampoline frames that lead kernel stacks (bpf_prog_*, bpf_trace_run*, __bpf_trace_*). */
bool syms_is_bpf_frame(const struct report_frame *fr);

void syms_frame_clear(struct report_frame *fr);

/* @dst becomes a copy of @src (its own references and mapping); 0 or -ENOMEM. */
int syms_frame_copy(struct report_frame *dst, const struct report_frame *src);

/*
 * Until syms_memo_end(), syms_user() answers each distinct file address
 * once and remembers it (framememo.h): a drain's repeated return
 * addresses are named once, and the answers outlive
 * obj_cache_drop_dwarf(). Only for a span in which the processes' code
 * mappings are what they were when an address was first named (one
 * drain). 0 or -ENOMEM.
 */
int syms_memo_begin(struct syms *s);
void syms_memo_end(struct syms *s);

#endif /* SCRY_SYM_H */
