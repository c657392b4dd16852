// SPDX-License-Identifier: GPL-2.0
/*
 * corebtf: a small target BTF for the engine's CO-RE relocations, cached
 * per kernel and engine.
 *
 * libbpf relocates a CO-RE read by finding, for the local type it names
 * (struct task_struct in bpf/vmlinux.h), every target type of the same
 * kind and name (less a ___flavour suffix), then matching the access
 * path member by member, by name, into member types (embedded structs,
 * anonymous unions, arrays); a pointer member matches any pointer, an
 * integer any integer. Given all of vmlinux BTF that is a parse of 5 MiB
 * (~10 ms) and a scan of its ~126,000 types per relocated local type
 * (~18 ms more for the engine), at every load. The target BTF cut here
 * keeps, whole, every vmlinux type whose name one of the engine's own
 * struct, union, enum or typedef names has (every root a relocation can
 * name, and every struct an access path walks through, since the engine
 * declares what it walks), and what their members are: embedded
 * anonymous types whole, other named structs and unions as shells of the
 * same name and size, typedefs, arrays and modifiers as they are; a
 * pointer keeps its target only when that is one of the kept names
 * (otherwise void: pointers match by kind alone). libbpf then finds the
 * same candidates and the same members at the same offsets.
 * tests/unit/test_corebtf.c checks that every program's relocated
 * instructions are the same both ways, on the kernel it runs on. What
 * the cut keeps is what field relocations (offset, size, existence)
 * need: a type relocation through a pointer (bpf_core_type_matches, the
 * size of a pointee) would see void where vmlinux has a type; the engine
 * has none, and one added must widen take_pointee().
 *
 * The cache is root's state (cachefile.c: a directory only root can
 * write, files only root wrote, read within a size bound, written to a
 * temporary name, synced and renamed), keyed by the kernel (its
 * build-id, release, version, the size of its BTF) and the engine (a
 * hash of its ELF) so a new kernel or a new scry never reads an old
 * cut; a cut is parsed before it is used. Anything unsafe or unusable
 * is passed over in silence: the cut is made again, in memory when it
 * cannot be kept.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <scry/cachefile.h>
#include <scry/outfile.h>
#include <scry/corebtf.h>
#include <scry/log.h>

/*
 * Part of the key: a change to what corebtf_cut() keeps must change it,
 * or an older cut of the same kernel and engine would be reused.
 */
#define COREBTF_FORMAT	1
#define COREBTF_MAX	(32u << 20)	/* a cut is ~1 MiB at most */
#define VMLINUX_BTF	"/sys/kernel/btf/vmlinux"

/* ---- the cut ---------------------------------------------------------- */

static size_t essential_len(const char *name)
{
	const char *f = strstr(name, "___");

	return f ? (size_t)(f - name) : strlen(name);
}

struct names {
	char **v;
	size_t n;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool names_has(const struct names *s, const char *name)
{
	size_t lo = 0, hi = s->n, len = essential_len(name);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strncmp(s->v[mid], name, len);

		if (!c && s->v[mid][len])
			c = 1;
		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The essential names of @local's named structs, unions, enums, typedefs. */
static int names_of(const struct btf *local, struct names *s)
{
	__u32 i, n = btf__type_cnt(local), k = 0;

	s->v = calloc(n, sizeof(*s->v));
	if (!s->v)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(local, i);
		const char *name = btf__name_by_offset(local, t->name_off);

		switch (btf_kind(t)) {
		case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64: case BTF_KIND_TYPEDEF: case BTF_KIND_FWD:
			break;
		default:
			continue;
		}
		if (!name || !*name)
			continue;
		s->v[k] = strndup(name, essential_len(name));
		if (!s->v[k]) {
			s->n = k;	/* names_free() frees those copied */
			return -ENOMEM;
		}
		k++;
	}
	s->n = k;
	qsort(s->v, s->n, sizeof(*s->v), cmp_name);
	return 0;
}

static void names_free(struct names *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

struct cut {
	const struct btf *src;
	struct btf *out;
	const struct names *names;
	__u32 *map;		/* vmlinux id -> id in out, 0: not taken */
	__u32 *order;		/* vmlinux ids, in out's order */
	bool *shell;		/* by position in order */
	__u32 n;
};

static bool named_in(const struct cut *c, const struct btf_type *t)
{
	const char *name = btf__name_by_offset(c->src, t->name_off);

	return name && *name && names_has(c->names, name);
}

/* Take vmlinux type @id (whole, or a shell); its id in the cut. */
static __u32 take(struct cut *c, __u32 id)
{
	const struct btf_type *t;

	if (!id)
		return 0;
	if (c->map[id])
		return c->map[id];
	t = btf__type_by_id(c->src, id);
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
	case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_ARRAY: case BTF_KIND_PTR:
		break;
	default:
		return 0;	/* functions, variables: nothing CO-RE reads */
	}
	c->shell[c->n] = btf_is_composite(t) && t->name_off &&
			 !named_in(c, t);
	c->order[c->n] = id;
	c->map[id] = ++c->n;
	return c->map[id];
}

/* A pointer's target: kept only when it is a kept name itself. */
static __u32 take_pointee(struct cut *c, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(c->src, id);

	if (!id || !t)
		return 0;
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: case BTF_KIND_TYPEDEF: case BTF_KIND_INT:
		return named_in(c, t) ? take(c, id) : 0;
	default:
		return 0;
	}
}

/* Add the @i-th taken type to the cut, its references renumbered. */
static int emit(struct cut *c, __u32 i)
{
	const struct btf_type *s = btf__type_by_id(c->src, c->order[i]);
	const char *name = btf__name_by_offset(c->src, s->name_off);
	struct btf_type *t;
	struct btf_member *m;
	struct btf_array *a;
	int id, j;

	if (c->shell[i])
		id = btf_is_struct(s) ? btf__add_struct(c->out, name, s->size) :
					btf__add_union(c->out, name, s->size);
	else
		id = btf__add_type(c->out, c->src, s);
	if (id < 0)
		return id;
	if ((__u32)id != i + 1)
		return -EINVAL;
	if (c->shell[i])
		return 0;
	/*
	 * Renumbered in place: out is being built (its types are its own,
	 * writable memory), and take() only assigns ids, so @t stays where
	 * it is until the next btf__add_*.
	 */
	t = (struct btf_type *)btf__type_by_id(c->out, id);
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		t->type = take_pointee(c, t->type);
		break;
	case BTF_KIND_TYPEDEF: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
		t->type = take(c, t->type);
		break;
	case BTF_KIND_ARRAY:
		a = btf_array(t);
		a->type = take(c, a->type);
		a->index_type = take(c, a->index_type);
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		m = btf_members(t);
		for (j = 0; j < btf_vlen(t); j++)
			m[j].type = take(c, m[j].type);
		break;
	default:
		break;
	}
	return 0;
}

struct btf *corebtf_cut(const struct btf *local, const struct btf *vmlinux)
{
	__u32 i, n = btf__type_cnt(vmlinux);
	struct names names = {};
	struct cut c = { .src = vmlinux, .names = &names };
	struct btf *out = NULL;
	int err;

	err = names_of(local, &names);
	c.map = calloc(n, sizeof(*c.map));
	c.order = calloc(n, sizeof(*c.order));
	c.shell = calloc(n, sizeof(*c.shell));
	c.out = btf__new_empty();
	if (err || !c.map || !c.order || !c.shell || !c.out) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(vmlinux, i);

		if (t->name_off && btf_kind(t) != BTF_KIND_PTR &&
		    named_in(&c, t))
			take(&c, i);
	}
	/* emitting a type takes its members: c.n grows as this runs */
	for (i = 0; i < c.n; i++) {
		err = emit(&c, i);
		if (err)
			goto out;
	}
	out = c.out;
	c.out = NULL;
out:
	btf__free(c.out);
	free(c.shell);
	free(c.order);
	free(c.map);
	names_free(&names);
	if (!out)
		errno = -err;
	return out;
}

/* ---- the cache -------------------------------------------------------- */

/* FNV-1a over 8-byte words: ~0.2 ms for the 1.4 MiB engine */
static __u64 hash(__u64 h, const void *p, size_t len)
{
	const unsigned char *b = p;
	__u64 w;

	for (; len >= 8; b += 8, len -= 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0x100000001b3ULL;
	}
	for (; len; b++, len--)
		h = (h ^ *b) * 0x100000001b3ULL;
	return h;
}

/*
 * The file name for this kernel and engine: core-KERNEL-ENGINE.btf. The
 * kernel is its build-id (the ELF notes of /sys/kernel/notes): two builds
 * with one release, version string and BTF size (a new randstruct seed,
 * a reproducible build's fixed timestamp) lay structs out differently,
 * and a cut of the other would load with wrong offsets. Release, version
 * and size stay in the hash for kernels without the notes file.
 */
static int key_name(const void *obj, size_t objsz, char *name, size_t len)
{
	struct utsname u;
	struct stat st;
	__u64 k = 0xcbf29ce484222325ULL, e = k, f = COREBTF_FORMAT;
	char notes[4096];
	ssize_t n = -1;
	int fd;

	if (uname(&u) || stat(VMLINUX_BTF, &st))
		return -1;
	fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, notes, sizeof(notes));
		close(fd);
	}
	if (n > 0)
		k = hash(k, notes, n);
	k = hash(k, u.release, strlen(u.release) + 1);
	k = hash(k, u.version, strlen(u.version) + 1);
	k = hash(k, &st.st_size, sizeof(st.st_size));
	e = hash(e, &f, sizeof(f));
	e = hash(e, obj, objsz);
	snprintf(name, len, "core-%016llx-%016llx.btf", (unsigned long long)k,
		 (unsigned long long)e);
	return 0;
}

/* The cache directory, made if missing; -1 when it is unsafe or absent. */
static int cache_dir(const char *dir)
{
	int fd = cachefile_dir(dir, CACHEFILE_CREATE);

	if (fd == -EPERM)
		log_debug("%s: not a directory only root writes: not used",
			  dir);
	else if (fd < 0)
		log_debug("%s: %s: CO-RE target BTF not cached", dir,
			  strerror(-fd));
	return fd < 0 ? -1 : fd;
}

/*
 * Does @fd hold a BTF libbpf can parse? Read, not mapped: a file cut
 * short under a mapping would be a SIGBUS.
 */
static bool usable(int fd, const struct stat *st)
{
	size_t len = st->st_size, got = 0;
	struct btf *b;
	char *p;
	ssize_t n;
	bool ok = false;

	p = malloc(len);
	if (!p)
		return false;
	while (got < len) {
		n = pread(fd, p + got, len - got, got);
		if (n <= 0)
			goto out;
		got += n;
	}
	b = btf__new(p, len);
	ok = !libbpf_get_error(b) && btf__type_cnt(b) > 1;
	btf__free(b);
out:
	free(p);
	return ok;
}

static int cache_read(int dfd, const char *name)
{
	struct stat st;
	int fd;

	fd = cachefile_open(dfd, name, 0, COREBTF_MAX, &st);
	if (fd == -ENOENT)
		return -1;
	if (fd < 0 && fd != -EPERM && fd != -EBADMSG) {
		log_debug("%s/%s: %s: cut again", COREBTF_DIR, name,
			  strerror(-fd));
		return -1;
	}
	if (fd < 0 || !usable(fd, &st)) {
		log_debug("%s: not a BTF file only root writes: cut again",
			  name);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * Cuts for other kernels go when a new one is kept; other engines' cuts
 * for this kernel stay (two scry builds on one host would otherwise
 * delete each other's at every run). core-KERNEL- is @keep's first 22.
 */
static void drop_others(int dfd, const char *keep)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	size_t len;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		if (!strncmp(e->d_name, "core-", 5) && len > 4 &&
		    !strcmp(e->d_name + len - 4, ".btf") &&
		    strncmp(e->d_name, keep, 22))
			unlinkat(dfd, e->d_name, 0);
	}
	closedir(d);
}

/* @len bytes as file @name of @dfd. Returns a descriptor of it, or -1. */
static int cache_write(int dfd, const char *name, const void *p, size_t len)
{
	char tmp[CACHEFILE_TMP_LEN];
	int fd, err;

	fd = cachefile_create(dfd, name, tmp);
	if (fd < 0) {
		log_debug("%s/%s: %s: CO-RE target BTF not cached",
			  COREBTF_DIR, tmp, strerror(-fd));
		return -1;
	}
	err = cachefile_commit(dfd, tmp, name, fd,
			       outfile_write_fd(fd, p, len));
	if (err) {
		log_debug("%s/%s: %s: CO-RE target BTF not cached",
			  COREBTF_DIR, name, strerror(-err));
		close(fd);
		return -1;
	}
	drop_others(dfd, name);
	return fd;
}

/* The engine's own BTF: a second open of its ELF, on a cold start only. */
static int cut_engine(const void *obj, size_t objsz,
		      struct btf *(*vmlinux)(void), const void **raw,
		      __u32 *len, struct btf **cut)
{
	struct bpf_object *o;
	struct btf *vm = vmlinux ? vmlinux() : NULL;

	if (!vm)
		return -1;
	o = bpf_object__open_mem(obj, objsz, NULL);
	if (libbpf_get_error(o))
		return -1;
	*cut = corebtf_cut(bpf_object__btf(o), vm);
	bpf_object__close(o);
	if (!*cut)
		return -1;
	*raw = btf__raw_data(*cut, len);
	return *raw ? 0 : -1;
}

int corebtf_open(const char *dir, const void *obj, size_t objsz,
		 struct btf *(*vmlinux)(void))
{
	struct btf *cut = NULL;
	const void *raw;
	char name[64];
	__u32 len;
	int dfd, fd = -1;

	if (key_name(obj, objsz, name, sizeof(name)))
		return -1;
	dfd = cache_dir(dir);
	if (dfd >= 0)
		fd = cache_read(dfd, name);
	if (fd < 0 && !cut_engine(obj, objsz, vmlinux, &raw, &len, &cut)) {
		if (dfd >= 0)
			fd = cache_write(dfd, name, raw, len);
		/* not kept: the cut in memory, for this run alone */
		if (fd < 0)
			fd = cachefile_memfd("scry-core-btf", raw, len);
		if (fd < 0)
			fd = -1;
	}
	btf__free(cut);
	if (dfd >= 0)
		close(dfd);
	return fd;
}

void corebtf_drop(const char *dir, const void *obj, size_t objsz)
{
	char name[64];
	int dfd;

	if (key_name(obj, objsz, name, sizeof(name)))
		return;
	dfd = cache_dir(dir);	/* the same checks as the reads' */
	if (dfd < 0)
		return;
	unlinkat(dfd, name, 0);
	close(dfd);
}
