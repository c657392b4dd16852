// SPDX-License-Identifier: GPL-2.0
/* Root's cache files in root's directories: see include/scry/cachefile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>	/* memfd_create */
#include <sys/stat.h>

#include <scry/cachefile.h>
#include <scry/outfile.h>

/*
 * The euid's, and no one else may change it: a directory another user
 * can write in lets them swap the file, a file they can write they can
 * fill. A secret one (kallsyms addresses) no one else may read either.
 */
static bool owned(const struct stat *st, unsigned int flags)
{
	mode_t others = flags & CACHEFILE_SECRET ? 077 : S_IWGRP | S_IWOTH;

	return st->st_uid == geteuid() && !(st->st_mode & others);
}

int cachefile_dir(const char *path, unsigned int flags)
{
	const int how = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	struct stat st;
	int fd;

	/* open(O_DIRECTORY | O_NOFOLLOW) of a link: ENOTDIR */
	fd = open(path, how);
	if (fd < 0 && errno == ENOENT && (flags & CACHEFILE_CREATE)) {
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		fd = open(path, how);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || !owned(&st, flags)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int cachefile_open(int dfd, const char *name, unsigned int flags,
		   size_t max, struct stat *st)
{
	int fd, err = 0;

	/* O_NONBLOCK: a FIFO planted there must not hang the open */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* one link: not a name for a file someone keeps elsewhere */
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_nlink != 1 ||
	    !owned(st, flags))
		err = -EPERM;
	else if (st->st_size <= 0 || (size_t)st->st_size > max)
		err = -EBADMSG;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int cachefile_create(int dfd, const char *name, char *tmp)
{
	const int how = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd, n;

	n = snprintf(tmp, CACHEFILE_TMP_LEN, "%s.%d.tmp", name, (int)getpid());
	if (n < 0 || n >= CACHEFILE_TMP_LEN)
		return -ENAMETOOLONG;
	fd = openat(dfd, tmp, how, 0600);
	/* one a killed run of this pid left behind (the dir is ours) */
	if (fd < 0 && errno == EEXIST && !unlinkat(dfd, tmp, 0))
		fd = openat(dfd, tmp, how, 0600);
	return fd < 0 ? -errno : fd;
}

int cachefile_commit(int dfd, const char *tmp, const char *name, int fd,
		     int err)
{
	/*
	 * Synced first: a crash must not leave a torn file under the
	 * name. rename replaces whatever the name held, a link included,
	 * without following it.
	 */
	if (!err && fsync(fd))
		err = -errno;
	if (!err && renameat(dfd, tmp, dfd, name))
		err = -errno;
	if (err)
		unlinkat(dfd, tmp, 0);
	return err;
}

int cachefile_memfd(const char *name, const void *p, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = outfile_write_fd(fd, p, len);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}
