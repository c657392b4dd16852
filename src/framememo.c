// SPDX-License-Identifier: GPL-2.0
/*
 * The frames of each distinct file address of one drain
 * (include/scry/framememo.h): an open-addressed table of entries, each
 * its key and its frames, grown at half full.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scry/framememo.h>
#include <scry/intern.h>
#include <scry/report.h>
#include <scry/sym.h>

struct entry {
	struct framememo_key k;		/* k.module: an intern() reference */
	int n;
	struct report_frame fr[];
};

struct framememo {
	struct entry **slots;
	size_t nslots, count;
};

static uint64_t hash_of(const struct framememo_key *k)
{
	uint64_t h = (uintptr_t)k->obj;

	h = (h ^ k->addr) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ k->start) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static bool same(const struct framememo_key *a, const struct framememo_key *b)
{
	return a->obj == b->obj && a->addr == b->addr &&
	       a->start == b->start && a->end == b->end &&
	       a->pgoff == b->pgoff && a->max == b->max &&
	       !strcmp(a->module, b->module);
}

/* The slot of @k: its entry, or the empty slot it would go in. */
static struct entry **slot_of(const struct framememo *m,
			      const struct framememo_key *k)
{
	size_t i = hash_of(k) & (m->nslots - 1);

	while (m->slots[i] && !same(&m->slots[i]->k, k))
		i = (i + 1) & (m->nslots - 1);
	return &m->slots[i];
}

struct framememo *framememo_new(void)
{
	struct framememo *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->nslots = 1024;
	m->slots = calloc(m->nslots, sizeof(*m->slots));
	if (!m->slots) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

static void entry_free(struct entry *e)
{
	int i;

	for (i = 0; i < e->n; i++)
		syms_frame_clear(&e->fr[i]);
	intern_put((char *)e->k.module);
	free(e);
}

void framememo_free(struct framememo *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nslots; i++)
		if (m->slots[i])
			entry_free(m->slots[i]);
	free(m->slots);
	free(m);
}

int framememo_get(const struct framememo *m, const struct framememo_key *k,
		  struct report_frame *out)
{
	const struct entry *e = m ? *slot_of(m, k) : NULL;
	int i;

	if (!e)
		return 0;
	for (i = 0; i < e->n; i++) {
		if (syms_frame_copy(&out[i], &e->fr[i])) {
			while (i--)
				syms_frame_clear(&out[i]);
			return -ENOMEM;
		}
	}
	return e->n;
}

static int grow(struct framememo *m)
{
	struct framememo old = *m;
	size_t i;

	m->slots = calloc(old.nslots * 2, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return -ENOMEM;
	}
	m->nslots = old.nslots * 2;
	for (i = 0; i < old.nslots; i++)
		if (old.slots[i])
			*slot_of(m, &old.slots[i]->k) = old.slots[i];
	free(old.slots);
	return 0;
}

int framememo_put(struct framememo *m, const struct framememo_key *k,
		  const struct report_frame *fr, int n)
{
	struct entry *e, **sl;

	if (!m || n < 1 || n > k->max)
		return -EINVAL;
	if ((m->count + 1) * 2 > m->nslots && grow(m))
		return -ENOMEM;
	sl = slot_of(m, k);
	if (*sl)
		return 0;	/* known: the same answer */
	e = calloc(1, sizeof(*e) + n * sizeof(e->fr[0]));
	if (!e)
		return -ENOMEM;
	e->k = *k;
	e->k.module = intern(k->module);
	if (!e->k.module) {
		free(e);
		return -ENOMEM;
	}
	for (e->n = 0; e->n < n; e->n++) {
		if (syms_frame_copy(&e->fr[e->n], &fr[e->n])) {
			entry_free(e);
			return -ENOMEM;
		}
	}
	*sl = e;
	m->count++;
	return 0;
}
