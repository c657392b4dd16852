// SPDX-License-Identifier: GPL-2.0
/*
 * launch: run one tracer (or workload) and time its phases with
 * CLOCK_MONOTONIC, so bench/run never parses tool-specific timing output.
 *
 *   launch -o OUT -e ERR [-m MARKER] [-g FIFO] [-w FILE] [-s SECS] [-k]
 *          [-T SECS] [-p PIDFILE] [-r RSSFILE] -- CMD [ARGS...]
 *
 *   -o/-e   where CMD's stdout/stderr go (read through pipes, so a tracer
 *           that writes its answer to a pipe pays what it pays in real use)
 *   -m      wait until MARKER appears on CMD's stdout or stderr ("attached")
 *   -g      then open FIFO and write one byte: releases a gated workload
 *   -w      then wait until FILE is non-empty (the workload's done stamp)
 *   -s      then wait SECS more
 *   -k      then SIGINT CMD ("stop"); the time to its exit is the drain
 *   -T      kill CMD after SECS in all (default 300): a hung tool fails the
 *           cell instead of the whole benchmark
 *   -p      write CMD's pid to PIDFILE once it runs (for samplers beside it)
 *   -r      append "SECS RSS_KB CPU_S" to RSSFILE every second: CMD's VmRSS
 *           and CPU time (user + system, all its threads) so far: a long
 *           run's growth and steady cost, which its peak and total hide
 *
 * Prints one line: launch_ns marker_ns stop_ns exit_ns maxrss_kb status
 * cpu_us (0 for a phase that did not happen; status is the exit code,
 * 128+signal, or -1 on timeout). maxrss_kb is wait4()'s ru_maxrss of CMD:
 * the peak RSS of CMD itself or of the largest descendant it waited for;
 * cpu_us its user + system time and that of the descendants it waited for.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(99);
}

/* CMD's VmRSS in KiB and CPU seconds from /proc; false once it is gone */
static int sample(pid_t pid, long *kb, double *cpu_s)
{
	char path[64], line[1024], *p;
	unsigned long ut, st;
	FILE *f;

	*kb = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", kb) == 1)
			break;
	fclose(f);
	/* utime and stime are fields 14 and 15, after the ")" of comm */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%lu %lu", &ut, &st) != 2)
		return 0;
	*cpu_s = (double)(ut + st) / sysconf(_SC_CLK_TCK);
	return *kb >= 0;
}

static int file_ready(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size > 0;
}

/* The marker may straddle two reads: keep the last bytes of each stream. */
struct stream {
	int fd, out;
	char tail[512];
	size_t len;
};

static int pump(struct stream *s, const char *marker)
{
	char buf[65536];
	ssize_t n = read(s->fd, buf, sizeof(buf));
	int hit = 0;

	if (n <= 0) {
		close(s->fd);
		s->fd = -1;
		return 0;
	}
	if (write(s->out, buf, n) != n)
		die("write");
	if (marker) {
		size_t keep = strlen(marker), m = (size_t)n;
		char scan[sizeof(s->tail) + sizeof(buf) + 1];

		memcpy(scan, s->tail, s->len);
		memcpy(scan + s->len, buf, m);
		scan[s->len + m] = 0;
		/* a NUL in the output would hide the rest from strstr: fine,
		 * tools print text */
		hit = strstr(scan, marker) != NULL;
		if (keep > sizeof(s->tail) - 1)
			keep = sizeof(s->tail) - 1;
		if (s->len + m < keep)
			keep = s->len + m;
		memmove(s->tail, scan + s->len + m - keep, keep);
		s->len = keep;
	}
	return hit;
}

int main(int argc, char **argv)
{
	const char *out = "/dev/null", *err = "/dev/null", *marker = NULL;
	const char *gate = NULL, *wait_file = NULL, *pid_file = NULL;
	const char *rss_file = NULL;
	FILE *rss_out = NULL;
	long long t_sample = 0;
	double settle = 0, limit = 300;
	int kill_it = 0, opt, po[2], pe[2], status = 0, ws;
	long long t_launch, t_marker = 0, t_stop = 0, t_exit, t_settle = 0;
	struct stream s[2];
	struct rusage ru;
	pid_t pid;
	enum { MARKER, GATE, WAIT, SETTLE, STOP, DONE } phase;

	while ((opt = getopt(argc, argv, "+o:e:m:g:w:s:kT:p:r:")) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'e': err = optarg; break;
		case 'm': marker = optarg; break;
		case 'g': gate = optarg; break;
		case 'w': wait_file = optarg; break;
		case 's': settle = atof(optarg); break;
		case 'k': kill_it = 1; break;
		case 'T': limit = atof(optarg); break;
		case 'p': pid_file = optarg; break;
		case 'r': rss_file = optarg; break;
		default:
			fprintf(stderr, "usage: launch -o OUT -e ERR [-m MARKER] "
				"[-g FIFO] [-w FILE] [-s SECS] [-k] [-T SECS] "
				"[-p PIDFILE] [-r RSSFILE] -- CMD...\n");
			return 99;
		}
	}
	if (optind >= argc)
		return 99;
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		die("pipe");
	s[0] = (struct stream){ .fd = po[0] };
	s[1] = (struct stream){ .fd = pe[0] };
	s[0].out = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	s[1].out = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (s[0].out < 0 || s[1].out < 0)
		die("open output");

	t_launch = now_ns();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	if (pid_file) {
		FILE *f = fopen(pid_file, "w");

		if (!f || fprintf(f, "%d\n", pid) < 0 || fclose(f))
			die(pid_file);
	}
	if (rss_file && !(rss_out = fopen(rss_file, "w")))
		die(rss_file);

	phase = marker ? MARKER : GATE;
	while (s[0].fd >= 0 || s[1].fd >= 0) {
		struct pollfd p[2];
		int np = 0, hit = 0, timeout = 1, i;
		long long t = now_ns();

		if (t - t_launch > limit * 1e9) {
			kill(pid, SIGKILL);
			status = -1;
		}
		for (i = 0; i < 2; i++) {
			if (s[i].fd >= 0)
				p[np++] = (struct pollfd){ .fd = s[i].fd, .events = POLLIN };
		}
		/* poll at 1 ms only while waiting on a file or a clock (a
		 * long -s wait at 100 ms until its last tenth of a second) */
		if (phase == MARKER || phase == DONE || (phase == STOP && !kill_it))
			timeout = 100;
		if (phase == SETTLE && settle * 1e9 - (t - t_settle) > 2e8)
			timeout = 100;
		if (rss_out && t - t_sample >= 1000000000LL) {
			double cpu;
			long kb;

			t_sample = t;
			if (sample(pid, &kb, &cpu))
				fprintf(rss_out, "%.1f %ld %.2f\n",
					(t - t_launch) / 1e9, kb, cpu);
		}
		if (poll(p, np, timeout) < 0 && errno != EINTR)
			die("poll");
		for (i = 0; i < np; i++) {
			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			hit |= pump(p[i].fd == s[0].fd ? &s[0] : &s[1],
				    phase == MARKER ? marker : NULL);
		}
		if (phase == MARKER && hit) {
			t_marker = now_ns();
			phase = GATE;
		}
		if (phase == GATE) {
			if (gate) {
				int fd = open(gate, O_WRONLY);

				if (fd < 0 || write(fd, "g", 1) != 1)
					die(gate);
				close(fd);
			}
			phase = WAIT;
		}
		if (phase == WAIT && (!wait_file || file_ready(wait_file))) {
			t_settle = now_ns();
			phase = SETTLE;
		}
		if (phase == SETTLE && now_ns() - t_settle >= settle * 1e9)
			phase = STOP;
		if (phase == STOP) {
			if (kill_it) {
				t_stop = now_ns();
				kill(pid, SIGINT);
			}
			phase = DONE;
		}
	}
	if (wait4(pid, &ws, 0, &ru) < 0)
		die("wait4");
	t_exit = now_ns();
	if (status != -1)
		status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	if (rss_out && fclose(rss_out))
		die(rss_file);
	printf("%lld %lld %lld %lld %ld %d %lld\n", t_launch, t_marker, t_stop,
	       t_exit, ru.ru_maxrss, status,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	return 0;
}
