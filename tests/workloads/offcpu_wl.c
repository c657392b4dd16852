// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU ground truth: N sleeps of 10 ms from sleep_short(), then M of
 * 50 ms from sleep_long(), each one nanosleep and so one off-CPU period.
 * Built with frame pointers. With a FIFO path as third argument it first
 * blocks until a byte arrives there (so a test can attach with -p first).
 * With $WL_REPORT set, each phase's wall time and context switches go
 * there (short_ns, short_vcsw, short_ivcsw, short_ivcsw_max, long_*;
 * wl_report.h).
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

	wl_phase_begin("short");
	for (i = 0; i < n; i++)
		nap(10);
	wl_phase_end();
}

__attribute__((noinline)) void sleep_long(int n)
{
	int i;

	wl_phase_begin("long");
	for (i = 0; i < n; i++)
		nap(50);
	wl_phase_end();
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: offcpu_wl N M [GATE_FIFO]\n");
		return 2;
	}
	if (argc > 3)
		gate(argv[3]);
	wl_call_begin();
	sleep_short(atoi(argv[1]));
	wl_call_end();
	wl_call_begin();
	sleep_long(atoi(argv[2]));
	wl_call_end();
	return 0;
}
