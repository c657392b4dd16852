// SPDX-License-Identifier: GPL-2.0
/*
 * The file identity rule (obj_holds_inode, obj_cache_mapped): a
 * mapping's kernel numbers, /proc/PID/maps's device and inode, stand for
 * a cached file only while the cache holds that inode open and stat()'s
 * device is the maps device. On btrfs a subvolume's stat() device is not
 * the superblock's device that maps shows, and inode numbers repeat
 * across subvolumes: there the numbers must not find a file. Synthetic
 * maps lines (a file of this test's under made-up devices and inodes)
 * take each side of the rule. (Not this test's binary: a maps line that
 * cannot be opened falls back to /proc/PID/exe, found by its inode.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <scry/obj.h>
#include <scry/proc.h>

#include "check.h"

/* A maps line for @path with the numbers @dev, @ino; its range maps
 * nothing here, so the file is opened by its name. */
static struct proc_map map_line(char *path, __u64 dev, __u64 ino)
{
	struct proc_map m = {
		.start = 0x10000, .end = 0x11000, .dev = dev, .ino = ino,
		.read = true, .exec = true, .path = path,
	};

	return m;
}

int main(void)
{
	char exe[] = "/tmp/scry-test-obj-identity.XXXXXX";
	char gone[] = "/nonexistent/scry-test-obj-identity";
	struct obj_cache *c = obj_cache_new();
	int fd = mkstemp(exe);
	struct proc_map m;
	struct obj *o, *v;
	struct stat st;
	/* another device: the btrfs case, stat's device is not maps's */
	__u64 dev, other;

	if (fd < 0 || write(fd, "not ELF\n", 8) != 8 || fstat(fd, &st) ||
	    !c) {
		printf("FAIL - obj identity: setup: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	dev = st.st_dev;
	other = makedev(major(st.st_dev) + 1, minor(st.st_dev) + 7);

	/* ---- obj_holds_inode: which numbers stand for an open obj ---- */
	o = obj_cache_path(c, exe);
	CHECK(o && obj_holds_inode(o, dev, st.st_ino),
	      "identity: the open file's own stat() device and inode: held");
	CHECK(o && !obj_holds_inode(o, other, st.st_ino),
	      "identity: its inode under another device (a btrfs subvolume's "
	      "maps device): not held");
	CHECK(o && !obj_holds_inode(o, dev, st.st_ino + 1),
	      "identity: another inode on its device: not held");
	CHECK(o && !obj_holds_inode(o, 0, 0),
	      "identity: no file (0:0): not held");
	CHECK(!obj_holds_inode(NULL, dev, st.st_ino),
	      "identity: no obj: not held");
	v = obj_cache_vdso(c);
	if (v)
		CHECK(!obj_holds_inode(v, obj_id(v)->dev, obj_id(v)->ino),
		      "identity: the vDSO holds no file open: not held");
	else
		printf("skip - identity: the vDSO: this process has none\n");
	obj_cache_free(c);

	/*
	 * ---- obj_cache_mapped: only a held identity is found again by
	 * its numbers. The second line names a file that does not exist:
	 * only the numbers can find the obj. ----
	 */
	c = obj_cache_new();
	m = map_line(exe, dev, st.st_ino);
	o = c ? obj_cache_mapped(c, getpid(), &m) : NULL;
	CHECK(o && obj_holds_inode(o, dev, st.st_ino),
	      "mapped: a maps line whose device is stat()'s: opened");
	m = map_line(gone, dev, st.st_ino);
	CHECK(o && obj_cache_mapped(c, getpid(), &m) == o,
	      "mapped: the same numbers find it again without a name");
	obj_cache_free(c);

	c = obj_cache_new();
	m = map_line(exe, other, st.st_ino);
	o = c ? obj_cache_mapped(c, getpid(), &m) : NULL;
	CHECK(o && obj_holds_inode(o, dev, st.st_ino),
	      "mapped, btrfs: a maps device other than stat()'s: the file is "
	      "still opened by its name, with stat()'s identity");
	m = map_line(gone, other, st.st_ino);
	errno = 0;
	CHECK(o && !obj_cache_mapped(c, getpid(), &m),
	      "mapped, btrfs: its maps numbers do not find it (another "
	      "subvolume's file may have that inode)");
	obj_cache_free(c);
	unlink(exe);
	return CHECK_DONE();
}
