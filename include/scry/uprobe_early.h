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
 * Open, on a new thread, a disabled uprobe (@retprobe: uretprobe) perf
 * event at file offset @offset of the file open at @fd, for all
 * processes. @fd must stay open until uprobe_early_free(). Returns NULL
 * (errno set) when it cannot: no uprobe PMU (libbpf's tracefs fallback
 * is left to the usual attach), no thread.
 */
struct uprobe_early *uprobe_early_start(int fd, __u64 offset, bool retprobe);

/*
 * Wait for the open and take its perf event fd, which the caller owns
 * from then on (a libbpf link made on it closes it). Returns the fd or
 * -errno; a second call returns -EALREADY.
 */
int uprobe_early_take(struct uprobe_early *u);

/*
 * Wait for the open; the perf event fd if it was never taken (-1 if
 * none), for the caller to close, then free @u (NULL-safe). Its close
 * waits for the uprobe's unregistering, as a uprobe link's does.
 */
int uprobe_early_free(struct uprobe_early *u);

#endif /* SCRY_UPROBE_EARLY_H */
