/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outfile (-o): what is replaced, what is written in place, which links
 * are followed, and that errors keep their errno. The attacks need root
 * (files owned by another user, a small tmpfs): as root, they run; as
 * anyone else they are skipped with a "# skip" line. make test runs as
 * root.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <scry/outfile.h>

#include "check.h"

#define NOBODY 65534

static char base[] = "/tmp/scry-test-outfile.XXXXXX";
static bool root;

static char *at(const char *name)
{
	static char bufs[8][512];
	static int n;
	char *b = bufs[n++ % 8];

	snprintf(b, 512, "%s/%s", base, name);
	return b;
}

static void put_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fchmod(fd, mode) || close(fd))
		abort();
}

/* The file's whole content ("" if missing), in a static buffer. */
static const char *content(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY | O_NOFOLLOW);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Entries of @dir but . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* open + write one snapshot + free; the first error. */
static int write_once(const char *path, const char *text)
{
	struct outfile *of;
	int err = outfile_open(path, &of);

	if (err)
		return err;
	err = outfile_write(of, text, strlen(text));
	outfile_free(of);
	return err;
}

static void replace_missing_and_regular(void)
{
	struct stat a, b;
	mode_t old = umask(022);

	mkdir(at("r"), 0755);
	CHECK_INT(write_once(at("r/new.txt"), "one\n"), 0, "missing name: written");
	CHECK_STR(content(at("r/new.txt")), "one\n", "missing name: content");
	stat(at("r/new.txt"), &a);
	CHECK_INT(a.st_mode & 07777, 0644, "missing name: 0666 & ~umask");
	CHECK_INT(entries(at("r")), 1, "missing name: no temporary left");

	/* an existing 0600 file, hard-linked elsewhere: replaced, not written */
	put_file(at("r/old.txt"), "old\n", 0600);
	link(at("r/old.txt"), at("other-name"));
	stat(at("r/old.txt"), &a);
	CHECK_INT(write_once(at("r/old.txt"), "new\n"), 0, "regular: written");
	stat(at("r/old.txt"), &b);
	CHECK_STR(content(at("r/old.txt")), "new\n", "regular: new content");
	CHECK(a.st_ino != b.st_ino, "regular: a new inode (renamed over)");
	CHECK_STR(content(at("other-name")), "old\n",
		  "regular: its other hard link keeps the old content");
	CHECK_INT(b.st_mode & 07777, 0600, "regular: permission bits kept");
	CHECK_INT(entries(at("r")), 2, "regular: no temporary left");
	umask(old);
}

/* --interval: each snapshot replaces the last whole */
static void snapshots(void)
{
	struct outfile *of;
	int err, fd;
	char buf[16] = "";

	err = outfile_open(at("snap.txt"), &of);
	CHECK_INT(err, 0, "snapshots: open");
	if (err)
		return;
	CHECK_INT(outfile_write(of, "first\n", 6), 0, "snapshots: first");
	fd = open(at("snap.txt"), O_RDONLY);
	CHECK_INT(outfile_write(of, "second\n", 7), 0, "snapshots: second");
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 6 &&
	      !strcmp(buf, "first\n"),
	      "snapshots: a reader of the first keeps all of it");
	CHECK_STR(content(at("snap.txt")), "second\n", "snapshots: then the second");
	if (fd >= 0)
		close(fd);
	outfile_free(of);
}

/*
 * As root, nodes of our own (1:3 is null, 1:7 full): a broken outfile
 * must not replace the machine's /dev/null while proving it.
 */
static void devices(void)
{
	const char *null = root ? at("null") : "/dev/null";
	const char *full = root ? at("full") : "/dev/full";
	struct outfile *of;
	struct stat st;
	int err;

	if (root && (mknod(null, S_IFCHR | 0666, makedev(1, 3)) ||
		     mknod(full, S_IFCHR | 0666, makedev(1, 7))))
		abort();
	CHECK_INT(write_once(null, "x\n"), 0, "/dev/null: written in place");
	CHECK(!stat(null, &st) && S_ISCHR(st.st_mode) &&
	      st.st_rdev == makedev(1, 3), "/dev/null: still the device");
	err = outfile_open(full, &of);
	CHECK_INT(err, 0, "/dev/full: opens");
	if (!err) {
		CHECK_INT(outfile_write(of, "x\n", 2), -ENOSPC,
			  "/dev/full: the write's own errno, ENOSPC");
		outfile_free(of);
	}
	CHECK(!stat(full, &st) && S_ISCHR(st.st_mode),
	      "/dev/full: still the device");
}

/* A FIFO: opened once a reader comes, written in place, still a FIFO. */
static void fifo(void)
{
	char got[64] = "";
	struct stat st;
	int p[2], status;
	pid_t pid;

	mkfifo(at("fifo"), 0600);
	if (pipe(p))
		abort();
	pid = fork();
	if (pid == 0) {
		int fd;
		ssize_t n;

		usleep(100000);	/* the writer waits for us */
		fd = open(at("fifo"), O_RDONLY);
		n = fd < 0 ? -1 : read(fd, got, sizeof(got));
		_exit(n > 0 && write(p[1], got, (size_t)n) == n ? 0 : 1);
	}
	close(p[1]);
	CHECK_INT(write_once(at("fifo"), "through the fifo\n"), 0,
		  "FIFO: waits for its reader, written");
	waitpid(pid, &status, 0);
	CHECK(read(p[0], got, sizeof(got) - 1) > 0 &&
	      !strcmp(got, "through the fifo\n"), "FIFO: the reader got it");
	close(p[0]);
	CHECK(!lstat(at("fifo"), &st) && S_ISFIFO(st.st_mode),
	      "FIFO: not replaced");
}

/* /proc/self/fd/N (what /dev/stdout is): the kernel's link, in place */
static void proc_link(void)
{
	char path[64], got[64] = "";
	int p[2];

	if (pipe(p))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	CHECK_INT(write_once(path, "piped\n"), 0, "/proc/self/fd/N: written");
	close(p[1]);
	CHECK(read(p[0], got, sizeof(got) - 1) == 6 && !strcmp(got, "piped\n"),
	      "/proc/self/fd/N: in place, into the pipe");
	close(p[0]);
}

static void errors(void)
{
	struct outfile *of = (struct outfile *)1;

	mkdir(at("adir"), 0755);
	CHECK_INT(outfile_open(at("adir"), &of), -EISDIR, "a directory: EISDIR");
	CHECK(of == NULL, "a failed open gives NULL");
	CHECK_INT(outfile_open(at("adir/"), &of), -EINVAL,
		  "a trailing slash: no file name");
	CHECK_INT(outfile_open("", &of), -EINVAL, "empty: no file name");
	CHECK_INT(outfile_open(at("nodir/x"), &of), -ENOENT,
		  "a missing directory: ENOENT");
	put_file(at("plain"), "", 0644);
	CHECK_INT(outfile_open(at("plain/x"), &of), -ENOTDIR,
		  "a file as a directory: ENOTDIR");
	symlink("loop2", at("loop1"));
	symlink("loop1", at("loop2"));
	CHECK_INT(outfile_open(at("loop1"), &of), -ELOOP, "a link loop: ELOOP");
	CHECK_INT(outfile_open(NULL, &of), 0, "stdout opens");
	CHECK_STR(outfile_name(of), "standard output", "stdout's name");
	outfile_free(of);
	outfile_free(NULL);
}

/* Links scry's own user made are followed, there and on the way. */
static void own_links(void)
{
	struct stat st;

	put_file(at("real.txt"), "before\n", 0644);
	symlink("real.txt", at("ln"));
	CHECK_INT(write_once(at("ln"), "after\n"), 0, "own link: written");
	CHECK_STR(content(at("real.txt")), "after\n", "own link: its target replaced");
	CHECK(!lstat(at("ln"), &st) && S_ISLNK(st.st_mode), "own link: still a link");
	mkdir(at("realdir"), 0755);
	symlink(at("realdir"), at("dl"));
	CHECK_INT(write_once(at("dl/x.txt"), "via\n"), 0, "own dir link: written");
	CHECK_STR(content(at("realdir/x.txt")), "via\n", "own dir link: in its target");
	symlink("missing-target", at("dangling"));
	CHECK_INT(write_once(at("dangling"), "made\n"), 0, "own dangling link: written");
	CHECK_STR(content(at("missing-target")), "made\n",
		  "own dangling link: its target created");
}

/* The file -o found regular became a FIFO: not replaced, not written. */
static void changed_kind(void)
{
	struct outfile *of;
	struct stat st;
	int err = outfile_open(at("kind.txt"), &of);

	CHECK_INT(err, 0, "changed kind: open");
	if (err)
		return;
	CHECK_INT(outfile_write(of, "1\n", 2), 0, "changed kind: first snapshot");
	unlink(at("kind.txt"));
	mkfifo(at("kind.txt"), 0600);
	CHECK_INT(outfile_write(of, "2\n", 2), -EEXIST,
		  "changed kind: a FIFO there now is refused");
	CHECK(!lstat(at("kind.txt"), &st) && S_ISFIFO(st.st_mode),
	      "changed kind: the FIFO stays");
	outfile_free(of);
}

/* Run @fn in a child as nobody; its exit status is the number of failures. */
static void as_nobody(int (*fn)(void), const char *what)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		check_failed = 0;	/* the child's own checks */
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		_exit(fn());
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, what);
}

static int unwritable_dir(void)
{
	struct outfile *of;
	int err = outfile_open(at("rootdir/x"), &of);

	CHECK_INT(err, -EACCES, "a directory we cannot write: EACCES, before tracing");
	return check_failed;
}

/* Another user's links, in a sticky world-writable directory (/tmp). */
static void hostile_links(void)
{
	static const char *const names[] = { "planted", "fresh", NULL };
	char old_tmp[512];
	struct stat st;

	mkdir(at("sticky"), 01777);
	chmod(at("sticky"), 01777);
	if (chown(at("sticky"), NOBODY, NOBODY))
		abort();
	put_file(at("secret"), "SECRET\n", 0600);

	/* the target itself: a link to root's secret */
	symlink(at("secret"), at("sticky/r.txt"));
	lchown(at("sticky/r.txt"), NOBODY, NOBODY);
	CHECK_INT(write_once(at("sticky/r.txt"), "pwned\n"), -EPERM,
		  "another user's link at the target: refused");
	CHECK_STR(content(at("secret")), "SECRET\n", "the secret is untouched");
	CHECK(!lstat(at("sticky/r.txt"), &st) && S_ISLNK(st.st_mode),
	      "their link is left alone");

	/* the temporary name scry used to pick: PATH.<pid>.tmp */
	snprintf(old_tmp, sizeof(old_tmp), "%s.%d.tmp", at("sticky/r2.txt"),
		 getpid());
	symlink(at("secret"), old_tmp);
	lchown(old_tmp, NOBODY, NOBODY);
	CHECK_INT(write_once(at("sticky/r2.txt"), "out\n"), 0,
		  "link at the old predictable temp name: written");
	CHECK_STR(content(at("secret")), "SECRET\n", "the secret is untouched");
	CHECK_STR(content(at("sticky/r2.txt")), "out\n", "the output is there");

	/* a link planted at the very temporary name drawn: skipped */
	symlink(at("secret"), at("sticky/planted"));
	lchown(at("sticky/planted"), NOBODY, NOBODY);
	outfile_debug_tmp_names(names);
	CHECK_INT(write_once(at("sticky/r3.txt"), "out3\n"), 0,
		  "link at the drawn temp name: another name is drawn");
	outfile_debug_tmp_names(NULL);
	CHECK_STR(content(at("secret")), "SECRET\n", "the secret is untouched");
	CHECK_STR(content(at("sticky/r3.txt")), "out3\n", "the output is there");
	CHECK(!lstat(at("sticky/planted"), &st) && S_ISLNK(st.st_mode),
	      "the planted link is left alone");

	/* their 0666 file where -o points: replaced, not with their mode */
	put_file(at("sticky/mode.txt"), "theirs\n", 0666);
	if (chown(at("sticky/mode.txt"), NOBODY, NOBODY))
		abort();
	{
		mode_t old = umask(077);

		CHECK_INT(write_once(at("sticky/mode.txt"), "root's\n"), 0,
			  "their file at the name: replaced");
		umask(old);
	}
	CHECK(!stat(at("sticky/mode.txt"), &st) && st.st_uid == 0 &&
	      (st.st_mode & 07777) == 0600,
	      "their file at the name: root's, 0666 & ~umask, not their 0666");

	/* a directory on the way: their link to where they choose */
	mkdir(at("theirs"), 0755);
	symlink(at("theirs"), at("sticky/dir"));
	lchown(at("sticky/dir"), NOBODY, NOBODY);
	CHECK_INT(write_once(at("sticky/dir/x"), "out\n"), -EPERM,
		  "another user's link on the way: refused");
	CHECK_INT(entries(at("theirs")), 0, "nothing written where it pointed");

	/* /proc/PID/cwd of another user's process is their link too */
	{
		char path[64];
		pid_t pid = fork();

		if (pid == 0) {
			/* dumpable, or /proc/PID would stay root's */
			if (chdir(at("theirs")) || setgid(NOBODY) ||
			    setuid(NOBODY) || prctl(PR_SET_DUMPABLE, 1))
				_exit(1);
			pause();
			_exit(0);
		}
		usleep(50000);
		snprintf(path, sizeof(path), "/proc/%d/cwd/x", pid);
		CHECK_INT(write_once(path, "out\n"), -EPERM,
			  "/proc/PID/cwd of another user's process: refused");
		CHECK_INT(entries(at("theirs")), 0, "nothing written in its cwd");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	mkdir(at("rootdir"), 0755);
	as_nobody(unwritable_dir, "as nobody, in root's 0755 directory: EACCES");
}

/* A full file system: ENOSPC from the write, and no temporary left. */
static void full_fs(void)
{
	int status;
	pid_t pid;

	mkdir(at("small"), 0755);
	pid = fork();
	if (pid == 0) {
		static char big[256 * 1024];
		struct outfile *of;
		int err;

		check_failed = 0;	/* the child's own checks */
		/*
		 * Our own mounts, kept from the rest of the system by making
		 * "/" private. In a chroot (fresh-machine) "/" is no mount
		 * point (EINVAL): mount anyway, and unmount below, which takes
		 * any copy a shared parent propagated with it.
		 */
		if (unshare(CLONE_NEWNS) ||
		    (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) &&
		     errno != EINVAL) ||
		    mount("scry-test", at("small"), "tmpfs", 0, "size=64k"))
			_exit(100);
		memset(big, 'x', sizeof(big));
		err = outfile_open(at("small/out"), &of);
		CHECK_INT(err, 0, "full fs: opens (room for a file)");
		if (!err) {
			CHECK_INT(outfile_write(of, big, sizeof(big)), -ENOSPC,
				  "full fs: No space left on device, not EIO");
			outfile_free(of);
		}
		CHECK_INT(entries(at("small")), 0, "full fs: no temporary left");
		CHECK_INT(umount2(at("small"), MNT_DETACH), 0, "full fs: unmounted");
		fflush(stdout);
		_exit(check_failed);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "full fs: (child) passed");
}

int main(void)
{
	if (!mkdtemp(base))
		return 1;
	chmod(base, 0755);	/* nobody must reach the directories inside */
	root = geteuid() == 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	replace_missing_and_regular();
	snapshots();
	devices();
	fifo();
	proc_link();
	errors();
	own_links();
	changed_kind();
	if (root) {
		hostile_links();
		full_fs();
	} else {
		SKIP("links of another user, a full tmpfs", "need root");
	}
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
		if (system(cmd))
			printf("# could not remove %s\n", base);
	}
	return CHECK_DONE();
}
