/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file-and-process layer without root: the hardened open (fsafe),
 * the /proc/PID/maps parser and the mapped-file chain (proc), the ELF
 * reader (elf), the file cache and its identity (obj), a process's
 * mappings (addrspace), JIT perf maps within bounds (jitmap), and the
 * symbolizer fed mapping records instead of /proc.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <scry/addrspace.h>
#include <scry/elf.h>
#include <scry/fsafe.h>
#include <scry/jitmap.h>
#include <scry/obj.h>
#include <scry/proc.h>
#include <scry/report.h>
#include <scry/stop.h>
#include <scry/sym.h>
#include <scry/symtab.h>

#include "check.h"

static char tmp[] = "/tmp/scry-layer.XXXXXX";

static __u64 addr_of(const void *p)
{
	return (__u64)(uintptr_t)p;
}

__attribute__((noinline, used)) int layer_test_target(int n)
{
	volatile int acc = 0;
	int i;

	for (i = 0; i < n; i++)
		acc += i * 5;
	return acc;
}

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmp, name);
}

static bool write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok;
}

static bool copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out;
	ssize_t n;
	bool ok = true;

	in = open(from, O_RDONLY | O_CLOEXEC);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in < 0 || out < 0) {
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
		return false;
	}
	while (ok && (n = read(in, buf, sizeof(buf))) > 0)
		ok = write(out, buf, n) == n;
	close(in);
	return !close(out) && ok;
}

/*
 * A character device to be refused. Not /dev/null blindly: a broken
 * "-o /dev/null" elsewhere on a shared machine can leave a regular file
 * there.
 */
static const char *char_dev(void)
{
	static const char *const devs[] = { "/dev/null", "/dev/zero", "/dev/full" };
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
		if (!stat(devs[i], &st) && S_ISCHR(st.st_mode))
			return devs[i];
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- fsafe ----------------------------------------------------------- */

static void test_fsafe(void)
{
	char reg[256], fifo[256], link[256], big[256];
	struct fsafe_rules r = {};
	struct stat st;
	double t0;
	int fd;

	path_in(reg, sizeof(reg), "regular");
	path_in(fifo, sizeof(fifo), "fifo");
	path_in(link, sizeof(link), "link");
	path_in(big, sizeof(big), "big");
	CHECK(write_file(reg, "0123456789", 10), "fsafe: fixture file");
	fd = fsafe_open(reg, NULL, &st);
	CHECK(fd >= 0 && st.st_size == 10, "fsafe: a regular file opens");
	if (fd >= 0) {
		CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK, "fsafe: opened O_NONBLOCK");
		CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY,
		      "fsafe: opened read-only");
		close(fd);
	}
	/* a FIFO would block open(2) for reading until a writer comes */
	CHECK(!mkfifo(fifo, 0644), "fsafe: FIFO made");
	t0 = now_s();
	CHECK_INT(fsafe_open(fifo, NULL, NULL), -EPERM,
		  "fsafe: a FIFO is refused");
	CHECK(now_s() - t0 < 1, "fsafe: ... without waiting for a writer");
	CHECK(char_dev() != NULL, "fsafe: a character device to try");
	CHECK_INT(fsafe_open(char_dev() ? char_dev() : "/dev/zero", NULL, NULL),
		  -EPERM, "fsafe: a device is refused");
	CHECK_INT(fsafe_open(tmp, NULL, NULL), -EPERM,
		  "fsafe: a directory is refused");
	CHECK_INT(fsafe_open("/proc/self/status", NULL, NULL), -EPERM,
		  "fsafe: a /proc file is refused");
	CHECK_INT(fsafe_open("/sys/kernel/mm/transparent_hugepage/enabled",
			     NULL, NULL) == -EPERM ||
		  access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK),
		  1, "fsafe: a /sys file is refused");
	CHECK_INT(fsafe_open("/nonexistent/x", NULL, NULL), -ENOENT,
		  "fsafe: a missing file: -ENOENT");

	/* links: followed by default, judged by where they lead */
	CHECK(!symlink(fifo, link), "fsafe: link to the FIFO made");
	CHECK_INT(fsafe_open(link, NULL, NULL), -EPERM,
		  "fsafe: a link to a FIFO is refused");
	unlink(link);
	CHECK(!symlink(reg, link), "fsafe: link to the file made");
	fd = fsafe_open(link, NULL, NULL);
	CHECK(fd >= 0, "fsafe: a link to a regular file is followed");
	if (fd >= 0)
		close(fd);
	r.nofollow = true;
	CHECK_INT(fsafe_open(link, &r, NULL), -ELOOP,
		  "fsafe: nofollow: a link is refused");
	fd = fsafe_open(reg, &r, NULL);
	CHECK(fd >= 0, "fsafe: nofollow: the file itself opens");
	if (fd >= 0)
		close(fd);
	unlink(link);

	/* owner, inode, size */
	r = (struct fsafe_rules){ .check_owner = true, .owner = 12345 };
	fd = fsafe_open(reg, &r, NULL);
	CHECK(fd >= 0 || getuid(), "fsafe: a root-owned file passes the owner rule");
	if (fd >= 0)
		close(fd);
	if (!getuid() && !chown(reg, 4242, 4242)) {
		CHECK_INT(fsafe_open(reg, &r, NULL), -EPERM,
			  "fsafe: another user's file fails the owner rule");
		r.owner = 4242;
		fd = fsafe_open(reg, &r, NULL);
		CHECK(fd >= 0, "fsafe: the owner's file passes");
		if (fd >= 0)
			close(fd);
		if (chown(reg, 0, 0))
			CHECK(0, "fsafe: chown back");
	}
	stat(reg, &st);
	r = (struct fsafe_rules){ .check_ino = true, .ino = st.st_ino + 1 };
	CHECK_INT(fsafe_open(reg, &r, NULL), -ESTALE,
		  "fsafe: another inode than expected: -ESTALE");
	r.ino = st.st_ino;
	fd = fsafe_open(reg, &r, NULL);
	CHECK(fd >= 0, "fsafe: the expected inode opens");
	if (fd >= 0)
		close(fd);
	r = (struct fsafe_rules){ .max_size = 9 };
	CHECK_INT(fsafe_open(reg, &r, NULL), -EFBIG,
		  "fsafe: over the size cap: -EFBIG");
	fd = open(big, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	CHECK(fd >= 0 && !ftruncate(fd, (off_t)FSAFE_MAX_SIZE + 1),
	      "fsafe: sparse file over the default cap");
	if (fd >= 0)
		close(fd);
	CHECK_INT(fsafe_open(big, NULL, NULL), -EFBIG,
		  "fsafe: over the default cap: -EFBIG");
	unlink(big);
	unlink(fifo);
	unlink(reg);
}

/* ---- proc -------------------------------------------------------------- */

static void test_maps_parse(void)
{
	static const char *bad[] = {
		"",
		"7f00",
		"7f00-7e00 r-xp 00000000 fe:01 1 /x",	/* end < start */
		"7f00-7f10 rwxq 00000000 fe:01 1 /x",	/* perms */
		"7f00-7f10 r-xp 0000 fe 1 /x",		/* device */
		"7f00-7f10 r-xp 00000000 fe:01 x /x",	/* inode */
		"7f00-7f10 r-xp 00000000 fe:01 1/x",	/* no blank */
		"-7f10 r-xp 00000000 fe:01 1 /x",
		"0x7f00-7f10 r-xp 00000000 fe:01 1 /x",
		"17f000000000000000-7f10 r-xp 00000000 fe:01 1 /x",
		"7f00-7f10 r-xp 00000000 1000:01 1 /x",	/* major > 12 bits */
		"7f00-7f10 r-xp 00000000 fe:01 99999999999999999999 /x",
	};
	struct proc_map m;
	char line[256];
	size_t i;
	int n = 0;

	snprintf(line, sizeof(line),
		 "7f1c2a428000-7f1c2a44e000 r-xp 00028000 fe:01 1835029"
		 "                    /usr/lib/x86_64-linux-gnu/libc.so.6\n");
	CHECK_INT(proc_maps_parse(line, strlen(line), &m), 0,
		  "maps: a library line parses");
	CHECK(m.start == 0x7f1c2a428000ULL && m.end == 0x7f1c2a44e000ULL &&
	      m.pgoff == 0x28000 && m.ino == 1835029 &&
	      m.dev == makedev(0xfe, 1) && m.read && !m.write && m.exec &&
	      !m.shared && !m.deleted,
	      "maps: every field as written");
	CHECK_STR(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6", "maps: path");
	free(m.path);
	snprintf(line, sizeof(line),
		 "00400000-00452000 r-xs 00001000 103:0a 77 /tmp/a b\\012c (deleted)");
	CHECK_INT(proc_maps_parse(line, strlen(line), &m), 0,
		  "maps: a deleted file with blanks parses");
	CHECK(m.deleted && m.shared && m.dev == makedev(0x103, 0xa),
	      "maps: deleted, shared, 3-digit major");
	CHECK_STR(m.path, "/tmp/a b\\012c", "maps: path kept escaped, suffix cut");
	free(m.path);
	snprintf(line, sizeof(line), "7ffd1000-7ffd3000 r-xp 00000000 00:00 0                          [vdso]");
	CHECK(!proc_maps_parse(line, strlen(line), &m) && proc_map_is_vdso(&m),
	      "maps: the vDSO line");
	free(m.path);
	snprintf(line, sizeof(line), "7ffd1000-7ffd3000 rw-p 00000000 00:00 0 ");
	CHECK(!proc_maps_parse(line, strlen(line), &m) && !m.path,
	      "maps: an anonymous line has no path");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!proc_maps_parse(bad[i], strlen(bad[i]), &m)) {
			printf("# accepted: %s\n", bad[i]);
			free(m.path);
			n++;
		}
	}
	CHECK_INT(n, 0, "maps: every malformed line refused");
	CHECK_INT(proc_maps_parse("7f00-7f10 r-xp 00000000 fe:01 1 /a\0b", 35,
				  &m), -EINVAL, "maps: a NUL in the path refused");
}

/*
 * A child's start time, from /proc/PID/stat on the wall clock: between
 * the moments before its fork and after it, to a tick (10 ms) either
 * side. The perf-map staleness check compares it with file mtimes.
 */
static void test_start_time(void)
{
	struct timespec before, after, st;
	double b, a, t;
	pid_t pid;

	clock_gettime(CLOCK_REALTIME, &before);
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	clock_gettime(CLOCK_REALTIME, &after);
	CHECK(pid > 0 && !proc_start_time(pid, &st), "start time: read");
	b = before.tv_sec + before.tv_nsec / 1e9;
	a = after.tv_sec + after.tv_nsec / 1e9;
	t = st.tv_sec + st.tv_nsec / 1e9;
	CHECK(t >= b - 0.02 && t <= a + 0.02,
	      "start time: a child started between before and after its fork");
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	CHECK_INT(proc_start_time(pid, &st), -ESRCH,
		  "start time: a reaped child is gone");
}

static void test_maps_read(void)
{
	struct proc_map *m;
	size_t n, i, code = 0;
	bool self = false, sorted = true;
	__u64 target = addr_of(layer_test_target);
	struct stat st;
	int fd;

	CHECK_INT(proc_maps_read(0, 0, &m, &n), 0, "maps: read own");
	for (i = 0; i < n; i++) {
		if (i && m[i].start < m[i - 1].start)
			sorted = false;
		if (m[i].start <= target && target < m[i].end) {
			self = m[i].exec && m[i].path && m[i].path[0] == '/';
			fd = proc_open_mapped(0, &m[i], &st);
			CHECK(fd >= 0 && st.st_ino == m[i].ino,
			      "maps: own binary opened by the chain, same inode");
			if (fd >= 0)
				close(fd);
		}
	}
	proc_maps_free(m, n);
	CHECK(self && sorted, "maps: own code mapping found, sorted");
	CHECK_INT(proc_maps_read(getpid(), PROC_MAPS_CODE, &m, &n), 0,
		  "maps: read own by pid, code only");
	for (i = 0; i < n; i++)
		code += m[i].exec && (proc_map_is_vdso(&m[i]) || m[i].ino);
	CHECK(n > 0 && code == n, "maps: code filter keeps only code");
	proc_maps_free(m, n);
	CHECK_INT(proc_maps_read(-1, 0, &m, &n), -ESRCH, "maps: bad pid -ESRCH");
}

/* A mapping whose file was replaced by a FIFO under its name. */
static void test_mapped_swapped(void)
{
	char lib[256], moved[256];
	struct proc_map m = {};
	struct stat st;
	double t0;
	int fd;

	path_in(lib, sizeof(lib), "swapped.so");
	path_in(moved, sizeof(moved), "moved.so");
	CHECK(write_file(lib, "not really a library", 20) && !stat(lib, &st),
	      "swap: fixture");
	/* as /proc/PID/maps would show it, for a pid without map_files */
	m.start = 0x1000;
	m.end = 0x2000;
	m.exec = true;
	m.ino = st.st_ino;
	m.path = lib;
	CHECK(!rename(lib, moved) && !mkfifo(lib, 0644), "swap: FIFO in its place");
	t0 = now_s();
	fd = proc_open_mapped(999999999, &m, NULL);
	CHECK(fd < 0, "swap: the FIFO is not opened");
	CHECK(now_s() - t0 < 1, "swap: ... and nothing blocks");
	if (fd >= 0)
		close(fd);
	unlink(lib);
	/* another regular file under the name: not the mapping's inode */
	CHECK(write_file(lib, "other", 5), "swap: other file in its place");
	fd = proc_open_mapped(999999999, &m, NULL);
	CHECK(fd < 0, "swap: another inode under the name is refused");
	if (fd >= 0)
		close(fd);
	unlink(lib);
	CHECK(!rename(moved, lib), "swap: the original back");
	fd = proc_open_mapped(999999999, &m, NULL);
	CHECK(fd >= 0, "swap: the original opens by path");
	if (fd >= 0)
		close(fd);
	unlink(lib);
}

/* ---- elf, obj ---------------------------------------------------------- */

/*
 * A user's file shrunk to nothing after scry opened it: were it mapped,
 * the next read would be a SIGBUS; it is read into memory instead.
 */
static void test_elf_truncated(void)
{
	struct elf_sym_iter *it;
	struct elf_file *f;
	struct elf_sym s;
	char copy[256];
	size_t n = 0;
	int fd;

	path_in(copy, sizeof(copy), "shrinks");
	if (!copy_file("/proc/self/exe", copy) || chown(copy, 4242, 4242)) {
		CHECK(0, "elf: a user's copy of the binary");
		return;
	}
	fd = open(copy, O_RDWR | O_CLOEXEC);
	f = fd >= 0 ? elf_file_open(fd, copy) : NULL;
	CHECK(f && !ftruncate(fd, 0), "elf: opened, then truncated by its owner");
	it = f ? elf_sym_iter_new(f, ELF_SYMS_SYMTAB | ELF_SYMS_DYNSYM) : NULL;
	while (it && elf_sym_iter_next(it, &s) > 0)
		n++;
	CHECK(n > 10, "elf: its symbols still read, no SIGBUS");
	elf_sym_iter_free(it);
	elf_file_free(f);
	if (fd >= 0)
		close(fd);
	unlink(copy);
}

static void test_elf(void)
{
	struct elf_file *f;
	const struct elf_seg *g;
	__u64 off, vaddr, target = addr_of(layer_test_target);
	size_t n, i, found = 0;
	struct elf_sym_iter *it;
	struct elf_sym s;
	const __u8 *id;
	int fd = fsafe_open("/proc/self/exe", NULL, NULL);

	f = fd >= 0 ? elf_file_open(fd, "self") : NULL;
	if (fd >= 0)
		close(fd);
	CHECK(f != NULL, "elf: open own binary");
	if (!f)
		return;
	g = elf_file_segs(f, &n);
	for (i = 0; i < n; i++)
		found += g[i].exec;
	CHECK(found >= 1, "elf: an executable PT_LOAD");
	CHECK(elf_file_build_id(f, &id) >= 16, "elf: build-id read");
	it = elf_sym_iter_new(f, ELF_SYMS_SYMTAB | ELF_SYMS_DYNSYM);
	found = 0;
	while (it && elf_sym_iter_next(it, &s) > 0)
		if (!strcmp(s.name, "layer_test_target") && s.defined &&
		    !elf_file_vaddr_to_off(f, s.value, &off) &&
		    !elf_file_off_to_vaddr(f, off, &vaddr) && vaddr == s.value)
			found++;
	elf_sym_iter_free(it);
	CHECK_INT(found, 1, "elf: the iterator finds a function, vaddr <-> offset round trip");
	stop_request();
	it = elf_sym_iter_new(f, ELF_SYMS_SYMTAB | ELF_SYMS_DYNSYM);
	while (it && (found = elf_sym_iter_next(it, &s)) == 1)
		;
	CHECK_INT((int)found, -EINTR, "elf: iteration gives up when asked to stop");
	elf_sym_iter_free(it);
	stop_reset();
	(void)target;
	elf_file_free(f);
	test_elf_truncated();
	errno = 0;
	CHECK(!elf_file_mem("junk", "junk", 4) && errno == ENOEXEC,
	      "elf: junk is not ELF: ENOEXEC");
}

static void test_obj(void)
{
	struct obj_cache *c = obj_cache_new();
	char copy[256], text[256], text2[256];
	struct obj *a, *b, *d, *v;
	int fd;

	CHECK(c != NULL, "obj: cache");
	if (!c)
		return;
	a = obj_cache_path(c, "/proc/self/exe");
	b = obj_cache_path(c, "/proc/self/exe");
	CHECK(a && a == b, "obj: the same file twice is one obj");
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	d = fd >= 0 ? obj_cache_fd(c, fd, "by-fd") : NULL;
	CHECK(d == a, "obj: entered from an open fd: the same obj");
	CHECK(fd >= 0 && fcntl(fd, F_GETFD) >= 0, "obj: the caller's fd stays open");
	if (fd >= 0)
		close(fd);
	/* the same bytes under another inode: one obj, by build-id */
	path_in(copy, sizeof(copy), "copy");
	CHECK(copy_file("/proc/self/exe", copy), "obj: copy of the binary");
	d = obj_cache_path(c, copy);
	CHECK(d == a && obj_cache_count(c) == 1,
	      "obj: a copy with the same build-id shares the entry");
	unlink(copy);
	/* no build-id: dev, inode, size, mtime */
	path_in(text, sizeof(text), "text");
	path_in(text2, sizeof(text2), "text2");
	CHECK(write_file(text, "hello", 5) && write_file(text2, "hello", 5),
	      "obj: two text files");
	d = obj_cache_path(c, text);
	b = obj_cache_path(c, text2);
	CHECK(d && b && d != b && !obj_elf(d),
	      "obj: files without build-id are told apart by inode; not ELF");
	CHECK(obj_cache_path(c, text) == d, "obj: ... and found again");
	CHECK(d && !obj_symtab(d)->n && !obj_unwind(d) && errno == ENOEXEC,
	      "obj: a non-ELF file has no symbols and no unwind table");
	CHECK(!obj_id_same(obj_id(a), obj_id(d)), "obj: identities differ");
	unlink(text);
	unlink(text2);
	CHECK(a && obj_symtab(a) && obj_symtab(a)->n > 10 &&
	      obj_cache_symtabs_loaded(c) == 1,
	      "obj: symbols read once, on demand");
	CHECK(a && obj_unwind(a) && obj_unwind(a) == obj_unwind(a),
	      "obj: the unwind table built once and kept");
	v = obj_cache_vdso(c);
	CHECK(v == obj_cache_vdso(c), "obj: one vDSO");
	if (v)
		CHECK(obj_is_vdso(v) && obj_symtab(v)->n > 0,
		      "obj: the vDSO has symbols");
	CHECK(!obj_cache_path(c, char_dev() ? char_dev() : "/dev/zero") &&
	      errno == EPERM,
	      "obj: a device is no obj (EPERM)");
	/* the kernel's dev encoding (sb->s_dev) and user space's */
	CHECK(obj_dev_from_kernel(0xfe << 20 | 1) == makedev(0xfe, 1),
	      "obj: kernel dev 254:1 -> dev_t");
	CHECK(obj_dev_to_kernel(makedev(0x103, 0x12345)) == (0x103u << 20 | 0x12345),
	      "obj: dev_t 259:74565 -> kernel dev");
	CHECK(obj_dev_from_kernel(obj_dev_to_kernel(makedev(8, 300))) ==
	      makedev(8, 300), "obj: dev round trip");
	obj_cache_free(c);
	obj_cache_free(NULL);
}

/* ---- addrspace --------------------------------------------------------- */

static int add(struct addrspace *as, __u64 start, __u64 end, __u64 pgoff,
	       const char *module)
{
	return addrspace_add(as, &(struct addrspace_map){
		.start = start, .end = end, .pgoff = pgoff,
		.module = (char *)module });
}

static void test_addrspace(void)
{
	struct addrspace *as = addrspace_new();
	const struct addrspace_map *m;
	size_t n;

	CHECK(as != NULL, "addrspace: new");
	if (!as)
		return;
	CHECK(!add(as, 0x1000, 0x5000, 0, "a") &&
	      !add(as, 0x8000, 0x9000, 0, "b"),
	      "addrspace: two mappings");
	CHECK_INT(add(as, 0x2000, 0x2000, 0, "x"), -EINVAL,
		  "addrspace: an empty range is refused");
	/* a new mapping inside "a" cuts it in two */
	CHECK(!add(as, 0x2000, 0x3000, 0x100000, "c"),
	      "addrspace: a mapping over the middle of another");
	m = addrspace_maps(as, &n);
	CHECK_INT(n, 4, "addrspace: a, c, rest of a, b");
	if (n == 4) {
		CHECK(m[0].start == 0x1000 && m[0].end == 0x2000 &&
		      !strcmp(m[0].module, "a"), "addrspace: left part of a");
		CHECK(m[1].start == 0x2000 && m[1].end == 0x3000 &&
		      m[1].pgoff == 0x100000 && !strcmp(m[1].module, "c"),
		      "addrspace: c");
		CHECK(m[2].start == 0x3000 && m[2].end == 0x5000 &&
		      m[2].pgoff == 0x2000 && !strcmp(m[2].module, "a"),
		      "addrspace: right part of a, its file offset moved on");
	}
	CHECK(addrspace_find(as, 0x2fff) && !strcmp(addrspace_find(as, 0x2fff)->module, "c"),
	      "addrspace: find in c");
	CHECK(!addrspace_find(as, 0x5000) && !addrspace_find(as, 0x7fff) &&
	      !addrspace_find(as, 0x9000), "addrspace: gaps and ends are not mapped");
	/* one covering everything replaces all */
	CHECK(!add(as, 0, 0x10000, 0, "all"), "addrspace: cover all");
	m = addrspace_maps(as, &n);
	CHECK(n == 1 && !strcmp(m[0].module, "all"), "addrspace: one left");
	addrspace_free(as);
	addrspace_free(NULL);
}

/* The symbolizer fed records (as BPF events would bring them), no /proc. */
static void test_records(void)
{
	struct syms *s = syms_new();
	__u64 target = addr_of(layer_test_target);
	struct report_frame fr = {};
	struct proc_map *m;
	size_t n, i;
	int fake = 999999999, err = -1;
	struct obj *o = s ? obj_cache_path(syms_objs(s), "/proc/self/exe") :
			NULL;

	CHECK(o != NULL, "records: our binary in the cache");
	if (!o || proc_maps_read(0, PROC_MAPS_CODE, &m, &n)) {
		syms_free(s);
		return;
	}
	/* a pid that does not exist: only the records say what it maps */
	for (i = 0; i < n; i++)
		if (m[i].start <= target && target < m[i].end)
			err = syms_add_mapping(s, fake, &(struct addrspace_map){
				.start = m[i].start, .end = m[i].end,
				.pgoff = m[i].pgoff, .dev = m[i].dev,
				.ino = m[i].ino, .obj = o });
	proc_maps_free(m, n);
	CHECK_INT(err, 0, "records: mapping added for a pid /proc does not know");
	CHECK(syms_addrspace(s, fake) != NULL, "records: the pid has mappings");
	CHECK(syms_addrspace(s, fake) &&
	      addrspace_find(syms_addrspace(s, fake), target) &&
	      addrspace_find(syms_addrspace(s, fake), target)->ino ==
	      obj_id(o)->ino,
	      "records: the record's inode kept with the mapping");
	CHECK_INT(syms_user(s, fake, target + 1, &fr, 1), 1,
		  "records: address resolved");
	CHECK_STR(fr.sym, "layer_test_target", "records: to the function");
	CHECK(fr.off == 1, "records: offset 1");
	syms_frame_clear(&fr);
	syms_free(s);
}

/*
 * A process first read before it exec'ed (a -p target between fork and
 * exec): the next add sees /proc/PID/exe changed and reads it again.
 */
static void test_exec_refresh(void)
{
	struct syms *s = syms_new();
	struct report_frame fr = {};
	struct proc_map *m = NULL;
	char exe[256] = "";
	size_t n = 0, i;
	__u64 addr = 0;
	int fds[2], k;
	pid_t pid;

	if (!s || pipe(fds))
		return;
	pid = fork();
	if (pid == 0) {
		char c;

		close(fds[1]);
		if (read(fds[0], &c, 1) == 1)
			execl("/bin/sleep", "sleep", "5", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	CHECK_INT(syms_add_pid(s, pid), 0, "exec: read before the exec");
	CHECK(write(fds[1], "x", 1) == 1, "exec: let it exec");
	close(fds[1]);
	for (k = 0; k < 500 && !strstr(exe, "sleep"); k++) {
		char link[64];
		ssize_t len;

		usleep(10000);
		snprintf(link, sizeof(link), "/proc/%d/exe", pid);
		len = readlink(link, exe, sizeof(exe) - 1);
		exe[len > 0 ? len : 0] = '\0';
	}
	CHECK(strstr(exe, "sleep") != NULL, "exec: it runs sleep now");
	usleep(50000);		/* ld.so maps the rest */
	if (!proc_maps_read(pid, PROC_MAPS_CODE, &m, &n))
		for (i = 0; i < n && !addr; i++)
			if (m[i].path && strstr(m[i].path, "/sleep"))
				addr = m[i].start;
	proc_maps_free(m, n);
	CHECK(addr != 0, "exec: sleep's code mapping");
	CHECK_INT(syms_add_pid(s, pid), 0, "exec: added again");
	CHECK_INT(syms_user(s, pid, addr, &fr, 1), 1, "exec: sleep's address resolved");
	CHECK_STR(fr.module, "sleep", "exec: to sleep, the image that runs now");
	syms_frame_clear(&fr);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	syms_free(s);
}

/* ---- jitmap ------------------------------------------------------------ */

static void test_jitmap(void)
{
	struct jitmap *j = jitmap_new();
	const struct jitmap_stats *st;
	char path[256], *text, *p;
	__u64 start;
	size_t i, len;
	int fd;

	CHECK(j != NULL, "jitmap: new");
	if (!j)
		return;
	text = "1000 10 first\n0x2000 0x10 second one\n1008 4 inner\nbad line\n3000 0 zero\n";
	CHECK_INT(jitmap_parse(j, text, strlen(text)), 0, "jitmap: parse");
	st = jitmap_stats(j);
	CHECK(st->entries == 3 && st->bad_lines == 2, "jitmap: 3 entries, 2 bad lines");
	CHECK_STR(jitmap_lookup(j, 0x1009, &start), "inner", "jitmap: the later entry wins");
	CHECK_STR(jitmap_lookup(j, 0x100c, &start), "first", "jitmap: outer again after it");
	CHECK_STR(jitmap_lookup(j, 0x200f, &start), "second one", "jitmap: names with blanks");
	CHECK(!jitmap_lookup(j, 0x2010, &start), "jitmap: end is exclusive");
	CHECK(!jitmap_truncated(j), "jitmap: nothing left out");

	/* a line longer than the cap is skipped, never buffered */
	len = JITMAP_LINE_MAX * 3 + 64;
	text = malloc(len + 1);
	if (!text)
		return;
	memset(text, 'x', len);
	memcpy(text, "4000 10 ", 8);
	text[len - 1] = '\n';
	text[len] = '\0';
	p = text;
	CHECK_INT(jitmap_parse(j, p, len), 0, "jitmap: one over-long line");
	st = jitmap_stats(j);
	CHECK(st->long_lines == 1 && st->entries == 0 && jitmap_truncated(j),
	      "jitmap: the long line counted, not kept");
	free(text);

	/* more entries than the cap, read from a file in chunks */
	path_in(path, sizeof(path), "perf.map");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	for (i = 0; fd >= 0 && i < JITMAP_MAX_ENTRIES + 100; i++)
		dprintf(fd, "%zx 8 f%zu\n", 0x100000 + i * 8, i);
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK_INT(jitmap_read(j, fd), 0, "jitmap: read a file past the entry cap");
	if (fd >= 0)
		close(fd);
	st = jitmap_stats(j);
	CHECK(st->entries == JITMAP_MAX_ENTRIES && st->over_entries == 100,
	      "jitmap: entries capped, the rest counted");
	CHECK_STR(jitmap_lookup(j, 0x100000 + 5 * 8 + 3, &start), "f5",
		  "jitmap: entries kept resolve");

	/* a file larger than the byte cap: its tail is not read */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK(fd >= 0 && dprintf(fd, "5000 10 head\n") > 0 &&
	      !ftruncate(fd, JITMAP_MAX_BYTES + 4096), "jitmap: a sparse huge map");
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK_INT(jitmap_read(j, fd), 0, "jitmap: read the huge map");
	if (fd >= 0)
		close(fd);
	st = jitmap_stats(j);
	CHECK(st->over_bytes == 4096 && jitmap_lookup(j, 0x5001, &start),
	      "jitmap: head read, 4096 bytes past the cap counted");
	unlink(path);
	jitmap_free(j);
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_fsafe();
	test_maps_parse();
	test_maps_read();
	test_start_time();
	test_mapped_swapped();
	test_elf();
	test_obj();
	test_addrspace();
	test_records();
	test_exec_refresh();
	test_jitmap();
	rmdir(tmp);
	return CHECK_DONE();
}
