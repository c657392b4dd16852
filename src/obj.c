// SPDX-License-Identifier: GPL-2.0
/*
 * obj: the file cache (include/scry/obj.h).
 *
 * Finding the obj of a file costs one open and fstat: a file already
 * seen under the same (dev, ino, size, mtime) is found by that key
 * without reading it; otherwise its build-id is read and a file with
 * the same build-id (the same library in another container or under
 * another inode) is found by that, and the new (dev, ino, ...) becomes
 * another key of it. Only a file never seen becomes a new obj.
 *
 * The descriptor stays open, so the inode cannot be reused under the
 * key while scry runs; past OBJ_MAX_OPEN open files a new obj closes
 * its descriptor (the ELF image stays mapped, which also holds the
 * inode), so tracing thousands of binaries cannot run out of fds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <scry/debuginfo.h>
#include <scry/dwinfo.h>
#include <scry/elf.h>
#include <scry/fsafe.h>
#include <scry/obj.h>
#include <scry/stop.h>
#include <scry/proc.h>
#include <scry/symtab.h>
#include <scry/unwind.h>

#define BUCKETS		1024
#define OBJ_MAX_OPEN	256
#define VDSO_MAX_SIZE	(1 << 20)

/* One (dev, ino, size, mtime) under which an obj was met. */
struct stat_key {
	struct stat_key *next;
	struct obj_id id;	/* no build-id part */
	struct obj *obj;
};

struct obj {
	struct obj *next;		/* every obj of the cache */
	struct obj *bid_next;		/* build-id hash chain */
	struct obj_cache *cache;
	struct obj_id id;
	char *path;
	int fd;
	bool vdso;
	struct elf_file *elf;
	/* read on first need */
	bool syms_done;
	struct symtab syms;
	struct elf_file *dbg;		/* the debug file, if it has DWARF */
	bool dbg_dropped;		/* dbg let go: found again on need */
	bool dw_tried;
	struct dwinfo *dw;
	bool unwind_done;
	int unwind_err;
	struct unwind_table *unwind;
};

/*
 * A mapped inode as /proc/PID/maps names it (its superblock's dev, its
 * number) -> the obj opened for it. Held only while the obj holds the
 * inode open, so the number cannot be another file's meanwhile: the
 * next process that maps the file costs no open at all. (A file written
 * in place keeps its identity here, as it does for the walker's
 * unwind_files.)
 */
struct kernel_key {
	struct kernel_key *next;
	__u64 dev;
	__u64 ino;
	struct obj *obj;
};

struct obj_cache {
	struct obj *all;
	struct kernel_key *by_kernel[BUCKETS];
	struct stat_key *by_stat[BUCKETS];
	struct obj *by_bid[BUCKETS];
	struct obj *vdso;
	bool vdso_tried;
	size_t count;
	size_t nopen;
	size_t symtabs;
};

/* ---- identity ------------------------------------------------------- */

bool obj_id_same(const struct obj_id *a, const struct obj_id *b)
{
	if (a->build_id_len || b->build_id_len)
		return a->build_id_len == b->build_id_len &&
		       !memcmp(a->build_id, b->build_id, a->build_id_len);
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

void obj_id_str(const struct obj_id *id, char *buf, size_t len)
{
	size_t i, n = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (!id->build_id_len) {
		snprintf(buf, len, "%llx:%llx", (unsigned long long)id->dev,
			 (unsigned long long)id->ino);
		return;
	}
	for (i = 0; i < id->build_id_len && n + 3 <= len; i++)
		n += snprintf(buf + n, len - n, "%02x", id->build_id[i]);
}

__u64 obj_dev_from_kernel(__u32 s_dev)
{
	return makedev(s_dev >> 20, s_dev & 0xfffff);
}

__u32 obj_dev_to_kernel(__u64 dev)
{
	return (__u32)(major(dev) & 0xfff) << 20 | (minor(dev) & 0xfffff);
}

static void stat_id(const struct stat *st, struct obj_id *id)
{
	memset(id, 0, sizeof(*id));
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime_ns = (__s64)st->st_mtim.tv_sec * 1000000000 +
		       st->st_mtim.tv_nsec;
}

static unsigned int stat_hash(const struct obj_id *id)
{
	return (unsigned int)((id->ino * 0x9e3779b97f4a7c15ULL) ^ id->dev) %
	       BUCKETS;
}

static unsigned int bid_hash(const struct obj_id *id)
{
	unsigned int h = 0;
	__u32 i;

	for (i = 0; i < id->build_id_len; i++)
		h = h * 31 + id->build_id[i];
	return h % BUCKETS;
}

/* ---- the cache ------------------------------------------------------- */

struct obj_cache *obj_cache_new(void)
{
	return calloc(1, sizeof(struct obj_cache));
}

static void obj_free(struct obj *o)
{
	if (o->fd >= 0)
		close(o->fd);
	unwind_table_free(o->unwind);
	dwinfo_free(o->dw);
	elf_file_free(o->dbg);
	symtab_clear(&o->syms);
	elf_file_free(o->elf);
	free(o->path);
	free(o);
}

void obj_cache_free(struct obj_cache *c)
{
	struct kernel_key *kk, *kkn;
	struct stat_key *k, *kn;
	struct obj *o, *on;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < BUCKETS; i++) {
		for (k = c->by_stat[i]; k; k = kn) {
			kn = k->next;
			free(k);
		}
		for (kk = c->by_kernel[i]; kk; kk = kkn) {
			kkn = kk->next;
			free(kk);
		}
	}
	for (o = c->all; o; o = on) {
		on = o->next;
		obj_free(o);
	}
	free(c);
}

size_t obj_cache_count(const struct obj_cache *c)
{
	return c->count;
}

size_t obj_cache_symtabs_loaded(const struct obj_cache *c)
{
	return c->symtabs;
}

static struct obj *find_stat(struct obj_cache *c, const struct obj_id *id)
{
	struct stat_key *k;

	for (k = c->by_stat[stat_hash(id)]; k; k = k->next)
		if (obj_id_same(&k->id, id))
			return k->obj;
	return NULL;
}

static struct obj *find_bid(struct obj_cache *c, const struct obj_id *id)
{
	struct obj *o;

	for (o = c->by_bid[bid_hash(id)]; o; o = o->bid_next)
		if (obj_id_same(&o->id, id))
			return o;
	return NULL;
}

static int add_stat_key(struct obj_cache *c, const struct obj_id *id,
			struct obj *o)
{
	struct stat_key *k = calloc(1, sizeof(*k));
	unsigned int h = stat_hash(id);

	if (!k)
		return -ENOMEM;
	k->id = *id;
	k->id.build_id_len = 0;
	k->obj = o;
	k->next = c->by_stat[h];
	c->by_stat[h] = k;
	return 0;
}

/* Path without the kernel's " (deleted)", as mapped or given. */
static char *clean_path(const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(path), dl = sizeof(deleted) - 1;

	if (len > dl && !strcmp(path + len - dl, deleted))
		len -= dl;
	return strndup(path, len);
}

/* Take ownership of @fd (open on a file with stat @st): find or add. */
static struct obj *obj_from_fd(struct obj_cache *c, int fd,
			       const struct stat *st, const char *name)
{
	struct obj *o, *same;
	struct obj_id id;
	const __u8 *bid;
	size_t len;

	stat_id(st, &id);
	o = find_stat(c, &id);
	if (o) {
		close(fd);
		return o;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		goto nomem;
	o->fd = fd;
	o->cache = c;
	o->id = id;
	o->path = clean_path(name);
	if (!o->path)
		goto nomem;
	/* not ELF (a JIT's memfd): still an obj, named, without symbols */
	o->elf = elf_file_open(fd, o->path);
	if (o->elf) {
		len = elf_file_build_id(o->elf, &bid);
		if (len > OBJ_BUILD_ID_MAX)
			len = OBJ_BUILD_ID_MAX;
		memcpy(o->id.build_id, bid, len);
		o->id.build_id_len = len;
	}
	same = o->id.build_id_len ? find_bid(c, &o->id) : NULL;
	if (same) {
		/* the same bytes under another inode: one entry */
		obj_free(o);
		return add_stat_key(c, &id, same) ? NULL : same;
	}
	if (add_stat_key(c, &id, o)) {
		o->fd = -1;		/* the caller's error path closes it */
		obj_free(o);
		goto nomem_closed;
	}
	if (o->id.build_id_len) {
		unsigned int h = bid_hash(&o->id);

		o->bid_next = c->by_bid[h];
		c->by_bid[h] = o;
	}
	o->next = c->all;
	c->all = o;
	c->count++;
	if (c->nopen >= OBJ_MAX_OPEN && o->elf) {
		close(o->fd);
		o->fd = -1;
	} else {
		c->nopen++;
	}
	return o;
nomem:
	if (o) {
		o->fd = -1;
		obj_free(o);
	}
nomem_closed:
	close(fd);
	errno = ENOMEM;
	return NULL;
}

struct obj *obj_cache_fd(struct obj_cache *c, int fd, const char *name)
{
	struct stat st;
	int dup;

	if (fstat(fd, &st))
		return NULL;
	if (!S_ISREG(st.st_mode)) {
		errno = EPERM;
		return NULL;
	}
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup < 0)
		return NULL;
	return obj_from_fd(c, dup, &st, name);
}

struct obj *obj_cache_path(struct obj_cache *c, const char *path)
{
	struct stat st;
	int fd = fsafe_open(path, NULL, &st);

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	return obj_from_fd(c, fd, &st, path);
}

static unsigned int kernel_hash(__u64 dev, __u64 ino)
{
	return (unsigned int)((ino * 0x9e3779b97f4a7c15ULL) ^ dev) % BUCKETS;
}

struct obj *obj_cache_mapped(struct obj_cache *c, int pid,
			     const struct proc_map *m)
{
	unsigned int h = kernel_hash(m->dev, m->ino);
	struct kernel_key *k;
	struct stat st;
	struct obj *o;
	int fd;

	if (proc_map_is_vdso(m))
		return obj_cache_vdso(c);
	if (!m->path || m->path[0] != '/') {
		errno = EINVAL;
		return NULL;
	}
	for (k = c->by_kernel[h]; k; k = k->next)
		if (k->dev == m->dev && k->ino == m->ino)
			return k->obj;
	fd = proc_open_mapped(pid, m, &st);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	o = obj_from_fd(c, fd, &st, m->path);
	/*
	 * Only the inode the obj holds open (its first: another inode with
	 * the same build-id is not held) may be found by its number, and
	 * only where the maps line's device is the file's (obj_holds_inode).
	 */
	if (o && st.st_dev == m->dev && st.st_ino == m->ino &&
	    obj_holds_inode(o, m->dev, m->ino) &&
	    (k = calloc(1, sizeof(*k)))) {
		k->dev = m->dev;
		k->ino = m->ino;
		k->obj = o;
		k->next = c->by_kernel[h];
		c->by_kernel[h] = k;
	}
	return o;
}

/* Our own vDSO image, sized by our own mapping of it. */
static struct elf_file *vdso_image(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct elf_file *f = NULL;
	struct proc_map *m;
	size_t n, i;

	if (!base || proc_maps_read(0, PROC_MAPS_CODE, &m, &n))
		return NULL;
	for (i = 0; i < n; i++)
		if (proc_map_is_vdso(&m[i]) && m[i].start == base &&
		    m[i].end - m[i].start <= VDSO_MAX_SIZE)
			f = elf_file_mem("[vdso]", (void *)base,
					 m[i].end - m[i].start);
	proc_maps_free(m, n);
	return f;
}

struct obj *obj_cache_vdso(struct obj_cache *c)
{
	struct obj *o;
	const __u8 *bid;
	size_t len;

	if (c->vdso_tried) {
		if (!c->vdso)
			errno = ENOENT;
		return c->vdso;
	}
	c->vdso_tried = true;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->fd = -1;
	o->vdso = true;
	o->cache = c;
	o->path = strdup("[vdso]");
	o->elf = vdso_image();
	if (!o->path || !o->elf) {
		obj_free(o);
		errno = ENOENT;
		return NULL;
	}
	len = elf_file_build_id(o->elf, &bid);
	if (len > OBJ_BUILD_ID_MAX)
		len = OBJ_BUILD_ID_MAX;
	memcpy(o->id.build_id, bid, len);
	o->id.build_id_len = len;
	o->next = c->all;
	c->all = o;
	c->count++;
	c->vdso = o;
	return o;
}

/* ---- what an obj holds ----------------------------------------------- */

const struct obj_id *obj_id(const struct obj *o)
{
	return &o->id;
}

const char *obj_path(const struct obj *o)
{
	return o->path;
}

bool obj_holds_inode(const struct obj *o, __u64 dev, __u64 ino)
{
	return o && o->fd >= 0 && o->id.dev == dev && o->id.ino == ino;
}

bool obj_is_vdso(const struct obj *o)
{
	return o->vdso;
}

int obj_fd(const struct obj *o)
{
	return o->fd;
}

struct elf_file *obj_elf(const struct obj *o)
{
	return o->elf;
}

int obj_vaddr(const struct obj *o, __u64 off, __u64 *vaddr)
{
	return o->elf ? elf_file_off_to_vaddr(o->elf, off, vaddr) : -ENOENT;
}

/*
 * A .symtab (the file's, else the debug file's) goes first so it wins
 * ties with .dynsym names at the same address. The debug file is looked
 * for when the file lacks a .symtab or DWARF, and kept when it brings
 * the DWARF.
 */
static int load_syms(struct obj *o, struct symtab *t, struct elf_file **dbg)
{
	bool symtab = elf_file_scn(o->elf, SHT_SYMTAB, NULL, NULL);
	bool dwarf = elf_file_has_dwarf(o->elf);
	struct elf_file *d = NULL;
	int err;

	err = symtab_add_elf(t, o->elf, ELF_SYMS_SYMTAB);
	if (!err && !o->vdso && (!symtab || !dwarf)) {
		d = debuginfo_find(o->elf, o->path);
		if (!d && errno == EINTR)
			err = -EINTR;
	}
	if (!err && d && !symtab)
		err = symtab_add_elf(t, d, ELF_SYMS_SYMTAB);
	if (!err)
		err = symtab_add_elf(t, o->elf, ELF_SYMS_DYNSYM);
	if (!err && d && !dwarf && elf_file_has_dwarf(d)) {
		*dbg = d;
		d = NULL;
	}
	elf_file_free(d);
	return err;
}

/*
 * The entry point is _start by the ABI's convention, and every process's
 * stack ends there; a stripped file (Debian's ld.so: the first code of
 * every dynamically linked process) has no symbol for it. Name it, unless
 * a symbol already covers it, over the few bytes x86-64's _start spans
 * (glibc's crt1: 38 bytes to its hlt; ld.so's: the call to _dl_start
 * returns at +8), so that the code after it in a stripped file stays
 * module+offset rather than a far "_start+0x5b7".
 */
#define ENTRY_SIZE 48
static void name_entry(const struct obj *o, struct symtab *t)
{
	const GElf_Ehdr *eh = elf_file_ehdr(o->elf);
	const struct symtab_sym *y;

	if (!eh || !eh->e_entry)
		return;
	y = symtab_find(t, eh->e_entry);
	if (y && (y->size || y->addr == eh->e_entry))
		return;
	if (!symtab_add(t, eh->e_entry, ENTRY_SIZE, "_start", 6, 3, 0))
		symtab_finish(t);
}

const struct symtab *obj_symtab(struct obj *o)
{
	struct symtab t = {};
	struct elf_file *dbg = NULL;
	int err;

	if (o->syms_done)
		return &o->syms;
	/* asked to stop (again, while output is made): names are given up */
	if (stop_requested()) {
		errno = EINTR;
		return NULL;
	}
	if (o->elf) {
		err = load_syms(o, &t, &dbg);
		if (err) {
			/* not remembered: a later lookup may succeed */
			symtab_clear(&t);
			errno = -err;
			return NULL;
		}
		symtab_finish(&t);
		if (!o->vdso) {
			name_entry(o, &t);
			o->cache->symtabs++;
		}
	}
	o->syms = t;
	o->dbg = dbg;
	o->syms_done = true;
	return &o->syms;
}

struct dwinfo *obj_dwinfo(struct obj *o)
{
	if (o->dw_tried)
		return o->dw;
	if (stop_requested()) {
		errno = EINTR;
		return NULL;
	}
	if (!o->elf) {
		o->dw_tried = true;
		return NULL;
	}
	/* the debug file is found with the symbols */
	if (!obj_symtab(o))
		return NULL;
	/* ... and again after obj_cache_drop_dwarf(): it had DWARF then */
	if (o->dbg_dropped) {
		o->dbg = debuginfo_find(o->elf, o->path);
		if (!o->dbg && errno == EINTR)
			return NULL;
		if (o->dbg && !elf_file_has_dwarf(o->dbg)) {
			elf_file_free(o->dbg);
			o->dbg = NULL;
		}
		o->dbg_dropped = false;
	}
	o->dw = dwinfo_new(o->dbg ? o->dbg : o->elf);
	if (!o->dw && errno == EINTR)
		return NULL;		/* asked to stop: try another time */
	o->dw_tried = true;
	/*
	 * libdw has unpacked a debug file's compressed sections (libc6-dbg's
	 * are): the 4 MiB read to do it are not needed again.
	 */
	if (o->dw && o->dbg)
		elf_file_pageout(o->dbg);
	return o->dw;
}

void obj_cache_drop_dwarf(struct obj_cache *c)
{
	struct obj *o;

	for (o = c ? c->all : NULL; o; o = o->next) {
		dwinfo_free(o->dw);
		o->dw = NULL;
		o->dw_tried = false;
		if (o->dbg) {
			elf_file_free(o->dbg);
			o->dbg = NULL;
			o->dbg_dropped = true;
		}
	}
}

const struct unwind_table *obj_unwind(struct obj *o)
{
	if (!o->unwind_done && stop_requested()) {
		errno = EINTR;
		return NULL;
	}
	if (!o->unwind_done) {
		if (!o->elf) {
			o->unwind_err = ENOEXEC;
		} else {
			o->unwind = unwind_table_build(o->elf);
			o->unwind_err = o->unwind ? 0 : errno;
			/* .eh_frame read: not held for the rest of the run */
			elf_file_pageout(o->elf);
		}
		/* asked to stop: not a property of the file */
		o->unwind_done = o->unwind_err != EINTR;
	}
	if (!o->unwind)
		errno = o->unwind_err;
	return o->unwind;
}

void obj_unwind_set(struct obj *o, struct unwind_table *t)
{
	if (o->unwind_done) {
		unwind_table_free(t);
		return;
	}
	o->unwind = t;
	o->unwind_err = 0;
	o->unwind_done = true;
}

void obj_unwind_release(struct obj *o)
{
	if (!o || !o->unwind)
		return;
	unwind_table_free(o->unwind);
	o->unwind = NULL;
	o->unwind_done = false;
}
