/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proc: what scry reads about a process from /proc: its mappings
 * (/proc/PID/maps, one parser for all of scry) and the files behind
 * them, opened by one fallback chain.
 */
#ifndef SCRY_PROC_H
#define SCRY_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <linux/types.h>

/* One line of /proc/PID/maps. */
struct proc_map {
	__u64 start;
	__u64 end;
	__u64 pgoff;		/* file offset of start */
	__u64 dev;		/* user-space dev_t, makedev(major, minor) */
	__u64 ino;		/* 0: not a file */
	bool read, write, exec, shared;
	bool deleted;		/* the kernel said " (deleted)" (cut off) */
	char *path;		/* malloc'ed: "/usr/lib/...", "[vdso]",
				 * "[heap]"; NULL when anonymous */
};

/* Longest line accepted: the fields plus a PATH_MAX path, escaped. */
#define PROC_MAPS_LINE_MAX	(4096 * 4 + 128)

/*
 * Parse one maps line (@len bytes, no trailing newline needed) into @m.
 * Strict: every field must be where and what the kernel writes.
 * Returns 0 (@m->path malloc'ed or NULL), -EINVAL for a malformed line,
 * -ENOMEM.
 */
int proc_maps_parse(const char *line, size_t len, struct proc_map *m);

/* Only the mappings that matter for code: executable, and a file or the
 * vDSO. */
#define PROC_MAPS_CODE	(1U << 0)

/*
 * Read the mappings of @pid (0: this process), filtered by @flags
 * (PROC_MAPS_*), sorted by start, into a malloc'ed array.
 * Returns 0, or -ESRCH when the process is gone (or a zombie without
 * mappings), or another -errno.
 */
int proc_maps_read(int pid, unsigned int flags, struct proc_map **out,
		   size_t *n);

void proc_maps_free(struct proc_map *m, size_t n);

/* True for the vDSO's line. */
bool proc_map_is_vdso(const struct proc_map *m);

/*
 * Open the file behind mapping @m of @pid (0: this process), read-only,
 * through fsafe_open, by one chain: /proc/PID/map_files/START-END (the
 * mapped inode itself, even deleted or in another mount namespace; needs
 * CAP_SYS_ADMIN), then the path under /proc/PID/root, then the path as
 * it is, then /proc/PID/exe; each of the last three only if it is the
 * mapping's inode. @st receives the file's stat (may be NULL).
 * Returns a descriptor or a negative errno.
 */
int proc_open_mapped(int pid, const struct proc_map *m, struct stat *st);

/*
 * Read the start of /proc/@pid/@file (status, stat: a few hundred bytes
 * the kernel writes) into @buf, NUL-terminated; at most @size - 1 bytes.
 * Returns the length, or a negative errno (the process is gone).
 */
ssize_t proc_read(int pid, const char *file, char *buf, size_t size);

/*
 * When @pid started: /proc/PID/stat's starttime, clock ticks
 * (sysconf(_SC_CLK_TCK)) since boot on CLOCK_BOOTTIME, into @ticks.
 * 0, -ESRCH (gone) or -EINVAL (a stat line that does not parse).
 */
int proc_start_ticks(int pid, unsigned long long *ticks);

/*
 * When @pid started, on CLOCK_REALTIME (the clock of files' mtimes), to
 * a clock tick, while the wall clock is not stepped. 0 or a negative
 * errno (gone, or a stat line that does not parse).
 */
int proc_start_time(int pid, struct timespec *start);

/*
 * What -p @pid names: @tgid, the process it is a thread of (@pid itself
 * for a process), and @kthread, whether it is a kernel thread (no user
 * code, no mappings). Returns 0, -ESRCH when it is gone, or -EINVAL for
 * /proc text that does not parse.
 */
int proc_task(int pid, int *tgid, bool *kthread);

#endif /* SCRY_PROC_H */
