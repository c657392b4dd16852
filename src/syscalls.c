// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall names -> numbers for this architecture, from the kernel's uapi
 * header at build time (build/syscalls.h, made by the Makefile), so the
 * filter can run on numbers in the kernel with no tracefs lookups.
 */
#include <string.h>
#include <scry/abi.h>
#include <scry/plan.h>

static const struct {
	const char *name;
	int nr;
} table[] = {
#include "syscalls.h"
	/* io_uring completions, counted as if they were syscalls (abi.h) */
	{ "io_uring_read", SCRY_SYSCALL_URING_READ },
	{ "io_uring_write", SCRY_SYSCALL_URING_WRITE },
};

int plan_syscall_nr(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].name, name))
			return table[i].nr;
	return -1;
}

const char *plan_syscall_name(int i)
{
	if (i < 0 || (size_t)i >= sizeof(table) / sizeof(table[0]))
		return NULL;
	return table[i].name;
}

const char *plan_syscall_name_of(int nr)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].nr == nr)
			return table[i].name;
	return NULL;
}

/*
 * Which argument holds the file a syscall reads from (src) and writes to
 * (dst), for the read and write questions: read(fd) reads fd;
 * copy_file_range(fd_in, _, fd_out), splice(fd_in, _, fd_out) move from
 * arg0 to arg2; sendfile(out_fd, in_fd) from arg1 to arg0. Syscalls not
 * listed read or write no file of theirs.
 */
static const struct {
	const char *name;
	signed char src, dst;
} movers[] = {
	{ "read", 0, -1 }, { "pread64", 0, -1 }, { "readv", 0, -1 },
	{ "preadv", 0, -1 }, { "preadv2", 0, -1 },
	{ "write", -1, 0 }, { "pwrite64", -1, 0 }, { "writev", -1, 0 },
	{ "pwritev", -1, 0 }, { "pwritev2", -1, 0 },
	{ "copy_file_range", 0, 2 }, { "splice", 0, 2 }, { "sendfile", 1, 0 },
	/* the request's own file (the engine reads it from the request) */
	{ "io_uring_read", 0, -1 }, { "io_uring_write", -1, 0 },
};

int plan_syscall_fd_arg(int nr, enum plan_fd_role role)
{
	const char *name = plan_syscall_name_of(nr);
	size_t i;

	if (role == PLAN_FD_ARG0)
		return 0;
	for (i = 0; name && i < sizeof(movers) / sizeof(movers[0]); i++)
		if (!strcmp(movers[i].name, name))
			return role == PLAN_FD_SRC ? movers[i].src : movers[i].dst;
	return -1;
}
