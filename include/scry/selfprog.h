/* SPDX-License-Identifier: GPL-2.0 */
/*
 * selfprog: where scry's own BPF programs' JIT code lies. A kernel
 * stack taken by one of them starts with its frame: knowing the range
 * lets the drain trim that frame without naming it, which would read
 * all of /proc/kallsyms (BPF programs are not in the core kernel's
 * cached symbols: ksym_cache.h).
 */
#ifndef SCRY_SELFPROG_H
#define SCRY_SELFPROG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_object;
struct selfprog;

/*
 * The JIT images (every function, subprograms included) of the loaded
 * programs of the @nobjs objects at @objs (NULL ones skipped: the engine
 * and its second copy, parload.h), from the kernel (bpf_prog_info). Never
 * NULL but on ENOMEM; a program the kernel does not show (no JIT,
 * addresses hidden) is simply not in it.
 */
struct selfprog *selfprog_new(struct bpf_object *const *objs, size_t nobjs);
void selfprog_free(struct selfprog *sp);

/* Is @addr inside one of them? NULL-safe (false). */
bool selfprog_has(const struct selfprog *sp, __u64 addr);

#endif /* SCRY_SELFPROG_H */
