/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Probe-target resolution against real files: this process's libc (its
 * path and function addresses as the kernel and the dynamic linker see
 * them), fixture programs compiled here with cc (functions that report
 * their own file offsets, USDT probes from <sys/sdt.h>), hand-made
 * ld.so caches, and readelf's view of symbols, notes and segments.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <scry/resolve.h>
#include "check.h"

static char tmp[256];			/* fixtures live here */
static char libc_path[PATH_MAX];	/* libc as /proc/self/maps shows it */
static char fx[PATH_MAX];		/* functions fixture */
static char fx_usdt[PATH_MAX];		/* USDT fixture */
static char fx_many[PATH_MAX];		/* seven USDT probes */
static char two[PATH_MAX], two_so[PATH_MAX];	/* libscrytwo.so.1, .so */
static unsigned long long fx_offs[5];	/* offsets the fixture printed */
static char what[512];

__attribute__((format(printf, 1, 2)))
static const char *label(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return what;
}

__attribute__((format(printf, 1, 2)))
static int sh(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

__attribute__((format(printf, 1, 2)))
static FILE *popenf(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return popen(cmd, "r");
}

static int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");
	size_t n;

	if (!f)
		return -1;
	n = fwrite(buf, 1, len, f);
	return fclose(f) || n != len ? -1 : 0;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* ---- this process's mappings, read here without resolve.c -------------- */

struct map {
	unsigned long start, end;
	unsigned long long off;
	char path[PATH_MAX];
};

/* Calls @fn on each mapping until it returns nonzero; returns that. */
static int each_map(int (*fn)(const struct map *m, void *arg), void *arg)
{
	char line[PATH_MAX + 256];
	struct map m;
	FILE *f = fopen("/proc/self/maps", "r");
	int ret = 0;

	if (!f)
		return -1;
	while (!ret && fgets(line, sizeof(line), f)) {
		int pos = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%lx-%lx %*s %llx %*s %*u %n", &m.start,
			   &m.end, &m.off, &pos) < 3 || !pos)
			continue;
		snprintf(m.path, sizeof(m.path), "%s", line + pos);
		ret = fn(&m, arg);
	}
	fclose(f);
	return ret;
}

struct find_prefix {
	const char *prefix;
	char *out;
};

static int match_prefix(const struct map *m, void *arg)
{
	struct find_prefix *fp = arg;

	if (m->path[0] != '/' ||
	    strncmp(base_of(m->path), fp->prefix, strlen(fp->prefix)))
		return 0;
	snprintf(fp->out, PATH_MAX, "%s", m->path);
	return 1;
}

/* The first mapped file whose name starts with @prefix. */
static int self_map_path(const char *prefix, char *out)
{
	struct find_prefix fp = { prefix, out };

	out[0] = '\0';
	return each_map(match_prefix, &fp) == 1 ? 0 : -1;
}

struct find_addr {
	unsigned long addr;
	unsigned long long off;
	char *path;
};

static int match_addr(const struct map *m, void *arg)
{
	struct find_addr *fa = arg;

	if (fa->addr < m->start || fa->addr >= m->end)
		return 0;
	fa->off = fa->addr - m->start + m->off;
	snprintf(fa->path, PATH_MAX, "%s", m->path);
	return 1;
}

/* File offset (and file) of a code address, as the kernel maps it. */
static int self_file_off(const void *addr, unsigned long long *off,
			 char *path)
{
	struct find_addr fa = { (unsigned long)(uintptr_t)addr, 0, path };

	if (each_map(match_addr, &fa) != 1)
		return -1;
	*off = fa.off;
	return 0;
}

struct map_names {
	char seen[64][PATH_MAX];
	int n;
};

static int collect_names(const struct map *m, void *arg)
{
	struct map_names *mn = arg;
	int i;

	if (m->path[0] != '/' || mn->n == 64)
		return 0;
	for (i = 0; i < mn->n; i++)
		if (!strcmp(mn->seen[i], m->path))
			return 0;
	snprintf(mn->seen[mn->n++], PATH_MAX, "%s", m->path);
	return 0;
}

/* ---- fixtures ----------------------------------------------------------- */

static const char fx_src[] =
	"#include <stdio.h>\n"
	"#include <stdint.h>\n"
	"__attribute__((noinline, used)) int fx_handle_request(int n)\n"
	"{ volatile int a = n; return a + 1; }\n"
	"__attribute__((noinline, used)) int fx_handle_reply(int n)\n"
	"{ volatile int a = n; return a * 2; }\n"
	"__attribute__((noinline, used)) static int fx_static_helper(int n)\n"
	"{ volatile int a = n; return a - 3; }\n"
	"__attribute__((noinline, used)) static int fx_ver_impl(int n)\n"
	"{ volatile int a = n; return a ^ 5; }\n"
	"__asm__(\".symver fx_ver_impl, fx_versioned@@FX_1\");\n"
	"static unsigned long long off(const void *p)\n"
	"{\n"
	"	unsigned long s, e, a = (unsigned long)(uintptr_t)p;\n"
	"	unsigned long long o;\n"
	"	char line[4096];\n"
	"	FILE *f = fopen(\"/proc/self/maps\", \"r\");\n"
	"	while (f && fgets(line, sizeof(line), f))\n"
	"		if (sscanf(line, \"%lx-%lx %*s %llx\", &s, &e, &o) == 3 &&\n"
	"		    a >= s && a < e) {\n"
	"			fclose(f);\n"
	"			return a - s + o;\n"
	"		}\n"
	"	return 0;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	(void)argv;\n"
	"	printf(\"%llx %llx %llx %llx %llx\\n\",\n"
	"	       off((void *)fx_handle_request), off((void *)fx_handle_reply),\n"
	"	       off((void *)fx_static_helper), off((void *)fx_ver_impl),\n"
	"	       off((void *)main));\n"
	"	return (fx_handle_request(argc) + fx_handle_reply(argc) +\n"
	"		fx_static_helper(argc) + fx_ver_impl(argc)) & 0;\n"
	"}\n";

static const char fx_usdt_src[] =
	"#include <sys/sdt.h>\n"
	"__attribute__((noinline)) void handle(int a, unsigned long b)\n"
	"{ DTRACE_PROBE2(app, request_start, a, b); }\n"
	"__attribute__((noinline)) void done(int a)\n"
	"{ DTRACE_PROBE1(app, request_done, a); }\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	handle(argc, (unsigned long)argv);\n"
	"	done(argc);\n"
	"	DTRACE_PROBE(other, tick);\n"
	"	DTRACE_PROBE2(app, request_start, argc, argv[0]);\n"
	"	return 0;\n"
	"}\n";

static const char fx_many_src[] =
	"#include <sys/sdt.h>\n"
	"int main(void)\n"
	"{\n"
	"	DTRACE_PROBE(p, a6); DTRACE_PROBE(p, a5); DTRACE_PROBE(p, a4);\n"
	"	DTRACE_PROBE(p, a3); DTRACE_PROBE(p, a2); DTRACE_PROBE(p, a1);\n"
	"	DTRACE_PROBE(p, a0);\n"
	"	return 0;\n"
	"}\n";

/* A local and a global fx_dup: static in one file, global in the other. */
static const char two_a_src[] =
	"__attribute__((noinline, used)) static int fx_dup(int n)\n"
	"{ volatile int a = n; return a + 7; }\n"
	"int two_a(int n) { return fx_dup(n); }\n";

static const char two_b_src[] =
	"__attribute__((noinline)) int fx_dup(int n)\n"
	"{ volatile int a = n; return a * 11; }\n";

static int build(const char *name, const char *src, const char *flags,
		 char *out)
{
	char c[PATH_MAX];

	snprintf(c, sizeof(c), "%s/%s.c", tmp, name);
	snprintf(out, PATH_MAX, "%s/%s", tmp, name);
	if (write_file(c, src, strlen(src)))
		return -1;
	return sh("cc %s -o '%s' '%s'", flags, out, c);
}

static int setup(void)
{
	char t[] = "/tmp/scry-resolve-XXXXXX";
	FILE *p;
	int n;

	char real[PATH_MAX];

	if (!mkdtemp(t) || !realpath(t, real) || strlen(real) >= sizeof(tmp))
		return -1;
	strcpy(tmp, real);
	CHECK_INT(build("scry_fx", fx_src, "-g -O0", fx), 0,
		  "fixture: cc builds the functions fixture");
	/* -no-pie: code at 0x401000 from file offset 0x1000 */
	CHECK_INT(build("scry_fx_usdt", fx_usdt_src, "-g -O2 -no-pie", fx_usdt),
		  0, "fixture: cc builds the USDT fixture (needs systemtap-sdt-dev)");
	CHECK_INT(build("scry_fx_many", fx_many_src, "-O2", fx_many), 0,
		  "fixture: cc builds the many-probes fixture");
	snprintf(two, sizeof(two), "%s/libscrytwo.so.1", tmp);
	snprintf(two_so, sizeof(two_so), "%s/libscrytwo.so", tmp);
	snprintf(real, sizeof(real), "%s/two_a.c", tmp);
	n = write_file(real, two_a_src, strlen(two_a_src));
	snprintf(real, sizeof(real), "%s/two_b.c", tmp);
	n |= write_file(real, two_b_src, strlen(two_b_src));
	CHECK_INT(n || sh("cd '%s' && cc -shared -fPIC -O0 -o '%s' two_a.c two_b.c && cp '%s' '%s'",
			 tmp, two, two, two_so), 0,
		  "fixture: cc builds libscrytwo.so.1 and a copy as .so");
	p = popenf("'%s'", fx);
	n = p ? fscanf(p, "%llx %llx %llx %llx %llx", &fx_offs[0], &fx_offs[1],
		       &fx_offs[2], &fx_offs[3], &fx_offs[4]) : 0;
	if (p)
		pclose(p);
	CHECK_INT(n, 5, "fixture: reports its own function offsets");
	if (self_map_path("libc.so.", libc_path))
		return -1;
	return 0;
}

/* ---- libraries ---------------------------------------------------------- */

static void expect_lib(const char *lib, int pid, const char *want)
{
	char path[PATH_MAX], err[RESOLVE_ERR_LEN];
	int ret;

	ret = resolve_lib(lib, pid, path, sizeof(path), err, sizeof(err));
	CHECK_INT(ret, 0, label("lib '%s' pid %d: resolves", lib, pid));
	if (ret)
		printf("# %s\n", err);
	else
		CHECK_STR(path, want, label("lib '%s' pid %d: path", lib, pid));
}

static void test_lib_system(void)
{
	char want[PATH_MAX];

	CHECK(libc_path[0] == '/', "this process maps libc");
	expect_lib("libc", 0, libc_path);
	expect_lib("c", 0, libc_path);
	expect_lib("libc.so.6", 0, libc_path);

	/* the dynamic linker's own search decides where libm is */
	CHECK(dlopen("libm.so.6", RTLD_NOW) != NULL, "dlopen libm.so.6");
	CHECK_INT(self_map_path("libm.so.", want), 0, "libm is mapped");
	expect_lib("libm", 0, want);
	expect_lib("m", 0, want);

	CHECK(dlopen("libpthread.so.0", RTLD_NOW) != NULL,
	      "dlopen libpthread.so.0");
	CHECK_INT(self_map_path("libpthread.so.", want), 0,
		  "libpthread is mapped");
	expect_lib("libpthread", 0, want);
	expect_lib("pthread", 0, want);
}

static void expect_func(const char *file, const char *func,
			unsigned long long want);

/*
 * Two libraries this process maps, libscrytwo.so.1 first, then the
 * better name libscrytwo.so (a copy: another inode, loaded again).
 */
static void test_lib_pid_rank(void)
{
	unsigned long long want = 0;
	char path[PATH_MAX];
	void *h1 = dlopen(two, RTLD_NOW), *h2 = dlopen(two_so, RTLD_NOW);

	CHECK(h1 && h2 && h1 != h2, "dlopen both libscrytwo files");
	if (!h1 || !h2)
		return;
	expect_lib("libscrytwo", getpid(), two_so);
	expect_lib("scrytwo", getpid(), two_so);
	expect_lib("libscrytwo.so.1", getpid(), two);

	/* the global fx_dup, not the static one listed before it */
	CHECK_INT(self_file_off(dlsym(h1, "fx_dup"), &want, path), 0,
		  "libscrytwo's global fx_dup is mapped");
	CHECK_STR(path, two, "fx_dup lives in libscrytwo.so.1");
	expect_func(two, "fx_dup", want);
	{
		struct resolve_func *f = NULL;
		size_t n = 0;

		CHECK_INT(resolve_funcs(two, "fx_d*", &f, &n), 0,
			  "list fx_d* in libscrytwo");
		CHECK(n == 1 && !strcmp(f[0].name, "fx_dup") &&
		      f[0].offset == want, "fx_d*: fx_dup once, the global");
		resolve_funcs_free(f, n);
	}
}

static void test_lib_pid(void)
{
	char path[PATH_MAX], err[RESOLVE_ERR_LEN], want[2048], exe[PATH_MAX];
	struct map_names *mn = calloc(1, sizeof(*mn));
	int pid = getpid(), ret, i, child;
	size_t len;

	expect_lib("libc", pid, libc_path);
	expect_lib("c", pid, libc_path);
	expect_lib("libc.so.6", pid, libc_path);
	CHECK_INT(self_map_path("libm.so.", path), 0, "libm is mapped");
	expect_lib("libm", pid, path);

	/* the program itself, by its name */
	CHECK(realpath("/proc/self/exe", exe) != NULL, "realpath of self");
	expect_lib(base_of(exe), pid, exe);

	ret = resolve_lib("libscry_nope", pid, path, sizeof(path), err,
			  sizeof(err));
	CHECK_INT(ret, -ENOENT, "lib not mapped: -ENOENT");
	if (!mn)
		return;
	each_map(collect_names, mn);
	len = (size_t)snprintf(want, sizeof(want),
			       "library 'libscry_nope' not found in pid %d's mappings (it maps: ",
			       pid);
	for (i = 0; i < mn->n && i < 6; i++)
		len += (size_t)snprintf(want + len, sizeof(want) - len, "%s%s",
					i ? ", " : "", base_of(mn->seen[i]));
	snprintf(want + len, sizeof(want) - len, "%s)",
		 mn->n > 6 ? ", ..." : "");
	CHECK(mn->n > 6, "this process maps more than 6 files");
	CHECK_STR(err, want, "lib not mapped: message lists what is mapped");
	free(mn);

	/* a pid that was and is no more */
	child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	ret = resolve_lib("libc", child, path, sizeof(path), err, sizeof(err));
	CHECK_INT(ret, -ESRCH, "lib in a dead pid: -ESRCH");
	snprintf(want, sizeof(want), "process %d not found", child);
	CHECK_STR(err, want, "lib in a dead pid: message");
}

static void test_lib_paths(void)
{
	char path[PATH_MAX], err[RESOLVE_ERR_LEN], want[PATH_MAX + 64];
	char cwd[PATH_MAX], link[PATH_MAX], oldpath[8192], newpath[8704];
	const char *envpath = getenv("PATH");
	int ret;

	CHECK(getcwd(cwd, sizeof(cwd)) != NULL, "getcwd");
	CHECK_INT(chdir(tmp), 0, "chdir to the fixtures");
	expect_lib("./scry_fx", 0, fx);
	CHECK_INT(chdir(cwd), 0, "chdir back");

	expect_lib(libc_path, 0, libc_path);
	expect_lib(fx, 12345678, fx);	/* a path ignores the pid */
	snprintf(link, sizeof(link), "%s/libc-link.so", tmp);
	CHECK_INT(symlink(libc_path, link), 0, "symlink to libc");
	expect_lib(link, 0, libc_path);

	snprintf(path, sizeof(path), "%s/scry_fx.c", tmp);
	ret = resolve_lib(path, 0, path, sizeof(path), err, sizeof(err));
	CHECK_INT(ret, -ENOEXEC, "lib path not ELF: -ENOEXEC");
	snprintf(want, sizeof(want), "'%s/scry_fx.c' is not an ELF file", tmp);
	CHECK_STR(err, want, "lib path not ELF: message");

	snprintf(link, sizeof(link), "%s/missing.so", tmp);
	ret = resolve_lib(link, 0, path, sizeof(path), err, sizeof(err));
	CHECK_INT(ret, -ENOENT, "lib path missing: -ENOENT");
	snprintf(want, sizeof(want),
		 "cannot open '%s': No such file or directory", link);
	CHECK_STR(err, want, "lib path missing: message");

	ret = resolve_lib("libc", 0, path, 8, err, sizeof(err));
	CHECK_INT(ret, -ENAMETOOLONG, "lib: short buffer -ENAMETOOLONG");

	ret = resolve_lib("", 0, path, sizeof(path), err, sizeof(err));
	CHECK_INT(ret, -EINVAL, "lib: empty name -EINVAL");

	/* a program on $PATH, by its name */
	snprintf(oldpath, sizeof(oldpath), "%s", envpath ? envpath : "");
	snprintf(newpath, sizeof(newpath), "/nonexistent-dir:%s:%s", tmp,
		 oldpath);
	setenv("PATH", newpath, 1);
	expect_lib("scry_fx", 0, fx);
	ret = resolve_lib("scry_fx.c", 0, path, sizeof(path), err,
			  sizeof(err));
	CHECK_INT(ret, -ENOENT, "PATH: a non-executable non-ELF is skipped");
	if (envpath)
		setenv("PATH", oldpath, 1);
	else
		unsetenv("PATH");
}

static void test_lib_unknown(void)
{
	char path[PATH_MAX] = "untouched", err[RESOLVE_ERR_LEN];
	int ret;

	ret = resolve_lib("libscry_nope", 0, path, sizeof(path), err,
			  sizeof(err));
	CHECK_INT(ret, -ENOENT, "unknown lib: -ENOENT");
	CHECK_STR(err, "library 'libscry_nope' not found (not in the ld.so cache, the library directories or $PATH; give a path)",
		  "unknown lib: message");
	CHECK_STR(path, "untouched", "unknown lib: path untouched");

	/* messages are cut to the buffer, NUL-terminated */
	ret = resolve_lib("libscry_nope", 0, path, sizeof(path), err, 12);
	CHECK_INT(ret, -ENOENT, "unknown lib, short message buffer");
	CHECK_STR(err, "library 'li", "message cut to 11 chars");
	ret = resolve_lib("libscry_nope", 0, path, sizeof(path), NULL, 0);
	CHECK_INT(ret, -ENOENT, "unknown lib, no message buffer");
}

/* ---- ld.so cache files made here ---------------------------------------- */

struct entry {
	const char *key, *value;
};

/*
 * glibc's "glibc-ld.so.cache1.1" layout, written out field by field;
 * with @old_prefix, behind an empty "ld.so-1.7.0" cache as old glibc
 * wrote them. String offsets count from the new header.
 */
static int write_cache(const char *file, const struct entry *e, int n,
		       int old_prefix)
{
	unsigned char buf[4096] = { 0 };
	size_t pre = old_prefix ? 16 : 0, hdr = 48, ent = 24;
	size_t str = hdr + (size_t)n * ent, i;
	uint32_t u;

	if (old_prefix)
		memcpy(buf, "ld.so-1.7.0", 12);	/* nlibs 0 follows */
	memcpy(buf + pre, "glibc-ld.so.cache1.1", 20);
	u = (uint32_t)n;
	memcpy(buf + pre + 20, &u, 4);
	for (i = 0; i < (size_t)n; i++) {
		unsigned char *p = buf + pre + hdr + i * ent;
		size_t kl = strlen(e[i].key) + 1, vl = strlen(e[i].value) + 1;

		u = 0x0303;			/* ELF libc6, x86-64 */
		memcpy(p, &u, 4);
		u = (uint32_t)str;
		memcpy(p + 4, &u, 4);
		memcpy(buf + pre + str, e[i].key, kl);
		str += kl;
		u = (uint32_t)str;
		memcpy(p + 8, &u, 4);
		memcpy(buf + pre + str, e[i].value, vl);
		str += vl;
	}
	u = (uint32_t)(str - hdr - (size_t)n * ent);
	memcpy(buf + pre + 24, &u, 4);
	return write_file(file, buf, pre + str);
}

/* The old format alone: only "ldconfig -p" reads it for us. */
static int write_old_cache(const char *file, const char *key,
			   const char *value)
{
	unsigned char buf[1024] = { 0 };
	size_t kl = strlen(key) + 1, vl = strlen(value) + 1;
	uint32_t u;
	int32_t flags = 0x0303;

	memcpy(buf, "ld.so-1.7.0", 12);
	u = 1;
	memcpy(buf + 12, &u, 4);
	memcpy(buf + 16, &flags, 4);
	u = 0;
	memcpy(buf + 20, &u, 4);		/* key, from the strings */
	u = (uint32_t)kl;
	memcpy(buf + 24, &u, 4);		/* value */
	memcpy(buf + 28, key, kl);
	memcpy(buf + 28 + kl, value, vl);
	return write_file(file, buf, 28 + kl + vl);
}

static void test_ld_cache(void)
{
	char file[PATH_MAX], notelf[PATH_MAX], path[PATH_MAX];
	char err[RESOLVE_ERR_LEN];
	struct entry e[3];
	int ret;

	snprintf(notelf, sizeof(notelf), "%s/scry_fx.c", tmp);
	e[0] = (struct entry){ "libscrybad.so", notelf };
	e[1] = (struct entry){ "libscrybad.so.1", fx };
	e[2] = (struct entry){ "libscryfake.so.1", fx };
	snprintf(file, sizeof(file), "%s/ld.so.cache", tmp);

	CHECK_INT(write_cache(file, e, 3, 0), 0, "write a new-format cache");
	resolve_set_ld_cache(file);
	expect_lib("libscryfake", 0, fx);
	expect_lib("scryfake", 0, fx);
	expect_lib("libscryfake.so.1", 0, fx);
	/* libscrybad.so ranks first but is no ELF file */
	expect_lib("libscrybad", 0, fx);

	/* NAME beats NAME.so beats NAME.so.*, whatever the cache's order */
	e[0] = (struct entry){ "libscrypref.so.1", fx_usdt };
	e[1] = (struct entry){ "libscrypref.so", fx };
	e[2] = (struct entry){ "libscrypref", fx_many };
	CHECK_INT(write_cache(file, e, 2, 0), 0, "write a cache: .so.1, .so");
	expect_lib("libscrypref", 0, fx);
	CHECK_INT(write_cache(file, e, 3, 0), 0, "write a cache: .so.1, .so, exact");
	expect_lib("libscrypref", 0, fx_many);
	expect_lib("scrypref", 0, fx);
	e[0] = (struct entry){ "libscrybad.so", notelf };
	e[1] = (struct entry){ "libscrybad.so.1", fx };
	e[2] = (struct entry){ "libscryfake.so.1", fx };

	CHECK_INT(write_cache(file, e, 3, 1), 0, "write an old+new cache");
	expect_lib("libscryfake", 0, fx);

	CHECK_INT(write_old_cache(file, "libscryold.so.1", fx), 0,
		  "write an old-format cache");
	expect_lib("libscryold", 0, fx);

	CHECK_INT(write_file(file, "garbage", 7), 0, "write a garbage cache");
	ret = resolve_lib("libscryold", 0, path, sizeof(path), err,
			  sizeof(err));
	CHECK_INT(ret, -ENOENT, "garbage cache: nothing from it");
	expect_lib("libc", 0, libc_path);	/* library directories */

	resolve_set_ld_cache(NULL);
	ret = resolve_lib("libscryfake", 0, path, sizeof(path), err,
			  sizeof(err));
	CHECK_INT(ret, -ENOENT, "default cache again: no libscryfake");
}

/* ---- functions ---------------------------------------------------------- */

static void expect_func(const char *file, const char *func,
			unsigned long long want)
{
	char err[RESOLVE_ERR_LEN];
	__u64 off = 0;
	int ret;

	ret = resolve_func(file, func, &off, err, sizeof(err));
	CHECK_INT(ret, 0, label("func %s in %s: resolves", func,
				base_of(file)));
	if (ret)
		printf("# %s\n", err);
	CHECK_INT(off, want, label("func %s in %s: offset", func,
				   base_of(file)));
}

static void expect_func_err(const char *file, const char *func, int want,
			    const char *msg)
{
	char err[RESOLVE_ERR_LEN];
	__u64 off = 0;
	int ret;

	ret = resolve_func(file, func, &off, err, sizeof(err));
	CHECK_INT(ret, want, label("func %s in %s: error", func,
				   base_of(file)));
	CHECK_STR(err, msg, label("func %s in %s: message", func,
				  base_of(file)));
}

/* Defined functions of readelf --dyn-syms: "Num: Value Size Type Bind Vis Ndx Name". */
struct rsym {
	char name[256];		/* version stripped */
	char full[256];		/* as readelf shows it: "memcpy@@GLIBC_2.14" */
	unsigned long long value;
	int ifunc;
};

static int readelf_funcs(const char *file, struct rsym **out)
{
	char line[1024], type[32], ndx[32], name[256];
	struct rsym *v = NULL;
	unsigned long long value;
	int n = 0, cap = 0;
	FILE *p = popenf("readelf --dyn-syms -W '%s'", file);

	while (p && fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%*s %llx %*s %31s %*s %*s %31s %255s", &value,
			   type, ndx, name) != 4)
			continue;
		if ((strcmp(type, "FUNC") && strcmp(type, "IFUNC")) ||
		    !strcmp(ndx, "UND"))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 512;
			v = realloc(v, (size_t)cap * sizeof(*v));
			if (!v)
				break;
		}
		snprintf(v[n].full, sizeof(v[n].full), "%s", name);
		name[strcspn(name, "@")] = '\0';
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		v[n].ifunc = !strcmp(type, "IFUNC");
		v[n++].value = value;
	}
	if (p)
		pclose(p);
	*out = v;
	return v ? n : 0;
}

/* File offset of @vaddr through readelf -l's PT_LOAD lines. */
static unsigned long long readelf_off(const char *file,
				      unsigned long long vaddr)
{
	unsigned long long off, va, pa, fsz, res = ~0ULL;
	char line[512];
	FILE *p = popenf("readelf -l -W '%s'", file);

	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, " LOAD %llx %llx %llx %llx", &off, &va, &pa,
			   &fsz) == 4 && vaddr >= va && vaddr < va + fsz)
			res = vaddr - va + off;
	if (p)
		pclose(p);
	return res;
}

/*
 * memcpy@@GLIBC_2.14 is an IFUNC: in a libc loaded here the offset is the
 * implementation the dynamic linker picked; in a copy nobody loaded, the
 * resolver's (the only thing the file says).
 */
static void test_ifunc(void *h, const struct rsym *rs, int n)
{
	unsigned long long impl = 0, old = 0, resolver = ~0ULL;
	char path[PATH_MAX], copy[PATH_MAX];
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(rs[i].full, "memcpy@@GLIBC_2.14") && rs[i].ifunc)
			resolver = readelf_off(libc_path, rs[i].value);
	CHECK(resolver != ~0ULL, "readelf: memcpy@@GLIBC_2.14 is an IFUNC");
	CHECK_INT(self_file_off(dlsym(h, "memcpy"), &impl, path), 0,
		  "memcpy's implementation is mapped");
	CHECK_STR(path, libc_path, "memcpy's implementation is in libc");
	CHECK(impl != resolver, "memcpy: implementation is not the resolver");
	expect_func(libc_path, "memcpy", impl);
	expect_func(libc_path, "memcpy@@GLIBC_2.14", impl);
	self_file_off(dlvsym(h, "memcpy", "GLIBC_2.2.5"), &old, path);
	expect_func(libc_path, "memcpy@GLIBC_2.2.5", old);

	snprintf(copy, sizeof(copy), "%s/libc-copy.so.6", tmp);
	CHECK_INT(sh("cp '%s' '%s'", libc_path, copy), 0, "copy libc");
	expect_func(copy, "memcpy", resolver);
	expect_func(copy, "memcpy@GLIBC_2.2.5", old);
}

static void test_func_libc(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	char path[PATH_MAX], err[RESOLVE_ERR_LEN];
	unsigned long long m_off = 0, old_off = 0, new_off = 0;
	struct rsym *rs = NULL;
	int n, i, j, found = 0;
	__u64 a, b;

	CHECK(h != NULL, "libc handle");
	if (!h)
		return;
	/* where the dynamic linker put malloc, seen through the mappings */
	CHECK_INT(self_file_off(dlsym(h, "malloc"), &m_off, path), 0,
		  "malloc is mapped");
	CHECK_STR(path, libc_path, "malloc lives in libc");
	expect_func(libc_path, "malloc", m_off);
	expect_func(libc_path, "malloc@@GLIBC_2.2.5", m_off);
	expect_func(libc_path, "malloc@GLIBC_2.2.5", m_off);
	expect_func(libc_path, "__libc_malloc", m_off);	/* an alias */

	/* two versions at two addresses: the linker's choice for each */
	self_file_off(dlsym(h, "realpath"), &new_off, path);
	self_file_off(dlvsym(h, "realpath", "GLIBC_2.2.5"), &old_off, path);
	CHECK(new_off != old_off, "realpath: two versions, two addresses");
	expect_func(libc_path, "realpath", new_off);
	expect_func(libc_path, "realpath@@GLIBC_2.3", new_off);
	expect_func(libc_path, "realpath@GLIBC_2.3", new_off);
	expect_func(libc_path, "realpath@GLIBC_2.2.5", old_off);
	CHECK_INT(resolve_func(libc_path, "realpath@@GLIBC_2.2.5", &a, err,
			       sizeof(err)), -ENOENT,
		  "realpath@@GLIBC_2.2.5: not the default version");
	CHECK(strstr(err, "function 'realpath@@GLIBC_2.2.5' not found in libc.so.6; it has: ") == err &&
	      strstr(err, " realpath@@GLIBC_2.3") && strstr(err, " realpath@GLIBC_2.2.5"),
	      "realpath@@GLIBC_2.2.5: message lists both versions");
	expect_func_err(libc_path, "malloc@@GLIBC_9.9", -ENOENT,
			"function 'malloc@@GLIBC_9.9' not found in libc.so.6; it has: malloc@@GLIBC_2.2.5");

	/* an alias pair found by readelf: two names, one address */
	n = readelf_funcs(libc_path, &rs);
	CHECK(n > 1000, "readelf lists libc's functions");
	for (i = 0; i < n && !found; i++) {
		int uniq = 1;

		for (j = 0; j < n && uniq; j++)
			if (j != i && !strcmp(rs[i].name, rs[j].name))
				uniq = 0;
		if (!uniq || rs[i].name[0] == '_')
			continue;
		for (j = 0; j < n && !found; j++)
			if (j != i && rs[j].value == rs[i].value &&
			    strcmp(rs[j].name, rs[i].name))
				found = j + 1;
		if (found)
			break;
	}
	CHECK(found, "libc has an alias pair");
	if (found) {
		int ra = resolve_func(libc_path, rs[i].name, &a, err, sizeof(err));
		int rb = resolve_func(libc_path, rs[found - 1].name, &b, err,
				      sizeof(err));

		CHECK(ra == 0 && rb == 0 && a == b,
		      label("alias %s = %s: same offset", rs[i].name,
			    rs[found - 1].name));
	}
	test_ifunc(h, rs, n);
	free(rs);

	CHECK_INT(resolve_func(libc_path, "maloc", &a, err, sizeof(err)),
		  -ENOENT, "maloc: -ENOENT");
	CHECK(!strncmp(err, "function 'maloc' not found in libc.so.6; did you mean: malloc, ",
		       strlen("function 'maloc' not found in libc.so.6; did you mean: malloc, ")) &&
	      err[strlen(err) - 1] == '?' &&
	      strchr(err, ',') != strrchr(err, ','),
	      "maloc: suggests malloc first, then two more");
	printf("# %s\n", err);
	CHECK_INT(resolve_func(libc_path, "", &a, err, sizeof(err)), -EINVAL,
		  "empty function name: -EINVAL");
}

static void test_func_fixture(void)
{
	char stripped[PATH_MAX], src[PATH_MAX], msg[PATH_MAX + 64];

	expect_func(fx, "fx_handle_request", fx_offs[0]);
	expect_func(fx, "fx_handle_reply", fx_offs[1]);
	expect_func(fx, "fx_static_helper", fx_offs[2]);	/* local */
	expect_func(fx, "fx_ver_impl", fx_offs[3]);
	expect_func(fx, "fx_versioned", fx_offs[3]);		/* .symver */
	expect_func(fx, "fx_versioned@@FX_1", fx_offs[3]);
	expect_func(fx, "fx_versioned@FX_1", fx_offs[3]);
	expect_func(fx, "main", fx_offs[4]);
	CHECK(fx_offs[0] != fx_offs[1] && fx_offs[0] != 0,
	      "fixture offsets are distinct and real");

	expect_func_err(fx, "fx_versioned@FX_2", -ENOENT,
			"function 'fx_versioned@FX_2' not found in scry_fx; it has: fx_versioned@@FX_1");
	expect_func_err(fx, "fx_handle_reqest", -ENOENT,
			"function 'fx_handle_reqest' not found in scry_fx; did you mean: fx_handle_request, fx_handle_reply?");
	expect_func_err(fx, "FX_HANDLE_REPLY", -ENOENT,
			"function 'FX_HANDLE_REPLY' not found in scry_fx; did you mean: fx_handle_reply?");
	expect_func_err(fx, "zzzzzz_qqq", -ENOENT,
			"function 'zzzzzz_qqq' not found in scry_fx");
	expect_func_err(fx, "printf", -ENOENT,
			"function 'printf' not found in scry_fx (it only imports it: probe the library that defines it)");

	snprintf(stripped, sizeof(stripped), "%s/scry_fx_stripped", tmp);
	CHECK_INT(sh("strip -o '%s' '%s'", stripped, fx), 0, "strip a copy");
	expect_func_err(stripped, "fx_static_helper", -ENOENT,
			"function 'fx_static_helper' not found in scry_fx_stripped (it has no function symbols: stripped?)");

	snprintf(src, sizeof(src), "%s/scry_fx.c", tmp);
	snprintf(msg, sizeof(msg), "'%s' is not an ELF file", src);
	expect_func_err(src, "main", -ENOEXEC, msg);
	snprintf(src, sizeof(src), "%s/missing", tmp);
	snprintf(msg, sizeof(msg),
		 "cannot open '%s': No such file or directory", src);
	expect_func_err(src, "main", -ENOENT, msg);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static void test_globs(void)
{
	static const char *const fx_want[] = {
		"fx_handle_reply", "fx_handle_request", "fx_static_helper",
		"fx_ver_impl", "fx_versioned",
	};
	static const unsigned int fx_want_off[] = { 1, 0, 2, 3, 3 };
	struct resolve_func *f = NULL;
	struct rsym *rs = NULL;
	char (*want)[256];
	size_t n = 0, i;
	int nr, nw = 0, k, ok;
	__u64 off;

	/* expected: readelf's defined functions, matched, sorted, unique */
	nr = readelf_funcs(libc_path, &rs);
	want = calloc((size_t)nr + 1, sizeof(*want));
	for (k = 0; want && k < nr; k++)
		if (!fnmatch("mall*", rs[k].name, 0))
			snprintf(want[nw++], sizeof(*want), "%s", rs[k].name);
	if (want)
		qsort(want, (size_t)nw, sizeof(*want), str_cmp);
	for (k = 1, i = nw ? 1 : 0; want && k < nw; k++)
		if (strcmp(want[k], want[i - 1]))
			memcpy(want[i++], want[k], sizeof(*want));
	nw = (int)i;
	CHECK(nw >= 5, "readelf: libc has >= 5 mall* functions");

	CHECK_INT(resolve_funcs(libc_path, "mall*", &f, &n), 0,
		  "list mall* in libc");
	CHECK_INT(n, nw, "mall*: as many as readelf shows");
	for (i = 0, ok = 1; want && i < n && i < (size_t)nw; i++)
		if (strcmp(f[i].name, want[i]))
			ok = 0;
	CHECK(ok && n == (size_t)nw, "mall*: the same names, sorted");
	for (i = 0, ok = 1; i < n; i++)
		if (resolve_func(libc_path, f[i].name, &off, NULL, 0) ||
		    off != f[i].offset)
			ok = 0;
	CHECK(ok, "mall*: each offset is what resolve_func gives");
	resolve_funcs_free(f, n);

	/* every function, once each */
	CHECK_INT(resolve_funcs(libc_path, NULL, &f, &n), 0, "list all of libc");
	for (k = 0, nw = 0; want && k < nr; k++)
		snprintf(want[nw++], sizeof(*want), "%s", rs[k].name);
	if (want)
		qsort(want, (size_t)nw, sizeof(*want), str_cmp);
	for (k = 1, i = nw ? 1 : 0; want && k < nw; k++)
		if (strcmp(want[k], want[i - 1]))
			memcpy(want[i++], want[k], sizeof(*want));
	CHECK_INT(n, i, "all of libc: as many as readelf's unique names");
	resolve_funcs_free(f, n);
	free(want);
	free(rs);

	CHECK_INT(resolve_funcs(libc_path, "scry_no_such_*", &f, &n), 0,
		  "list with no match: 0");
	CHECK(f == NULL && n == 0, "list with no match: empty");

	CHECK_INT(resolve_funcs(fx, "fx_*", &f, &n), 0, "list fx_* in fixture");
	CHECK_INT(n, 5, "fx_*: five names");
	for (i = 0, ok = n == 5; ok && i < n; i++)
		if (strcmp(f[i].name, fx_want[i]) ||
		    f[i].offset != fx_offs[fx_want_off[i]])
			ok = 0;
	CHECK(ok, "fx_*: names sorted, versions stripped, offsets right");
	resolve_funcs_free(f, n);
	resolve_funcs_free(NULL, 0);

	CHECK_INT(resolve_funcs("/nonexistent/x", "*", &f, &n), -ENOENT,
		  "list in a missing file: -ENOENT");
}

/* ---- USDT --------------------------------------------------------------- */

struct rnote {
	char provider[64], name[64], args[256];
	unsigned long long pc;
};

/* readelf -n's stapsdt notes, in file order. */
static int readelf_notes(const char *file, struct rnote *v, int max)
{
	char line[1024], *s;
	int n = -1;
	FILE *p = popenf("readelf -n -W '%s'", file);

	while (p && fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		if ((s = strstr(line, "Provider: ")) && n + 1 < max) {
			memset(&v[++n], 0, sizeof(v[n]));
			snprintf(v[n].provider, sizeof(v[n].provider), "%s", s + 10);
		} else if (n < 0) {
			continue;
		} else if ((s = strstr(line, "Name: "))) {
			snprintf(v[n].name, sizeof(v[n].name), "%s", s + 6);
		} else if ((s = strstr(line, "Location: "))) {
			v[n].pc = strtoull(s + 10, NULL, 16);
		} else if ((s = strstr(line, "Arguments:"))) {
			s += 10;
			s += *s == ' ';
			snprintf(v[n].args, sizeof(v[n].args), "%s", s);
		}
	}
	if (p)
		pclose(p);
	return n + 1;
}

static int rnote_cmp(const void *a, const void *b)
{
	const struct rnote *x = a, *y = b;
	int c = strcmp(x->provider, y->provider);

	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = x->pc < y->pc ? -1 : x->pc > y->pc;
	return c;
}

/*
 * Prelink moves sections but not the addresses notes record: a note's
 * base that differs from .stapsdt.base's address shifts its pc (and
 * semaphore) by the difference. Make that happen in a copy of the
 * fixture by lowering the first note's base by 0x10.
 */
static void test_usdt_moved(void)
{
	struct resolve_usdt *u = NULL;
	char copy[PATH_MAX], line[512], name[64];
	unsigned long long off = 0, o, base, pc;
	struct rnote rn[16];
	size_t n = 0, i;
	FILE *p, *f;
	int got = 0;

	snprintf(copy, sizeof(copy), "%s/scry_fx_moved", tmp);
	CHECK_INT(sh("cp '%s' '%s'", fx_usdt, copy), 0, "copy USDT fixture");
	p = popenf("readelf -S -W '%s'", copy);
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, " [%*d] %63s %*s %*x %llx", name, &o) == 2 &&
		    !strcmp(name, ".note.stapsdt")) {
			off = o;
			got = 1;
		}
	if (p)
		pclose(p);
	CHECK(got, "readelf: .note.stapsdt's file offset");
	f = fopen(copy, "r+");
	/* namesz, descsz, type, "stapsdt\0", then pc, base, semaphore */
	got = f && !fseek(f, (long)(off + 12 + 8), SEEK_SET) &&
	      fread(&pc, 8, 1, f) == 1 && fread(&base, 8, 1, f) == 1 &&
	      !fseek(f, (long)(off + 12 + 8 + 8), SEEK_SET);
	base -= 0x10;
	got = got && fwrite(&base, 8, 1, f) == 1;
	if (f)
		fclose(f);
	CHECK(got, "patch the first note's base");
	CHECK_INT(readelf_notes(copy, rn, 16), 4, "readelf: patched copy has 4 notes");
	CHECK(rn[0].pc == pc, "readelf: first note's pc unchanged");

	CHECK_INT(resolve_usdts(copy, rn[0].provider, rn[0].name, &u, &n), 0,
		  "moved: list the first note's probe");
	for (i = 0, got = 0; i < n; i++)
		got += u[i].pc == pc + 0x10 &&
		       u[i].offset == readelf_off(copy, pc + 0x10);
	CHECK_INT(got, 1, "moved: pc and offset shifted by base's difference");
	resolve_usdts_free(u, n);
}

static void test_usdt(void)
{
	struct resolve_usdt *u = NULL;
	struct rnote rn[16];
	char err[RESOLVE_ERR_LEN];
	size_t n = 0, i;
	int nr, ok, nstart = 0;

	nr = readelf_notes(fx_usdt, rn, 16);
	CHECK_INT(nr, 4, "readelf: the USDT fixture has 4 notes");
	qsort(rn, (size_t)nr, sizeof(rn[0]), rnote_cmp);

	CHECK_INT(resolve_usdts(fx_usdt, NULL, NULL, &u, &n), 0,
		  "usdt: list all");
	CHECK_INT(n, 4, "usdt: 4 probe sites");
	for (i = 0, ok = n == (size_t)nr; ok && i < n; i++)
		ok = !strcmp(u[i].provider, rn[i].provider) &&
		     !strcmp(u[i].name, rn[i].name) &&
		     !strcmp(u[i].args, rn[i].args) && u[i].pc == rn[i].pc &&
		     u[i].offset == readelf_off(fx_usdt, rn[i].pc) &&
		     u[i].semaphore == 0;
	CHECK(ok, "usdt: provider, name, args, pc, offset match readelf");
	if (n == 4) {
		CHECK_STR(u[0].provider, "app", "usdt[0] provider");
		CHECK_STR(u[0].name, "request_done", "usdt[0] name");
		CHECK_STR(u[0].args, "-4@%edi", "usdt[0] args");
		CHECK_STR(u[1].name, "request_start", "usdt[1] name");
		CHECK_STR(u[2].name, "request_start", "usdt[2] name");
		CHECK(u[1].pc < u[2].pc, "usdt: two sites sorted by pc");
		CHECK_STR(u[3].provider, "other", "usdt[3] provider");
		CHECK_STR(u[3].name, "tick", "usdt[3] name");
		CHECK_STR(u[3].args, "", "usdt[3] has no args");
		CHECK(u[0].offset == u[0].pc - 0x400000,
		      "usdt: non-PIE offset is pc - 0x400000");
		nstart = !strcmp(u[1].args, "-4@%edi 8@%rsi") +
			 !strcmp(u[2].args, "-4@%edi 8@%rsi");
		CHECK_INT(nstart, 1, "usdt: handle()'s site has args '-4@%edi 8@%rsi'");
	}
	resolve_usdts_free(u, n);

	CHECK_INT(resolve_usdts(fx_usdt, "app", "request_*", &u, &n), 0,
		  "usdt: list app:request_*");
	CHECK_INT(n, 3, "usdt app:request_*: 3 sites");
	resolve_usdts_free(u, n);
	CHECK_INT(resolve_usdts(fx_usdt, "*", "tick", &u, &n), 0,
		  "usdt: list *:tick");
	CHECK(n == 1 && !strcmp(u[0].provider, "other"), "usdt *:tick: other:tick");
	resolve_usdts_free(u, n);
	CHECK_INT(resolve_usdts(fx_usdt, "nope", NULL, &u, &n), 0,
		  "usdt: list nope:*");
	CHECK(n == 0 && u == NULL, "usdt nope:*: empty");
	CHECK_INT(resolve_usdts(fx, NULL, NULL, &u, &n), 0,
		  "usdt: list a binary without notes");
	CHECK(n == 0 && u == NULL, "usdt: no notes, empty");

	CHECK_INT(resolve_usdt_check(fx_usdt, "app", "request_start", err,
				     sizeof(err)), 0, "usdt check app:request_start");
	CHECK_INT(resolve_usdt_check(fx_usdt, "other", "tick", err,
				     sizeof(err)), 0, "usdt check other:tick");
	CHECK_INT(resolve_usdt_check(fx_usdt, "app", "request_*", err,
				     sizeof(err)), 0, "usdt check app:request_*");
	CHECK_INT(resolve_usdt_check(fx_usdt, "app", "request_stat", err,
				     sizeof(err)), -ENOENT,
		  "usdt check app:request_stat: -ENOENT");
	CHECK_STR(err, "probe 'app:request_stat' not found in scry_fx_usdt; it has: app:request_start, app:request_done, other:tick",
		  "usdt check app:request_stat: message");
	CHECK_INT(resolve_usdt_check(fx_usdt, "tick", "other", err,
				     sizeof(err)), -ENOENT,
		  "usdt check tick:other: -ENOENT");
	CHECK_INT(resolve_usdt_check(fx, "app", "x", err, sizeof(err)),
		  -ENOENT, "usdt check in a binary without probes");
	CHECK_STR(err, "probe 'app:x' not found in scry_fx: it has no USDT probes (no .note.stapsdt notes)",
		  "usdt check without probes: message");
	CHECK_INT(resolve_usdt_check(fx_many, "p", "a9", err, sizeof(err)),
		  -ENOENT, "usdt check p:a9: -ENOENT");
	CHECK_STR(err, "probe 'p:a9' not found in scry_fx_many; it has: p:a0, p:a1, p:a2, p:a3, p:a4, ...",
		  "usdt check p:a9: five closest, then ...");
	CHECK_INT(resolve_usdt_check(fx_many, "p", "", err, sizeof(err)),
		  -EINVAL, "usdt check with an empty name: -EINVAL");
	CHECK_INT(resolve_usdt_check("/nonexistent/x", "p", "a", err,
				     sizeof(err)), -ENOENT,
		  "usdt check in a missing file: -ENOENT");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (setup()) {
		CHECK(0, "setup: temporary directory and libc's path");
		return CHECK_DONE();
	}
	test_lib_system();
	test_lib_pid();
	test_lib_pid_rank();
	test_lib_paths();
	test_lib_unknown();
	test_ld_cache();
	test_func_libc();
	test_func_fixture();
	test_globs();
	test_usdt();
	test_usdt_moved();
	sh("rm -rf '%s'", tmp);
	return CHECK_DONE();
}
