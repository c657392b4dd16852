// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for scry read / scry write: known bytes and calls per file,
 * through every kind of path fd.path must name.
 *
 *   read_wl files DIR [GATE_FIFO]
 *   read_wl pipe_delay MS
 *   read_wl kinds
 *
 * files: DIR is prepared by the test, which creates the inputs (so the
 * workload's only writes are the ones scry write is asked about):
 *   DIR/plain.dat      >= 100000 bytes
 *   DIR/tmpfs/t.dat    >= 40960 bytes, on a tmpfs mounted at DIR/tmpfs
 *   DIR/bind/b.dat     >= 1536 bytes, DIR/src bind-mounted on DIR/bind
 *   DIR/gone.dat       >= 1500 bytes (unlinked here once open)
 *   DIR/sub/rel.dat    >= 700 bytes
 * and the workload does, in this order:
 *   read      100 x 1000  DIR/plain.dat
 *   pread64    10 x 4096  DIR/tmpfs/t.dat
 *   readv       3 x 512   DIR/bind/b.dat (2 iovecs of 256)
 *   read        5 x 300   DIR/gone.dat, unlinked after open ("... (deleted)")
 *   read        7 x 100   DIR/sub/rel.dat, opened with openat(DIR/sub, "rel.dat")
 *   read        4 x 64    a pipe (256 bytes written to it first, one write)
 *   preadv2     2 x 8192  /dev/zero
 *   read        1 x -EBADF on a closed fd
 *   write       6 x 200   DIR/out.dat (created, truncated)
 *   pwrite64    2 x 100   DIR/out.dat
 * With GATE_FIFO it first blocks reading one byte from it, so a test can
 * attach with -p before anything happens (that 1-byte read is traced too).
 *
 * pipe_delay: a thread sleeps MS ms, then writes 10 bytes to a pipe that
 * the main thread is blocked in read(fd, buf, 4242) on: one read of 10
 * bytes whose latency is MS ms; 4242 identifies it to a predicate.
 *
 * kinds: files that are not files: read 3 x 100 from one end of a
 * socketpair (socket:[INODE]) and 2 x 8 from an eventfd
 * (anon_inode:[eventfd]), after writing exactly that to them.
 * movers: the syscalls that move bytes between two files without a user
 * buffer, as cp, cat and servers use them (DIR/plain.dat as above):
 *   copy_file_range   3 x 10000  DIR/plain.dat -> DIR/copy.dat
 *   sendfile          2 x 5000   DIR/plain.dat -> DIR/sent.dat
 *   splice            1 x 4000   DIR/plain.dat -> a pipe
 *   splice            1 x 4000   the pipe -> DIR/spliced.dat
 * so read counts 30000 + 10000 + 4000 from plain.dat and 4000 from the
 * pipe; write counts 30000, 10000, 4000 into the three files, 4000 into
 * the pipe.
 *
 * Prints nothing on success; any unexpected result exits non-zero.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include "gate.h"

static char buf[8192];

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "read_wl: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* Every call must move exactly what was asked: the test counts bytes. */
static void want(const char *what, ssize_t got, ssize_t exp)
{
	if (got != exp)
		die("%s: returned %zd (%s), want %zd", what, got,
		    got < 0 ? strerror(errno) : "short", exp);
}

static int open_in(const char *dir, const char *rel, int flags)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, flags, 0644);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	return fd;
}

__attribute__((noinline)) void read_plain(const char *dir)
{
	int fd = open_in(dir, "plain.dat", O_RDONLY), i;

	for (i = 0; i < 100; i++)
		want("read plain.dat", read(fd, buf, 1000), 1000);
	close(fd);
}

__attribute__((noinline)) void pread_tmpfs(const char *dir)
{
	int fd = open_in(dir, "tmpfs/t.dat", O_RDONLY), i;

	for (i = 0; i < 10; i++)
		want("pread64 tmpfs/t.dat", pread(fd, buf, 4096, i * 4096), 4096);
	close(fd);
}

__attribute__((noinline)) void readv_bind(const char *dir)
{
	int fd = open_in(dir, "bind/b.dat", O_RDONLY), i;
	struct iovec iov[2] = {
		{ .iov_base = buf, .iov_len = 256 },
		{ .iov_base = buf + 256, .iov_len = 256 },
	};

	for (i = 0; i < 3; i++)
		want("readv bind/b.dat", readv(fd, iov, 2), 512);
	close(fd);
}

__attribute__((noinline)) void read_deleted(const char *dir)
{
	char path[4096];
	int fd = open_in(dir, "gone.dat", O_RDONLY), i;

	snprintf(path, sizeof(path), "%s/gone.dat", dir);
	if (unlink(path))
		die("unlink %s: %s", path, strerror(errno));
	for (i = 0; i < 5; i++)
		want("read gone.dat", read(fd, buf, 300), 300);
	close(fd);
}

__attribute__((noinline)) void read_openat(const char *dir)
{
	int dfd = open_in(dir, "sub", O_RDONLY | O_DIRECTORY), fd, i;

	fd = openat(dfd, "rel.dat", O_RDONLY);
	if (fd < 0)
		die("openat(%s/sub, rel.dat): %s", dir, strerror(errno));
	for (i = 0; i < 7; i++)
		want("read sub/rel.dat", read(fd, buf, 100), 100);
	close(fd);
	close(dfd);
}

__attribute__((noinline)) void read_pipe(void)
{
	int p[2], i;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	memset(buf, 'p', 256);
	want("write pipe", write(p[1], buf, 256), 256);
	for (i = 0; i < 4; i++)
		want("read pipe", read(p[0], buf, 64), 64);
	close(p[0]);
	close(p[1]);
}

__attribute__((noinline)) void preadv2_zero(void)
{
	struct iovec iov = { .iov_base = buf, .iov_len = 8192 };
	int fd = open("/dev/zero", O_RDONLY), i;

	if (fd < 0)
		die("/dev/zero: %s", strerror(errno));
	for (i = 0; i < 2; i++)
		want("preadv2 /dev/zero", preadv2(fd, &iov, 1, 0, 0), 8192);
	close(fd);
}

__attribute__((noinline)) void read_closed(void)
{
	int fd = open("/dev/null", O_RDONLY);

	if (fd < 0)
		die("/dev/null: %s", strerror(errno));
	close(fd);
	if (read(fd, buf, 1) != -1 || errno != EBADF)
		die("read of closed fd %d did not fail with EBADF", fd);
}

__attribute__((noinline)) void write_out(const char *dir)
{
	int fd = open_in(dir, "out.dat", O_WRONLY | O_CREAT | O_TRUNC), i;

	memset(buf, 'w', 200);
	for (i = 0; i < 6; i++)
		want("write out.dat", write(fd, buf, 200), 200);
	for (i = 0; i < 2; i++)
		want("pwrite64 out.dat", pwrite(fd, buf, 100, 1200 + i * 100), 100);
	if (close(fd))
		die("close out.dat: %s", strerror(errno));
}

static int files(const char *dir)
{
	read_plain(dir);
	pread_tmpfs(dir);
	readv_bind(dir);
	read_deleted(dir);
	read_openat(dir);
	read_pipe();
	preadv2_zero();
	read_closed();
	write_out(dir);
	return 0;
}

struct delay {
	int fd;
	long ms;
};

static void *delayed_write(void *arg)
{
	struct delay *d = arg;
	struct timespec ts = { d->ms / 1000, (d->ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
	want("write pipe", write(d->fd, "0123456789", 10), 10);
	return NULL;
}

__attribute__((noinline)) int pipe_delay(long ms)
{
	struct delay d;
	pthread_t t;
	int p[2], err;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	d.fd = p[1];
	d.ms = ms;
	err = pthread_create(&t, NULL, delayed_write, &d);
	if (err)
		die("pthread_create: %s", strerror(err));
	want("read 4242 from the pipe", read(p[0], buf, 4242), 10);
	pthread_join(t, NULL);
	return 0;
}

__attribute__((noinline)) int kinds(void)
{
	unsigned long long one = 1;
	int sv[2], efd, i;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair: %s", strerror(errno));
	memset(buf, 's', 300);
	want("write socket", write(sv[1], buf, 300), 300);
	for (i = 0; i < 3; i++)
		want("read socket", read(sv[0], buf, 100), 100);
	efd = eventfd(0, 0);
	if (efd < 0)
		die("eventfd: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		want("write eventfd", write(efd, &one, 8), 8);
		want("read eventfd", read(efd, buf, 8), 8);
	}
	return 0;
}

static int movers(const char *dir)
{
	int in = open_in(dir, "plain.dat", O_RDONLY), p[2], i, out;
	loff_t off = 0;

	out = open_in(dir, "copy.dat", O_WRONLY | O_CREAT | O_TRUNC);
	for (i = 0; i < 3; i++)
		want("copy_file_range", copy_file_range(in, &off, out, NULL,
							10000, 0), 10000);
	close(out);
	out = open_in(dir, "sent.dat", O_WRONLY | O_CREAT | O_TRUNC);
	for (i = 0; i < 2; i++)
		want("sendfile", sendfile(out, in, &off, 5000), 5000);
	close(out);
	if (pipe(p))
		die("pipe: %s", strerror(errno));
	want("splice file -> pipe", splice(in, &off, p[1], NULL, 4000, 0), 4000);
	out = open_in(dir, "spliced.dat", O_WRONLY | O_CREAT | O_TRUNC);
	want("splice pipe -> file", splice(p[0], NULL, out, NULL, 4000, 0), 4000);
	close(out);
	close(in);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "files")) {
		if (argc > 3)
			gate(argv[3]);
		return files(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[1], "pipe_delay"))
		return pipe_delay(atol(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "kinds"))
		return kinds();
	if (argc == 3 && !strcmp(argv[1], "movers"))
		return movers(argv[2]);
	fprintf(stderr, "usage: read_wl files DIR [GATE_FIFO]\n"
			"       read_wl pipe_delay MS\n"
			"       read_wl kinds\n"
			"       read_wl movers DIR\n");
	return 2;
}
