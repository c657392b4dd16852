/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobe_early: a uprobe's perf event opened on a thread of its own, before
 * the program it will run is loaded. Opening one registers the uprobe, and
 * the registration waits for an RCU grace period (the kernel's
 * dup_mmap_sem, a percpu rw-semaphore: 6-17 ms here, almost none of it
 * CPU): begun while the engine loads, the wait is over by the time a
 * program attaches (bpf_program__attach_perf_event_opts()).
 */
#ifndef SCRY_UPROBE_EARLY_H
#define SCRY_UPROBE_EARLY_H

#include <stdbool.h>
#include <linux/types.h>

struct uprobe_early;

/*
 * On a new thread: open the file at @path (fsafe.h) and, if it exports
 * @func for others to bind to (bind.h), a disabled uprobe perf event at
 * @func (with @ret, a uretprobe's too), for all processes. Returns NULL
 * (errno set) when it cannot: no uprobe PMU (libbpf's tracefs fallback
 * is left to the usual attach), no thread.
 */
struct uprobe_early *uprobe_early_start(const char *path, const char *func,
					bool ret);

/*
 * Wait for the thread. If it probed the file of @dev, @ino: its events'
 * fds into @pfd (the entry's; the return's, or -errno when it failed),
 * which the caller owns from then on (a libbpf link made on one closes
 * it), @func's file offset into @off, and 0. -ENOENT: another file,
 * nothing probed, or taken already.
 */
int uprobe_early_take(struct uprobe_early *u, __u64 dev, __u64 ino,
		      int pfd[2], __u64 *off);

/*
 * Wait for the thread; the events never taken into @pfd (-1 for none),
 * for the caller to close, and free @u (NULL-safe). Their close waits
 * for the uprobe's unregistering, as a uprobe link's does.
 */
void uprobe_early_free(struct uprobe_early *u, int pfd[2]);

#endif /* SCRY_UPROBE_EARLY_H */
