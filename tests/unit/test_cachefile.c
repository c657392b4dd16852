// SPDX-License-Identifier: GPL-2.0
/*
 * cachefile: the rules every cache file of scry's keeps (corebtf.c's
 * cut of vmlinux BTF, ksym_cache.c's kernel symbols). A directory that
 * is a link, another user's, or one others may write in is refused; so
 * is a file that is a link, a FIFO, another user's, open to others, of
 * two links, empty or too large; a new file appears whole under its
 * name or not at all, replacing a planted link without following it;
 * a read-only directory keeps nothing, and a memory file stands in.
 * The owner cases need root (chown); the read-only directory is a
 * read-only tmpfs in a mount namespace of the test's own as root, a
 * directory of mode 0500 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <sys/stat.h>

#include <scry/cachefile.h>
#include <scry/outfile.h>
#include "check.h"

static char top[] = "/tmp/scry-test-cachefile.XXXXXX";
static char dir[64], file[96];

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		perror(path);
	if (fd >= 0)
		close(fd);
	chmod(path, mode);
}

/* cachefile_open(dir, "f"): its descriptor closed, or -errno */
static int opens(unsigned int flags, size_t max)
{
	struct stat st;
	int dfd = cachefile_dir(dir, flags), fd;

	if (dfd < 0)
		return dfd;
	fd = cachefile_open(dfd, "f", flags, max, &st);
	close(dfd);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* Publish @text as "f" of @dfd; -errno of the step that failed. */
static int publish(int dfd, const char *text)
{
	char tmp[CACHEFILE_TMP_LEN];
	int fd = cachefile_create(dfd, "f", tmp), err;

	if (fd < 0)
		return fd;
	err = cachefile_commit(dfd, tmp, "f", fd,
			       outfile_write_fd(fd, text, strlen(text)));
	close(fd);
	return err;
}

static void directory(void)
{
	char link[96], inside[128];
	int fd;

	CHECK_INT(cachefile_dir(dir, 0), -ENOENT,
		  "dir: a missing directory, not made unless asked");
	fd = cachefile_dir(dir, CACHEFILE_CREATE);
	CHECK(fd >= 0, "dir: made when asked");
	if (fd >= 0)
		close(fd);
	CHECK_INT(opens(CACHEFILE_SECRET, 100), -ENOENT, "dir: made 0700 (no file yet)");

	snprintf(link, sizeof(link), "%s/link", top);
	snprintf(inside, sizeof(inside), "%s/f", link);
	CHECK_INT(symlink(dir, link), 0, "dir: symlink planted");
	CHECK_INT(cachefile_dir(link, 0), -ENOTDIR,
		  "dir: a symlinked directory refused");
	CHECK_INT(cachefile_dir(link, CACHEFILE_CREATE), -ENOTDIR,
		  "dir: a symlinked directory refused when making it too");
	unlink(link);

	chmod(dir, 0770);
	CHECK_INT(cachefile_dir(dir, 0), -EPERM,
		  "dir: one the group may write in refused");
	chmod(dir, 0703);
	CHECK_INT(cachefile_dir(dir, 0), -EPERM,
		  "dir: one the world may write in refused");
	chmod(dir, 0755);
	fd = cachefile_dir(dir, 0);
	CHECK(fd >= 0, "dir: one others may only read, for a cache not secret");
	if (fd >= 0)
		close(fd);
	CHECK_INT(cachefile_dir(dir, CACHEFILE_SECRET), -EPERM,
		  "dir: one others may read refused for a secret cache");
	chmod(dir, 0700);

	if (geteuid()) {
		SKIP("dir: another user's refused", "needs root (chown)");
		return;
	}
	CHECK_INT(chown(dir, 65534, 65534), 0, "chown dir");
	CHECK_INT(cachefile_dir(dir, 0), -EPERM, "dir: another user's refused");
	CHECK_INT(chown(dir, 0, 0), 0, "chown dir back");
}

static void files(void)
{
	char other[192], tmp[CACHEFILE_TMP_LEN];
	struct stat st;
	int dfd = cachefile_dir(dir, 0), fd;

	if (dfd < 0) {
		CHECK(0, "files: the directory opens");
		return;
	}
	snprintf(other, sizeof(other), "%s/target", top);

	CHECK_INT(publish(dfd, "0123456789"), 0, "file: published");
	CHECK(!lstat(file, &st) && S_ISREG(st.st_mode) &&
	      (st.st_mode & 07777) == 0600 && st.st_uid == geteuid() &&
	      st.st_size == 10, "file: whole, 0600, the euid's");
	CHECK_INT(opens(CACHEFILE_SECRET, 10), 0, "file: opens");
	CHECK_INT(opens(CACHEFILE_SECRET, 9), -EBADMSG,
		  "file: larger than the bound refused");
	CHECK_INT(truncate(file, 0), 0, "truncate");
	CHECK_INT(opens(CACHEFILE_SECRET, 10), -EBADMSG,
		  "file: a truncated (empty) file refused");

	/* a writer that fails: nothing under the name, no temporary left */
	unlink(file);
	fd = cachefile_create(dfd, "f", tmp);
	CHECK(fd >= 0 && write(fd, "01", 2) == 2, "file: a temporary written");
	CHECK_INT(opens(CACHEFILE_SECRET, 10), -ENOENT,
		  "file: nothing under the name before the commit");
	CHECK_INT(cachefile_commit(dfd, tmp, "f", fd, -EIO), -EIO,
		  "file: a failed write is not committed");
	if (fd >= 0)
		close(fd);
	CHECK(opens(CACHEFILE_SECRET, 10) == -ENOENT &&
	      faccessat(dfd, tmp, F_OK, AT_SYMLINK_NOFOLLOW) && errno == ENOENT,
	      "file: ... and its temporary removed");
	/* a temporary a killed run of this pid left */
	snprintf(other, sizeof(other), "%s/%s", dir, tmp);
	put(other, "stale", 0600);
	snprintf(other, sizeof(other), "%s/target", top);
	CHECK_INT(publish(dfd, "0123456789"), 0,
		  "file: a stale temporary of this pid is replaced");

	/* a link under the name: refused, replaced, never followed */
	put(other, "keep", 0600);
	unlink(file);
	CHECK_INT(symlink(other, file), 0, "symlink planted");
	CHECK_INT(opens(0, 10), -ELOOP, "file: a symlink refused");
	CHECK_INT(publish(dfd, "0123456789"), 0, "file: published over it");
	CHECK(!lstat(file, &st) && S_ISREG(st.st_mode) &&
	      !stat(other, &st) && st.st_size == 4,
	      "file: the link replaced, its target untouched");

	unlink(other);
	CHECK_INT(link(file, other), 0, "hard link made");
	CHECK_INT(opens(0, 10), -EPERM, "file: one of two links refused");
	unlink(other);

	unlink(file);
	CHECK_INT(mkfifo(file, 0600), 0, "mkfifo");
	CHECK_INT(opens(0, 10), -EPERM, "file: a FIFO refused, without blocking");
	unlink(file);

	CHECK_INT(publish(dfd, "0123456789"), 0, "file: published again");
	chmod(file, 0620);
	CHECK_INT(opens(0, 10), -EPERM, "file: one the group may write refused");
	chmod(file, 0602);
	CHECK_INT(opens(0, 10), -EPERM, "file: one the world may write refused");
	chmod(file, 0644);
	CHECK_INT(opens(0, 10), 0, "file: one others may only read, not secret");
	CHECK_INT(opens(CACHEFILE_SECRET, 10), -EPERM,
		  "file: one others may read refused for a secret cache");
	chmod(file, 0600);

	if (geteuid()) {
		SKIP("file: another user's refused", "needs root (chown)");
	} else {
		CHECK_INT(chown(file, 65534, 65534), 0, "chown");
		CHECK_INT(opens(0, 10), -EPERM, "file: another user's refused");
		CHECK_INT(publish(dfd, "0123456789"), 0,
			  "file: another user's replaced");
		CHECK(!lstat(file, &st) && st.st_uid == 0,
		      "file: ... by root's");
	}
	unlink(file);
	close(dfd);
}

/* CAP_DAC_OVERRIDE in the effective set on (@on) or off; 0 or -1. */
static int dac_override(bool on)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	if (on)
		data[0].effective |= 1U << CAP_DAC_OVERRIDE;
	else
		data[0].effective &= ~(1U << CAP_DAC_OVERRIDE);
	return syscall(SYS_capset, &hdr, data) ? -1 : 0;
}

static bool ro_mounted, ro_dac_dropped;

/*
 * A directory nothing can be written in: as root a read-only tmpfs,
 * mode 0700, in the test's own mount namespace (root writes through any
 * mode bits); where there is none (a chroot without CAP_SYS_ADMIN's
 * namespaces, as fresh-machine's), mode 0500 with root's override of
 * mode bits dropped meanwhile; otherwise mode 0500.
 */
static int read_only_dir(void)
{
	if (geteuid())
		return chmod(dir, 0500);
	if (!unshare(CLONE_NEWNS) &&
	    !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) &&
	    !mount("tmpfs", dir, "tmpfs", MS_RDONLY, "mode=0700")) {
		ro_mounted = true;
		return 0;
	}
	if (chmod(dir, 0500) || dac_override(false))
		return -1;
	ro_dac_dropped = true;
	return 0;
}

static void read_only(void)
{
	char sub[96], buf[8] = "";
	int dfd, fd;

	if (read_only_dir()) {
		SKIP("read-only dir", "no mount namespace, no tmpfs");
		return;
	}
	dfd = cachefile_dir(dir, 0);
	CHECK(dfd >= 0, "read-only dir: opens");
	fd = dfd >= 0 ? publish(dfd, "0123456789") : 0;
	CHECK(fd == -EROFS || fd == -EACCES,
	      "read-only dir: nothing kept (EROFS, EACCES)");
	CHECK_INT(opens(0, 10), -ENOENT, "read-only dir: no file in it");
	if (dfd >= 0)
		close(dfd);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	fd = cachefile_dir(sub, CACHEFILE_CREATE);
	CHECK(fd == -EROFS || fd == -EACCES,
	      "read-only dir: no directory made in it");

	fd = cachefile_memfd("scry-test", "0123456789", 10);
	CHECK(fd >= 0 && pread(fd, buf, 4, 2) == 4 && !strcmp(buf, "2345"),
	      "read-only dir: a memory file stands in");
	if (fd >= 0)
		close(fd);
	if (ro_mounted)
		umount(dir);
	if (ro_dac_dropped)
		dac_override(true);
	if (!ro_mounted)
		chmod(dir, 0700);
}

int main(void)
{
	if (!mkdtemp(top)) {
		SKIP("cachefile", "mkdtemp failed");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/cache", top);
	snprintf(file, sizeof(file), "%s/f", dir);
	directory();
	files();
	read_only();
	rmdir(dir);
	rmdir(top);
	return CHECK_DONE();
}
