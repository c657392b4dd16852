/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolizer tests against real processes: this binary, libc, a forked
 * child that is gone before lookup, a copy of this binary deleted while
 * it runs, the vDSO and /proc/kallsyms.
 *
 * Run as "test_sym --sym-fixture" the binary instead prints the address
 * of sym_fixture_fn and waits: that is the deleted-binary fixture, so no
 * separate helper program has to be built.
 *
 * DWARF inlining and C++ demangling use libraries compiled at run time
 * from tests/unit/sym_fixtures/ (cc, g++) and dlopen'ed; JIT naming uses
 * an anonymous executable mapping and a /tmp/perf-PID.map written here.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <scry/report.h>
#include <scry/sym.h>

#include "check.h"

/*
 * Defined in sym.c only with -DSCRY_TESTING; weak so that a build
 * without the flag fails one check instead of failing to link.
 */
extern unsigned int syms_debug_files_loaded(const struct syms *s)
	__attribute__((weak));

/* Distinct bodies so identical-code folding cannot merge them. */
__attribute__((noinline, used)) int sym_test_target(int n)
{
	volatile int acc = 0;
	int i;

	for (i = 0; i < n; i++)
		acc += i * 3;
	return acc;
}

__attribute__((noinline, used)) int sym_fixture_fn(int n)
{
	volatile int acc = 1;
	int i;

	for (i = 0; i < n; i++)
		acc ^= i * 7 + 1;
	return acc;
}

/*
 * Its only other name is versioned (scry_versioned@@SCRY_TEST_1 in
 * .symtab) and has fewer leading underscores, so it is the one shown.
 */
__attribute__((noinline, used)) static int _scry_versioned_impl(int n)
{
	volatile int acc = n;

	return acc * 5 + 1;
}
__asm__(".symver _scry_versioned_impl, scry_versioned@@SCRY_TEST_1");

static __u64 addr_of(const void *p)
{
	return (__u64)(uintptr_t)p;
}

static int fixture_main(void)
{
	printf("%llx\n", (unsigned long long)addr_of((void *)sym_fixture_fn));
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

static pid_t fork_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void reap(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Executable mapping of @pid whose path ends in @suffix: start, end. */
static bool find_exec_map(pid_t pid, const char *suffix, __u64 *start,
			  __u64 *end)
{
	char path[64], line[4096];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		char perms[5];
		size_t len;

		line[strcspn(line, "\n")] = '\0';
		len = strlen(line);
		if (sscanf(line, "%llx-%llx %4s", &s, &e, perms) != 3 ||
		    perms[2] != 'x' || len < strlen(suffix) ||
		    strcmp(line + len - strlen(suffix), suffix))
			continue;
		*start = s;
		*end = e;
		found = true;
	}
	fclose(f);
	return found;
}

static void test_null_safety(void)
{
	struct report_frame fr = {};

	syms_free(NULL);
	syms_frame_clear(NULL);
	syms_forget_pid(NULL, 1);
	CHECK_INT(syms_user(NULL, getpid(), 0x1000, &fr, 1), -EINVAL,
		  "syms_user(NULL) -> -EINVAL");
	CHECK_INT(syms_kernel(NULL, 0x1000, &fr), -EINVAL,
		  "syms_kernel(NULL) -> -EINVAL");
	CHECK_INT(syms_add_pid(NULL, getpid()), -EINVAL,
		  "syms_add_pid(NULL) -> -EINVAL");
	CHECK(!syms_is_bpf_frame(NULL), "syms_is_bpf_frame(NULL) is false");
}

static void test_self(struct syms *s)
{
	__u64 a = addr_of((void *)sym_test_target) + 5;
	struct report_frame fr;
	int n;

	CHECK_INT(syms_add_pid(s, getpid()), 0, "add own pid");
	CHECK_INT(syms_add_pid(s, getpid()), 0, "add own pid again: no-op");
	n = syms_user(s, getpid(), a, &fr, 4);
	CHECK_INT(n, 1, "self: one frame");
	CHECK_STR(fr.module, "test_sym", "self: module is test_sym");
	CHECK_STR(fr.sym, "sym_test_target", "self: sym_test_target");
	CHECK_INT(fr.off, 5, "self: offset 5");
	CHECK(fr.addr == a && !fr.kernel && !fr.inlined,
	      "self: addr kept, user, not inlined");
	syms_frame_clear(&fr);
	CHECK(!fr.module && !fr.sym, "frame_clear NULLs the strings");

	a = addr_of((void *)_scry_versioned_impl) + 1;
	syms_user(s, getpid(), a, &fr, 1);
	CHECK_STR(fr.sym, "scry_versioned", "self: @@VERSION stripped");
	CHECK_INT(fr.off, 1, "self: versioned offset 1");
	syms_frame_clear(&fr);
}

static void *libc_handle(void)
{
	return dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
}

static void test_libc(struct syms *s)
{
	void *h = libc_handle();
	struct report_frame fr;
	__u64 a, start, end;
	int n;

	CHECK(h != NULL, "libc.so.6 is loaded");
	if (!h)
		return;
	/*
	 * Asked of libc itself: with sanitizers &malloc is the
	 * interceptor in libasan, not libc's.
	 */
	a = addr_of(dlsym(h, "malloc"));
	n = syms_user(s, getpid(), a, &fr, 1);
	printf("# libc malloc resolved to %s`%s+%llu\n", fr.module, fr.sym,
	       (unsigned long long)fr.off);
	CHECK_INT(n, 1, "libc: one frame");
	CHECK_STR(fr.module, "libc.so.6", "libc: module libc.so.6");
	CHECK_STR(fr.sym, "malloc", "libc: malloc (not an alias)");
	CHECK_INT(fr.off, 0, "libc: malloc offset 0");
	syms_frame_clear(&fr);

	/*
	 * The debug file's .symtab spells it dlinfo@@GLIBC_2.34; .dynsym
	 * keeps versions apart. Either way the display name is bare.
	 */
	a = addr_of(dlsym(h, "dlinfo"));
	syms_user(s, getpid(), a + 1, &fr, 1);
	CHECK_STR(fr.sym, "dlinfo", "libc: version suffix stripped");
	CHECK_INT(fr.off, 1, "libc: dlinfo offset 1");
	syms_frame_clear(&fr);

	/* Mid-text: an internal without .dynsym entry (sym needs debug). */
	if (find_exec_map(getpid(), "/libc.so.6", &start, &end)) {
		a = start + (end - start) / 2;
		n = syms_user(s, getpid(), a, &fr, 1);
		printf("# libc internal %#llx -> %s`%s+%#llx\n",
		       (unsigned long long)a, fr.module,
		       fr.sym ? fr.sym : "(null)",
		       (unsigned long long)fr.off);
		CHECK_INT(n, 1, "libc internal: one frame");
		CHECK_STR(fr.module, "libc.so.6", "libc internal: module");
		syms_frame_clear(&fr);
	} else {
		CHECK(0, "libc executable mapping found");
	}
	dlclose(h);
}

static void test_dead_child(void)
{
	__u64 target = addr_of((void *)sym_test_target) + 5;
	struct syms *s = syms_new();
	struct report_frame fr;
	void *h = libc_handle();
	pid_t pid;

	CHECK(s != NULL, "dead child: syms_new");
	if (!s || !h)
		return;
	pid = fork_sleeper();
	CHECK(pid > 0, "dead child: fork");
	if (pid <= 0) {
		syms_free(s);
		return;
	}
	CHECK_INT(syms_add_pid(s, pid), 0, "dead child: add while alive");
	reap(pid);
	CHECK(kill(pid, 0) < 0 && errno == ESRCH, "dead child: it is gone");
	/* Nothing read yet: tables must come from the kept descriptors. */
	if (syms_debug_files_loaded)
		CHECK_INT(syms_debug_files_loaded(s), 0,
			  "dead child: no table loaded before death");

	CHECK_INT(syms_user(s, pid, target, &fr, 1), 1,
		  "dead child: one frame");
	CHECK_STR(fr.module, "test_sym", "dead child: module test_sym");
	CHECK_STR(fr.sym, "sym_test_target", "dead child: sym_test_target");
	CHECK_INT(fr.off, 5, "dead child: offset 5");
	syms_frame_clear(&fr);

	syms_user(s, pid, addr_of(dlsym(h, "malloc")), &fr, 1);
	CHECK_STR(fr.module, "libc.so.6", "dead child: libc module");
	CHECK_STR(fr.sym, "malloc", "dead child: malloc");
	syms_frame_clear(&fr);

	CHECK_INT(syms_add_pid(s, pid), 0, "dead child: re-add is a no-op");
	syms_forget_pid(s, pid);
	CHECK_INT(syms_add_pid(s, pid), -ESRCH,
		  "dead child: add after forget -> -ESRCH");
	CHECK_INT(syms_user(s, pid, target, &fr, 1), 1,
		  "dead child: forgotten pid still yields a frame");
	CHECK(fr.module == NULL && fr.sym == NULL && fr.addr == target,
	      "dead child: forgotten pid is unresolved");
	syms_frame_clear(&fr);
	dlclose(h);
	syms_free(s);
}

static bool copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out;
	ssize_t n;
	bool ok = true;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return false;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return false;
	}
	while (ok && (n = read(in, buf, sizeof(buf))) > 0)
		ok = write(out, buf, n) == n;
	if (n < 0)
		ok = false;
	close(in);
	/* Closed before any exec: an open writer would give ETXTBSY. */
	if (close(out))
		ok = false;
	return ok;
}

/* Start a copy of this binary as the fixture; return its fn address. */
static pid_t spawn_fixture(const char *path, __u64 *fn)
{
	unsigned long long a = 0;
	char line[64] = "";
	int fds[2];
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execl(path, "sym_fixture", "--sym-fixture", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], line, sizeof(line) - 1);
	close(fds[0]);
	if (pid < 0)
		return -1;
	if (n <= 0 || sscanf(line, "%llx", &a) != 1) {
		reap(pid);
		return -1;
	}
	*fn = a;
	return pid;
}

static void check_fixture(struct syms *s, pid_t pid, __u64 a,
			  const char *what)
{
	struct report_frame fr;
	char msg[128];

	snprintf(msg, sizeof(msg), "%s: one frame", what);
	CHECK_INT(syms_user(s, pid, a + 3, &fr, 1), 1, msg);
	snprintf(msg, sizeof(msg), "%s: module sym_fixture", what);
	CHECK_STR(fr.module, "sym_fixture", msg);
	snprintf(msg, sizeof(msg), "%s: sym_fixture_fn", what);
	CHECK_STR(fr.sym, "sym_fixture_fn", msg);
	snprintf(msg, sizeof(msg), "%s: offset 3", what);
	CHECK_INT(fr.off, 3, msg);
	syms_frame_clear(&fr);
}

static void test_deleted_binary(void)
{
	char self[PATH_MAX], dir[PATH_MAX + 32], path[PATH_MAX + 64];
	struct syms *before = syms_new(), *after = syms_new();
	__u64 fn = 0;
	ssize_t n;
	pid_t pid;

	CHECK(before && after, "deleted: syms_new");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (!before || !after || n <= 0) {
		CHECK(0, "deleted: readlink /proc/self/exe");
		goto out;
	}
	self[n] = '\0';
	/* Next to the test binary: /tmp may be mounted noexec. */
	snprintf(dir, sizeof(dir), "%.*s/sym-fixture-XXXXXX",
		 (int)(strrchr(self, '/') - self), self);
	if (!mkdtemp(dir)) {
		CHECK(0, "deleted: mkdtemp");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/sym_fixture", dir);
	if (!copy_file(self, path)) {
		CHECK(0, "deleted: copy fixture");
		unlink(path);
		rmdir(dir);
		goto out;
	}
	pid = spawn_fixture(path, &fn);
	CHECK(pid > 0, "deleted: fixture started and printed &fn");
	if (pid > 0)
		CHECK_INT(syms_add_pid(before, pid), 0,
			  "deleted: add before unlink");
	unlink(path);
	rmdir(dir);
	if (pid <= 0)
		goto out;
	/* Mapped path now ends in " (deleted)": only map_files reaches it. */
	CHECK_INT(syms_add_pid(after, pid), 0, "deleted: add after unlink");
	check_fixture(before, pid, fn, "deleted, added before unlink");
	check_fixture(after, pid, fn, "deleted, added after unlink");
	reap(pid);
out:
	syms_free(before);
	syms_free(after);
}

/* __vdso_clock_gettime located by hand in our own vDSO image. */
static __u64 vdso_clock_gettime(void)
{
	const char *base = (const char *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Ehdr) *eh = (const void *)base;
	const ElfW(Phdr) *ph;
	const ElfW(Shdr) *sh;
	ElfW(Addr) bias = 0;
	int i;

	if (!base)
		return 0;
	ph = (const void *)(base + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			bias = ph[i].p_vaddr - ph[i].p_offset;
			break;
		}
	}
	sh = (const void *)(base + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const ElfW(Sym) *sym;
		const char *str;
		size_t j, n;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		sym = (const void *)(base + sh[i].sh_offset);
		str = base + sh[sh[i].sh_link].sh_offset;
		n = sh[i].sh_size / sizeof(*sym);
		for (j = 0; j < n; j++)
			if (!strcmp(str + sym[j].st_name,
				    "__vdso_clock_gettime"))
				return addr_of(base) + sym[j].st_value - bias;
	}
	return 0;
}

static void test_vdso(struct syms *s)
{
	__u64 a = vdso_clock_gettime();
	struct report_frame fr;

	if (!getauxval(AT_SYSINFO_EHDR)) {
		printf("ok - vdso skipped (no AT_SYSINFO_EHDR)\n");
		return;
	}
	CHECK(a != 0, "vdso: __vdso_clock_gettime in our image");
	CHECK_INT(syms_user(s, getpid(), a + 1, &fr, 1), 1, "vdso: one frame");
	CHECK_STR(fr.module, "[vdso]", "vdso: module [vdso]");
	/* GLOBAL __vdso_clock_gettime beats its WEAK alias clock_gettime. */
	CHECK_STR(fr.sym, "__vdso_clock_gettime", "vdso: __vdso_clock_gettime");
	CHECK_INT(fr.off, 1, "vdso: offset 1");
	syms_frame_clear(&fr);
}

struct kline {
	unsigned long long addr;
	char name[128];
	char mod[64];
};

static int kaddr_cmp(const void *a, const void *b)
{
	const unsigned long long *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * From /proc/kallsyms: schedule's address and one module text symbol
 * that shares its address with no other text symbol (outside [bpf],
 * whose programs come and go).
 */
static void read_kallsyms(struct kline *sched, struct kline *mod)
{
	unsigned long long *addrs = NULL;
	struct kline *cands = NULL;
	size_t na = 0, acap = 0, nc = 0, i;
	char line[512];
	FILE *f;

	memset(sched, 0, sizeof(*sched));
	memset(mod, 0, sizeof(*mod));
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct kline k = {};
		char type;
		int n;

		n = sscanf(line, "%llx %c %127s [%63[^]]", &k.addr, &type,
			   k.name, k.mod);
		if (n < 3 || !strchr("tTwW", type))
			continue;
		if (na == acap) {
			acap = acap ? acap * 2 : 4096;
			addrs = realloc(addrs, acap * sizeof(*addrs));
			if (!addrs)
				break;
		}
		addrs[na++] = k.addr;
		if (n == 3 && !strcmp(k.name, "schedule"))
			*sched = k;
		if (n == 4 && strcmp(k.mod, "bpf") && nc < 64) {
			struct kline *c = realloc(cands,
						  (nc + 1) * sizeof(*c));

			if (!c)
				break;
			cands = c;
			cands[nc++] = k;
		}
	}
	fclose(f);
	qsort(addrs, na, sizeof(*addrs), kaddr_cmp);
	for (i = 0; i < nc && !mod->addr; i++) {
		unsigned long long *p = bsearch(&cands[i].addr, addrs, na,
						sizeof(*addrs), kaddr_cmp);
		size_t at = p - addrs, lo = at, hi = at;

		while (lo > 0 && addrs[lo - 1] == cands[i].addr)
			lo--;
		while (hi + 1 < na && addrs[hi + 1] == cands[i].addr)
			hi++;
		if (lo == hi)
			*mod = cands[i];
	}
	free(addrs);
	free(cands);
}

static void test_kernel(struct syms *s)
{
	struct kline sched, mod;
	struct report_frame fr;
	int n;

	read_kallsyms(&sched, &mod);
	if (!sched.addr && geteuid() != 0) {
		printf("ok - kallsyms skipped (not root)\n");
		return;
	}
	CHECK(sched.addr != 0, "kernel: schedule in /proc/kallsyms");
	n = syms_kernel(s, sched.addr + 4, &fr);
	CHECK_INT(n, 1, "kernel: one frame");
	CHECK_STR(fr.module, "vmlinux", "kernel: module vmlinux");
	CHECK_STR(fr.sym, "schedule", "kernel: schedule");
	CHECK_INT(fr.off, 4, "kernel: offset 4");
	CHECK(fr.kernel && fr.addr == sched.addr + 4, "kernel: flag and addr");
	syms_frame_clear(&fr);

	if (mod.addr) {
		char what[256];

		snprintf(what, sizeof(what), "kernel module: %s [%s]",
			 mod.name, mod.mod);
		n = syms_kernel(s, mod.addr, &fr);
		CHECK_INT(n, 1, what);
		CHECK_STR(fr.module, mod.mod, what);
		CHECK_STR(fr.sym, mod.name, what);
		CHECK_INT(fr.off, 0, what);
		syms_frame_clear(&fr);
	} else {
		printf("ok - kernel module symbol skipped (no module)\n");
	}

	n = syms_kernel(s, 0x10, &fr);
	CHECK_INT(n, 1, "kernel: 0x10 still one frame");
	CHECK(!fr.module && !fr.sym && fr.kernel && fr.addr == 0x10,
	      "kernel: 0x10 unresolved");
	syms_frame_clear(&fr);
}

static void test_bpf_frames(void)
{
	struct report_frame fr = { .kernel = true };

	fr.sym = "bpf_prog_6deef7357e7b4530_handle";
	CHECK(syms_is_bpf_frame(&fr), "bpf frame: bpf_prog_*");
	fr.sym = "bpf_trace_run2";
	CHECK(syms_is_bpf_frame(&fr), "bpf frame: bpf_trace_run*");
	fr.sym = "__bpf_trace_sched_switch";
	CHECK(syms_is_bpf_frame(&fr), "bpf frame: __bpf_trace_*");
	fr.sym = "bpf_prog";
	CHECK(!syms_is_bpf_frame(&fr), "bpf frame: bpf_prog is not");
	fr.sym = "schedule";
	CHECK(!syms_is_bpf_frame(&fr), "bpf frame: schedule is not");
	fr.sym = NULL;
	CHECK(!syms_is_bpf_frame(&fr), "bpf frame: NULL sym is not");
}

static void test_unknown(struct syms *s)
{
	struct report_frame fr;

	CHECK_INT(syms_user(s, getpid(), 0x10, &fr, 1), 1,
		  "unknown: one frame");
	CHECK(!fr.module && !fr.sym && fr.addr == 0x10 && !fr.kernel,
	      "unknown: module and sym NULL");
	syms_frame_clear(&fr);
	CHECK_INT(syms_user(s, getpid(), 0x10, &fr, 0), -EINVAL,
		  "unknown: max 0 -> -EINVAL");
}

/* Wait until @pid has exec'd and mapped libc. */
static bool wait_libc(pid_t pid, const char *exe, __u64 *start)
{
	__u64 s, e;
	int i;

	for (i = 0; i < 500; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (find_exec_map(pid, exe, &s, &e) &&
		    find_exec_map(pid, "/libc.so.6", start, &e))
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

static void test_shared(struct syms *s)
{
	__u64 malloc_addr, mine, theirs, e;
	struct report_frame fr;
	unsigned int before;
	void *h = libc_handle();
	pid_t pid;

	if (!syms_debug_files_loaded) {
		CHECK(0, "shared: built with -DSCRY_TESTING");
		return;
	}
	if (!h || !find_exec_map(getpid(), "/libc.so.6", &mine, &e)) {
		CHECK(0, "shared: own libc mapping");
		return;
	}
	malloc_addr = addr_of(dlsym(h, "malloc"));
	dlclose(h);

	/* A forked child maps exactly our files: nothing new to read. */
	before = syms_debug_files_loaded(s);
	CHECK(before >= 2, "shared: test_sym and libc tables loaded");
	pid = fork_sleeper();
	CHECK_INT(syms_add_pid(s, pid), 0, "shared: add forked child");
	syms_user(s, pid, malloc_addr, &fr, 1);
	CHECK_STR(fr.sym, "malloc", "shared: child's malloc");
	syms_frame_clear(&fr);
	CHECK_INT(syms_debug_files_loaded(s), before,
		  "shared: forked child reused every table");
	reap(pid);

	/* Another program, libc at another address: libc is not reread. */
	pid = fork();
	if (pid == 0) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	if (!wait_libc(pid, "/sleep", &theirs)) {
		CHECK(0, "shared: sleep mapped libc");
		reap(pid);
		return;
	}
	CHECK_INT(syms_add_pid(s, pid), 0, "shared: add sleep");
	syms_user(s, pid, malloc_addr - mine + theirs, &fr, 1);
	CHECK_STR(fr.module, "libc.so.6", "shared: sleep's libc module");
	CHECK_STR(fr.sym, "malloc", "shared: sleep's malloc");
	syms_frame_clear(&fr);
	CHECK_INT(syms_debug_files_loaded(s), before,
		  "shared: sleep's libc table is ours");
	reap(pid);
}

int main(int argc, char **argv)
{
	struct syms *s;

	if (argc > 1 && !strcmp(argv[1], "--sym-fixture"))
		return fixture_main();
	setvbuf(stdout, NULL, _IOLBF, 0);

	test_null_safety();
	s = syms_new();
	CHECK(s != NULL, "syms_new");
	if (!s)
		return CHECK_DONE();
	test_self(s);
	test_libc(s);
	test_shared(s);
	test_dead_child();
	test_deleted_binary();
	test_vdso(s);
	test_kernel(s);
	test_bpf_frames();
	test_unknown(s);
	syms_free(s);
	return CHECK_DONE();
}
