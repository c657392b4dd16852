// SPDX-License-Identifier: GPL-2.0
/* Sorted symbol tables: see include/scry/symtab.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scry/array.h>
#include <scry/elf.h>
#include <scry/symtab.h>

int symtab_bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

int symtab_add(struct symtab *t, __u64 addr, __u64 size, const char *name,
	       size_t len, int rank, unsigned int mod)
{
	struct symtab_sym *y;

	if (t->names_len + len + 1 > UINT32_MAX || t->n >= UINT32_MAX)
		return -E2BIG;
	if (array_ensure(&t->v, &t->cap, sizeof(*t->v), t->n + 1) ||
	    array_ensure(&t->names, &t->names_cap, 1,
			 t->names_len + len + 1))
		return -ENOMEM;
	y = &t->v[t->n];
	memcpy(t->names + t->names_len, name, len);
	t->names[t->names_len + len] = '\0';
	y->name = t->names_len;
	t->names_len += len + 1;
	y->addr = addr;
	y->size = size;
	y->seq = t->n;
	y->rank = rank;
	for (y->us = 0; y->us < len && y->us < 255 && name[y->us] == '_';)
		y->us++;
	y->mod = mod;
	t->n++;
	return 0;
}

int symtab_add_elf(struct symtab *t, struct elf_file *f, unsigned int tables)
{
	struct elf_sym_iter *it = elf_sym_iter_new(f, tables);
	struct elf_sym s;
	int ret;

	if (!it)
		return -ENOMEM;
	while ((ret = elf_sym_iter_next(it, &s)) > 0) {
		/* "@V" alone names nothing */
		if (!s.defined || !s.baselen)
			continue;
		/* Drop symbol versions: malloc@@GLIBC_2.2.5 -> malloc. */
		ret = symtab_add(t, s.value, s.size, s.name, s.baselen,
				 symtab_bind_rank(s.bind), 0);
		if (ret)
			break;
	}
	elf_sym_iter_free(it);
	return ret;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct symtab_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->us != y->us)
		return x->us - y->us;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void symtab_finish(struct symtab *t)
{
	size_t i, j;

	if (!t->n)
		return;
	qsort(t->v, t->n, sizeof(*t->v), sym_cmp);
	for (i = 0, j = 0; i < t->n; i++) {
		/* an alias may carry the size the winner lacks */
		if (j && t->v[j - 1].addr == t->v[i].addr) {
			if (t->v[i].size > t->v[j - 1].size)
				t->v[j - 1].size = t->v[i].size;
			continue;
		}
		t->v[j++] = t->v[i];
	}
	t->n = j;
	/* Shrinking cannot fail in a way that matters; keep the old block. */
	if (j < t->cap) {
		struct symtab_sym *y = realloc(t->v, j * sizeof(*y));

		if (y) {
			t->v = y;
			t->cap = j;
		}
	}
}

const struct symtab_sym *symtab_floor(const struct symtab *t, __u64 addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->v[lo - 1] : NULL;
}

const struct symtab_sym *symtab_find(const struct symtab *t, __u64 addr)
{
	const struct symtab_sym *y = symtab_floor(t, addr);

	/* Size 0: the symbol runs up to the next one, which is above. */
	if (y && y->size && addr - y->addr >= y->size)
		return NULL;
	return y;
}

void symtab_clear(struct symtab *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->names);
	memset(t, 0, sizeof(*t));
}
