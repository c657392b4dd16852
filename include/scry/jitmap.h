/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitmap: a JIT's /tmp/perf-PID.map, "START SIZE name" per line (hex,
 * with or without 0x), read within fixed bounds: the file is written by
 * the traced process's user, so its size says nothing about what scry
 * should spend on it. What the bounds leave out is counted.
 */
#ifndef SCRY_JITMAP_H
#define SCRY_JITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define JITMAP_LINE_MAX		4096		/* bytes, newline included */
#define JITMAP_MAX_ENTRIES	(512 * 1024)
#define JITMAP_MAX_BYTES	(64ULL << 20)	/* read from one file */

struct jitmap_stats {
	__u64 entries;		/* named ranges kept */
	__u64 long_lines;	/* skipped: longer than JITMAP_LINE_MAX */
	__u64 bad_lines;	/* skipped: not "START SIZE name" */
	__u64 over_entries;	/* valid lines past JITMAP_MAX_ENTRIES */
	__u64 over_bytes;	/* bytes past JITMAP_MAX_BYTES, not read */
};

struct jitmap;

struct jitmap *jitmap_new(void);
void jitmap_free(struct jitmap *j);

/*
 * Replace @j's contents with what the file at @fd says, reading at most
 * JITMAP_MAX_BYTES (the rest is counted, not read). Returns 0 or -errno
 * (-EINTR when stop_requested()); on error @j is unchanged.
 */
int jitmap_read(struct jitmap *j, int fd);

/* The same from text in memory (tests, fuzzing). */
int jitmap_parse(struct jitmap *j, const char *buf, size_t len);

/*
 * The name of the latest entry holding @addr, and its start in
 * *@start; NULL when none does.
 */
const char *jitmap_lookup(const struct jitmap *j, __u64 addr, __u64 *start);

const struct jitmap_stats *jitmap_stats(const struct jitmap *j);

/* True when the bounds left anything out. */
bool jitmap_truncated(const struct jitmap *j);

#endif /* SCRY_JITMAP_H */
