// SPDX-License-Identifier: GPL-2.0
/*
 * fsafe: opening files a traced user controls.
 *
 * The threat: scry runs as root and opens paths that come from processes
 * it traces (a binary's .gnu_debuglink, a library path in
 * /proc/PID/maps, /tmp/perf-PID.map). Their owners can replace any of
 * those names, at any time, by a FIFO (open() for reading blocks until
 * a writer comes: scry hangs, deaf to Ctrl-C), a device node (open() has
 * driver side effects: a tape rewinds, a tty becomes scry's controlling
 * terminal), a symlink into /proc or /sys (regular files whose reads have
 * side effects: /proc/kmsg consumes the kernel log), a huge file, or a
 * symlink to a file of another user.
 *
 * The rules, in order:
 * 1. The path is first opened with O_PATH. That resolves the name without
 *    opening the file: no driver open, no FIFO wait, no side effect.
 * 2. fstat/fstatfs on that handle: only a regular file on a real
 *    filesystem, within the size cap, of the expected owner or inode, is
 *    accepted. Everything is decided on the inode the name led to, so a
 *    rename between the check and the use changes nothing.
 * 3. The accepted inode is reopened for reading through /proc/self/fd/N,
 *    which reaches exactly that inode (not the name again), with
 *    O_NONBLOCK|O_NOCTTY as a second guard.
 * Symlinks are followed by default: libraries are reached through them
 * (libc.so.6 -> libc-2.36.so) and the rules above judge where a link
 * leads, not the link. Where a link has no business (a perf map in the
 * world-writable /tmp) the caller asks for @nofollow. Reading another
 * user's regular file is not in itself harmful: callers only use what
 * proves to be the file they wanted (same inode as the mapping, same
 * build-id or CRC as the binary).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <scry/fsafe.h>

/* Kernel filesystems whose "regular files" are interfaces, not data. */
static bool pseudo_fs(long type)
{
	switch (type) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case SECURITYFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case BPF_FS_MAGIC:
	case EFIVARFS_MAGIC:
	case PSTOREFS_MAGIC:
		return true;
	default:
		return false;
	}
}

/* Rule 2 on the O_PATH handle @fd. */
static int fsafe_check(int fd, const struct fsafe_rules *r, struct stat *st)
{
	__u64 max = r->max_size ? r->max_size : FSAFE_MAX_SIZE;
	struct statfs sfs;

	if (fstat(fd, st))
		return -errno;
	if (S_ISLNK(st->st_mode))
		return -ELOOP;		/* O_PATH|O_NOFOLLOW: the link itself */
	if (!S_ISREG(st->st_mode))
		return -EPERM;
	if (fstatfs(fd, &sfs))
		return -errno;
	if (pseudo_fs(sfs.f_type))
		return -EPERM;
	if (r->check_owner && st->st_uid && st->st_uid != r->owner)
		return -EPERM;
	/*
	 * Only the inode number: /proc/PID/maps shows the device of the
	 * inode's superblock, which stat() reports differently on btrfs
	 * subvolumes and overlayfs.
	 */
	if (r->check_ino && st->st_ino != r->ino)
		return -ESTALE;
	if ((__u64)st->st_size > max)
		return -EFBIG;
	return 0;
}

int fsafe_open(const char *path, const struct fsafe_rules *rules,
	       struct stat *st)
{
	static const struct fsafe_rules defaults;
	const struct fsafe_rules *r = rules ? rules : &defaults;
	struct stat sb, again;
	char self[40];
	int pfd, fd, err;

	if (!st)
		st = &sb;
	pfd = open(path, O_PATH | O_CLOEXEC | (r->nofollow ? O_NOFOLLOW : 0));
	if (pfd < 0)
		return -errno;
	err = fsafe_check(pfd, r, st);
	if (err) {
		close(pfd);
		return err;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	close(pfd);
	if (err)
		return err;
	/* the same inode, or /proc/self was not what it should be */
	if (fstat(fd, &again) || again.st_ino != st->st_ino ||
	    again.st_dev != st->st_dev) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}
