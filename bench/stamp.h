// SPDX-License-Identifier: GPL-2.0
/*
 * Shared by the bench workloads: CLOCK_MONOTONIC stamps (the same clock as
 * bench/launch, so launch -> workload start is the attach time), the FIFO
 * gate, and the done file bench/launch -w waits for.
 */
#ifndef BENCH_STAMP_H
#define BENCH_STAMP_H
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline long long stamp_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Block until one byte arrives on FIFO (a tracer attached with -p). */
static inline void stamp_gate(const char *fifo)
{
	char c;
	int fd = open(fifo, O_RDONLY);

	if (fd < 0 || read(fd, &c, 1) != 1) {
		perror(fifo);
		exit(1);
	}
	close(fd);
}

/*
 * "MAIN LOOP END\n" (main entered, measured work began, work ended) in one
 * write, to a temporary name renamed into place, so
 * a reader polling for a non-empty file never sees half of it.
 */
static inline void stamp_write(const char *path, long long main_ns,
			       long long loop_ns, long long end_ns)
{
	char tmp[4096], line[96];
	int fd, n;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	n = snprintf(line, sizeof(line), "%lld %lld %lld\n", main_ns, loop_ns, end_ns);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, line, n) != n || close(fd) || rename(tmp, path)) {
		perror(path);
		exit(1);
	}
}
#endif
