// SPDX-License-Identifier: GPL-2.0
/*
 * Counted shared strings (include/scry/intern.h): a chained hash table
 * that grows with its count and is freed when the last string goes, so
 * a run that frees its reports ends with nothing held.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scry/intern.h>

struct istr {
	struct istr *next;
	size_t refs;
	uint32_t hash;
	char s[];
};

static struct istr **buckets;
static size_t nbuckets, count;

/* FNV-1a: short names, no adversary gains more than a long chain. */
static uint32_t hash_of(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static struct istr *entry_of(char *s)
{
	return (struct istr *)(s - offsetof(struct istr, s));
}

/* Twice the buckets once there are more strings than buckets. */
static void grow(void)
{
	size_t n = nbuckets ? nbuckets * 2 : 256, i;
	struct istr **b, *e, *next;

	if (n > SIZE_MAX / sizeof(*b) || !(b = calloc(n, sizeof(*b))))
		return;		/* longer chains, still correct */
	for (i = 0; i < nbuckets; i++) {
		for (e = buckets[i]; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	free(buckets);
	buckets = b;
	nbuckets = n;
}

char *intern(const char *s)
{
	uint32_t h = hash_of(s);
	struct istr *e;
	size_t len;

	if (count >= nbuckets)
		grow();
	if (!nbuckets) {
		errno = ENOMEM;
		return NULL;
	}
	for (e = buckets[h & (nbuckets - 1)]; e; e = e->next) {
		if (e->hash == h && !strcmp(e->s, s)) {
			e->refs++;
			return e->s;
		}
	}
	len = strlen(s);
	e = malloc(sizeof(*e) + len + 1);
	if (!e) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(e->s, s, len + 1);
	e->refs = 1;
	e->hash = h;
	e->next = buckets[h & (nbuckets - 1)];
	buckets[h & (nbuckets - 1)] = e;
	count++;
	return e->s;
}

char *intern_take(char *s)
{
	char *i;

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	i = intern(s);
	free(s);
	return i;
}

char *intern_ref(char *s)
{
	if (s)
		entry_of(s)->refs++;
	return s;
}

void intern_put(char *s)
{
	struct istr *e, **pp;

	if (!s)
		return;
	e = entry_of(s);
	if (--e->refs)
		return;
	for (pp = &buckets[e->hash & (nbuckets - 1)]; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	}
	free(e);
	if (!--count) {
		free(buckets);
		buckets = NULL;
		nbuckets = 0;
	}
}
