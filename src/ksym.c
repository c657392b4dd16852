// SPDX-License-Identifier: GPL-2.0
/* Kernel symbols from /proc/kallsyms: see include/scry/ksym.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scry/array.h>
#include <scry/ksym.h>
#include <scry/stop.h>
#include <scry/symtab.h>

#define MAX_MODS	65535
#define LINES_PER_STOP_CHECK	4096

struct ksym_table {
	struct symtab t;	/* mod: index into mods */
	char **mods;		/* mods[0] is "vmlinux" */
	size_t nmods, cap;
};

static int mod_index(struct ksym_table *k, const char *name, size_t len)
{
	char *s;
	size_t i;

	/* Lines of one module are adjacent: look at the newest first. */
	for (i = k->nmods; i-- > 1;)
		if (strlen(k->mods[i]) == len && !memcmp(k->mods[i], name, len))
			return i;
	if (k->nmods >= MAX_MODS)
		return -E2BIG;
	if (array_ensure(&k->mods, &k->cap, sizeof(*k->mods), k->nmods + 1))
		return -ENOMEM;
	s = strndup(name, len);
	if (!s)
		return -ENOMEM;
	k->mods[k->nmods] = s;
	return k->nmods++;
}

static int rank_of(char type)
{
	switch (type) {
	case 'T':
		return 0;
	case 'W':
	case 'w':
		return 1;
	case 't':
		return 2;
	default:
		return -1;
	}
}

static int parse_line(struct ksym_table *k, char *line, bool *nonzero)
{
	char *p, *name, *mod;
	unsigned long long addr;
	size_t nlen;
	int rank, mi = 0;

	errno = 0;
	addr = strtoull(line, &p, 16);
	if (errno || p == line || *p != ' ')
		return 0;
	rank = rank_of(p[1]);
	if (rank < 0 || p[2] != ' ')
		return 0;
	name = p + 3;
	nlen = strcspn(name, "\t\n ");
	if (!nlen)
		return 0;
	if (name[nlen] == '\t' && name[nlen + 1] == '[') {
		size_t mlen;

		mod = name + nlen + 2;
		mlen = strcspn(mod, "]\n");
		if (mod[mlen] != ']')
			return 0;
		mi = mod_index(k, mod, mlen);
		if (mi < 0)
			return mi;
	}
	if (addr)
		*nonzero = true;
	return symtab_add(&k->t, addr, 0, name, nlen, rank, mi);
}

struct ksym_table *ksym_load(void)
{
	struct ksym_table *k = calloc(1, sizeof(*k));
	bool nonzero = false;
	char *line = NULL;
	size_t cap = 0, n = 0;
	FILE *f = NULL;
	int err = -ENOMEM;

	if (!k || mod_index(k, "vmlinux", 7) < 0)
		goto out;
	f = fopen("/proc/kallsyms", "re");
	if (!f) {
		err = -errno;
		goto out;
	}
	err = 0;
	while (!err && getline(&line, &cap, f) > 0) {
		if (!(++n % LINES_PER_STOP_CHECK) && stop_requested())
			err = -EINTR;
		else
			err = parse_line(k, line, &nonzero);
	}
	/* kptr_restrict shows every address as 0 to the unprivileged. */
	if (!err && !nonzero)
		err = -EPERM;
out:
	free(line);
	if (f)
		fclose(f);
	if (err) {
		ksym_free(k);
		errno = -err;
		return NULL;
	}
	symtab_finish(&k->t);
	return k;
}

void ksym_free(struct ksym_table *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nmods; i++)
		free(k->mods[i]);
	free(k->mods);
	symtab_clear(&k->t);
	free(k);
}

int ksym_find(const struct ksym_table *k, __u64 addr, const char **name,
	      const char **module, __u64 *off)
{
	const struct symtab_sym *y = symtab_floor(&k->t, addr);

	if (!y)
		return -ENOENT;
	*name = symtab_name(&k->t, y);
	*module = k->mods[y->mod];
	*off = addr - y->addr;
	return 0;
}
