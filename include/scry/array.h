/* SPDX-License-Identifier: GPL-2.0 */
/*
 * array: the one way scry grows an array (libbpf's libbpf_ensure_mem).
 *
 *	struct foo *v = NULL; size_t n = 0, cap = 0;
 *	err = array_ensure(&v, &cap, sizeof(*v), n + 1);
 *	if (!err) v[n++] = x;
 */
#ifndef SCRY_ARRAY_H
#define SCRY_ARRAY_H

#include <stddef.h>

/*
 * Make the array at *@data (a pointer to the array pointer, of *@cap
 * elements of @esize bytes) hold at least @need elements. It grows by
 * doubling (at least 16 elements), so n appends cost O(n). The contents
 * are kept; new elements are not initialized.
 * Returns 0, or -ENOMEM (also when the size would overflow), leaving
 * *@data and *@cap as they were.
 */
int array_ensure(void *data, size_t *cap, size_t esize, size_t need);

#endif /* SCRY_ARRAY_H */
