// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU at a high context-switch rate: threads "ping" and "pong" pass one
 * byte back and forth over two pipes ROUNDS times. Each blocks in read()
 * until the other writes, so every round trip is (almost always) one
 * off-CPU period per thread; exactly 2 x ROUNDS write() calls are made by
 * the two threads, which is what a syscall count can be checked against.
 *
 *   pingpong ROUNDS STAMP_FILE [CPU]
 *
 * With CPU, both threads run there: every round trip is then two context
 * switches on one CPU. Spread over two CPUs, each wake-up is a cross-CPU
 * one whose cost depends on how deeply the other CPU idles (in a VM, an
 * exit to the hypervisor): 0.5 s to 4.5 s for the same run here.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include "stamp.h"

static int to_pong[2], to_ping[2];
static long rounds;

static void xfer(int in, int out, int first)
{
	char c = 'x';

	for (long i = 0; i < rounds; i++) {
		if (first && write(out, &c, 1) != 1)
			exit(1);
		if (read(in, &c, 1) != 1)
			exit(1);
		if (!first && write(out, &c, 1) != 1)
			exit(1);
	}
}

static void *pong(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "pong");
	xfer(to_pong[0], to_ping[1], 0);
	return NULL;
}

int main(int argc, char **argv)
{
	long long start = stamp_ns(), loop;
	pthread_t t;

	if (argc < 3) {
		fprintf(stderr, "usage: pingpong ROUNDS STAMP_FILE [CPU]\n");
		return 2;
	}
	rounds = atol(argv[1]);
	if (argc > 3) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[3]), &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			perror("sched_setaffinity");
	}
	prctl(PR_SET_NAME, "ping");
	if (pipe(to_pong) || pipe(to_ping) || pthread_create(&t, NULL, pong, NULL))
		return 1;
	loop = stamp_ns();
	xfer(to_ping[0], to_pong[1], 1);
	pthread_join(t, NULL);
	stamp_write(argv[2], start, loop, stamp_ns());
	return 0;
}
