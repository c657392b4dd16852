// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_early: a uprobe's perf event opened off the main thread
 * (include/scry/uprobe_early.h). The event is the one libbpf's
 * bpf_program__attach_uprobe_opts() opens (the uprobe PMU, the file by
 * path, all processes: pid -1, CPU 0), but disabled: until a program is
 * attached and libbpf enables it, a hit adds to no buffer and runs no
 * program. The thread makes only the one system call: everything it
 * reads was set before it started, and nothing else touches @u until it
 * is joined.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <scry/uprobe_early.h>

#define PMU_DIR	"/sys/bus/event_source/devices/uprobe/"

struct uprobe_early {
	pthread_t thread;
	struct perf_event_attr attr;
	char path[32];		/* /proc/self/fd/N: the inode scry holds */
	int pfd;		/* the event, or -errno */
	bool taken;
};

/* The first number in @file after @prefix; -1 if none. */
static long sysfs_num(const char *file, const char *prefix)
{
	char buf[64];
	long v = -1;
	FILE *f = fopen(file, "re");

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && !strncmp(buf, prefix, strlen(prefix)))
		v = strtol(buf + strlen(prefix), NULL, 10);
	fclose(f);
	return v;
}

static void *open_event(void *arg)
{
	struct uprobe_early *u = arg;

	u->pfd = syscall(SYS_perf_event_open, &u->attr, -1, 0, -1,
			 PERF_FLAG_FD_CLOEXEC);
	if (u->pfd < 0)
		u->pfd = -errno;
	return NULL;
}

struct uprobe_early *uprobe_early_start(int fd, __u64 offset, bool retprobe)
{
	long type = sysfs_num(PMU_DIR "type", "");
	long bit = retprobe ? sysfs_num(PMU_DIR "format/retprobe", "config:")
			    : 0;
	struct uprobe_early *u;
	int err;

	if (type < 0 || bit < 0 || bit > 63) {
		errno = ENOTSUP;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	snprintf(u->path, sizeof(u->path), "/proc/self/fd/%d", fd);
	u->attr.size = sizeof(u->attr);
	u->attr.type = type;
	u->attr.config = retprobe ? 1ULL << bit : 0;
	u->attr.config1 = (__u64)(unsigned long)u->path;
	u->attr.config2 = offset;
	u->attr.disabled = 1;
	u->pfd = -EINPROGRESS;
	err = pthread_create(&u->thread, NULL, open_event, u);
	if (err) {
		free(u);
		errno = err;
		return NULL;
	}
	return u;
}

int uprobe_early_take(struct uprobe_early *u)
{
	if (u->taken)
		return -EALREADY;
	pthread_join(u->thread, NULL);
	u->taken = true;
	return u->pfd;
}

int uprobe_early_free(struct uprobe_early *u)
{
	int fd;

	if (!u)
		return -1;
	if (!u->taken)
		pthread_join(u->thread, NULL);
	fd = !u->taken && u->pfd >= 0 ? u->pfd : -1;
	free(u);
	return fd;
}
