// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU states other than sleep, with known counts:
 *
 *   state_wl vfork K MS  K times, in_vfork() vforks; the child sleeps MS ms
 *                        in child_nap() (state S) and _exits. The parent
 *                        waits for it in the kernel, TASK_KILLABLE: state
 *                        D, from in_vfork(), at least MS ms each time
 *                        less the moment it may take to get off the CPU
 *   state_wl stop K MS   K times, a forked child stops itself in
 *                        stop_self() (SIGSTOP: state T); the parent sees
 *                        it stopped, sleeps MS ms, continues it and reaps
 *                        it: K periods of state T from stop_self()
 *
 * Built with frame pointers, like every workload. Exits 0 when every
 * child ran as planned.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* A vfork child shares the parent's stack: raw syscalls only, no return. */
__attribute__((noinline)) void child_nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	syscall(SYS_nanosleep, &ts, NULL);
	syscall(SYS_exit, 0);
}

__attribute__((noinline)) int in_vfork(long ms)
{
	int status;
	pid_t pid = vfork();

	if (pid == 0)
		child_nap(ms);
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

__attribute__((noinline)) void stop_self(void)
{
	raise(SIGSTOP);
}

static int stop_once(long ms)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		stop_self();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, WUNTRACED) != pid ||
	    !WIFSTOPPED(status))
		return -1;
	nap(ms);
	if (kill(pid, SIGCONT) || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long k, ms, i;

	if (argc != 4 || (strcmp(argv[1], "vfork") && strcmp(argv[1], "stop"))) {
		fprintf(stderr, "usage: state_wl vfork|stop K MS\n");
		return 2;
	}
	k = atol(argv[2]);
	ms = atol(argv[3]);
	for (i = 0; i < k; i++) {
		if (!strcmp(argv[1], "vfork") ? in_vfork(ms) : stop_once(ms)) {
			fprintf(stderr, "state_wl: %s %ld failed\n", argv[1], i);
			return 1;
		}
	}
	return 0;
}
