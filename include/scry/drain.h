/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drain: the kernel's aggregation, stack store and loss counters ->
 * a symbolized struct report. Runs after the probes are detached.
 */
#ifndef SCRY_DRAIN_H
#define SCRY_DRAIN_H

#include <stdbool.h>

#include <linux/types.h>

struct attach;
struct syms;
struct report;
struct plan_type;

/*
 * Fill @r from @a's maps, resolving stacks with @s: r is the main map's
 * report (--map, or the plan's main map), r->maps every map's in program
 * order; the stats. When @clear is set, delete what was read (interval
 * snapshots); when not, the files' DWARF is let go once the rows are
 * named (obj_cache_drop_dwarf). Returns 0 or -errno.
 */
int drain_report(struct attach *a, struct syms *s, struct report *r,
		 bool clear);

/*
 * Every key of the aggregation map the probes write with its value to
 * @fn(@ctx, ...), a batch of keys a system call; with @clear, of the one
 * attach_flip() retired, deleted as read. Stops
 * at @fn's first non-zero return, which it returns; -EOPNOTSUPP before
 * the first key when the kernel has no batch lookup (then walk key by
 * key); else 0 or -errno.
 */
struct scry_key;
struct scry_val;
typedef int (*drain_key_fn)(void *ctx, const struct scry_key *key,
			    const struct scry_val *val);
int drain_aggs_each(struct attach *a, bool clear, drain_key_fn fn,
		    void *ctx);

/*
 * Loss counter @id (enum scry_stat) summed over the CPUs into @total
 * (0 for an id the map does not hold). Returns 0 or -errno.
 */
int drain_stat(const struct attach *a, __u32 id, __u64 *total);

/*
 * What each CPU added up of a key that repeated there and had not yet
 * added to the map (abi.h: struct scry_pend), added now: after
 * attach_stop(), before anything reads the aggregation. Returns 0 or
 * -errno.
 */
int drain_pend(struct attach *a);

/* The map drain_report() makes the main one. */
int drain_main_map(const struct attach *a);

/* Map @map alone into @r (print(@map)). Returns 0 or -errno. */
int drain_one(struct attach *a, struct syms *s, int map, struct report *r);

/* Empty map @map (clear()), or set its values to zero (@zero, zero()). */
int drain_reset(struct attach *a, int map, bool zero);

/*
 * A value of type @t as text (malloc'ed): a symbol, a probe's name, a
 * stored string, an address; NULL for a plain number. @pid names user
 * addresses.
 */
char *drain_format_value(struct attach *a, struct syms *s,
			 const struct plan_type *t, __s64 v, int pid);

/*
 * Stack @id (kernel or user, by @t) symbolized into @out (its frames the
 * caller's to free: report_stack_free()), cut to t->limit frames.
 */
struct report_stack;
int drain_stack(struct attach *a, struct syms *s, const struct plan_type *t,
		__s64 id, int pid, struct report_stack *out);

#endif /* SCRY_DRAIN_H */
