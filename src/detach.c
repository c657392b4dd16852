// SPDX-License-Identifier: GPL-2.0
/*
 * detach: the slow closes of a run's links, off the path to its exit.
 *
 * Closing the last reference to a uprobe's link waits in the kernel for
 * RCU grace periods (its unregister: ~110 ms a uprobe here, and closes
 * of several serialize even from parallel threads; a perf tracepoint
 * ~60 ms). In a -c run of a command that does nothing, that wait was
 * most of the wall time. The probes are inert from the stop on
 * (attach_stop), so when they go changes nothing in the answer, only
 * when whoever runs scry sees it exit. So once the answer is written,
 * scry forks a child, "scry-detach", that:
 *
 *  - closes every fd but the links' at once: stdout and stderr above all,
 *    so `x=$(scry ...)` and `scry ... | head` get their end of file from
 *    scry's own exit, never waiting for the child;
 *  - waits until scry has dropped its own references to the links (the
 *    go pipe's end of file): otherwise scry's close, or its exit, could
 *    be the last one and pay the wait itself;
 *  - closes the links, and _exit()s (no atexit, no stdio flush: those are
 *    scry's; ASan checks no leaks at _exit, valgrind does: the child
 *    frees what it allocated, the rest is reachable from its stack).
 *
 * Nothing outlives the child: links are fds, never pinned, so a child
 * that is killed (kill -9 too) detaches them at its exit, and a scry
 * killed before the hand-over detaches them at its own, as before.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <bpf/libbpf.h>
#include <scry/detach.h>
#include <scry/log.h>

static int fd_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* In the child: close every fd but @keep (sorted, @n of them). */
static int close_others(const int *keep, int n)
{
	unsigned int from = 0;
	int i;

	for (i = 0; i < n; i++) {
		if ((unsigned int)keep[i] > from &&
		    close_range(from, keep[i] - 1, 0))
			return -1;
		from = keep[i] + 1;
	}
	return close_range(from, ~0U, 0);
}

static void __attribute__((noreturn)) detach_child(int *keep, int n, int go)
{
	sigset_t stops;
	char c;
	int i;

	if (close_others(keep, n))
		_exit(1);	/* the exit closes the links all the same */
	prctl(PR_SET_NAME, "scry-detach");
	/*
	 * scry's stop signals (INT, TERM, HUP) are blocked, as scry blocks
	 * them for its watcher, and QUIT is ignored: a signal that ended the
	 * child inside a uprobe's close would fail the kernel's unregister
	 * ("failed to unregister, leaking uprobe"), and a script's Ctrl-C
	 * reaches the whole process group. The child lives ~0.1 s; kill -9
	 * still ends it, and its exit detaches what is left.
	 */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigprocmask(SIG_BLOCK, &stops, NULL);
	signal(SIGQUIT, SIG_IGN);
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	for (i = 0; i < n; i++)
		if (keep[i] != go)
			close(keep[i]);
	/* valgrind checks this copy of the heap for leaks at _exit too */
	free(keep);
	_exit(0);
}

/*
 * The fds a probe's removal waits behind: BPF links and perf events
 * (uprobes attach through either). Found in /proc/self/fd, not from the
 * bpf_link handles: libbpf's USDT link is a container whose own fd is
 * not set (bpf_link__fd() gives 0, which is stdin) while its uprobes'
 * fds are open beside it. Appends to @keep (room for @cap); the count.
 */
static int slow_fds(int *keep, int cap)
{
	char path[64], target[64];
	struct dirent *e;
	int n = 0, fd;
	ssize_t len;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while ((e = readdir(d)) && n < cap) {
		fd = atoi(e->d_name);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (!strcmp(target, "anon_inode:bpf_link") ||
		    !strcmp(target, "anon_inode:[perf_event]"))
			keep[n++] = fd;
	}
	closedir(d);
	return n;
}

int detach_fork(struct bpf_link **links, int n, const int *fds, size_t nfds)
{
	int pipefd[2], *keep, cap, i, m = 0;
	size_t k;
	pid_t pid;

	if (n <= 0 && !nfds)
		return -1;
	/* a link's fds: its own, or its parts' (USDT), one or two each */
	cap = 4 * n + nfds + 64;
	keep = malloc((cap + 1) * sizeof(*keep));
	if (!keep)
		return -1;
	m = slow_fds(keep, cap);
	if (m < 0 || m >= cap) {
		/* no /proc, or more than thought: what the handles say */
		for (i = m = 0; i < n; i++)
			if (bpf_link__fd(links[i]) > STDERR_FILENO)
				keep[m++] = bpf_link__fd(links[i]);
		for (k = 0; k < nfds; k++)
			keep[m++] = fds[k];
	}
	if (pipe2(pipefd, O_CLOEXEC)) {
		free(keep);
		return -1;
	}
	keep[m++] = pipefd[0];
	qsort(keep, m, sizeof(*keep), fd_cmp);
	pid = fork();
	if (pid == 0)
		detach_child(keep, m, pipefd[0]);
	free(keep);
	close(pipefd[0]);
	if (pid < 0) {
		log_debug("detach: fork: %m: closing the links here");
		close(pipefd[1]);
		return -1;
	}
	log_debug("detach: pid %d closes %d fds of %d links", (int)pid, m - 1,
		  n);
	return pipefd[1];
}

void detach_go(int fd)
{
	if (fd >= 0)
		close(fd);
}
