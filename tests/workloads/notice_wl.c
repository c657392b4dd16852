// SPDX-License-Identifier: GPL-2.0
/*
 * Notice loss ground truth: a process scry has read execs while the
 * engine's notice ring is full (the test stops scry, and another process
 * fills the ring first), so its exec's notice and its new libraries' are
 * lost and nothing tells scry the process changed:
 *
 *   notice_wl flood N GATE1 GATE2
 *     after GATE1, one call of before_exec() (a probe there makes the
 *     engine follow the process), then N executable mmaps of its own
 *     file (a notice each, unmapped at once); exits after GATE2
 *   notice_wl exec FILE K GATE1 GATE2 GATE3
 *     after GATE1, one call of before_exec() (scry reads the process);
 *     after GATE2, exec of FILE (a copy of this program: another file)
 *     as "after K GATE3"
 *   notice_wl after K GATE
 *     K calls of after_exec(), then blocks on GATE, alive (its mappings
 *     can be read from /proc), then exits
 *
 * The exec'ed image is mapped at other addresses (ASLR): names from the
 * mappings before the exec would be wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "gate.h"

static volatile int sink;

__attribute__((noinline)) void before_exec(void)
{
	sink++;
}

__attribute__((noinline)) void after_exec(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0, i, fd;
	void *p;

	if (argc == 5 && !strcmp(argv[1], "flood")) {
		gate(argv[3]);
		before_exec();
		fd = open("/proc/self/exe", O_RDONLY);
		for (i = 0; fd >= 0 && i < n; i++) {
			p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
				 fd, 0);
			if (p == MAP_FAILED || munmap(p, 4096))
				return 1;
		}
		gate(argv[4]);
		return fd >= 0 ? 0 : 1;
	}
	if (argc == 7 && !strcmp(argv[1], "exec")) {
		gate(argv[4]);
		before_exec();
		gate(argv[5]);
		execl(argv[2], argv[2], "after", argv[3], argv[6],
		      (char *)NULL);
		perror(argv[2]);
		return 1;
	}
	if (argc == 4 && !strcmp(argv[1], "after")) {
		for (i = 0; i < n; i++)
			after_exec(i);
		gate(argv[3]);
		return 0;
	}
	fprintf(stderr, "usage: notice_wl flood N GATE1 GATE2 | exec FILE K "
		"GATE1 GATE2 GATE3 | after K GATE\n");
	return 2;
}
