// SPDX-License-Identifier: GPL-2.0
/*
 * outfile: the report's destination, safe for root to write in a place
 * other users control (the rules are in include/scry/outfile.h).
 *
 * The path is resolved here, one component at a time with O_PATH and
 * O_NOFOLLOW, instead of by open(2): that is what lets each symbolic
 * link be judged by its owner before it is followed, and it leaves a
 * directory fd that every later step (temporary file, rename) works
 * relative to.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <scry/log.h>
#include <scry/outfile.h>

#define MAX_LINKS	40	/* links followed per path, as MAXSYMLINKS */
#define TMP_TRIES	100	/* temporary names tried before giving up */
#define TMP_KEEP	200	/* bytes of the name kept in the temporary's */
#define OUTFILE_BUF	(256 << 10)	/* a snapshot's write size */

struct outfile {
	char *path;		/* as given, for messages */
	int fd;			/* in place: the open target, else -1 */
	int dirfd;		/* replaced: O_PATH of its directory, else -1 */
	char name[NAME_MAX + 1];/* replaced: its name in dirfd */
	mode_t mode;		/* replaced: permission bits it gets */
	/* the snapshot being written (outfile_begin to outfile_end) */
	FILE *f;		/* its stream, or NULL */
	int wfd;		/* where it goes: fd, or the temporary */
	char tmp[NAME_MAX + 1];	/* replaced: the temporary's name */
	int err;		/* its first write's failure, or 0 */
};

/* Where the resolution of -o's path stands. */
struct walk {
	const char *path;	/* -o as given, for messages */
	int dirfd;		/* O_PATH of the directory reached */
	int links;		/* symlinks followed so far */
	bool magic;		/* the last component is a /proc link */
};

/* One line naming the problem: "-o PATH: 'COMPONENT': why". */
static int complain(const struct walk *w, const char *what, int err)
{
	log_err("-o %s: '%s': %s", w->path, what, strerror(-err));
	return err;
}

static void set_dir(struct walk *w, int fd)
{
	if (w->dirfd >= 0)
		close(w->dirfd);
	w->dirfd = fd;
}

/*
 * A link is followed only when scry's effective user or root made it:
 * anyone else's could send root's write to /etc/shadow, or into a
 * directory of their choosing (-o /home/alice/cron/root).
 */
static bool trusted(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/*
 * /proc/self, /proc/PID/fd/N, /proc/PID/cwd: their targets ("pipe:[12]",
 * a deleted file) are not paths to walk; only the kernel follows them.
 */
static bool on_procfs(int dirfd)
{
	struct statfs sf;

	return !fstatfs(dirfd, &sf) && sf.f_type == PROC_SUPER_MAGIC;
}

static int walk_dirs(struct walk *w, const char *p, char *last);
static int step_dir(struct walk *w, const char *c);

/*
 * Follow the link @name of w->dirfd (@fd: the link itself, O_PATH; @st:
 * its fstat). On the way (@last NULL), w->dirfd becomes its target; as
 * the last component, w->dirfd and @last become the target's directory
 * and name, or w->magic is set for a /proc link.
 */
static int follow(struct walk *w, int fd, const char *name,
		  const struct stat *st, char *last)
{
	char target[PATH_MAX], dir[NAME_MAX + 1];
	ssize_t n;
	int err;

	if (!trusted(st)) {
		log_err("-o %s: '%s' is a symbolic link owned by uid %u: not "
			"following a link another user controls (give the "
			"path it points to)", w->path, name, st->st_uid);
		return -EPERM;
	}
	if (++w->links > MAX_LINKS)
		return complain(w, name, -ELOOP);
	if (on_procfs(w->dirfd)) {
		if (last) {
			w->magic = true;
			return 0;
		}
		fd = openat(w->dirfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return complain(w, name, -errno);
		set_dir(w, fd);
		return 0;
	}
	n = readlinkat(fd, "", target, sizeof(target));
	if (n < 0 || (size_t)n >= sizeof(target))
		return complain(w, name, n < 0 ? -errno : -ENAMETOOLONG);
	target[n] = '\0';
	if (last)
		return walk_dirs(w, target, last);
	/* on the way, the target's own last component is a directory too */
	err = walk_dirs(w, target, dir);
	return err || !*dir ? err : step_dir(w, dir);
}

/* Enter the component @c of w->dirfd, a directory or a link to one. */
static int step_dir(struct walk *w, const char *c)
{
	struct stat st;
	int fd, err;

	if (!strcmp(c, "."))
		return 0;
	fd = openat(w->dirfd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return complain(w, c, -errno);
	if (fstat(fd, &st)) {
		err = complain(w, c, -errno);
	} else if (S_ISDIR(st.st_mode)) {
		set_dir(w, fd);
		return 0;
	} else if (S_ISLNK(st.st_mode)) {
		err = follow(w, fd, c, &st, NULL);
	} else {
		err = complain(w, c, -ENOTDIR);
	}
	close(fd);
	return err;
}

/*
 * Walk every component of @p but the last, from w->dirfd (from "/" when
 * @p is absolute), and copy the last into @last ("" when there is none).
 */
static int walk_dirs(struct walk *w, const char *p, char *last)
{
	char comp[NAME_MAX + 1];
	size_t n;
	int fd, err;

	*last = '\0';
	if (*p == '/') {
		fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return complain(w, "/", -errno);
		set_dir(w, fd);
	}
	for (;;) {
		p += strspn(p, "/");
		if (!*p)
			return 0;
		n = strcspn(p, "/");
		if (n > NAME_MAX)
			return complain(w, p, -ENAMETOOLONG);
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		if (!p[strspn(p, "/")]) {
			strcpy(last, comp);
			return 0;
		}
		err = step_dir(w, comp);
		if (err)
			return err;
	}
}

/*
 * Resolve w->path to the directory (w->dirfd) and @name it is written
 * at, following links of the last component by the same rules; with
 * w->magic set, @name in w->dirfd is a /proc link to open in place.
 */
static int resolve(struct walk *w, char *name)
{
	char link[NAME_MAX + 1];
	struct stat st;
	int fd, err;

	err = walk_dirs(w, w->path, name);
	while (!err && !w->magic) {
		if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
			return complain(w, *name ? name : w->path, -EISDIR);
		fd = openat(w->dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT ? 0 : complain(w, name, -errno);
		if (fstat(fd, &st)) {
			err = complain(w, name, -errno);
		} else if (S_ISLNK(st.st_mode)) {
			strcpy(link, name);
			err = follow(w, fd, link, &st, name);
		} else {
			close(fd);
			return 0;
		}
		close(fd);
	}
	return err;
}

#ifdef SCRY_TESTING
static const char *const *debug_names;

void outfile_debug_tmp_names(const char *const *names)
{
	debug_names = names;
}
#endif

/* ".NAME.scry-RANDOM": unpredictable, so nothing can be planted there. */
static void tmp_name(const struct outfile *of, char tmp[NAME_MAX + 1])
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[12];
	char r[sizeof(rnd) + 1];
	size_t i;

#ifdef SCRY_TESTING
	if (debug_names && *debug_names) {
		snprintf(tmp, NAME_MAX + 1, "%s", *debug_names++);
		return;
	}
#endif
	/* O_EXCL keeps it safe even if this fails: the name only repeats */
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		memset(rnd, getpid(), sizeof(rnd));
	for (i = 0; i < sizeof(rnd); i++)
		r[i] = abc[rnd[i] % (sizeof(abc) - 1)];
	r[sizeof(rnd)] = '\0';
	snprintf(tmp, NAME_MAX + 1, ".%.*s.scry-%s", TMP_KEEP, of->name, r);
}

/*
 * A new temporary file next to the name: O_EXCL and O_NOFOLLOW, so a
 * name someone planted (a link, a file) is never opened; mode 0600 until
 * the snapshot is complete. Returns its fd or -errno.
 */
static int make_tmp(const struct outfile *of, char tmp[NAME_MAX + 1])
{
	int i, fd;

	for (i = 0; i < TMP_TRIES; i++) {
		tmp_name(of, tmp);
		fd = openat(of->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int outfile_write_fd(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EAGAIN)	/* a non-blocking stdout */
			poll(&pfd, 1, -1);
		else if (n < 0 && errno != EINTR)
			return -errno;
		else if (n == 0)
			return -EIO;
		if (n <= 0)
			continue;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The whole snapshot goes into a temporary file, synced (a full disk may
 * only say so then), then renamed over the name: only onto a regular
 * file or a free name. Anything else that appeared there since is not
 * replaced. @err: the snapshot's failure so far (then the temporary
 * goes).
 */
static int replace(struct outfile *of, int err)
{
	struct stat st;
	int fd = of->wfd;

	if (!err && fchmod(fd, of->mode))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && !fstatat(of->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW) &&
	    !S_ISREG(st.st_mode)) {
		log_err("writing %s: it is no longer a regular file: not "
			"replacing it", of->path);
		unlinkat(of->dirfd, of->tmp, 0);
		return -EEXIST;
	}
	if (!err && renameat(of->dirfd, of->tmp, of->dirfd, of->name))
		err = -errno;
	if (err)
		unlinkat(of->dirfd, of->tmp, 0);
	return err;
}

/*
 * Open @name of w->dirfd in place (a device, a FIFO, a /proc link when
 * @follow). O_APPEND: through /proc/self/fd/1 a file opened with >> by
 * the shell is appended to, not overwritten from its start. A FIFO
 * without a reader is waited for, as the shell's > does. Returns 0,
 * 1 when a regular file turned up instead (to be replaced), or -errno.
 */
static int open_in_place(struct outfile *of, const struct walk *w,
			 bool follow)
{
	int flags = O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC | O_NONBLOCK |
		    (follow ? 0 : O_NOFOLLOW);
	struct stat st;
	int fd;

	fd = openat(w->dirfd, of->name, flags);
	if (fd < 0 && errno == ENXIO &&
	    !fstatat(w->dirfd, of->name, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW)
	    && S_ISFIFO(st.st_mode)) {
		log_info("-o %s: a FIFO: waiting for a reader", w->path);
		fd = openat(w->dirfd, of->name, flags & ~O_NONBLOCK);
	}
	if (fd < 0)
		return complain(w, of->name, -errno);
	if (fstat(fd, &st) || fcntl(fd, F_SETFL, O_APPEND)) {
		close(fd);
		return complain(w, of->name, -errno);
	}
	/* swapped for a regular file since we looked: replace that instead */
	if (!follow && S_ISREG(st.st_mode)) {
		close(fd);
		return 1;
	}
	of->fd = fd;
	return 0;
}

/*
 * Can a file be created where the name is? A temporary one is made and
 * removed, so a missing directory, a read-only file system or missing
 * permission show now, not after tracing.
 */
static int probe_dir(struct outfile *of, const struct walk *w)
{
	char tmp[NAME_MAX + 1];
	int fd = make_tmp(of, tmp);

	if (fd < 0) {
		log_err("-o %s: cannot create files in its directory: %s",
			w->path, strerror(-fd));
		return fd;
	}
	close(fd);
	unlinkat(of->dirfd, tmp, 0);
	return 0;
}

/* Replaced or written in place, by what the resolved name is now. */
static int classify(struct outfile *of, struct walk *w)
{
	struct stat st;
	mode_t mask = umask(0);
	int err;

	umask(mask);
	if (w->magic)
		return open_in_place(of, w, true);
	if (fstatat(w->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			return complain(w, of->name, -errno);
		st.st_mode = S_IFREG | (0666 & ~mask);
		st.st_uid = geteuid();
	} else if (S_ISDIR(st.st_mode)) {
		return complain(w, of->name, -EISDIR);
	} else if (S_ISSOCK(st.st_mode)) {
		log_err("-o %s: a socket cannot be written to", w->path);
		return -ENXIO;
	} else if (S_ISLNK(st.st_mode)) {
		/* replaced by a link since it was resolved: resolve again */
		return -EAGAIN;
	} else if (!S_ISREG(st.st_mode)) {
		err = open_in_place(of, w, false);
		if (err <= 0)
			return err;
	}
	/*
	 * The file replaced keeps its permission bits when it was ours;
	 * another user's file (or one that turned up in place of a device)
	 * gets a new file's, or its owner would choose who reads root's
	 * output (a 0666 file planted where -o points).
	 */
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
		st.st_mode = S_IFREG | (0666 & ~mask);
	of->mode = st.st_mode & 0777;
	of->dirfd = w->dirfd;
	return probe_dir(of, w);
}

int outfile_open(const char *path, struct outfile **out)
{
	struct walk w = { .path = path, .dirfd = -1 };
	struct outfile *of = calloc(1, sizeof(*of));
	int err = -ENOMEM, tries = 0;

	*out = NULL;
	if (!of || !(of->path = strdup(path ? path : "standard output"))) {
		log_err("out of memory");
		goto fail;
	}
	of->fd = of->dirfd = -1;
	if (!path) {
		of->fd = STDOUT_FILENO;
		*out = of;
		return 0;
	}
	if (!*path || path[strlen(path) - 1] == '/') {
		log_err("-o '%s': give a file name", path);
		err = -EINVAL;
		goto fail;
	}
	do {
		w.magic = false;
		w.links = 0;
		set_dir(&w, open(".", O_PATH | O_DIRECTORY | O_CLOEXEC));
		if (w.dirfd < 0) {
			err = complain(&w, ".", -errno);
			break;
		}
		err = resolve(&w, of->name);
		err = err ? : classify(of, &w);
	} while (err == -EAGAIN && ++tries < 3);
	if (err == -EAGAIN)
		err = complain(&w, of->name, err);
	if (!err) {
		if (of->dirfd < 0)
			close(w.dirfd);	/* in place: the directory is done */
		*out = of;
		return 0;
	}
fail:
	if (w.dirfd >= 0)
		close(w.dirfd);
	if (of)
		of->dirfd = -1;
	outfile_free(of);
	return err;
}

/* The snapshot's stream writes through here, a buffer at a time. */
static ssize_t stream_write(void *cookie, const char *buf, size_t len)
{
	struct outfile *of = cookie;

	if (!of->err)
		of->err = outfile_write_fd(of->wfd, buf, len);
	if (of->err) {
		errno = -of->err;
		return -1;
	}
	return (ssize_t)len;
}

int outfile_begin(struct outfile *of, FILE **f)
{
	static const cookie_io_functions_t io = { .write = stream_write };
	int fd = of->fd;

	*f = NULL;
	of->err = 0;
	if (fd < 0) {
		fd = make_tmp(of, of->tmp);
		if (fd < 0) {
			log_err("writing %s: cannot create a temporary file "
				"next to it: %s", of->path, strerror(-fd));
			return fd;
		}
	}
	of->wfd = fd;
	of->f = fopencookie(of, "w", io);
	/* written OUTFILE_BUF at a time, never the whole text held */
	if (!of->f || setvbuf(of->f, NULL, _IOFBF, OUTFILE_BUF)) {
		if (of->f)
			fclose(of->f);
		of->f = NULL;
		if (of->fd < 0) {
			close(fd);
			unlinkat(of->dirfd, of->tmp, 0);
		}
		log_err("out of memory");
		return -ENOMEM;
	}
	*f = of->f;
	return 0;
}

int outfile_end(struct outfile *of, bool ok)
{
	int err;

	if (!of->f)
		return -EINVAL;
	err = fclose(of->f) && !of->err ? -EIO : 0;
	of->f = NULL;
	err = of->err ? : err;
	if (of->fd < 0)
		err = replace(of, err ? : ok ? 0 : -ECANCELED);
	if (err == -ECANCELED)
		return 0;	/* not written: the caller says why */
	/* a closed pipe (| head) is not an error worth a message; a
	 * file that is no longer regular, replace said */
	if (err && err != -EPIPE && err != -EEXIST)
		log_err("writing %s: %s", of->path, strerror(-err));
	return err;
}

int outfile_write(struct outfile *of, const void *buf, size_t len)
{
	FILE *f;
	int err = outfile_begin(of, &f);

	if (err)
		return err;
	fwrite(buf, 1, len, f);
	return outfile_end(of, true);
}

const char *outfile_name(const struct outfile *of)
{
	return of->path;
}

void outfile_free(struct outfile *of)
{
	if (!of)
		return;
	if (of->fd > STDERR_FILENO)
		close(of->fd);
	if (of->dirfd >= 0)
		close(of->dirfd);
	free(of->path);
	free(of);
}
