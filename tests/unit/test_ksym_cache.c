// SPDX-License-Identifier: GPL-2.0
/*
 * ksym_cache: the per-boot file of core-kernel symbols answers exactly
 * what it was given, and anything that is not a whole cache of this
 * boot written by this user (corrupt, truncated, another boot's, a
 * symlink, open to others) is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <scry/ksym_cache.h>
#include <scry/symtab.h>
#include "check.h"

#define BOOT	"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
#define OTHER	"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f1"

static char dir[64], path[128];

static int opens(const char *boot)
{
	struct ksym_cache *c = ksym_cache_open(dir, boot);
	int err = c ? 0 : -errno;

	ksym_cache_free(c);
	return err;
}

/* Rewrite the file at @off with @byte (XOR), or cut it to @len. */
static void damage(long off, int len)
{
	int fd = open(path, O_RDWR);
	unsigned char b;

	if (fd < 0)
		return;
	if (len >= 0) {
		if (ftruncate(fd, len))
			perror("ftruncate");
	} else if (pread(fd, &b, 1, off) == 1) {
		b ^= 0x40;
		if (pwrite(fd, &b, 1, off) != 1)
			perror("pwrite");
	}
	close(fd);
}

static void lookups(const struct symtab *t)
{
	struct ksym_cache *c = ksym_cache_open(dir, BOOT);
	const char *name = NULL;
	__u64 off = 0;

	CHECK(c != NULL, "ksym_cache: a fresh cache opens");
	if (!c)
		return;
	CHECK_INT(ksym_cache_find(c, 0x1000, &name, &off), 0,
		  "ksym_cache: the first address is answered");
	CHECK_STR(name, "_stext_winner", "ksym_cache: its name");
	CHECK_INT(ksym_cache_find(c, 0x2345, &name, &off), 0,
		  "ksym_cache: an address inside a function");
	CHECK_STR(name, "schedule", "ksym_cache: the function at or below");
	CHECK_INT(off, 0x345, "ksym_cache: the offset into it");
	CHECK_INT(ksym_cache_find(c, 0x4fff, &name, &off), 0,
		  "ksym_cache: the last address before the end");
	CHECK_STR(name, "do_syscall_64", "ksym_cache: the last function");
	CHECK_INT(off, 0xfff, "ksym_cache: its offset");
	CHECK_INT(ksym_cache_find(c, 0x5000, &name, &off), -ERANGE,
		  "ksym_cache: the end itself is not cached (live kallsyms)");
	CHECK_INT(ksym_cache_find(c, 0xfff, &name, &off), -ERANGE,
		  "ksym_cache: below the first address is not cached");
	ksym_cache_free(c);
	(void)t;
}

int main(void)
{
	struct symtab t = { 0 };
	struct stat st;
	char link[160], other[160];
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/scry-ksym-cache-XXXXXX");
	if (!mkdtemp(dir)) {
		SKIP("ksym_cache", "mkdtemp failed");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, KSYM_CACHE_FILE);
	symtab_add(&t, 0x500, 0, "before", 6, 0, 0);
	symtab_add(&t, 0x1000, 0, "_stext_winner", 13, 0, 0);
	symtab_add(&t, 0x2000, 0, "schedule", 8, 0, 0);
	symtab_add(&t, 0x4000, 0, "do_syscall_64", 13, 0, 0);
	symtab_add(&t, 0x5000, 0, "_etext", 6, 0, 0);
	symtab_finish(&t);

	CHECK_INT(opens(BOOT), -ENOENT, "ksym_cache: no file, no cache");
	CHECK_INT(ksym_cache_write(dir, BOOT, &t, 1, 3, 0x5000), 0,
		  "ksym_cache: written");
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0600,
	      "ksym_cache: the file is closed to others (0600)");
	lookups(&t);
	CHECK_INT(opens(OTHER), -EBADMSG, "ksym_cache: another boot's refused");

	damage(st.st_size - 3, -1);
	CHECK_INT(opens(BOOT), -EBADMSG, "ksym_cache: a changed name refused");
	ksym_cache_write(dir, BOOT, &t, 1, 3, 0x5000);
	damage(80, -1);
	CHECK_INT(opens(BOOT), -EBADMSG, "ksym_cache: a changed address refused");
	ksym_cache_write(dir, BOOT, &t, 1, 3, 0x5000);
	damage(0, st.st_size - 1);
	CHECK_INT(opens(BOOT), -EBADMSG, "ksym_cache: a truncated file refused");
	damage(0, 40);
	CHECK_INT(opens(BOOT), -EBADMSG, "ksym_cache: a cut header refused");
	damage(0, 0);
	CHECK_INT(opens(BOOT), -EBADMSG, "ksym_cache: an empty file refused");

	ksym_cache_write(dir, BOOT, &t, 1, 3, 0x5000);
	CHECK_INT(chmod(path, 0644), 0, "chmod");
	CHECK_INT(opens(BOOT), -EPERM, "ksym_cache: a file others can read refused");

	/* a symlink in the file's place: refused, and replaced (not
	 * followed) by the next write */
	snprintf(other, sizeof(other), "%s/target", dir);
	fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, "keep", 4) == 4, "target written");
	if (fd >= 0)
		close(fd);
	unlink(path);
	CHECK_INT(symlink(other, path), 0, "symlink planted");
	CHECK_INT(opens(BOOT), -ELOOP, "ksym_cache: a symlinked file refused");
	CHECK_INT(ksym_cache_write(dir, BOOT, &t, 1, 3, 0x5000), 0,
		  "ksym_cache: written over the symlink");
	CHECK(!lstat(path, &st) && S_ISREG(st.st_mode),
	      "ksym_cache: the symlink replaced by a file");
	CHECK(!stat(other, &st) && st.st_size == 4,
	      "ksym_cache: the symlink's target untouched");
	lookups(&t);

	/* the directory: a symlink to it, or one others can write in */
	snprintf(link, sizeof(link), "%s.link", dir);
	CHECK_INT(symlink(dir, link), 0, "directory symlink planted");
	/* open(O_DIRECTORY | O_NOFOLLOW) of a symlink: ENOTDIR */
	CHECK(!ksym_cache_open(link, BOOT) && errno == ENOTDIR,
	      "ksym_cache: a symlinked directory refused");
	CHECK_INT(ksym_cache_write(link, BOOT, &t, 1, 3, 0x5000), -ENOTDIR,
		  "ksym_cache: nothing written through a symlinked directory");
	unlink(link);
	CHECK_INT(chmod(dir, 0755), 0, "chmod dir");
	CHECK_INT(opens(BOOT), -EPERM, "ksym_cache: a directory open to others refused");
	CHECK_INT(ksym_cache_write(dir, BOOT, &t, 1, 3, 0x5000), -EPERM,
		  "ksym_cache: nothing written in a directory open to others");
	chmod(dir, 0700);

	CHECK_INT(ksym_cache_write(dir, BOOT, &t, 2, 2, 0x2000), -EINVAL,
		  "ksym_cache: an end below the first address refused");

	unlink(other);
	unlink(path);
	rmdir(dir);
	symtab_clear(&t);
	return CHECK_DONE();
}
