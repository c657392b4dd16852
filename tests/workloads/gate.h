/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workloads' start gate: block until one byte arrives on a FIFO, so a
 * test can attach (-p) or let scry load a new process's tables (-c) before
 * anything it measures happens. A NULL path means no gate.
 */
#ifndef SCRY_WL_GATE_H
#define SCRY_WL_GATE_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void gate(const char *path)
{
	char c;
	int fd;

	if (!path)
		return;
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, &c, 1) != 1) {
		perror(path);
		exit(1);
	}
	close(fd);
}

#endif /* SCRY_WL_GATE_H */
