/* SPDX-License-Identifier: GPL-2.0 */
/* ksym: kernel addresses -> names through /proc/kallsyms. */
#ifndef SCRY_KSYM_H
#define SCRY_KSYM_H

#include <linux/types.h>

struct ksym_table;

/*
 * The kernel's functions (kallsyms T, t, W, w). As root, the core
 * kernel's text comes from this boot's cache (ksym_cache.h) when there
 * is one, and the rest of /proc/kallsyms is read only when an address
 * outside it is asked; without a cache all of /proc/kallsyms is read
 * and the cache written. NULL with errno: EPERM when kptr_restrict
 * hides the addresses, EINTR when stop_requested().
 */
struct ksym_table *ksym_load(void);
void ksym_free(struct ksym_table *k);

/*
 * The function at or below @addr: its name, module ("vmlinux" for the
 * core kernel, else the module's name) and @addr's offset into it.
 * Strings belong to @k. Returns 0, -ENOENT, or the error of reading
 * the rest of /proc/kallsyms (as ksym_load's; -EINTR is not kept).
 */
int ksym_find(struct ksym_table *k, __u64 addr, const char **name,
	      const char **module, __u64 *off);

#endif /* SCRY_KSYM_H */
