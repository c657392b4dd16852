// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile names for tests/root/hostile_output.sh: what a traced user could
 * put in front of root's terminal through scry, with counts the test
 * knows exactly.
 *
 *   hostile_wl syms [GATE_FIFO]
 *                      leaf() called 5 times from "evil\e]2;PWN\asym",
 *                      6 times from "c1\u009b31m\xff", 7 times from
 *                      "nl_sym\rFAKE" (the test renames that one to hold
 *                      a newline with objcopy: gas reads lines), and the
 *                      USDT probe below fired 3 times
 *   hostile_wl comm    names its thread "x\e]2;PWN\a\nFAKE" (15 bytes, a
 *                      full comm), then calls getpid 7 times
 *   hostile_wl read DIR
 *                      for each regular file in DIR: reads it whole in
 *                      100-byte reads (sizes are multiples of 100); for
 *                      each directory: one read(), which fails EISDIR
 *
 * With GATE_FIFO, syms first waits for a byte on it (gate.h), so scry has
 * read its mappings before the stacks are taken.
 *
 * Prints nothing on success; any unexpected result exits non-zero.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "gate.h"

/* Quoted asm labels: gas takes any byte but a newline inside quotes. */
int evil_osc(int x) __asm__("\"evil\x1b]2;PWN\x07sym\"");
int evil_c1(int x) __asm__("\"c1\xc2\x9b" "31m\xff\"");
int evil_nl(int x) __asm__("\"nl_sym\rFAKE\"");

__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3;
}

__attribute__((noinline)) int evil_osc(int x)
{
	return leaf(x) + 1;
}

__attribute__((noinline)) int evil_c1(int x)
{
	return leaf(x) + 2;
}

__attribute__((noinline)) int evil_nl(int x)
{
	return leaf(x) + 3;
}

/*
 * A USDT note written out as <sys/sdt.h> lays it out, since STAP_PROBE
 * takes only identifiers: provider, name and argument notes carry escape
 * sequences (gas turns \033 and \n in .asciz into the bytes).
 */
__attribute__((noinline)) void fire_usdt(int i)
{
	__asm__ volatile(
		"990: nop\n"
		".pushsection .note.stapsdt,\"?\",\"note\"\n"
		".balign 4\n"
		".4byte 992f-991f,994f-993f,3\n"
		"991: .asciz \"stapsdt\"\n"
		"992: .balign 4\n"
		"993: .8byte 990b\n"
		".8byte _.stapsdt.base\n"
		".8byte 0\n"
		".asciz \"prov\\033]2;PWN\\007\"\n"
		".asciz \"tick\\nFAKE\"\n"
		".asciz \"-4@%%edi \\033[31mred\"\n"
		"994: .balign 4\n"
		".popsection\n"
		".ifndef _.stapsdt.base\n"
		".pushsection .stapsdt.base,\"aG\",\"progbits\","
		".stapsdt.base,comdat\n"
		".weak _.stapsdt.base\n"
		".hidden _.stapsdt.base\n"
		"_.stapsdt.base: .space 1\n"
		".size _.stapsdt.base,1\n"
		".popsection\n"
		".endif\n"
		: : "D"(i));
}

static int syms(const char *gate_path)
{
	int i, s = 0;

	gate(gate_path);
	for (i = 0; i < 5; i++)
		s += evil_osc(i);
	for (i = 0; i < 6; i++)
		s += evil_c1(i);
	for (i = 0; i < 7; i++)
		s += evil_nl(i);
	for (i = 0; i < 3; i++)
		fire_usdt(i);
	return s == 0;	/* never: the sum is positive */
}

static int comm(void)
{
	int i;

	if (prctl(PR_SET_NAME, "x\x1b]2;PWN\x07\nFAKE", 0, 0, 0))
		return 1;
	for (i = 0; i < 7; i++)
		syscall(SYS_getpid);
	return 0;
}

static int read_file(int dir, const char *name)
{
	char buf[100];
	struct stat st;
	off_t done;
	int fd = openat(dir, name, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return 1;
	if (S_ISDIR(st.st_mode)) {
		/* one failed read: EISDIR, a row of the failures table */
		if (read(fd, buf, sizeof(buf)) >= 0)
			return 1;
	} else {
		for (done = 0; done < st.st_size; done += sizeof(buf))
			if (read(fd, buf, sizeof(buf)) != sizeof(buf))
				return 1;
	}
	close(fd);
	return 0;
}

static int read_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int err = 0;

	if (!d)
		return 1;
	while (!err && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			err = read_file(dirfd(d), e->d_name);
	closedir(d);
	return err;
}

int main(int argc, char **argv)
{
	int err = 2;

	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "syms"))
		err = syms(argc == 3 ? argv[2] : NULL);
	else if (argc == 2 && !strcmp(argv[1], "comm"))
		err = comm();
	else if (argc == 3 && !strcmp(argv[1], "read"))
		err = read_dir(argv[2]);
	else
		fprintf(stderr, "usage: hostile_wl syms [GATE]|comm|read DIR\n");
	if (err == 1)
		perror("hostile_wl");
	return err;
}
