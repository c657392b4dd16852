// SPDX-License-Identifier: GPL-2.0
/*
 * JIT ground truth: copies a small loop (mov rcx, rdi; 1: dec rcx;
 * jnz 1b; ret) into an anonymous executable mapping, names it jit_spin in
 * /tmp/perf-PID.map as a JIT would, and calls it for SECONDS, so CPU
 * samples land in code no ELF file describes.
 *
 *   jit_wl SECONDS [MAPNAME_FILE [planted]]
 *
 * Like a real JIT it leaves the perf map behind when it exits (perf reads
 * it afterwards); with MAPNAME_FILE it writes the map's path there, so
 * the caller can remove it. With "planted" it writes no perf map: the
 * line it would have written goes to MAPNAME_FILE instead, for the
 * caller to plant as a perf map (one left by an earlier process with the
 * same pid, say).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

static const unsigned char code[] = {
	0x48, 0x89, 0xf9,	/* mov %rdi, %rcx */
	0x48, 0xff, 0xc9,	/* 1: dec %rcx */
	0x75, 0xfb,		/* jnz 1b */
	0xc3,			/* ret */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1);
	void (*spin)(unsigned long);
	char path[64];
	bool planted;
	void *mem;
	FILE *f;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	planted = argc > 3 && !strcmp(argv[3], "planted");
	f = fopen(planted ? argv[2] : path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_spin\n", (unsigned long)mem, sizeof(code));
	fclose(f);
	if (argc > 2 && !planted) {
		f = fopen(argv[2], "w");
		if (!f)
			return 1;
		fprintf(f, "%s\n", path);
		fclose(f);
	}
	spin = (void (*)(unsigned long))mem;
	while (now() < end)
		spin(10000000);
	return 0;
}
