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
#include <bpf/bpf.h>

#include <scry/report.h>
#include <scry/obj.h>
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

/*
 * Debian's ld.so has no symbol for its entry point, where every
 * dynamically linked process's stack begins: it is named _start.
 */
static void test_entry(struct syms *s)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_BASE);
	struct report_frame fr;
	int n;

	CHECK(eh != NULL, "entry: ld.so's base (AT_BASE)");
	if (!eh)
		return;
	/* the return address of _start's call to _dl_start */
	n = syms_user(s, getpid(), (__u64)(uintptr_t)eh + eh->e_entry + 8,
		      &fr, 1);
	CHECK_INT(n, 1, "entry: one frame");
	CHECK_STR(fr.sym, "_start", "entry: ld.so's entry point is _start");
	CHECK_INT(fr.off, 8, "entry: _start+8");
	syms_frame_clear(&fr);
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
		SKIP("vdso", "no vDSO in this process (AT_SYSINFO_EHDR): "
		     "vdso=0 on the kernel command line?");
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

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), e = strlen(end);

	return n >= e && !strcmp(s + n - e, end);
}

/*
 * From /proc/kallsyms: schedule's address and one module text symbol
 * that shares its address with no other text symbol: outside [bpf],
 * whose programs come and go, or (@bpf_name) the [bpf] one of the
 * program of that name this test holds loaded.
 */
static void read_kallsyms(struct kline *sched, struct kline *mod,
			  const char *bpf_name)
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
		if (n == 4 && nc < 64 &&
		    (bpf_name ? !strcmp(k.mod, "bpf") &&
				ends_with(k.name, bpf_name) :
				strcmp(k.mod, "bpf") != 0)) {
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

/*
 * A program of this test's own, named @name, loaded: as root, its JIT
 * image is a [bpf] module symbol of kallsyms that stays while the fd is
 * open, for a kernel with no module loaded and no ftrace trampoline. Its
 * fd, or -1.
 */
static int own_bpf_prog(const char *name)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, name, "GPL", insns,
			       2, NULL);

	return fd;
}

static void test_kernel(struct syms *s)
{
	struct kline sched, mod;
	struct report_frame fr;
	int n, prog = -1;

	read_kallsyms(&sched, &mod, NULL);
	if (!mod.addr && geteuid() == 0 &&
	    (prog = own_bpf_prog("scry_modsym")) >= 0)
		read_kallsyms(&sched, &mod, "_scry_modsym");
	if (!sched.addr && geteuid() != 0) {
		SKIP("kallsyms", "addresses hidden when not root: run as root");
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
		SKIP("kernel module symbol",
		     "no module symbol in /proc/kallsyms (no module loaded, "
		     "no ftrace trampoline, not root for a BPF program's)");
	}
	if (prog >= 0)
		close(prog);

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

/* ---- compiled fixtures: inlining, C++ ------------------------------- */

struct fxlib {
	char dir[PATH_MAX];
	char so[PATH_MAX + 32];
	char dbg[PATH_MAX + 64];	/* split DWARF, via .gnu_debuglink */
	void *h;
};

/* tests/unit/sym_fixtures/@name, from the source tree or the binary. */
static bool fixture_src(const char *name, char *out, size_t size)
{
	char self[PATH_MAX];
	const char *slash = strrchr(__FILE__, '/');
	ssize_t n;

	snprintf(out, size, "%.*s/sym_fixtures/%s",
		 slash ? (int)(slash - __FILE__) : 1,
		 slash ? __FILE__ : ".", name);
	if (!access(out, R_OK))
		return true;
	/* BUILD/tests/test_sym -> BUILD/../tests/unit/sym_fixtures */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return false;
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(out, size, "%s/../../tests/unit/sym_fixtures/%s", self, name);
	return !access(out, R_OK);
}

static bool run_cmd(char *const argv[])
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* compiler chatter must not look like test output */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Move the DWARF out of @fx->so, as distributions ship debug files. */
static bool fxlib_split(struct fxlib *fx)
{
	char *keep[] = { "objcopy", "--only-keep-debug", fx->so, fx->dbg,
			 NULL };
	char *strip[] = { "objcopy", "--strip-debug", fx->so, NULL };
	char link[PATH_MAX + 128];
	char *add[] = { "objcopy", link, fx->so, NULL };

	snprintf(fx->dbg, sizeof(fx->dbg), "%s.debug", fx->so);
	snprintf(link, sizeof(link), "--add-gnu-debuglink=%s", fx->dbg);
	return run_cmd(keep) && run_cmd(strip) && run_cmd(add);
}

/*
 * Compile fixture @src with @cc and @opt into a shared library next to
 * the test binary (/tmp may be noexec), optionally split its DWARF into
 * a debug file, and dlopen it.
 */
static bool fxlib_open(struct fxlib *fx, const char *cc, const char *opt,
		       const char *src, bool split)
{
	char path[PATH_MAX + 64], self[PATH_MAX];
	ssize_t n;

	memset(fx, 0, sizeof(*fx));
	if (!fixture_src(src, path, sizeof(path)))
		return false;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return false;
	self[n] = '\0';
	snprintf(fx->dir, sizeof(fx->dir), "%.*s/sym-fx-XXXXXX",
		 (int)(strrchr(self, '/') - self), self);
	if (!mkdtemp(fx->dir)) {
		fx->dir[0] = '\0';
		return false;
	}
	snprintf(fx->so, sizeof(fx->so), "%s/libfx.so", fx->dir);
	{
		char *argv[] = { (char *)cc, (char *)opt, "-g", "-shared",
				 "-fPIC", "-o", fx->so, path, NULL };

		if (!run_cmd(argv))
			return false;
	}
	if (split && !fxlib_split(fx))
		return false;
	fx->h = dlopen(fx->so, RTLD_NOW | RTLD_LOCAL);
	return fx->h != NULL;
}

static void fxlib_unlink(struct fxlib *fx)
{
	if (fx->so[0])
		unlink(fx->so);
	fx->so[0] = '\0';
}

static void fxlib_close(struct fxlib *fx)
{
	fxlib_unlink(fx);
	if (fx->dbg[0])
		unlink(fx->dbg);
	if (fx->dir[0])
		rmdir(fx->dir);
	fx->dbg[0] = fx->dir[0] = '\0';
	if (fx->h)
		dlclose(fx->h);
	fx->h = NULL;
}

static void clear_frames(struct report_frame *fr, int n)
{
	int i;

	for (i = 0; i < n; i++)
		syms_frame_clear(&fr[i]);
}

static void check_line(const struct report_frame *fr, int line,
		       const char *how, const char *what)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "%s%s: file inline.c", how, what);
	CHECK_STR(fr->file, "inline.c", msg);
	snprintf(msg, sizeof(msg), "%s%s: line %d", how, what, line);
	CHECK_INT(fr->line, line, msg);
}

/* CHECK message "@how@what" */
#define HOW(what) (snprintf(msg, sizeof(msg), "%s%s", how, what), msg)

/*
 * With @split the library is stripped of DWARF, which then comes from
 * the debug file its .gnu_debuglink names.
 */
static void test_inline(bool split)
{
	const char *how = split ? "split " : "";
	char msg[160];
	struct report_frame fr[8];
	int (*outer)(int);
	int *leaf_line, *mid_line, *outer_line;
	unsigned long *ra;
	struct syms *s = NULL;
	struct fxlib fx;
	__u64 pc;
	int n;

	if (!fxlib_open(&fx, "cc", "-O2", "inline.c", split)) {
		CHECK(0, HOW("inline: cc -O2 -g fixture built and loaded"));
		fxlib_close(&fx);
		return;
	}
	outer = (int (*)(int))dlsym(fx.h, "fx_outer");
	ra = dlsym(fx.h, "fx_ra");
	leaf_line = dlsym(fx.h, "fx_leaf_line");
	mid_line = dlsym(fx.h, "fx_mid_line");
	outer_line = dlsym(fx.h, "fx_outer_line");
	if (!outer || !ra || !leaf_line || !mid_line || !outer_line) {
		CHECK(0, HOW("inline: fixture symbols"));
		goto out;
	}
	outer(7);
	/* the call instruction, as the stack drain looks up callers */
	pc = *ra - 1;
	printf("# inline: pc %#llx, lines leaf %d mid %d outer %d\n",
	       (unsigned long long)pc, *leaf_line, *mid_line, *outer_line);

	s = syms_new();
	CHECK_INT(syms_add_pid(s, getpid()), 0, HOW("inline: add own pid"));
	/*
	 * Deleted now: the DWARF must come through the descriptor kept
	 * since the snapshot (split: the debug file is found by path).
	 */
	fxlib_unlink(&fx);

	n = syms_user(s, getpid(), pc, fr, 8);
	CHECK_INT(n, 3, HOW("inline: three logical frames"));
	if (n == 3) {
		CHECK_STR(fr[0].sym, "fx_leaf",
			  HOW("inline: innermost fx_leaf"));
		CHECK(fr[0].inlined, HOW("inline: fx_leaf marked inlined"));
		CHECK_STR(fr[1].sym, "fx_mid", HOW("inline: then fx_mid"));
		CHECK(fr[1].inlined, HOW("inline: fx_mid marked inlined"));
		CHECK_STR(fr[2].sym, "fx_outer",
			  HOW("inline: real fx_outer"));
		CHECK(!fr[2].inlined, HOW("inline: fx_outer not inlined"));
		CHECK_INT(fr[2].off, pc - (__u64)(uintptr_t)outer,
			  HOW("inline: fx_outer offset from its symbol"));
		CHECK_STR(fr[0].module, "libfx.so",
			  HOW("inline: module libfx.so"));
		CHECK_STR(fr[2].module, "libfx.so",
			  HOW("inline: real frame module libfx.so"));
		CHECK(fr[0].addr == pc && fr[2].addr == pc,
		      HOW("inline: every frame keeps the address"));
		CHECK(!fr[0].file && !fr[0].line && !fr[2].file &&
		      !fr[2].line, HOW("inline: no lines without SYMS_LINES"));
	}
	clear_frames(fr, n > 0 ? n : 0);

	n = syms_user(s, getpid(), pc, fr, 2);
	CHECK_INT(n, 2, HOW("inline: max 2 -> two frames"));
	if (n == 2) {
		CHECK_STR(fr[0].sym, "fx_leaf",
			  HOW("inline: max 2: fx_leaf"));
		CHECK_STR(fr[1].sym, "fx_mid", HOW("inline: max 2: fx_mid"));
	}
	clear_frames(fr, n > 0 ? n : 0);

	/* the last drain lets the DWARF go; a later lookup reads it again */
	obj_cache_drop_dwarf(syms_objs(s));
	n = syms_user(s, getpid(), pc, fr, 8);
	CHECK_INT(n, 3, HOW("inline: DWARF read again after it was dropped"));
	if (n == 3)
		CHECK(!strcmp(fr[0].sym, "fx_leaf") && fr[0].inlined &&
		      !strcmp(fr[2].sym, "fx_outer") && !fr[2].inlined,
		      HOW("inline: ... the same frames"));
	clear_frames(fr, n > 0 ? n : 0);

	syms_set_flags(s, SYMS_LINES);
	n = syms_user(s, getpid(), pc, fr, 8);
	CHECK_INT(n, 3, HOW("inline lines: three frames"));
	if (n == 3) {
		check_line(&fr[0], *leaf_line, how,
			   "inline lines: fx_leaf at pc");
		check_line(&fr[1], *mid_line, how,
			   "inline lines: fx_mid calls fx_leaf");
		check_line(&fr[2], *outer_line, how,
			   "inline lines: fx_outer calls fx_mid");
	}
	clear_frames(fr, n > 0 ? n : 0);
	CHECK(!fr[0].file && !fr[0].line,
	      HOW("inline: frame_clear resets file and line"));

	/* fx_sink is not inlined anywhere: one frame, its own line */
	n = syms_user(s, getpid(), (__u64)(uintptr_t)dlsym(fx.h, "fx_sink"),
		      fr, 8);
	CHECK_INT(n, 1, HOW("inline: fx_sink is one frame"));
	CHECK_STR(fr[0].sym, "fx_sink", HOW("inline: fx_sink"));
	CHECK(!fr[0].inlined && fr[0].off == 0,
	      HOW("inline: fx_sink+0, real"));
	CHECK_STR(fr[0].file, "inline.c",
		  HOW("inline: fx_sink in inline.c"));
	CHECK(fr[0].line > 0 && fr[0].line < *leaf_line,
	      HOW("inline: fx_sink's line is above fx_leaf's call"));
	clear_frames(fr, n > 0 ? n : 0);
out:
	syms_free(s);
	fxlib_close(&fx);
}

#undef HOW

static void test_demangle(void)
{
	struct report_frame fr[4];
	void (*fn)(int);
	unsigned long *ra;
	struct syms *raw = NULL, *s = NULL;
	struct fxlib fx;
	__u64 a;
	int n;

	if (!fxlib_open(&fx, "g++", "-O0", "demangle.cc", false)) {
		CHECK(0, "demangle: g++ -O0 -g fixture built and loaded");
		fxlib_close(&fx);
		return;
	}
	fn = (void (*)(int))dlsym(fx.h, "_ZN2ns2fnEi");
	ra = dlsym(fx.h, "fxx_ra");
	if (!fn || !ra) {
		CHECK(0, "demangle: fixture symbols");
		goto out;
	}
	fn(3);
	a = (__u64)(uintptr_t)fn;
	s = syms_new();
	raw = syms_new();
	syms_set_flags(raw, SYMS_NO_DEMANGLE);

	n = syms_user(s, getpid(), a + 1, fr, 4);
	CHECK_INT(n, 1, "demangle: one frame");
	CHECK_STR(fr[0].sym, "ns::fn(int)", "demangle: ns::fn(int)");
	CHECK_INT(fr[0].off, 1, "demangle: offset 1");
	clear_frames(fr, n > 0 ? n : 0);
	n = syms_user(raw, getpid(), a + 1, fr, 4);
	CHECK_STR(fr[0].sym, "_ZN2ns2fnEi", "no-demangle: _ZN2ns2fnEi");
	clear_frames(fr, n > 0 ? n : 0);

	/* DWARF names of inlined C++ functions are linkage names too */
	n = syms_user(s, getpid(), *ra - 1, fr, 4);
	CHECK_INT(n, 2, "demangle: inlined twice + fn");
	if (n == 2) {
		CHECK_STR(fr[0].sym, "ns::twice(int)",
			  "demangle: inlined ns::twice(int)");
		CHECK(fr[0].inlined, "demangle: twice marked inlined");
		CHECK_STR(fr[1].sym, "ns::fn(int)", "demangle: caller fn");
	}
	clear_frames(fr, n > 0 ? n : 0);
	n = syms_user(raw, getpid(), *ra - 1, fr, 4);
	CHECK_INT(n, 2, "no-demangle: inlined twice + fn");
	if (n == 2) {
		CHECK_STR(fr[0].sym, "_ZN2ns5twiceEi",
			  "no-demangle: _ZN2ns5twiceEi");
		CHECK_STR(fr[1].sym, "_ZN2ns2fnEi",
			  "no-demangle: caller _ZN2ns2fnEi");
	}
	clear_frames(fr, n > 0 ? n : 0);
out:
	syms_free(s);
	syms_free(raw);
	fxlib_close(&fx);
}

/* ---- JIT: /tmp/perf-PID.map ----------------------------------------- */

static bool perf_map_write(pid_t pid, const char *mode, const char *text)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	f = fopen(path, mode);
	if (!f)
		return false;
	ok = fputs(text, f) >= 0;
	return !fclose(f) && ok;
}

static void perf_map_unlink(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	unlink(path);
}

static void check_jit(struct syms *s, pid_t pid, __u64 a, const char *sym,
		      __u64 off, const char *what)
{
	struct report_frame fr;
	char msg[160];
	int n;

	n = syms_user(s, pid, a, &fr, 4);
	snprintf(msg, sizeof(msg), "%s: one frame", what);
	CHECK_INT(n, 1, msg);
	snprintf(msg, sizeof(msg), "%s: module [jit]", what);
	CHECK_STR(fr.module, "[jit]", msg);
	snprintf(msg, sizeof(msg), "%s: %s", what, sym);
	CHECK_STR(fr.sym, sym, msg);
	snprintf(msg, sizeof(msg), "%s: offset %#llx", what,
		 (unsigned long long)off);
	CHECK_INT(fr.off, off, msg);
	CHECK(fr.addr == a && !fr.inlined && !fr.kernel, what);
	syms_frame_clear(&fr);
}

/* Anyone may write /tmp: a map owned by another user names nothing. */
static void test_jit_owner(__u64 b)
{
	struct syms *s = syms_new();
	struct report_frame fr;
	char path[64], text[128];
	pid_t child = fork_sleeper();

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)child);
	snprintf(text, sizeof(text), "%llx 40 jit_forged\n",
		 (unsigned long long)b);
	if (child <= 0 || !s || !perf_map_write(child, "w", text)) {
		CHECK(0, "jit owner: child and its map");
	} else if (geteuid() != 0) {
		SKIP("jit owner", "chown of the perf map needs root: run as root");
	} else if (chown(path, 65534, 65534)) {
		CHECK(0, "jit owner: chown the map to another user");
	} else {
		CHECK_INT(syms_add_pid(s, child), 0, "jit owner: add child");
		CHECK_INT(syms_user(s, child, b + 4, &fr, 1), 1,
			  "jit owner: one frame");
		CHECK(!fr.module && !fr.sym,
		      "jit owner: another user's map is ignored");
		syms_frame_clear(&fr);
	}
	perf_map_unlink(child);
	reap(child);
	syms_free(s);
}

static void test_jit(void)
{
	struct syms *s = syms_new(), *raw = syms_new();
	struct report_frame fr;
	char text[512];
	pid_t me = getpid(), child;
	void *page, *mpage = MAP_FAILED;
	__u64 b, mb = 0;
	int mfd;

	page = mmap(NULL, 0x2000, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(page != MAP_FAILED, "jit: executable anonymous mapping");
	/* some JITs map code from a memfd: a file, but not ELF */
	mfd = memfd_create("scry-jit", MFD_CLOEXEC);
	if (mfd >= 0 && !ftruncate(mfd, 0x1000))
		mpage = mmap(NULL, 0x1000, PROT_READ | PROT_EXEC, MAP_SHARED,
			     mfd, 0);
	if (mfd >= 0)
		close(mfd);
	CHECK(mpage != MAP_FAILED, "jit: executable memfd mapping");
	if (page == MAP_FAILED || mpage == MAP_FAILED || !s || !raw)
		goto out;
	b = (__u64)(uintptr_t)page;
	mb = (__u64)(uintptr_t)mpage;
	/* later lines win: jit_patch covers part of jit_first */
	snprintf(text, sizeof(text),
		 "%llx 40 jit_first\n"
		 "%llx 80 _ZN3jit7compileEv\n"
		 "0x%llx 0x20 jit_patch\n"
		 "%llx\t100\tjit memfd code\n",
		 (unsigned long long)b, (unsigned long long)b + 0x100,
		 (unsigned long long)b + 0x10, (unsigned long long)mb);
	if (!perf_map_write(me, "w", text)) {
		CHECK(0, "jit: write /tmp/perf-PID.map");
		goto out;
	}
	CHECK_INT(syms_add_pid(s, me), 0, "jit: add own pid");
	syms_set_flags(raw, SYMS_NO_DEMANGLE);
	check_jit(s, me, b + 8, "jit_first", 8, "jit: first entry");
	check_jit(s, me, b + 0x18, "jit_patch", 8, "jit: later line wins");
	check_jit(s, me, b + 0x38, "jit_first", 0x38, "jit: past the patch");
	check_jit(s, me, b + 0x104, "jit::compile()", 4, "jit: demangled");
	check_jit(raw, me, b + 0x104, "_ZN3jit7compileEv", 4,
		  "jit: no-demangle");
	check_jit(s, me, mb + 0x20, "jit memfd code", 0x20, "jit: memfd");

	CHECK_INT(syms_user(s, me, b + 0x800, &fr, 1), 1, "jit: miss");
	CHECK(!fr.module && !fr.sym, "jit: unnamed JIT address unresolved");
	syms_frame_clear(&fr);
	/* the JIT compiles more: a miss reads the grown map once more */
	snprintf(text, sizeof(text), "%llx 10 jit_late\n",
		 (unsigned long long)b + 0x800);
	CHECK(perf_map_write(me, "a", text), "jit: append to the map");
	check_jit(s, me, b + 0x804, "jit_late", 4, "jit: re-read on miss");

	/* read at snapshot: the process and its map may be gone later */
	child = fork_sleeper();
	snprintf(text, sizeof(text), "%llx 40 jit_child\n",
		 (unsigned long long)b);
	CHECK(child > 0 && perf_map_write(child, "w", text),
	      "jit: child's perf map");
	CHECK_INT(syms_add_pid(s, child), 0, "jit: add child");
	reap(child);
	perf_map_unlink(child);
	check_jit(s, child, b + 4, "jit_child", 4, "jit: dead child");
	/* a dead pid's map is not read again: the pid may be reused */
	snprintf(text, sizeof(text), "%llx 10 jit_stale\n",
		 (unsigned long long)b + 0x200);
	CHECK(perf_map_write(child, "w", text), "jit: map after death");
	CHECK_INT(syms_user(s, child, b + 0x204, &fr, 1), 1,
		  "jit: dead child miss");
	CHECK(!fr.sym, "jit: dead child's new map not read");
	syms_frame_clear(&fr);
	perf_map_unlink(child);
	test_jit_owner(b);
out:
	perf_map_unlink(me);
	if (page != MAP_FAILED)
		munmap(page, 0x2000);
	if (mpage != MAP_FAILED)
		munmap(mpage, 0x1000);
	syms_free(s);
	syms_free(raw);
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
	test_entry(s);
	test_shared(s);
	test_dead_child();
	test_deleted_binary();
	test_vdso(s);
	test_kernel(s);
	test_bpf_frames();
	test_unknown(s);
	syms_free(s);
	test_inline(false);
	test_inline(true);
	test_demangle();
	test_jit();
	return CHECK_DONE();
}
