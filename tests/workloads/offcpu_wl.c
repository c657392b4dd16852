// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU ground truth: N sleeps of 10 ms from sleep_short(), then M of
 * 50 ms from sleep_long(), each one nanosleep and so one off-CPU period.
 * Built with frame pointers. With a FIFO path as third argument it first
 * blocks until a byte arrives there (so a test can attach with -p first).
 * With $WL_REPORT set, the wall time of each phase goes there (short_ns,
 * long_ns): no off-CPU period inside a phase can add up to more.
 *
 *   offcpu_wl N M [GATE_FIFO]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "gate.h"
#include "wl_report.h"

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) void sleep_short(int n)
{
	int i;

	for (i = 0; i < n; i++)
		nap(10);
}

__attribute__((noinline)) void sleep_long(int n)
{
	int i;

	for (i = 0; i < n; i++)
		nap(50);
}

int main(int argc, char **argv)
{
	long long t;

	if (argc < 3) {
		fprintf(stderr, "usage: offcpu_wl N M [GATE_FIFO]\n");
		return 2;
	}
	if (argc > 3)
		gate(argv[3]);
	t = wl_now_ns();
	sleep_short(atoi(argv[1]));
	wl_report("short_ns", wl_now_ns() - t);
	t = wl_now_ns();
	sleep_long(atoi(argv[2]));
	wl_report("long_ns", wl_now_ns() - t);
	return 0;
}
