// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the bpftrace tools' tests (tests/root/bt_tools.sh):
 *
 *   bt_wl args DIR   the syscall arguments a tool reads, each as declared:
 *                    openat(AT_FDCWD, "DIR/a", O_RDONLY|O_CREAT, 0640),
 *                    openat(AT_FDCWD, "DIR/none", O_RDONLY) = -ENOENT,
 *                    read(fd, buf, 7) on DIR/a,
 *                    kill(-999999, 0) = -ESRCH (a negative pid_t)
 *   bt_wl nap [KADDR]  nanosleep({0, 12000000}), nanosleep({0, 3000000}),
 *                    nanosleep({7, 1000000000}) = -EINVAL at once (a
 *                    tv_sec to read without sleeping 7 s), then with
 *                    KADDR (hex) nanosleep(KADDR) = -EFAULT: a kernel
 *                    address where a user pointer belongs
 *   bt_wl threads N  N threads made one after the other by
 *                    pthread_create(.., bt_thread, ..), each joined
 *   bt_wl sleeps N [GATE]  after the gate, N sleeps of 1 ms: N switches
 *                    out in TASK_INTERRUPTIBLE, N run queue wakeups
 *
 * Each exits 0, printing nothing: its stdout is scry's, a file the
 * tests read.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "gate.h"

static void *bt_thread(void *arg)
{
	__asm__ volatile("" : : "r"(arg) : "memory");
	return arg;
}

static int args(const char *dir)
{
	char path[4096], buf[8];
	long fd;

	snprintf(path, sizeof(path), "%s/a", dir);
	/* raw syscalls: libc may not call openat for open() everywhere */
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CREAT, 0640);
	if (fd < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/none", dir);
	if (syscall(SYS_openat, AT_FDCWD, path, O_RDONLY) != -1 ||
	    errno != ENOENT)
		return 1;
	if (syscall(SYS_read, fd, buf, 7) < 0)
		return 1;
	if (syscall(SYS_kill, -999999, 0) != -1 || errno != ESRCH)
		return 1;
	return 0;
}

static int nap(const char *kaddr)
{
	struct timespec a = { 0, 12000000 }, b = { 0, 3000000 },
			bad = { 7, 1000000000 };

	if (syscall(SYS_nanosleep, &a, NULL) ||
	    syscall(SYS_nanosleep, &b, NULL))
		return 1;
	if (syscall(SYS_nanosleep, &bad, NULL) != -1 || errno != EINVAL)
		return 1;
	if (kaddr && (syscall(SYS_nanosleep, strtoull(kaddr, NULL, 16),
			      NULL) != -1 || errno != EFAULT))
		return 1;
	return 0;
}

static int threads(int n)
{
	pthread_t t;

	while (n-- > 0)
		if (pthread_create(&t, NULL, bt_thread, NULL) ||
		    pthread_join(t, NULL))
			return 1;
	return 0;
}

static int sleeps(int n)
{
	struct timespec ms = { 0, 1000000 };

	while (n-- > 0)
		if (nanosleep(&ms, NULL))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 2;

	if (argc == 3 && !strcmp(argv[1], "args"))
		ret = args(argv[2]);
	else if ((argc == 2 || argc == 3) && !strcmp(argv[1], "nap"))
		ret = nap(argc == 3 ? argv[2] : NULL);
	else if (argc == 3 && !strcmp(argv[1], "threads"))
		ret = threads(atoi(argv[2]));
	else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "sleeps")) {
		gate(argc == 4 ? argv[3] : NULL);
		ret = sleeps(atoi(argv[2]));
	}
	else
		fprintf(stderr, "usage: bt_wl args DIR | nap [KADDR] | threads N | "
			"sleeps N [GATE]\n");
	return ret;
}
