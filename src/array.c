// SPDX-License-Identifier: GPL-2.0
/* Growable arrays: see include/scry/array.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <scry/array.h>

int array_ensure(void *data, size_t *cap, size_t esize, size_t need)
{
	void **p = data;
	size_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	if (!esize)
		return -EINVAL;
	ncap = *cap < 16 ? 16 : *cap;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / esize)
		return -ENOMEM;
	n = realloc(*p, ncap * esize);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = ncap;
	return 0;
}
