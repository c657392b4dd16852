// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the language's tests (tests/root/lang.sh):
 *
 *   lang_wl DIR [GATE]
 *
 * After the gate, in this order:
 *   lang_fn(i, "name<i % 3>") for i = 0..9: a user function with an int
 *       and a char * argument (str(arg1)), returning i * 10
 *   openat DIR/a 3 times, DIR/b 5 times (created here, 0 bytes)
 *   read    4 x 777 bytes from /dev/zero
 *   pread64 2 x 777 bytes from /dev/zero
 * then prints "done SUM" and exits 0.
 *
 *   lang_wl dio FILE    writes 1 MiB to FILE with O_DIRECT, one write(),
 *                       fsyncs, unlinks it: block I/O requests
 *   lang_wl exec        execs /bin/true one two three (an argv to join)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gate.h"

static char buf[4096];

__attribute__((noinline)) int lang_fn(int i, const char *name)
{
	/* keep the call and its argument: the compiler may not drop them */
	__asm__ volatile("" : : "r"(name) : "memory");
	return i * 10;
}

static void opens(const char *dir, const char *name, int n)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (n--) {
		fd = open(path, O_RDONLY | O_CREAT, 0644);
		if (fd < 0) {
			perror(path);
			exit(1);
		}
		close(fd);
	}
}

/* 1 MiB straight to the device: block requests the tools can count */
static int dio(const char *path)
{
	size_t len = 1 << 20;
	void *buf;
	int fd;

	if (posix_memalign(&buf, 4096, len))
		return 1;
	memset(buf, 0x5a, len);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || fsync(fd)) {
		perror(path);
		return 1;
	}
	close(fd);
	unlink(path);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "name0", "name1", "name2" };
	int i, fd, sum = 0;

	if (argc == 3 && !strcmp(argv[1], "dio"))
		return dio(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "exec")) {
		execl("/bin/true", "true", "one", "two", "three", (char *)NULL);
		perror("/bin/true");
		return 1;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: lang_wl DIR [GATE] | dio FILE | exec\n");
		return 2;
	}
	gate(argc > 2 ? argv[2] : NULL);
	/*
	 * A probe cannot fault pages in: touch the strings first, or
	 * str(arg1) may find them not yet read from the file.
	 */
	for (i = 0; i < 3; i++)
		sum += *(const volatile char *)names[i] - 'n';
	for (i = 0; i < 10; i++)
		sum += lang_fn(i, names[i % 3]);
	opens(argv[1], "a", 3);
	opens(argv[1], "b", 5);
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	for (i = 0; i < 4; i++)
		if (read(fd, buf, 777) != 777)
			return 1;
	for (i = 0; i < 2; i++)
		if (pread(fd, buf, 777, 0) != 777)
			return 1;
	close(fd);
	printf("done %d\n", sum);
	return 0;
}
