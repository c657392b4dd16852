// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_early: a uprobe's perf event opened off the main thread
 * (include/scry/uprobe_early.h). The event is the one libbpf's
 * bpf_program__attach_uprobe_opts() opens (the uprobe PMU, the file by
 * path, all processes: pid -1, CPU 0), but disabled: until a program is
 * attached and libbpf enables it, a hit adds to no buffer and runs no
 * program. The thread shares nothing with the rest of scry: it reads
 * the file through its own descriptor and ELF handle (resolve.c, bind.c
 * on them), and nothing touches @u until it is joined.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <scry/bind.h>
#include <scry/elf.h>
#include <scry/fsafe.h>
#include <scry/resolve.h>
#include <scry/uprobe_early.h>

#define PMU_DIR	"/sys/bus/event_source/devices/uprobe/"

struct uprobe_early {
	pthread_t thread;
	char path[PATH_MAX];
	char *func;
	bool ret;
	long type, ret_bit;	/* the uprobe PMU's */
	/* the thread's */
	int fd;			/* the file, whose inode the events name */
	struct stat st;
	__u64 off;
	int pfd[2];		/* the events, or -errno */
	bool joined;
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

static int open_event(struct uprobe_early *u, const char *self, bool ret)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = u->type,
		.config = ret ? 1ULL << u->ret_bit : 0,
		.config1 = (__u64)(unsigned long)self,
		.config2 = u->off,
		.disabled = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Does the file at @fd export @func (bind.h)? */
static bool exports(int fd, const char *name, const char *func)
{
	struct elf_file *e = elf_file_open(fd, name);
	bool yes = e && bind_exports(e, func, false);

	elf_file_free(e);
	return yes;
}

static void *probe(void *arg)
{
	struct uprobe_early *u = arg;
	char self[32];

	u->fd = fsafe_open(u->path, NULL, &u->st);
	if (u->fd < 0)
		return NULL;
	/* scry's own descriptor names the very inode it checked */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", u->fd);
	if (!exports(u->fd, u->path, u->func) ||
	    resolve_func(self, u->func, &u->off, NULL, 0))
		return NULL;
	u->pfd[0] = open_event(u, self, false);
	if (u->pfd[0] >= 0 && u->ret)
		u->pfd[1] = open_event(u, self, true);
	return NULL;
}

static void join(struct uprobe_early *u)
{
	if (!u->joined)
		pthread_join(u->thread, NULL);
	u->joined = true;
}

static void release(struct uprobe_early *u)
{
	if (u->fd >= 0)
		close(u->fd);
	free(u->func);
	free(u);
}

struct uprobe_early *uprobe_early_start(const char *path, const char *func,
					bool ret)
{
	struct uprobe_early *u;
	int err;

	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->fd = u->pfd[0] = u->pfd[1] = -ENOENT;
	u->type = sysfs_num(PMU_DIR "type", "");
	u->ret_bit = ret ? sysfs_num(PMU_DIR "format/retprobe", "config:") : 0;
	u->ret = ret;
	u->func = strdup(func);
	if (u->type < 0 || u->ret_bit < 0 || u->ret_bit > 63 || !u->func ||
	    snprintf(u->path, sizeof(u->path), "%s", path) >=
	    (int)sizeof(u->path)) {
		release(u);
		errno = ENOTSUP;
		return NULL;
	}
	err = pthread_create(&u->thread, NULL, probe, u);
	if (err) {
		release(u);
		errno = err;
		return NULL;
	}
	return u;
}

int uprobe_early_take(struct uprobe_early *u, __u64 dev, __u64 ino,
		      int pfd[2], __u64 *off)
{
	join(u);
	if (u->pfd[0] < 0 || u->st.st_dev != dev || u->st.st_ino != ino)
		return -ENOENT;
	pfd[0] = u->pfd[0];
	pfd[1] = u->ret ? u->pfd[1] : -ENOENT;
	*off = u->off;
	u->pfd[0] = u->pfd[1] = -ENOENT;
	return 0;
}

void uprobe_early_free(struct uprobe_early *u, int pfd[2])
{
	pfd[0] = pfd[1] = -1;
	if (!u)
		return;
	join(u);
	pfd[0] = u->pfd[0] >= 0 ? u->pfd[0] : -1;
	pfd[1] = u->pfd[1] >= 0 ? u->pfd[1] : -1;
	release(u);
}
