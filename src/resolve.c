/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * resolve: LIB -> ELF path (a process's mappings, the ld.so cache, the
 * library directories, $PATH), FUNC -> file offset (.symtab and .dynsym
 * with symbol versions), USDT notes (.note.stapsdt), globs for "scry -l",
 * and messages that say what was meant when nothing matches.
 */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <scry/array.h>
#include <scry/elf.h>
#include <scry/fsafe.h>
#include <scry/hint.h>
#include <scry/proc.h>
#include <scry/resolve.h>

#if defined(__x86_64__)
#define NATIVE_MACHINE	EM_X86_64
#define MULTIARCH	"x86_64-linux-gnu"
#elif defined(__aarch64__)
#define NATIVE_MACHINE	EM_AARCH64
#define MULTIARCH	"aarch64-linux-gnu"
#else
#define NATIVE_MACHINE	EM_NONE		/* accept any machine */
#define MULTIARCH	"unknown-linux-gnu"
#endif

#define LD_CACHE_DEFAULT	"/etc/ld.so.cache"
#define LD_CACHE_MAGIC		"glibc-ld.so.cache1.1"
#define LDCONFIG		"/sbin/ldconfig"
#define MAX_MAPS_SHOWN		6	/* names in "it maps: ..." */
#define MAX_FUNC_HINTS		3	/* names in "did you mean: ..." */
#define MAX_USDT_HINTS		5	/* probes in "it has: ..." */
#define LEV_MAX			256	/* longer names are never suggested */
#define NOTE_STAPSDT		3

static const char *ld_cache_file = LD_CACHE_DEFAULT;

void resolve_set_ld_cache(const char *file)
{
	ld_cache_file = file ? file : LD_CACHE_DEFAULT;
}

/* ---- messages ---------------------------------------------------------- */

/* A bounded string builder: appends past the end are cut, never overflow. */
struct sbuf {
	char *buf;
	size_t cap;
	size_t len;
};

static void __attribute__((format(printf, 2, 3)))
sb_add(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!sb || !sb->buf || sb->cap == 0 || sb->len >= sb->cap - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb->len += (size_t)n;
	if (sb->len >= sb->cap)
		sb->len = sb->cap - 1;
}

static void sb_init(struct sbuf *sb, char *buf, size_t cap)
{
	sb->buf = buf;
	sb->cap = cap;
	sb->len = 0;
	if (buf && cap)
		buf[0] = '\0';
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* ---- library resolution ------------------------------------------------ */

/*
 * How well the file name @base matches what the user wrote: 0 is best,
 * -1 is no match. NAME, NAME.so, NAME.so.*, libNAME.so, libNAME.so.*,
 * then the old NAME-VERSION.so / libNAME-VERSION.so ("libc-2.31.so").
 */
static int name_rank(const char *lib, const char *base)
{
	size_t n = strlen(lib);
	int pass;

	if (!strcmp(base, lib))
		return 0;
	for (pass = 0; pass < 2; pass++) {
		const char *r = base;

		if (pass == 1) {
			if (strncmp(r, "lib", 3))
				break;
			r += 3;
		}
		if (strncmp(r, lib, n))
			continue;
		r += n;
		if (!strcmp(r, ".so"))
			return 1 + 2 * pass;
		if (!strncmp(r, ".so.", 4))
			return 2 + 2 * pass;
	}
	for (pass = 0; pass < 2; pass++) {
		const char *r = base;
		size_t rl;

		if (pass == 1) {
			if (strncmp(r, "lib", 3))
				break;
			r += 3;
		}
		if (strncmp(r, lib, n) || r[n] != '-' ||
		    !isdigit((unsigned char)r[n + 1]))
			continue;
		rl = strlen(r);
		if (rl > 3 && !strcmp(r + rl - 3, ".so"))
			return 5 + pass;
	}
	return -1;
}

/*
 * 0 when @path is an ELF file (and, with @native, one for this machine),
 * -ENOEXEC when it is not, -errno when it cannot be read.
 */
static int elf_sniff(const char *path, bool native)
{
	unsigned char h[EI_NIDENT + 4];
	uint16_t machine;
	struct stat st;
	ssize_t got;
	int fd, err;

	fd = fsafe_open(path, NULL, &st);
	if (fd == -EPERM)	/* not a regular file */
		return !stat(path, &st) && S_ISDIR(st.st_mode) ? -EISDIR :
		       -ENOEXEC;
	if (fd < 0)
		return fd;
	got = pread(fd, h, sizeof(h), 0);
	err = got < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	if (got < (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if (!native)
		return 0;
	if (h[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return -ENOEXEC;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (h[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
#else
	if (h[EI_DATA] != ELFDATA2MSB)
		return -ENOEXEC;
#endif
	memcpy(&machine, h + EI_NIDENT + 2, sizeof(machine));
	if (NATIVE_MACHINE != EM_NONE && machine != NATIVE_MACHINE)
		return -ENOEXEC;
	return 0;
}

static int copy_path(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(dst, src, n + 1);
	return 0;
}

/* realpath(@src) into @dst: 0 or -errno. */
static int copy_real(char *dst, size_t len, const char *src)
{
	char *real = realpath(src, NULL);
	int err;

	if (!real)
		return -errno;
	err = copy_path(dst, len, real);
	free(real);
	return err;
}

/* A candidate file: the best rank wins, ties go to the earliest found. */
struct cand {
	int rank;
	unsigned int order;
	char *path;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

struct cands {
	struct cand *v;
	size_t n, cap;
};

static int cands_add(struct cands *c, int rank, const char *path)
{
	if (array_ensure(&c->v, &c->cap, sizeof(*c->v), c->n + 1))
		return -ENOMEM;
	c->v[c->n].path = strdup(path);
	if (!c->v[c->n].path)
		return -ENOMEM;
	c->v[c->n].rank = rank;
	c->v[c->n].order = (unsigned int)c->n;
	c->n++;
	return 0;
}

static void cands_free(struct cands *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

/*
 * The best candidate that is a native ELF file, realpath'ed into @path:
 * 0, -ENOENT when none qualifies, or another -errno.
 */
static int cands_pick(struct cands *c, char *path, size_t pathlen)
{
	size_t i;

	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cand_cmp);
	for (i = 0; i < c->n; i++) {
		if (elf_sniff(c->v[i].path, true))
			continue;
		return copy_real(path, pathlen, c->v[i].path);
	}
	return -ENOENT;
}

/* Read a whole (small) file. Returns 0 or -errno. */
static int slurp(const char *file, char **buf, size_t *len)
{
	struct stat st;
	char *b;
	ssize_t got;
	size_t off = 0;
	int fd, err = 0;

	fd = fsafe_open(file, &(struct fsafe_rules){ .max_size = 1 << 28 },
			&st);
	if (fd < 0)
		return fd;
	if (st.st_size <= 0)
		err = -EBADMSG;
	if (err) {
		close(fd);
		return err;
	}
	b = malloc((size_t)st.st_size);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	while (off < (size_t)st.st_size) {
		got = read(fd, b + off, (size_t)st.st_size - off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = got < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)got;
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	*buf = b;
	*len = off;
	return 0;
}

/* glibc's cache layout (elf/cache.h), "new" format, in host byte order. */
struct ldc_header {
	char magic[20];			/* "glibc-ld.so.cache" "1.1" */
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t pad[3];
	uint32_t extension_offset;
	uint32_t unused[3];
};

struct ldc_entry {
	int32_t flags;
	uint32_t key;			/* soname, from the header's start */
	uint32_t value;			/* path, same */
	uint32_t osversion;
	uint64_t hwcap;
};

/* NUL-terminated string at @off of @buf[0..len), or NULL. */
static const char *ldc_str(const char *buf, size_t len, size_t off)
{
	if (off >= len || !memchr(buf + off, '\0', len - off))
		return NULL;
	return buf + off;
}

/*
 * Add the ld.so cache entries matching @lib to @c. Returns 0 (also when
 * none matches), -EBADMSG when the file has no cache we understand, or
 * another -errno.
 */
static int ldcache_file(const char *lib, struct cands *c)
{
	struct ldc_header h;
	const char *hdr;
	size_t len = 0, base, i;
	char *buf = NULL;
	int err;

	err = slurp(ld_cache_file, &buf, &len);
	if (err)
		return err;
	/* The new format stands alone, or follows the old "ld.so-1.7.0". */
	hdr = memmem(buf, len, LD_CACHE_MAGIC, sizeof(LD_CACHE_MAGIC) - 1);
	if (!hdr || (size_t)(hdr - buf) + sizeof(h) > len) {
		free(buf);
		return -EBADMSG;
	}
	base = (size_t)(hdr - buf);
	memcpy(&h, hdr, sizeof(h));
	if (h.nlibs > (len - base - sizeof(h)) / sizeof(struct ldc_entry)) {
		free(buf);
		return -EBADMSG;
	}
	for (i = 0; i < h.nlibs && !err; i++) {
		struct ldc_entry e;
		const char *key, *val;
		int rank;

		memcpy(&e, hdr + sizeof(h) + i * sizeof(e), sizeof(e));
		key = ldc_str(hdr, len - base, e.key);
		val = ldc_str(hdr, len - base, e.value);
		if (!key || !val) {
			err = -EBADMSG;
			break;
		}
		rank = name_rank(lib, key);
		if (rank >= 0)
			err = cands_add(c, rank, val);
	}
	free(buf);
	return err;
}

/*
 * The same from "ldconfig -p -C FILE", which also reads formats that
 * ldcache_file() does not: "\tlibc.so.6 (libc6,x86-64) => /path".
 */
static int ldcache_ldconfig(const char *lib, struct cands *c)
{
	char *line = NULL, *arrow, *key, *end, cmd[PATH_MAX + 64];
	size_t cap = 0;
	ssize_t n;
	FILE *p;
	int err = 0;

	if (strchr(ld_cache_file, '\'') ||
	    snprintf(cmd, sizeof(cmd), LDCONFIG " -p -C '%s' 2>/dev/null",
		     ld_cache_file) >= (int)sizeof(cmd))
		return -EINVAL;
	p = popen(cmd, "re");
	if (!p)
		return -errno;
	while (!err && (n = getline(&line, &cap, p)) > 0) {
		int rank;

		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		arrow = strstr(line, " => ");
		if (!arrow)
			continue;
		key = line + strspn(line, " \t");
		end = key + strcspn(key, " \t");
		if (end >= arrow)
			continue;
		*end = '\0';
		rank = name_rank(lib, key);
		if (rank >= 0)
			err = cands_add(c, rank, arrow + 4);
	}
	free(line);
	pclose(p);
	return err;
}

static int search_ldcache(const char *lib, char *path, size_t pathlen)
{
	struct cands c = { 0 };
	int err;

	err = ldcache_file(lib, &c);
	if (err && err != -ENOMEM) {
		cands_free(&c);
		err = ldcache_ldconfig(lib, &c);
	}
	if (!err)
		err = cands_pick(&c, path, pathlen);
	cands_free(&c);
	return err;
}

static int search_dirs(const char *lib, char *path, size_t pathlen)
{
	static const char *const dirs[] = {
		"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib64", "/usr/lib",
	};
	struct cands c = { 0 };
	char file[PATH_MAX];
	size_t i;
	int err = 0;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !err; i++) {
		struct dirent *de;
		DIR *d = opendir(dirs[i]);

		if (!d)
			continue;
		while (!err && (de = readdir(d))) {
			int rank = name_rank(lib, de->d_name);

			if (rank < 0)
				continue;
			snprintf(file, sizeof(file), "%s/%s", dirs[i],
				 de->d_name);
			err = cands_add(&c, rank, file);
		}
		closedir(d);
	}
	if (!err)
		err = cands_pick(&c, path, pathlen);
	cands_free(&c);
	return err;
}

static int search_path(const char *prog, char *path, size_t pathlen)
{
	const char *env = getenv("PATH"), *s, *e;
	char file[PATH_MAX];

	if (!env || !*env)
		env = "/usr/local/bin:/usr/bin:/bin";
	for (s = env; *s; s = *e ? e + 1 : e) {
		int dl;

		e = strchrnul(s, ':');
		dl = (int)(e - s);
		if (dl == 0)
			continue;	/* "" means ".": not for a tracer */
		if (snprintf(file, sizeof(file), "%.*s/%s", dl, s, prog) >=
		    (int)sizeof(file))
			continue;
		if (access(file, X_OK) || elf_sniff(file, true))
			continue;
		return copy_real(path, pathlen, file);
	}
	return -ENOENT;
}

/* Unique file paths that /proc/@pid/maps shows, in order. */
static int maps_files(int pid, char ***files, size_t *nfiles)
{
	struct proc_map *m;
	size_t nm, n = 0, cap = 0, i, k;
	char **v = NULL;
	int err;

	err = proc_maps_read(pid, 0, &m, &nm);
	if (err)
		return err;
	for (i = 0; i < nm && !err; i++) {
		if (!m[i].path || m[i].path[0] != '/')
			continue;
		for (k = 0; k < n && strcmp(v[k], m[i].path); k++)
			;
		if (k < n)
			continue;
		err = array_ensure(&v, &cap, sizeof(*v), n + 1);
		if (!err) {
			v[n] = m[i].path;	/* moved */
			m[i].path = NULL;
			n++;
		}
	}
	proc_maps_free(m, nm);
	if (err) {
		for (i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return err;
	}
	*files = v;
	*nfiles = n;
	return 0;
}

static int resolve_in_pid(const char *lib, int pid, char *path,
			  size_t pathlen, struct sbuf *msg)
{
	char **files = NULL, alt[PATH_MAX];
	size_t n = 0, i, best = 0;
	int err, rank, best_rank = INT_MAX;

	err = maps_files(pid, &files, &n);
	if (err == -ESRCH) {
		bool kthread = false;
		int tgid;

		/* a kernel thread's maps are empty, as a gone process's */
		if (!proc_task(pid, &tgid, &kthread) && kthread)
			sb_add(msg, "pid %d is a kernel thread: it maps no "
			       "library '%s'", pid, lib);
		else
			sb_add(msg, "process %d not found", pid);
		return err;
	}
	if (err) {
		sb_add(msg, "cannot read /proc/%d/maps: %s", pid,
		       strerror(-err));
		return err;
	}
	for (i = 0; i < n; i++) {
		rank = name_rank(lib, base_name(files[i]));
		if (rank >= 0 && rank < best_rank) {
			best_rank = rank;
			best = i;
		}
	}
	if (best_rank == INT_MAX) {
		err = -ENOENT;
		if (!n) {
			sb_add(msg, "library '%s' not found: pid %d maps no files",
			       lib, pid);
		} else {
			sb_add(msg, "library '%s' not found in pid %d's mappings (it maps: ",
			       lib, pid);
			for (i = 0; i < n && i < MAX_MAPS_SHOWN; i++)
				sb_add(msg, "%s%s", i ? ", " : "",
				       base_name(files[i]));
			sb_add(msg, "%s)", n > MAX_MAPS_SHOWN ? ", ..." : "");
		}
	} else if (access(files[best], F_OK) &&
		   snprintf(alt, sizeof(alt), "/proc/%d/root%s", pid,
			    files[best]) < (int)sizeof(alt) &&
		   !access(alt, F_OK)) {
		/* another mount namespace: reach it through the process */
		err = copy_path(path, pathlen, alt);
	} else {
		err = copy_path(path, pathlen, files[best]);
	}
	if (err == -ENAMETOOLONG)
		sb_add(msg, "path of '%s' too long", lib);
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return err;
}

int resolve_lib(const char *lib, int pid, char *path, size_t pathlen,
		char *err, size_t errlen)
{
	struct sbuf msg;
	int ret;

	sb_init(&msg, err, errlen);
	if (!lib || !*lib) {
		sb_add(&msg, "empty library name");
		return -EINVAL;
	}
	if (strchr(lib, '/')) {
		ret = elf_sniff(lib, false);
		if (ret == -ENOEXEC) {
			sb_add(&msg, "'%s' is not an ELF file", lib);
			return ret;
		}
		if (!ret)
			ret = copy_real(path, pathlen, lib);
		if (ret)
			sb_add(&msg, "cannot open '%s': %s", lib, strerror(-ret));
		return ret;
	}
	if (pid > 0)
		return resolve_in_pid(lib, pid, path, pathlen, &msg);

	ret = search_ldcache(lib, path, pathlen);
	if (ret == -ENOENT)
		ret = search_dirs(lib, path, pathlen);
	if (ret == -ENOENT)
		ret = search_path(lib, path, pathlen);
	if (ret == -ENOENT)
		sb_add(&msg, "library '%s' not found (not in the ld.so cache, the library directories or $PATH; give a path)",
		       lib);
	else if (ret)
		sb_add(&msg, "cannot resolve library '%s': %s", lib,
		       strerror(-ret));
	return ret;
}

/* ---- ELF files ----------------------------------------------------------- */

/* Open @path as an ELF file; the reason goes to @msg on failure. */
static struct elf_file *open_elf(const char *path, struct sbuf *msg, int *err)
{
	struct elf_file *f;
	int fd;

	fd = fsafe_open(path, NULL, NULL);
	if (fd < 0) {
		*err = fd == -EPERM ? -ENOEXEC : fd;
		if (fd == -EPERM)
			sb_add(msg, "'%s' is not an ELF file", path);
		else
			sb_add(msg, "cannot open '%s': %s", path, strerror(-fd));
		return NULL;
	}
	f = elf_file_open(fd, path);
	close(fd);
	if (!f) {
		*err = errno == ENOMEM ? -ENOMEM : -ENOEXEC;
		sb_add(msg, "'%s' is not an ELF file", path);
	}
	return f;
}

/* The function symbols of .symtab, then .dynsym, in file order. */
struct sym_list {
	struct elf_sym *v;
	size_t n, cap;
};

static int load_syms(struct elf_file *f, struct sym_list *s)
{
	struct elf_sym_iter *it;
	struct elf_sym sym;
	int ret;

	it = elf_sym_iter_new(f, ELF_SYMS_SYMTAB | ELF_SYMS_DYNSYM);
	if (!it)
		return -ENOMEM;
	while ((ret = elf_sym_iter_next(it, &sym)) > 0) {
		ret = array_ensure(&s->v, &s->cap, sizeof(*s->v), s->n + 1);
		if (ret)
			break;
		s->v[s->n++] = sym;
	}
	elf_sym_iter_free(it);
	return ret;
}

/* A user's function name: "foo", "foo@V" or "foo@@V". */
struct query {
	const char *base;
	size_t baselen;
	const char *ver;	/* NULL: any version */
	bool deflt;		/* "@@": the default version only */
};

static void parse_query(const char *func, struct query *q)
{
	const char *at = strchr(func, '@');

	q->base = func;
	q->baselen = at ? (size_t)(at - func) : strlen(func);
	q->ver = NULL;
	q->deflt = false;
	if (at) {
		q->deflt = at[1] == '@';
		q->ver = at + 1 + q->deflt;
	}
}

static bool base_is(const struct elf_sym *s, const char *base, size_t len)
{
	return s->baselen == len && !memcmp(s->name, base, len);
}

static bool sym_matches(const struct elf_sym *s, const struct query *q)
{
	if (!base_is(s, q->base, q->baselen))
		return false;
	if (!q->ver)
		return true;
	return s->ver && !strcmp(s->ver, q->ver) && (!q->deflt || s->deflt);
}

/* Lower is better among definitions of one name. */
static int sym_score(const struct elf_sym *s)
{
	return (s->deflt ? 0 : 2) + (s->bind == STB_LOCAL ? 1 : 0);
}

static void func_not_found(const struct sym_list *s, const struct query *q,
			   const char *func, const char *file,
			   struct sbuf *msg)
{
	struct hint h[MAX_FUNC_HINTS];
	int nh = 0, limit, i;
	bool any = false, imported = false, other_ver = false;
	size_t k;

	for (k = 0; k < s->n; k++) {
		const struct elf_sym *sym = &s->v[k];

		if (!base_is(sym, q->base, q->baselen))
			continue;
		if (sym->defined)
			other_ver = true;
		else
			imported = true;
	}
	sb_add(msg, "function '%s' not found in %s", func, file);
	if (other_ver) {
		/* the name exists, in other versions than the one asked */
		sb_add(msg, "; it has:");
		for (k = 0, i = 0; k < s->n && i < MAX_FUNC_HINTS; k++) {
			const struct elf_sym *sym = &s->v[k];

			if (!sym->defined ||
			    !base_is(sym, q->base, q->baselen))
				continue;
			sb_add(msg, "%s %.*s%s%s", i++ ? "," : "",
			       (int)sym->baselen, sym->name,
			       sym->ver ? (sym->deflt ? "@@" : "@") : "",
			       sym->ver ? sym->ver : "");
		}
		return;
	}
	if (imported) {
		sb_add(msg, " (it only imports it: probe the library that defines it)");
		return;
	}
	limit = hint_limit(q->baselen);
	for (k = 0; k < s->n; k++) {
		const struct elf_sym *sym = &s->v[k];
		int d;

		if (!sym->defined)
			continue;
		any = true;
		d = hint_distance(q->base, q->baselen, sym->name,
				  sym->baselen, limit);
		hint_offer(h, &nh, MAX_FUNC_HINTS, sym->name, sym->baselen, d);
	}
	if (!any) {
		sb_add(msg, " (it has no function symbols: stripped?)");
		return;
	}
	for (i = 0; i < nh; i++)
		sb_add(msg, "%s%.*s", i ? ", " : "; did you mean: ",
		       (int)h[i].len, h[i].name);
	if (nh)
		sb_add(msg, "?");
}

/*
 * An IFUNC symbol's value is its resolver, which runs once at relocation
 * time: a probe there never fires for calls. When this process has the
 * same file loaded (libc, typically), ask the dynamic linker which
 * implementation the resolver chose, on this CPU as for every process
 * here, and give its address as a link-time address of the file.
 * RTLD_NOLOAD: nothing new is loaded; only the resolver of a library
 * already loaded here runs (dlsym calls it).
 */
static int ifunc_target(const char *path, const struct elf_sym *sym, __u64 *vaddr)
{
	struct link_map *lm = NULL, *at = NULL;
	char base[LEV_MAX + 1];
	Dl_info info;
	void *h, *addr;
	int err = -ENOENT;

	if (sym->bind == STB_LOCAL || sym->baselen > LEV_MAX)
		return -ENOENT;	/* dlsym sees only global symbols */
	memcpy(base, sym->name, sym->baselen);
	base[sym->baselen] = '\0';
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return -ENOENT;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm)
		goto out;
	addr = sym->ver ? dlvsym(h, base, sym->ver) : dlsym(h, base);
	if (!addr || !dladdr1(addr, &info, (void **)&at, RTLD_DL_LINKMAP) ||
	    at != lm)
		goto out;	/* another object's */
	*vaddr = (__u64)(uintptr_t)addr - (__u64)lm->l_addr;
	err = 0;
out:
	dlclose(h);
	return err;
}

/* File offset of @sym's code (an IFUNC's chosen implementation if known). */
static int sym_offset(struct elf_file *f, const struct elf_sym *sym,
		      __u64 *off)
{
	__u64 vaddr;

	if (sym->ifunc && !ifunc_target(elf_file_name(f), sym, &vaddr) &&
	    !elf_file_vaddr_to_off(f, vaddr, off))
		return 0;
	return elf_file_vaddr_to_off(f, sym->value, off) ? -EINVAL : 0;
}

int resolve_func(const char *path, const char *func, __u64 *offset,
		 char *err, size_t errlen)
{
	struct sym_list s = { 0 };
	const struct elf_sym *best = NULL;
	struct query q;
	struct sbuf msg;
	struct elf_file *f;
	size_t k;
	int ret;

	sb_init(&msg, err, errlen);
	if (!func || !*func) {
		sb_add(&msg, "empty function name");
		return -EINVAL;
	}
	f = open_elf(path, &msg, &ret);
	if (!f)
		return ret;
	ret = load_syms(f, &s);
	if (ret) {
		sb_add(&msg, "cannot read symbols of '%s': %s", path,
		       strerror(-ret));
		goto out;
	}
	parse_query(func, &q);
	for (k = 0; k < s.n; k++) {
		const struct elf_sym *sym = &s.v[k];

		if (!sym->defined || !sym_matches(sym, &q))
			continue;
		if (!best || sym_score(sym) < sym_score(best))
			best = sym;
	}
	if (!best) {
		func_not_found(&s, &q, func, base_name(path), &msg);
		ret = -ENOENT;
		goto out;
	}
	ret = sym_offset(f, best, offset);
	if (ret)
		sb_add(&msg, "function '%s' at 0x%llx is outside the loadable segments of %s",
		       func, (unsigned long long)best->value,
		       base_name(path));
out:
	free(s.v);
	elf_file_free(f);
	return ret;
}

/* ---- listing ----------------------------------------------------------- */

static int sym_name_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = *(const struct elf_sym *const *)a;
	const struct elf_sym *y = *(const struct elf_sym *const *)b;
	size_t n = x->baselen < y->baselen ? x->baselen : y->baselen;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->baselen != y->baselen)
		return x->baselen < y->baselen ? -1 : 1;
	if (sym_score(x) != sym_score(y))
		return sym_score(x) < sym_score(y) ? -1 : 1;
	return x < y ? -1 : x > y;	/* file order */
}

void resolve_funcs_free(struct resolve_func *f, size_t n)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < n; i++)
		free(f[i].name);
	free(f);
}

int resolve_funcs(const char *path, const char *glob,
		  struct resolve_func **out, size_t *n)
{
	struct resolve_func *res = NULL;
	const struct elf_sym **pick = NULL;
	struct sym_list s = { 0 };
	size_t k, np = 0, nr = 0;
	char name[1024];
	struct elf_file *f;
	int ret;

	*out = NULL;
	*n = 0;
	f = open_elf(path, NULL, &ret);
	if (!f)
		return ret;
	ret = load_syms(f, &s);
	if (ret)
		goto out;
	pick = malloc((s.n ? s.n : 1) * sizeof(*pick));
	if (!pick) {
		ret = -ENOMEM;
		goto out;
	}
	for (k = 0; k < s.n; k++) {
		const struct elf_sym *sym = &s.v[k];

		if (!sym->defined || sym->baselen >= sizeof(name))
			continue;
		memcpy(name, sym->name, sym->baselen);
		name[sym->baselen] = '\0';
		if (glob && fnmatch(glob, name, 0))
			continue;
		pick[np++] = sym;
	}
	qsort(pick, np, sizeof(*pick), sym_name_cmp);
	res = calloc(np ? np : 1, sizeof(*res));
	if (!res) {
		ret = -ENOMEM;
		goto out;
	}
	for (k = 0; k < np; k++) {
		const struct elf_sym *sym = pick[k];
		__u64 off;

		if (nr && !strncmp(res[nr - 1].name, sym->name, sym->baselen) &&
		    res[nr - 1].name[sym->baselen] == '\0')
			continue;	/* another definition of the same name */
		if (sym_offset(f, sym, &off))
			continue;
		res[nr].name = strndup(sym->name, sym->baselen);
		if (!res[nr].name) {
			ret = -ENOMEM;
			goto out;
		}
		res[nr].addr = sym->value;
		res[nr].offset = off;
		nr++;
	}
	if (nr) {
		*out = res;
		*n = nr;
		res = NULL;
	}
out:
	resolve_funcs_free(res, nr);
	free(pick);
	free(s.v);
	elf_file_free(f);
	return ret;
}

void resolve_usdts_free(struct resolve_usdt *u, size_t n)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < n; i++) {
		free(u[i].provider);
		free(u[i].name);
		free(u[i].args);
	}
	free(u);
}

static __u64 read_addr(const struct elf_file *f, const unsigned char *p)
{
	const GElf_Ehdr *eh = elf_file_ehdr(f);
	bool le = eh->e_ident[EI_DATA] == ELFDATA2LSB;
	int size = eh->e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4, i;
	__u64 v = 0;

	for (i = 0; i < size; i++)
		v |= (__u64)p[le ? i : size - 1 - i] << (8 * i);
	return v;
}

static int usdt_cmp(const void *a, const void *b)
{
	const struct resolve_usdt *x = a, *y = b;
	int c = strcmp(x->provider, y->provider);

	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = x->pc < y->pc ? -1 : x->pc > y->pc;
	return c;
}

/* All the stapsdt notes of @f matching the globs, sorted. */
static int load_usdts(struct elf_file *f, const char *pglob, const char *nglob,
		      struct resolve_usdt **out, size_t *nout)
{
	struct resolve_usdt *v = NULL;
	size_t n = 0, cap = 0, shstrndx;
	size_t asz = elf_file_ehdr(f)->e_ident[EI_CLASS] == ELFCLASS64 ? 8 :
		     4;
	Elf *e = elf_file_elf(f);
	__u64 base_addr = 0;
	bool have_base = false;
	Elf_Scn *scn;
	GElf_Shdr sh;
	int err = 0;

	*out = NULL;
	*nout = 0;
	if (elf_getshdrstrndx(e, &shstrndx))
		return 0;
	for (scn = NULL; (scn = elf_nextscn(e, scn));) {
		const char *sn;

		if (!gelf_getshdr(scn, &sh))
			continue;
		sn = elf_strptr(e, shstrndx, sh.sh_name);
		if (sn && !strcmp(sn, ".stapsdt.base")) {
			base_addr = sh.sh_addr;
			have_base = true;
		}
	}
	for (scn = NULL; !err && (scn = elf_nextscn(e, scn));) {
		size_t off = 0, next, name_off, desc_off;
		const char *sn;
		Elf_Data *d;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		sn = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sn || strcmp(sn, ".note.stapsdt"))
			continue;
		d = elf_getdata(scn, NULL);
		while (!err && d &&
		       (next = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
			const unsigned char *desc =
				(const unsigned char *)d->d_buf + desc_off;
			const char *prov, *name, *args, *end;
			struct resolve_usdt u = { 0 };
			__u64 note_base;

			off = next;
			if (nh.n_type != NOTE_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((const char *)d->d_buf + name_off,
				   "stapsdt", 8) ||
			    nh.n_descsz < 3 * asz + 3)
				continue;
			end = (const char *)desc + nh.n_descsz;
			prov = (const char *)desc + 3 * asz;
			name = memchr(prov, '\0', (size_t)(end - prov));
			if (!name++ || name >= end)
				continue;
			args = memchr(name, '\0', (size_t)(end - name));
			if (!args++ || args >= end ||
			    !memchr(args, '\0', (size_t)(end - args)))
				continue;
			if ((pglob && fnmatch(pglob, prov, 0)) ||
			    (nglob && fnmatch(nglob, name, 0)))
				continue;
			u.pc = read_addr(f, desc);
			note_base = read_addr(f, desc + asz);
			u.semaphore = read_addr(f, desc + 2 * asz);
			if (have_base && note_base) {
				/* prelinked or moved: adjust as the base moved */
				u.pc += base_addr - note_base;
				if (u.semaphore)
					u.semaphore += base_addr - note_base;
			}
			if (elf_file_vaddr_to_off(f, u.pc, &u.offset))
				u.offset = 0;
			u.provider = strdup(prov);
			u.name = strdup(name);
			u.args = strdup(args);
			if (!u.provider || !u.name || !u.args ||
			    array_ensure(&v, &cap, sizeof(*v), n + 1)) {
				free(u.provider);
				free(u.name);
				free(u.args);
				err = -ENOMEM;
				break;
			}
			v[n++] = u;
		}
	}
	if (err) {
		resolve_usdts_free(v, n);
		return err;
	}
	if (n)
		qsort(v, n, sizeof(*v), usdt_cmp);
	*out = v;
	*nout = n;
	return 0;
}

int resolve_usdts(const char *path, const char *provider, const char *name,
		  struct resolve_usdt **out, size_t *n)
{
	struct elf_file *f;
	int ret;

	*out = NULL;
	*n = 0;
	f = open_elf(path, NULL, &ret);
	if (!f)
		return ret;
	ret = load_usdts(f, provider, name, out, n);
	elf_file_free(f);
	return ret;
}

int resolve_usdt_check(const char *path, const char *provider,
		       const char *name, char *err, size_t errlen)
{
	struct resolve_usdt *u = NULL;
	struct hint h[MAX_USDT_HINTS];
	char want[512], **full = NULL;
	size_t n = 0, k, nfull = 0;
	struct sbuf msg;
	struct elf_file *f;
	int ret, nh = 0, i;

	sb_init(&msg, err, errlen);
	if (!provider || !*provider || !name || !*name) {
		sb_add(&msg, "USDT probes are named PROVIDER:NAME");
		return -EINVAL;
	}
	f = open_elf(path, &msg, &ret);
	if (!f)
		return ret;
	ret = load_usdts(f, NULL, NULL, &u, &n);
	elf_file_free(f);
	if (ret) {
		sb_add(&msg, "cannot read USDT notes of '%s': %s", path,
		       strerror(-ret));
		return ret;
	}
	for (k = 0; k < n; k++)
		if (!fnmatch(provider, u[k].provider, 0) &&
		    !fnmatch(name, u[k].name, 0))
			goto out;	/* ret is 0 */
	ret = -ENOENT;
	sb_add(&msg, "probe '%s:%s' not found in %s", provider, name,
	       base_name(path));
	if (!n) {
		sb_add(&msg, ": it has no USDT probes (no .note.stapsdt notes)");
		goto out;
	}
	snprintf(want, sizeof(want), "%s:%s", provider, name);
	full = calloc(n, sizeof(*full));
	if (!full)
		goto out;
	for (k = 0; k < n; k++) {
		if (k && !strcmp(u[k].provider, u[k - 1].provider) &&
		    !strcmp(u[k].name, u[k - 1].name))
			continue;	/* sorted: one entry per probe name */
		if (asprintf(&full[nfull], "%s:%s", u[k].provider,
			     u[k].name) < 0) {
			full[nfull] = NULL;
			goto out;
		}
		hint_offer(h, &nh, MAX_USDT_HINTS, full[nfull],
			   strlen(full[nfull]),
			   hint_distance(want, strlen(want), full[nfull],
					 strlen(full[nfull]), LEV_MAX));
		nfull++;
	}
	for (i = 0; i < nh; i++)
		sb_add(&msg, "%s%.*s", i ? ", " : "; it has: ",
		       (int)h[i].len, h[i].name);
	if (nfull > (size_t)nh)
		sb_add(&msg, ", ...");
out:
	for (k = 0; k < nfull; k++)
		free(full[k]);
	free(full);
	resolve_usdts_free(u, n);
	return ret;
}
