// SPDX-License-Identifier: GPL-2.0
/* Kernel symbols from /proc/kallsyms: see include/scry/ksym.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scry/array.h>
#include <scry/ksym.h>
#include <scry/ksym_cache.h>
#include <scry/stop.h>
#include <scry/symtab.h>

#define MAX_MODS	65535
#define LINES_PER_STOP_CHECK	4096

struct ksym_table {
	struct symtab t;	/* mod: index into mods */
	char **mods;		/* mods[0] is "vmlinux" */
	size_t nmods, cap;
	struct ksym_cache *cache;	/* the core kernel's text, or NULL */
	bool live;		/* t holds all of /proc/kallsyms */
	__u64 stext, etext;	/* the core kernel's text, 0 if not seen */
	int live_err;		/* its sticky load error */
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
	/* kept here: symtab_finish may keep another name at their address */
	if (!mi && nlen == 6 && !memcmp(name, "_stext", 6))
		k->stext = addr;
	if (!mi && nlen == 6 && !memcmp(name, "_etext", 6))
		k->etext = addr;
	return symtab_add(&k->t, addr, 0, name, nlen, rank, mi);
}

/* Read all of /proc/kallsyms into @k->t. 0 or -errno. */
static int load_live(struct ksym_table *k)
{
	bool nonzero = false;
	char *line = NULL;
	size_t cap = 0, n = 0;
	FILE *f;
	int err = 0;

	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -errno;
	while (!err && getline(&line, &cap, f) > 0) {
		if (!(++n % LINES_PER_STOP_CHECK) && stop_requested())
			err = -EINTR;
		else
			err = parse_line(k, line, &nonzero);
	}
	/* kptr_restrict shows every address as 0 to the unprivileged. */
	if (!err && !nonzero)
		err = -EPERM;
	free(line);
	fclose(f);
	if (err) {
		/* nothing half-read stays: a later try starts clean */
		symtab_clear(&k->t);
		while (k->nmods > 1)
			free(k->mods[--k->nmods]);
		return err;
	}
	symtab_finish(&k->t);
	k->live = true;
	return 0;
}

/*
 * Keep the core kernel's text, _stext up to _etext, for the rest of
 * the boot. Only if nothing else (a module, a BPF program, a
 * trampoline) lies in that range: then a cached answer is exactly the
 * live table's. Failing to write costs the next run the live read
 * again, nothing else.
 */
static void save_cache(const struct ksym_table *k, const char *boot_id)
{
	const struct symtab_sym *lo = symtab_floor(&k->t, k->stext);
	size_t first, last;

	if (!k->stext || k->etext <= k->stext || !lo || lo->addr != k->stext)
		return;
	first = lo - k->t.v;
	for (last = first; last < k->t.n && k->t.v[last].addr < k->etext;
	     last++)
		if (k->t.v[last].mod)
			return;
	ksym_cache_write(KSYM_CACHE_DIR, boot_id, &k->t, first,
			 last - first, k->etext);
}

/*
 * Does the live file show this process real addresses? The kernel
 * decides per reader (kptr_restrict, CAP_SYSLOG: a root daemon without
 * it reads zeros), so a cache written by another root must not answer
 * for one it would refuse: its first line's address says, as the kernel
 * prints it for this reader (one read of a page).
 */
static bool addresses_shown(void)
{
	char line[256];
	FILE *f = fopen("/proc/kallsyms", "re");
	bool shown = false;
	size_t n;
	int i;

	/* the first text symbol's (per-CPU ones come first, at 0, on some) */
	for (i = 0; f && i < 64 && fgets(line, sizeof(line), f); i++) {
		n = strspn(line, "0123456789abcdef");
		if (n && line[n] == ' ' && (line[n + 1] == 'T' ||
					    line[n + 1] == 't')) {
			shown = strspn(line, "0") < n;
			break;
		}
	}
	if (f)
		fclose(f);
	return shown;
}

struct ksym_table *ksym_load(void)
{
	struct ksym_table *k = calloc(1, sizeof(*k));
	char boot_id[KSYM_BOOT_ID_LEN + 1];
	/*
	 * The cache holds what only root may read (kallsyms addresses):
	 * only root reads or writes it; others read the live file, where
	 * kptr_restrict decides.
	 */
	bool cached = !geteuid() && addresses_shown() &&
		      !ksym_cache_boot_id(boot_id);
	int err = -ENOMEM;

	if (!k || mod_index(k, "vmlinux", 7) < 0)
		goto out;
	if (cached) {
		k->cache = ksym_cache_open(KSYM_CACHE_DIR, boot_id);
		if (k->cache)
			return k;	/* the rest of kallsyms when asked */
	}
	err = load_live(k);
	if (!err && cached)
		save_cache(k, boot_id);
out:
	if (err) {
		ksym_free(k);
		errno = -err;
		return NULL;
	}
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
	ksym_cache_free(k->cache);
	free(k);
}

int ksym_find(struct ksym_table *k, __u64 addr, const char **name,
	      const char **module, __u64 *off)
{
	const struct symtab_sym *y;

	if (k->cache && !ksym_cache_find(k->cache, addr, name, off)) {
		*module = k->mods[0];
		return 0;
	}
	/* A module's or BPF program's address: those move, read live. */
	if (!k->live && !k->live_err) {
		k->live_err = load_live(k);
		if (k->live_err == -EINTR) {
			k->live_err = 0;	/* asked to stop: not sticky */
			return -EINTR;
		}
	}
	if (k->live_err)
		return k->live_err;
	y = symtab_floor(&k->t, addr);
	if (!y)
		return -ENOENT;
	*name = symtab_name(&k->t, y);
	*module = k->mods[y->mod];
	*off = addr - y->addr;
	return 0;
}
