/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsafe: the one way scry opens a file that a traced user may control:
 * binaries and libraries named by /proc/PID/maps or the command line,
 * .gnu_debuglink and build-id debug files, /tmp/perf-PID.map, the ld.so
 * cache. scry runs as root; the files' owners do not. See src/fsafe.c
 * for why each rule is what it is.
 */
#ifndef SCRY_FSAFE_H
#define SCRY_FSAFE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <linux/types.h>

/* Default size cap: larger "binaries" are refused (-EFBIG). */
#define FSAFE_MAX_SIZE	(4ULL << 30)

struct fsafe_rules {
	__u64 max_size;		/* bytes; 0: FSAFE_MAX_SIZE */
	bool nofollow;		/* the last component must not be a symlink */
	bool check_owner;	/* must be owned by root or by @owner */
	uid_t owner;
	bool check_ino;		/* must be inode @ino (a mapping's file) */
	__u64 ino;
};

/*
 * Open @path for reading under @rules (NULL: the defaults).
 * @st: receives the file's stat (may be NULL).
 *
 * Never blocks and never opens anything but a regular file of a real
 * filesystem: FIFOs, sockets, devices, directories are refused before
 * they are opened for reading, as are files of /proc, /sys and the
 * other kernel filesystems.
 * Returns a descriptor (O_RDONLY, O_CLOEXEC) or a negative errno:
 * -ENOENT and friends from open(2); -EPERM for a file that is not a
 * regular file, lives on a kernel filesystem or has the wrong owner;
 * -ELOOP for a symlink with @nofollow; -EFBIG above the size cap;
 * -ESTALE when it is not the inode @rules asked for.
 */
int fsafe_open(const char *path, const struct fsafe_rules *rules,
	       struct stat *st);

#endif /* SCRY_FSAFE_H */
