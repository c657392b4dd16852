// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall names -> numbers for this architecture, from the kernel's uapi
 * header at build time (build/syscalls.h, made by the Makefile), so the
 * filter can run on numbers in the kernel with no tracefs lookups.
 */
#include <string.h>
#include <scry/plan.h>

static const struct {
	const char *name;
	int nr;
} table[] = {
#include "syscalls.h"
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
