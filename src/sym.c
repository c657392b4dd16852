/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolizer: kernel addresses through /proc/kallsyms, user addresses
 * through per-process mapping snapshots and per-file ELF symbol tables.
 *
 * Stacks are drained long after they were captured, when the process may
 * have exited or its binary been replaced, so everything a later lookup
 * needs is captured when a pid is first added: the executable mappings
 * and an open descriptor for every mapped file. Symbol tables themselves
 * are only read on the first lookup that needs them, once per file, and
 * are shared by every process that maps the same file.
 *
 * Files with DWARF (their own or a debug file's) keep that ELF image
 * mapped once the table is read, so a libdw handle can be opened on the
 * first address that needs it: a pc inside inlined code expands into the
 * inlined functions and their out-of-line caller, and --lines reads the
 * line table. Code outside any file mapping (JITs) is named from
 * /tmp/perf-PID.map; C++ names are demangled through libstdc++'s
 * __cxa_demangle, loaded with dlopen on first need so scry does not
 * depend on it.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <scry/report.h>
#include <scry/sym.h>

#define PID_BUCKETS	1024
#define FILE_BUCKETS	256
/*
 * Files whose table is not loaded yet keep a descriptor open. Past this
 * many, new files are loaded right away (which closes the descriptor),
 * so tracing thousands of distinct binaries cannot run out of fds.
 */
#define MAX_OPEN_FILES	256
#define BUILD_ID_MAX	64
#define DEBUG_DIR	"/usr/lib/debug"
#define DELETED_SUFFIX	" (deleted)"
/* Inlining nests deeper than this are cut (the outer frames dropped). */
#define MAX_INLINE	32
/* DWARF scopes deeper than this are not searched */
#define DW_MAX_DEPTH	128
/*
 * JIT frames share one module name whatever the pid, so stacks of
 * several processes running the same JIT fold together.
 */
#define JIT_MODULE	"[jit]"

/* A symbol candidate; after dedup only addr, size and name matter. */
struct sym {
	__u64 addr;
	__u64 size;
	__u32 name;		/* offset into the owning string arena */
	__u32 seq;		/* input order, keeps sorting deterministic */
	__u8 rank;		/* 0 global, 1 weak, 2 local */
	__u8 us;		/* leading underscores, capped */
	__u8 mod;		/* kernel only: index into ktab.mods */
};

struct strbuf {
	char *buf;
	size_t len, cap;
};

struct symvec {
	struct sym *v;
	size_t n, cap;
	struct strbuf names;
};

/*
 * Address ranges that may overlap; among the ranges holding an address
 * the one added last wins (perf maps: a later line replaces code).
 */
struct rent {
	__u64 start, end;
	__u64 maxend;		/* largest end up to this entry */
	__u64 val;		/* CU DIE offset, or name offset */
	__u32 seq;
};

struct rtab {
	struct rent *v;
	size_t n, cap;
};

struct ktab {
	struct sym *syms;
	size_t n;
	char *names;
	char **mods;		/* mods[0] is "vmlinux" */
	size_t nmods;
	bool tried;
	int err;		/* sticky load error */
};

/* One PT_LOAD segment: maps file offsets to ELF virtual addresses. */
struct seg {
	__u64 off, filesz, vaddr;
	bool exec;
};

struct sfile {
	struct sfile *next;	/* hash chain */
	int fd;			/* -1 once loaded (or for the vDSO) */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
	char *path;		/* as first mapped, for .gnu_debuglink */
	struct seg *segs;
	size_t nsegs;
	struct sym *syms;
	size_t nsyms;
	char *names;
	unsigned int refs;	/* mappings that point here */
	bool loaded;
	bool vdso;
	/* DWARF: the image stays mapped; libdw opened on first use */
	Elf *dw_elf;		/* the file or its debug file, or NULL */
	Dwarf *dw;
	struct rtab cus;	/* CU address ranges -> CU DIE offset */
	bool dw_tried;
};

struct smap {
	__u64 start, end, pgoff;
	struct sfile *file;	/* NULL when the file could not be opened */
	char *module;
};

/* /tmp/perf-PID.map as last read, and what the file was then. */
struct jitmap {
	struct rtab t;		/* val: offset into names */
	struct strbuf names;
	bool seen;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct sproc {
	struct sproc *next;
	int pid;
	bool gone;		/* implicit add failed: do not retry */
	uid_t uid;		/* owner of /proc/PID: may own its perf map */
	struct smap *maps;
	size_t nmaps;
	struct jitmap jit;
};

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf,
				 size_t *len, int *status);

struct syms {
	struct ktab k;
	struct sproc *procs[PID_BUCKETS];
	struct sfile *files[FILE_BUCKETS];
	struct sfile *vdso;
	bool vdso_tried;
	unsigned int nopen;
	unsigned int nloaded;
	unsigned int flags;	/* SYMS_* */
	void *cxx;		/* libstdc++, once needed */
	cxa_demangle_fn demangle;
	bool cxx_tried;
};

/* ---- small helpers ---------------------------------------------------- */

static int strbuf_add(struct strbuf *sb, const char *s, size_t len, __u32 *off)
{
	if (sb->len + len + 1 > UINT32_MAX)
		return -E2BIG;
	if (sb->len + len + 1 > sb->cap) {
		size_t cap = sb->cap ? sb->cap * 2 : 4096;
		char *n;

		while (cap < sb->len + len + 1)
			cap *= 2;
		n = realloc(sb->buf, cap);
		if (!n)
			return -ENOMEM;
		sb->buf = n;
		sb->cap = cap;
	}
	memcpy(sb->buf + sb->len, s, len);
	sb->buf[sb->len + len] = '\0';
	*off = sb->len;
	sb->len += len + 1;
	return 0;
}

static int symvec_push(struct symvec *sv, __u64 addr, __u64 size,
		       const char *name, size_t len, int rank, int mod)
{
	struct sym *y;
	int err;

	if (sv->n == sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 1024;

		y = realloc(sv->v, cap * sizeof(*y));
		if (!y)
			return -ENOMEM;
		sv->v = y;
		sv->cap = cap;
	}
	y = &sv->v[sv->n];
	err = strbuf_add(&sv->names, name, len, &y->name);
	if (err)
		return err;
	y->addr = addr;
	y->size = size;
	y->seq = sv->n;
	y->rank = rank;
	for (y->us = 0; y->us < len && y->us < 255 && name[y->us] == '_';)
		y->us++;
	y->mod = mod;
	sv->n++;
	return 0;
}

static void symvec_free(struct symvec *sv)
{
	free(sv->v);
	free(sv->names.buf);
	memset(sv, 0, sizeof(*sv));
}

/*
 * Among symbols at one address the first after sorting wins: strongest
 * binding, then the fewest leading underscores (malloc, not
 * __libc_malloc), then input order.
 */
static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->us != y->us)
		return x->us - y->us;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Sort and keep one symbol per address. An alias may carry the size the
 * winner lacks, so the group's largest size is kept; a size of 0 then
 * means "up to the next symbol".
 */
static void symvec_finish(struct symvec *sv)
{
	size_t i, j;

	if (!sv->n)
		return;
	qsort(sv->v, sv->n, sizeof(*sv->v), sym_cmp);
	for (i = 0, j = 0; i < sv->n; i++) {
		if (j && sv->v[j - 1].addr == sv->v[i].addr) {
			if (sv->v[i].size > sv->v[j - 1].size)
				sv->v[j - 1].size = sv->v[i].size;
			continue;
		}
		sv->v[j++] = sv->v[i];
	}
	sv->n = j;
	/* Shrinking cannot fail in a way that matters; keep the old block. */
	if (j < sv->cap) {
		struct sym *y = realloc(sv->v, j * sizeof(*y));

		if (y)
			sv->v = y;
	}
}

/* Index of the last symbol at or below @addr, or -1. */
static ssize_t sym_search(const struct sym *v, size_t n, __u64 addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo - 1;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static size_t strip_deleted(const char *s)
{
	size_t len = strlen(s), dl = strlen(DELETED_SUFFIX);

	if (len > dl && !strcmp(s + len - dl, DELETED_SUFFIX))
		return len - dl;
	return len;
}

/* ---- range tables --------------------------------------------------- */

static int rtab_add(struct rtab *t, __u64 start, __u64 end, __u64 val)
{
	struct rent *r;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;

		if (t->n >= UINT32_MAX)
			return -E2BIG;
		r = realloc(t->v, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		t->v = r;
		t->cap = cap;
	}
	r = &t->v[t->n];
	r->start = start;
	r->end = end;
	r->val = val;
	r->seq = t->n++;
	return 0;
}

static int rent_cmp(const void *a, const void *b)
{
	const struct rent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void rtab_finish(struct rtab *t)
{
	__u64 maxend = 0;
	size_t i;

	qsort(t->v, t->n, sizeof(*t->v), rent_cmp);
	for (i = 0; i < t->n; i++) {
		if (t->v[i].end > maxend)
			maxend = t->v[i].end;
		t->v[i].maxend = maxend;
	}
}

/*
 * The latest range holding @addr. Walks down from the last range that
 * starts at or below it, only as long as some lower range still reaches
 * past it: without overlaps that is one step.
 */
static const struct rent *rtab_find(const struct rtab *t, __u64 addr)
{
	const struct rent *best = NULL;
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && t->v[lo].maxend > addr) {
		const struct rent *r = &t->v[lo];

		if (addr < r->end && (!best || r->seq > best->seq))
			best = r;
	}
	return best;
}

static void rtab_free(struct rtab *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* ---- names ---------------------------------------------------------- */

/*
 * libstdc++'s demangler, looked up once: scry does not link libstdc++,
 * and without it names just stay mangled.
 */
static cxa_demangle_fn demangler(struct syms *s)
{
	if (!s->cxx_tried) {
		s->cxx_tried = true;
		s->cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (s->cxx)
			s->demangle = (cxa_demangle_fn)dlsym(s->cxx,
							     "__cxa_demangle");
	}
	return s->demangle;
}

/* A malloc'ed copy of @name, demangled when it is a C++ name. */
static char *name_dup(struct syms *s, const char *name)
{
	cxa_demangle_fn fn;

	if (name[0] == '_' && name[1] == 'Z' &&
	    !(s->flags & SYMS_NO_DEMANGLE) && (fn = demangler(s))) {
		int status = -1;
		char *d = fn(name, NULL, NULL, &status);

		if (d && !status)
			return d;
		free(d);
	}
	return strdup(name);
}

/* One logical frame before it is copied out; strings are borrowed. */
struct lframe {
	const char *sym;
	__u64 off;
	bool inlined;
	const char *file;
	int line;
};

static int frame_fill(struct syms *s, struct report_frame *fr,
		      const char *module, __u64 addr, const struct lframe *lf)
{
	memset(fr, 0, sizeof(*fr));
	fr->addr = addr;
	fr->off = lf->off;
	fr->inlined = lf->inlined;
	fr->line = lf->line;
	if (module && !(fr->module = strdup(module)))
		goto nomem;
	if (lf->sym && !(fr->sym = name_dup(s, lf->sym)))
		goto nomem;
	if (lf->file && !(fr->file = strdup(base_name(lf->file))))
		goto nomem;
	return 0;
nomem:
	syms_frame_clear(fr);
	return -ENOMEM;
}

/* ---- kernel --------------------------------------------------------- */

static int kmod_index(struct ktab *k, const char *name, size_t len)
{
	char **m, *s;
	size_t i;

	/* Lines of one module are adjacent: look at the newest first. */
	for (i = k->nmods; i-- > 1;)
		if (strlen(k->mods[i]) == len && !memcmp(k->mods[i], name, len))
			return i;
	if (k->nmods >= 255)
		return -E2BIG;
	m = realloc(k->mods, (k->nmods + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	k->mods = m;
	s = strndup(name, len);
	if (!s)
		return -ENOMEM;
	k->mods[k->nmods] = s;
	return k->nmods++;
}

static int ksym_rank(char type)
{
	switch (type) {
	case 'T':
		return 0;
	case 'W':
	case 'w':
		return 1;
	case 't':
		return 2;
	default:
		return -1;
	}
}

static int kparse_line(struct ktab *k, struct symvec *sv, char *line,
		       bool *nonzero)
{
	char *p, *name, *mod;
	unsigned long long addr;
	size_t nlen;
	int rank, mi = 0;

	errno = 0;
	addr = strtoull(line, &p, 16);
	if (errno || p == line || *p != ' ')
		return 0;
	rank = ksym_rank(p[1]);
	if (rank < 0 || p[2] != ' ')
		return 0;
	name = p + 3;
	nlen = strcspn(name, "\t\n ");
	if (!nlen)
		return 0;
	if (name[nlen] == '\t' && name[nlen + 1] == '[') {
		size_t mlen;

		mod = name + nlen + 2;
		mlen = strcspn(mod, "]\n");
		if (mod[mlen] != ']')
			return 0;
		mi = kmod_index(k, mod, mlen);
		if (mi < 0)
			return mi;
	}
	if (addr)
		*nonzero = true;
	return symvec_push(sv, addr, 0, name, nlen, rank, mi);
}

static int ksyms_load(struct ktab *k)
{
	struct symvec sv = {};
	bool nonzero = false;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	k->mods = malloc(sizeof(*k->mods));
	if (!k->mods)
		return -ENOMEM;
	k->mods[0] = strdup("vmlinux");
	if (!k->mods[0])
		return -ENOMEM;
	k->nmods = 1;

	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		err = kparse_line(k, &sv, line, &nonzero);
		if (err)
			break;
	}
	free(line);
	fclose(f);
	/* kptr_restrict shows every address as 0 to the unprivileged. */
	if (!err && !nonzero)
		err = -EPERM;
	if (err) {
		symvec_free(&sv);
		return err;
	}
	symvec_finish(&sv);
	k->syms = sv.v;
	k->n = sv.n;
	k->names = sv.names.buf;
	return 0;
}

static void ksyms_free(struct ktab *k)
{
	size_t i;

	for (i = 0; i < k->nmods; i++)
		free(k->mods[i]);
	free(k->mods);
	free(k->syms);
	free(k->names);
	memset(k, 0, sizeof(*k));
}

int syms_kernel(struct syms *s, __u64 addr, struct report_frame *out)
{
	const struct sym *y;
	ssize_t i;

	if (!s || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->kernel = true;
	if (!s->k.tried) {
		int err = ksyms_load(&s->k);

		/* Loaded once: a failure is not retried for every frame. */
		if (err) {
			ksyms_free(&s->k);
			s->k.err = err;
		}
		s->k.tried = true;
	}
	if (s->k.err)
		return s->k.err;
	i = sym_search(s->k.syms, s->k.n, addr);
	if (i < 0)
		return 1;
	y = &s->k.syms[i];
	out->module = strdup(s->k.mods[y->mod]);
	out->sym = strdup(s->k.names + y->name);
	if (!out->module || !out->sym) {
		syms_frame_clear(out);
		return -ENOMEM;
	}
	out->off = addr - y->addr;
	return 1;
}

bool syms_is_bpf_frame(const struct report_frame *fr)
{
	static const char *const prefixes[] = {
		"bpf_prog_", "bpf_trace_run", "__bpf_trace_",
	};
	size_t i;

	if (!fr || !fr->sym)
		return false;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(fr->sym, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

void syms_frame_clear(struct report_frame *fr)
{
	if (!fr)
		return;
	free(fr->module);
	free(fr->sym);
	free(fr->file);
	fr->module = NULL;
	fr->sym = NULL;
	fr->file = NULL;
	fr->line = 0;
}

/* ---- ELF ------------------------------------------------------------ */

static bool notes_build_id(Elf_Data *d, unsigned char *id, size_t *len)
{
	GElf_Nhdr nh;
	size_t off = 0, next, name_off, desc_off;

	while (off < d->d_size &&
	       (next = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz > 0 && nh.n_descsz <= BUILD_ID_MAX) {
			memcpy(id, (char *)d->d_buf + desc_off, nh.n_descsz);
			*len = nh.n_descsz;
			return true;
		}
		off = next;
	}
	return false;
}

/* Note sections first (debug files keep them), else PT_NOTE segments. */
static bool elf_build_id(Elf *e, unsigned char *id, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t i, n;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && notes_build_id(d, id, len))
			return true;
	}
	if (elf_getphdrnum(e, &n))
		return false;
	for (i = 0; i < n; i++) {
		Elf_Data *d;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 :
					 ELF_T_NHDR);
		if (d && notes_build_id(d, id, len))
			return true;
	}
	return false;
}

static int elf_segs(Elf *e, struct seg **segs, size_t *nsegs)
{
	GElf_Phdr ph;
	size_t i, n, k = 0;
	struct seg *v;

	*segs = NULL;
	*nsegs = 0;
	if (elf_getphdrnum(e, &n) || !n)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		v[k].off = ph.p_offset;
		v[k].filesz = ph.p_filesz;
		v[k].vaddr = ph.p_vaddr;
		v[k].exec = ph.p_flags & PF_X;
		k++;
	}
	if (!k) {
		free(v);
		return 0;
	}
	*segs = v;
	*nsegs = k;
	return 0;
}

static Elf_Scn *elf_find_scn(Elf *e, Elf64_Word type, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (type != SHT_NULL && sh.sh_type != type)
			continue;
		if (!name)
			return scn;
		n = elf_strptr(e, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static int sym_bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

static int elf_collect(Elf *e, Elf_Scn *scn, struct symvec *sv)
{
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym y;
	size_t i, n;
	int err;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
	    !sh.sh_entsize)
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d)
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n; i++) {
		unsigned char type;
		const char *name;

		if (!gelf_getsym(d, i, &y))
			break;
		type = GELF_ST_TYPE(y.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (!y.st_value || y.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(e, sh.sh_link, y.st_name);
		if (!name || !*name)
			continue;
		/* Drop symbol versions: malloc@@GLIBC_2.2.5 -> malloc. */
		err = symvec_push(sv, y.st_value, y.st_size, name,
				  strcspn(name, "@"),
				  sym_bind_rank(GELF_ST_BIND(y.st_info)), 0);
		if (err)
			return err;
	}
	return 0;
}

/* ---- separate debug files ------------------------------------------- */

static __u32 crc32_update(__u32 crc, const unsigned char *p, size_t n)
{
	static __u32 table[256];
	static bool ready;
	size_t i;

	if (!ready) {
		for (i = 0; i < 256; i++) {
			__u32 c = i;
			int b;

			for (b = 0; b < 8; b++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		ready = true;
	}
	crc = ~crc;
	for (i = 0; i < n; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static bool fd_crc_matches(int fd, __u32 want)
{
	unsigned char buf[65536];
	__u32 crc = 0;
	off_t pos = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), pos)) > 0) {
		crc = crc32_update(crc, buf, n);
		pos += n;
	}
	return n == 0 && crc == want;
}

struct dbg {
	int fd;
	Elf *e;
};

/*
 * Open @path as the debug file of @f. Only accept it when it has a
 * .symtab and provably belongs to @f: same build-id when both carry
 * one, else the .gnu_debuglink CRC (when @crc is non-NULL).
 */
static bool dbg_try(const struct sfile *f, const char *path,
		    const __u32 *crc, struct dbg *out)
{
	unsigned char id[BUILD_ID_MAX];
	size_t idlen = 0;
	bool ok = false;
	Elf *e;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF ||
	    !elf_find_scn(e, SHT_SYMTAB, NULL))
		goto out;
	if (f->build_id_len && elf_build_id(e, id, &idlen))
		ok = idlen == f->build_id_len &&
		     !memcmp(id, f->build_id, idlen);
	else if (crc)
		ok = fd_crc_matches(fd, *crc);
out:
	if (ok) {
		out->fd = fd;
		out->e = e;
		return true;
	}
	elf_end(e);
	close(fd);
	return false;
}

static bool dbg_by_build_id(const struct sfile *f, struct dbg *out)
{
	char path[sizeof(DEBUG_DIR) + 16 + 2 * BUILD_ID_MAX + 8];
	size_t i;
	int n;

	if (f->build_id_len < 2)
		return false;
	n = snprintf(path, sizeof(path), DEBUG_DIR "/.build-id/%02x/",
		     f->build_id[0]);
	for (i = 1; i < f->build_id_len; i++)
		n += snprintf(path + n, sizeof(path) - n, "%02x",
			      f->build_id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	return dbg_try(f, path, NULL, out);
}

static bool dbg_by_link(const struct sfile *f, Elf *e, struct dbg *out)
{
	const char *dirs[] = { "%s/%s", "%s/.debug/%s", DEBUG_DIR "%s/%s" };
	char *dir = NULL, *path = NULL;
	const char *name;
	GElf_Ehdr eh;
	Elf_Scn *scn;
	Elf_Data *d;
	size_t nlen, i;
	bool found = false;
	__u32 crc;
	unsigned char *c;

	scn = elf_find_scn(e, SHT_PROGBITS, ".gnu_debuglink");
	if (!scn || !f->path || !gelf_getehdr(e, &eh))
		return false;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return false;
	name = d->d_buf;
	nlen = strnlen(name, d->d_size);
	/* The CRC follows the name, 4-byte aligned, in the file's order. */
	if (!nlen || ((nlen + 4) & ~3UL) + 4 > d->d_size || strchr(name, '/'))
		return false;
	c = (unsigned char *)d->d_buf + ((nlen + 4) & ~3UL);
	if (eh.e_ident[EI_DATA] == ELFDATA2MSB)
		crc = (__u32)c[0] << 24 | c[1] << 16 | c[2] << 8 | c[3];
	else
		crc = (__u32)c[3] << 24 | c[2] << 16 | c[1] << 8 | c[0];

	dir = strdup(f->path);
	if (!dir)
		return false;
	*strrchr(dir, '/') = '\0';
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !found; i++) {
		if (asprintf(&path, dirs[i], dir, name) < 0)
			break;
		found = dbg_try(f, path, &crc, out);
		free(path);
	}
	free(dir);
	return found;
}

/* ---- user files ----------------------------------------------------- */

static bool elf_has_dwarf(Elf *e)
{
	Elf_Scn *scn = elf_find_scn(e, SHT_NULL, ".debug_info");
	GElf_Shdr sh;

	if (!scn)
		scn = elf_find_scn(e, SHT_NULL, ".zdebug_info");
	return scn && gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
	       sh.sh_size;
}

/*
 * Keep @e for DWARF after its descriptor is closed: mapped images stay
 * valid (and keep a deleted or replaced file's data), others are read
 * into memory now. NULL if that fails.
 */
static Elf *elf_keep(Elf *e)
{
	if (elf_cntl(e, ELF_C_FDREAD)) {
		elf_end(e);
		return NULL;
	}
	return e;
}

static void sfile_set_table(struct sfile *f, struct symvec *sv)
{
	symvec_finish(sv);
	f->syms = sv->v;
	f->nsyms = sv->n;
	f->names = sv->names.buf;
	memset(sv, 0, sizeof(*sv));
}

/*
 * The debug file supplies what @f lacks: its .symtab when @f has none,
 * its DWARF (kept in *@dwe) when @f has none.
 */
static int sfile_load_dbg(struct sfile *f, Elf *e, bool symtab, bool dwarf,
			  struct symvec *sv, Elf **dwe)
{
	struct dbg dbg = { .fd = -1 };
	int err = 0;

	if (symtab && dwarf)
		return 0;
	if (!dbg_by_build_id(f, &dbg) && !dbg_by_link(f, e, &dbg))
		return 0;
	if (!symtab)
		err = elf_collect(dbg.e, elf_find_scn(dbg.e, SHT_SYMTAB, NULL),
				  sv);
	if (!err && !dwarf && elf_has_dwarf(dbg.e))
		*dwe = elf_keep(dbg.e);
	else
		elf_end(dbg.e);
	close(dbg.fd);
	return err;
}

/*
 * Read @f's function symbols: .symtab and .dynsym, plus the debug file's
 * .symtab when the file itself is stripped. Non-ELF files or unreadable
 * tables leave an empty table: the mapping still names the module. The
 * image holding DWARF (the file's or the debug file's) stays open for
 * sfile_dwarf().
 */
static int sfile_load(struct syms *s, struct sfile *f)
{
	struct symvec sv = {};
	Elf_Scn *symtab;
	Elf *e, *dwe = NULL;
	bool dwarf = false;
	int err = 0;

	if (f->loaded)
		return 0;
	e = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF) {
		/*
		 * A .symtab (the file's, else the debug file's) goes first
		 * so it wins ties with .dynsym names at the same address.
		 */
		symtab = elf_find_scn(e, SHT_SYMTAB, NULL);
		dwarf = elf_has_dwarf(e);
		err = elf_collect(e, symtab, &sv);
		if (!err)
			err = sfile_load_dbg(f, e, symtab, dwarf, &sv, &dwe);
		if (!err)
			err = elf_collect(e, elf_find_scn(e, SHT_DYNSYM, NULL),
					  &sv);
	}
	if (err) {
		/* Keep the descriptor: a later lookup may succeed. */
		elf_end(e);
		elf_end(dwe);
		symvec_free(&sv);
		return err;
	}
	if (dwarf) {
		dwe = elf_keep(e);
		e = NULL;
	}
	elf_end(e);
	f->dw_elf = dwe;
	sfile_set_table(f, &sv);
	f->loaded = true;
	s->nloaded++;
	close(f->fd);
	f->fd = -1;
	s->nopen--;
	return 0;
}

static void sfile_free(struct sfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	dwarf_end(f->dw);
	elf_end(f->dw_elf);
	rtab_free(&f->cus);
	free(f->path);
	free(f->segs);
	free(f->syms);
	free(f->names);
	free(f);
}

static unsigned int file_hash(dev_t dev, ino_t ino)
{
	return (unsigned int)((ino * 0x9e3779b97f4a7c15ULL) ^ dev) %
	       FILE_BUCKETS;
}

/*
 * Same file as already known? A file whose table is loaded no longer
 * holds a descriptor, so its inode number may be recycled: size and
 * timestamps guard against matching a different file.
 */
static bool sfile_same_inode(const struct sfile *f, const struct stat *st)
{
	return f->dev == st->st_dev && f->ino == st->st_ino &&
	       f->size == st->st_size &&
	       f->mtime.tv_sec == st->st_mtim.tv_sec &&
	       f->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       f->ctime.tv_sec == st->st_ctim.tv_sec &&
	       f->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

static struct sfile *sfile_by_build_id(struct syms *s,
				       const unsigned char *id, size_t len)
{
	struct sfile *f;
	size_t b;

	for (b = 0; b < FILE_BUCKETS; b++)
		for (f = s->files[b]; f; f = f->next)
			if (f->build_id_len == len &&
			    !memcmp(f->build_id, id, len))
				return f;
	return NULL;
}

static void sfile_put(struct syms *s, struct sfile *f)
{
	struct sfile **pp;

	if (!f || f->vdso || --f->refs)
		return;
	/*
	 * Loaded tables stay cached (an exec'ing process maps them again);
	 * unloaded ones would only pin a descriptor.
	 */
	if (f->loaded)
		return;
	pp = &s->files[file_hash(f->dev, f->ino)];
	while (*pp && *pp != f)
		pp = &(*pp)->next;
	if (*pp)
		*pp = f->next;
	s->nopen--;
	sfile_free(f);
}

static int open_if_inode(const char *path, unsigned long long ino)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_ino != ino) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Open the file behind a mapping, surviving exit and replacement. */
static int open_mapped(int pid, unsigned long long start,
		       unsigned long long end, const char *path,
		       unsigned long long ino)
{
	char mf[64];
	int fd;

	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", pid, start,
		 end);
	fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	/*
	 * map_files needs CAP_SYS_ADMIN. Without it: the path, if it still
	 * names the mapped inode, else /proc/PID/exe, which reaches the main
	 * binary even once it is deleted or replaced.
	 */
	if (strip_deleted(path) == strlen(path)) {
		fd = open_if_inode(path, ino);
		if (fd >= 0)
			return fd;
	}
	snprintf(mf, sizeof(mf), "/proc/%d/exe", pid);
	return open_if_inode(mf, ino);
}

static struct sfile *sfile_get(struct syms *s, int pid,
			       unsigned long long start,
			       unsigned long long end, const char *path,
			       unsigned long long ino)
{
	unsigned char id[BUILD_ID_MAX];
	size_t idlen = 0;
	struct sfile *f;
	struct stat st;
	unsigned int h;
	Elf *e;
	int fd;

	fd = open_mapped(pid, start, end, path, ino);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		goto fail;
	h = file_hash(st.st_dev, st.st_ino);
	for (f = s->files[h]; f; f = f->next) {
		if (sfile_same_inode(f, &st)) {
			close(fd);
			f->refs++;
			return f;
		}
	}

	f = calloc(1, sizeof(*f));
	if (!f)
		goto fail;
	f->fd = fd;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	f->ctime = st.st_ctim;
	f->path = strndup(path, strip_deleted(path));
	if (!f->path)
		goto fail_free;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF) {
		if (elf_build_id(e, id, &idlen)) {
			struct sfile *same = sfile_by_build_id(s, id, idlen);

			if (same) {
				elf_end(e);
				sfile_free(f);
				same->refs++;
				return same;
			}
			memcpy(f->build_id, id, idlen);
			f->build_id_len = idlen;
		}
		if (elf_segs(e, &f->segs, &f->nsegs)) {
			elf_end(e);
			goto fail_free;
		}
	}
	elf_end(e);

	f->refs = 1;
	f->next = s->files[h];
	s->files[h] = f;
	s->nopen++;
	if (s->nopen > MAX_OPEN_FILES)
		sfile_load(s, f);
	return f;

fail_free:
	f->fd = -1;
	sfile_free(f);
fail:
	close(fd);
	return NULL;
}

/* Size of an in-memory ELF image, from its headers. */
static size_t image_size(const ElfW(Ehdr) *eh)
{
	const ElfW(Phdr) *ph = (const void *)((const char *)eh + eh->e_phoff);
	const ElfW(Shdr) *sh = (const void *)((const char *)eh + eh->e_shoff);
	size_t end = eh->e_phoff + (size_t)eh->e_phnum * eh->e_phentsize;
	size_t i;

	if (eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize > end)
		end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	for (i = 0; eh->e_shoff && i < eh->e_shnum; i++)
		if (sh[i].sh_type != SHT_NOBITS &&
		    sh[i].sh_offset + sh[i].sh_size > end)
			end = sh[i].sh_offset + sh[i].sh_size;
	return end;
}

/*
 * The vDSO has no file, but every process of this kernel maps the same
 * image, so scry's own copy stands in for all of them.
 */
static struct sfile *sfile_vdso(struct syms *s)
{
	const ElfW(Ehdr) *eh;
	struct symvec sv = {};
	struct sfile *f;
	char *img;
	size_t size;
	Elf *e;

	if (s->vdso_tried)
		return s->vdso;
	s->vdso_tried = true;
	eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return NULL;
	size = image_size(eh);
	if (size > (1 << 20))
		return NULL;
	/* elf_memory() wants writable memory; the vDSO is read-only. */
	img = malloc(size);
	f = calloc(1, sizeof(*f));
	if (!img || !f)
		goto fail;
	memcpy(img, eh, size);
	e = elf_memory(img, size);
	if (!e)
		goto fail;
	if (elf_segs(e, &f->segs, &f->nsegs) ||
	    elf_collect(e, elf_find_scn(e, SHT_SYMTAB, NULL), &sv) ||
	    elf_collect(e, elf_find_scn(e, SHT_DYNSYM, NULL), &sv)) {
		elf_end(e);
		goto fail;
	}
	elf_end(e);
	free(img);
	sfile_set_table(f, &sv);
	f->fd = -1;
	f->vdso = true;
	f->loaded = true;
	s->vdso = f;
	return f;
fail:
	symvec_free(&sv);
	free(img);
	if (f)
		sfile_free(f);
	return NULL;
}

/* ---- DWARF ---------------------------------------------------------- */

/*
 * Index the compile units by address ourselves: libdw's dwarf_addrdie()
 * needs .debug_aranges, which clang does not emit. Ranges at 0 are
 * functions the linker dropped (--gc-sections) and would shadow code.
 */
static int dw_index_cus(struct sfile *f)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	__u8 type;
	int err = 0;

	while (!err && !dwarf_get_units(f->dw, cu, &cu, NULL, &type, &cudie,
					NULL)) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (type != DW_UT_compile)
			continue;
		while (!err &&
		       (off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0)
			if (lo && lo < hi)
				err = rtab_add(&f->cus, lo, hi,
					       dwarf_dieoffset(&cudie));
	}
	rtab_finish(&f->cus);
	return err;
}

/* libdw handle of @f, opened by the first address that needs it. */
static Dwarf *sfile_dwarf(struct sfile *f)
{
	if (f->dw_tried)
		return f->dw;
	f->dw_tried = true;
	if (!f->dw_elf)
		return NULL;
	f->dw = dwarf_begin_elf(f->dw_elf, DWARF_C_READ, NULL);
	if (f->dw && dw_index_cus(f)) {
		dwarf_end(f->dw);
		f->dw = NULL;
		rtab_free(&f->cus);
	}
	return f->dw;
}

static bool dw_cu(struct sfile *f, __u64 pc, Dwarf_Die *cu)
{
	const struct rent *r = rtab_find(&f->cus, pc);

	return r && dwarf_offdie(f->dw, r->val, cu);
}

static bool dw_is_func(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/*
 * Descend from @die into the scope holding @pc, appending the function
 * DIEs met on the way (outermost first) to @fn. Only the path to @pc is
 * read, not the whole unit as dwarf_getscopes() does (which also leaves
 * the concrete tree above an inlined instance). Namespaces and classes
 * have no addresses but may hold C++ function definitions.
 */
static bool dw_descend(Dwarf_Die *die, __u64 pc, Dwarf_Die *fn, int *k,
		       int depth)
{
	Dwarf_Die c;
	int tag;

	if (depth > DW_MAX_DEPTH || dwarf_child(die, &c))
		return false;
	do {
		switch ((tag = dwarf_tag(&c))) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&c, pc) <= 0)
				break;
			if (dw_is_func(tag) && *k < DW_MAX_DEPTH)
				fn[(*k)++] = c;
			dw_descend(&c, pc, fn, k, depth + 1);
			return true;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (dw_descend(&c, pc, fn, k, depth + 1))
				return true;
			break;
		}
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

/*
 * The function DIEs holding @pc, innermost first: inlined instances,
 * then the out-of-line subprogram; at most @max.
 */
static int dw_funcs(Dwarf_Die *cu, __u64 pc, Dwarf_Die *fn, int max)
{
	Dwarf_Die path[DW_MAX_DEPTH];
	int n = 0, i, k = 0;

	dw_descend(cu, pc, path, &n, 0);
	/* a nested function's enclosing function is not its caller */
	for (i = n; i-- > 0 && k < max;) {
		fn[k++] = path[i];
		if (dwarf_tag(&path[i]) == DW_TAG_subprogram)
			break;
	}
	return k;
}

/* The linkage name when there is one: it says which overload. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n;

	n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name,
						  &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die,
				DW_AT_MIPS_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name,
							  &a));
	return n;
}

static void dw_pc_line(Dwarf_Die *cu, __u64 pc, struct lframe *lf)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
	int line;

	if (!l || dwarf_lineno(l, &line) || line <= 0)
		return;
	lf->line = line;
	lf->file = dwarf_linesrc(l, NULL, NULL);
}

/* Where the inlined instance @inl was called from. */
static void dw_call_site(Dwarf_Die *inl, struct lframe *lf)
{
	Dwarf_Attribute a;
	Dwarf_Word idx, line;
	Dwarf_Files *files;
	size_t nfiles;
	Dwarf_Die cu;

	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &line) ||
	    !line || line > INT32_MAX)
		return;
	lf->line = line;
	if (!dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &idx) &&
	    dwarf_diecu(inl, &cu, NULL, NULL) &&
	    !dwarf_getsrcfiles(&cu, &files, &nfiles) && idx < nfiles)
		lf->file = dwarf_filesrc(files, idx, NULL, NULL);
}

/* The ELF symbol covering @vaddr, or NULL. */
static const struct sym *file_sym(const struct sfile *f, __u64 vaddr)
{
	const struct sym *y;
	ssize_t i;

	i = sym_search(f->syms, f->nsyms, vaddr);
	if (i < 0)
		return NULL;
	y = &f->syms[i];
	/* Size 0: the symbol runs up to the next one, which is above. */
	if (y->size && vaddr - y->addr >= y->size)
		return NULL;
	return y;
}

/*
 * The out-of-line function: named by the ELF symbol as without DWARF
 * (so names do not change with debug info), else by its DWARF @die.
 */
static void real_frame(const struct sfile *f, __u64 vaddr, Dwarf_Die *die,
		       struct lframe *lf)
{
	const struct sym *y = file_sym(f, vaddr);
	Dwarf_Addr entry;

	memset(lf, 0, sizeof(*lf));
	lf->off = vaddr;
	if (y) {
		lf->sym = f->names + y->name;
		lf->off = vaddr - y->addr;
	} else if (die && (lf->sym = die_name(die))) {
		lf->off = !dwarf_entrypc(die, &entry) && entry <= vaddr ?
			  vaddr - entry : 0;
	}
}

/*
 * Logical frames for @vaddr of @f: inlined functions innermost first,
 * then the real one. With --lines the innermost gets the pc's line and
 * each outer frame the line its inlined callee was called from.
 */
static int file_frames(struct syms *s, const char *module, struct sfile *f,
		       __u64 addr, __u64 vaddr, struct report_frame *out,
		       int max)
{
	bool lines = s->flags & SYMS_LINES, real = false, dw = false;
	struct lframe lf[MAX_INLINE + 1];
	Dwarf_Die fn[MAX_INLINE], cu;
	int i, k = 0, n, err;

	if (sfile_dwarf(f) && dw_cu(f, vaddr, &cu)) {
		dw = true;
		k = dw_funcs(&cu, vaddr, fn,
			     max < MAX_INLINE ? max : MAX_INLINE);
	}
	for (i = 0; i < k; i++) {
		if (dwarf_tag(&fn[i]) == DW_TAG_subprogram) {
			real_frame(f, vaddr, &fn[i], &lf[i]);
			real = true;
		} else {
			memset(&lf[i], 0, sizeof(lf[i]));
			lf[i].sym = die_name(&fn[i]);
			lf[i].inlined = true;
		}
	}
	n = k;
	/* No DWARF function here (or a broken chain): the ELF symbol. */
	if (!real && n < max)
		real_frame(f, vaddr, NULL, &lf[n++]);
	for (i = 0; lines && dw && i < n; i++) {
		if (!i)
			dw_pc_line(&cu, vaddr, &lf[i]);
		else if (i <= k)
			dw_call_site(&fn[i - 1], &lf[i]);
	}
	for (i = 0; i < n; i++) {
		err = frame_fill(s, &out[i], module, addr, &lf[i]);
		if (err) {
			while (i--)
				syms_frame_clear(&out[i]);
			return err;
		}
	}
	return n;
}

/* ---- processes ------------------------------------------------------ */

static struct sproc **proc_slot(struct syms *s, int pid)
{
	struct sproc **pp = &s->procs[(unsigned int)pid % PID_BUCKETS];

	while (*pp && (*pp)->pid != pid)
		pp = &(*pp)->next;
	return pp;
}

/* ---- JIT code: /tmp/perf-PID.map ------------------------------------ */

static void jit_free(struct jitmap *j)
{
	rtab_free(&j->t);
	free(j->names.buf);
	memset(j, 0, sizeof(*j));
}

static void jit_path(char *buf, size_t size, int pid)
{
	snprintf(buf, size, "/tmp/perf-%d.map", pid);
}

/* "START SIZE name": hex, with or without 0x; the name may have spaces. */
static int jit_parse_line(struct jitmap *j, char *line)
{
	unsigned long long start, size;
	char *p, *name;
	size_t len;
	__u32 off;
	int err;

	errno = 0;
	start = strtoull(line, &p, 16);
	if (errno || p == line || (*p != ' ' && *p != '\t'))
		return 0;
	line = p;
	size = strtoull(line, &p, 16);
	if (errno || p == line || (*p != ' ' && *p != '\t') || !size ||
	    start + size < start)
		return 0;
	name = p + strspn(p, " \t");
	len = strcspn(name, "\r\n");
	if (!len)
		return 0;
	err = strbuf_add(&j->names, name, len, &off);
	return err ? err : rtab_add(&j->t, start, start + size, off);
}

/*
 * Anyone can create files in /tmp: only a regular file owned by the
 * process's user (or root) names its code. Not following symlinks and
 * not blocking on a FIFO for the same reason.
 */
static int jit_read(struct jitmap *j, int pid, uid_t uid)
{
	struct jitmap n = {};
	char path[64], *line = NULL;
	size_t cap = 0;
	struct stat st;
	FILE *fp;
	int fd, err = 0;

	jit_path(path, sizeof(path), pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_uid && st.st_uid != uid)) {
		close(fd);
		return -EPERM;
	}
	fp = fdopen(fd, "r");
	if (!fp) {
		close(fd);
		return -errno;
	}
	while (!err && getline(&line, &cap, fp) > 0)
		err = jit_parse_line(&n, line);
	free(line);
	fclose(fp);
	if (err) {
		jit_free(&n);
		return err;
	}
	rtab_finish(&n.t);
	n.seen = true;
	n.dev = st.st_dev;
	n.ino = st.st_ino;
	n.size = st.st_size;
	n.mtime = st.st_mtim;
	jit_free(j);
	*j = n;
	return 0;
}

/* Has the perf map appeared or been written since it was read? */
static bool jit_changed(const struct jitmap *j, int pid)
{
	char path[64];
	struct stat st;

	jit_path(path, sizeof(path), pid);
	if (lstat(path, &st))
		return false;
	return !j->seen || j->dev != st.st_dev || j->ino != st.st_ino ||
	       j->size != st.st_size ||
	       j->mtime.tv_sec != st.st_mtim.tv_sec ||
	       j->mtime.tv_nsec != st.st_mtim.tv_nsec;
}

static bool pid_alive(int pid)
{
	return !kill(pid, 0) || errno == EPERM;
}

/*
 * Code outside any ELF mapping: JIT code if the perf map names it. A JIT
 * appends as it compiles, so a miss reads the map once more while the
 * process lives and the file has changed. Returns 0 when not named.
 */
static int jit_frame(struct syms *s, struct sproc *p, __u64 addr,
		     struct report_frame *out)
{
	const struct rent *r = rtab_find(&p->jit.t, addr);
	struct lframe lf = {};
	int err;

	if (!r && !p->gone && jit_changed(&p->jit, p->pid) &&
	    pid_alive(p->pid) && !jit_read(&p->jit, p->pid, p->uid))
		r = rtab_find(&p->jit.t, addr);
	if (!r)
		return 0;
	lf.sym = p->jit.names.buf + r->val;
	lf.off = addr - r->start;
	err = frame_fill(s, out, JIT_MODULE, addr, &lf);
	return err ? err : 1;
}

static void proc_free(struct syms *s, struct sproc *p)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++) {
		sfile_put(s, p->maps[i].file);
		free(p->maps[i].module);
	}
	free(p->maps);
	jit_free(&p->jit);
	free(p);
}

static int smap_cmp(const void *a, const void *b)
{
	const struct smap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int proc_add_line(struct syms *s, struct sproc *p, char *line,
			 size_t *cap)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[5], *path;
	struct sfile *file = NULL;
	struct smap *m;
	int n = 0;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end,
		   perms, &pgoff, &maj, &min, &ino, &n) < 7 || !n)
		return 0;
	if (perms[2] != 'x')
		return 0;
	path = line + n;
	path[strcspn(path, "\n")] = '\0';
	if (path[0] == '/')
		file = sfile_get(s, p->pid, start, end, path, ino);
	else if (!strcmp(path, "[vdso]"))
		file = sfile_vdso(s);
	else
		return 0;	/* anonymous / JIT code: no module */

	if (p->nmaps == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;

		m = realloc(p->maps, nc * sizeof(*m));
		if (!m)
			goto nomem;
		p->maps = m;
		*cap = nc;
	}
	m = &p->maps[p->nmaps];
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->file = file;
	if (path[0] == '/')
		m->module = strndup(base_name(path),
				    strip_deleted(base_name(path)));
	else
		m->module = strdup(path);
	if (!m->module)
		goto nomem;
	p->nmaps++;
	return 0;
nomem:
	sfile_put(s, file);
	return -ENOMEM;
}

static int proc_snapshot(struct syms *s, int pid, struct sproc **out)
{
	char path[32], *line = NULL;
	size_t lcap = 0, mcap = 0;
	struct sproc *p;
	struct stat st;
	bool any = false;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st))
		return errno == ENOENT ? -ESRCH : -errno;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	p = calloc(1, sizeof(*p));
	if (!p) {
		fclose(f);
		return -ENOMEM;
	}
	p->pid = pid;
	p->uid = st.st_uid;
	while (getline(&line, &lcap, f) > 0) {
		any = true;
		err = proc_add_line(s, p, line, &mcap);
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = errno == ENOENT ? -ESRCH : -EIO;
	free(line);
	fclose(f);
	/* A zombie (or a process gone between open and read) has no maps. */
	if (!err && !any)
		err = -ESRCH;
	if (err) {
		proc_free(s, p);
		return err;
	}
	qsort(p->maps, p->nmaps, sizeof(*p->maps), smap_cmp);
	/* Most processes have no perf map: its absence is no error. */
	jit_read(&p->jit, pid, p->uid);
	*out = p;
	return 0;
}

void syms_poll_jit(struct syms *s)
{
	struct sproc *p;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < PID_BUCKETS; i++)
		for (p = s->procs[i]; p; p = p->next)
			if (!p->gone && jit_changed(&p->jit, p->pid) &&
			    pid_alive(p->pid))
				jit_read(&p->jit, p->pid, p->uid);
}

int syms_add_pid(struct syms *s, int pid)
{
	struct sproc **pp, *p = NULL;
	int err;

	if (!s || pid <= 0)
		return -EINVAL;
	pp = proc_slot(s, pid);
	/*
	 * Known and alive: only its perf map may have grown since (a JIT
	 * writes it after mapping the code); the process may be gone by the
	 * time its frames are resolved, so read it now.
	 */
	if (*pp && !(*pp)->gone) {
		if (jit_changed(&(*pp)->jit, pid) && pid_alive(pid))
			jit_read(&(*pp)->jit, pid, (*pp)->uid);
		return 0;
	}
	err = proc_snapshot(s, pid, &p);
	if (err)
		return err;
	/* Replace a negative entry left by a failed implicit add. */
	if (*pp) {
		p->next = (*pp)->next;
		proc_free(s, *pp);
	}
	*pp = p;
	return 0;
}

static bool overlaps_any(const struct sproc *p, const struct smap *m)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		if (m->start < p->maps[i].end && p->maps[i].start < m->end)
			return true;
	return false;
}

/*
 * Carry over the old snapshot's mappings that no new mapping covers: a
 * re-read can race with the process's exit (its mappings half torn down)
 * or follow an exec, and stacks taken before still need the old names.
 * What a new mapping covers, the new one names. The carried entries move
 * (file references and all) from @old to @p.
 */
static int proc_merge_old(struct sproc *p, struct sproc *old)
{
	size_t i, keep = 0;
	struct smap *maps;

	for (i = 0; i < old->nmaps; i++)
		keep += !overlaps_any(p, &old->maps[i]);
	if (!keep)
		return 0;
	maps = realloc(p->maps, (p->nmaps + keep) * sizeof(*maps));
	if (!maps)
		return -ENOMEM;
	p->maps = maps;
	for (i = 0; i < old->nmaps; i++) {
		if (overlaps_any(p, &old->maps[i]))
			continue;
		p->maps[p->nmaps++] = old->maps[i];
		/* moved: the old snapshot must not release them */
		old->maps[i].file = NULL;
		old->maps[i].module = NULL;
	}
	qsort(p->maps, p->nmaps, sizeof(*p->maps), smap_cmp);
	return 0;
}

int syms_refresh_pid(struct syms *s, int pid)
{
	struct sproc **pp, *p = NULL;
	int err;

	if (!s || pid <= 0)
		return -EINVAL;
	/* snapshot first: if the process is gone, the old mappings stay */
	err = proc_snapshot(s, pid, &p);
	if (err)
		return err;
	pp = proc_slot(s, pid);
	if (*pp) {
		err = proc_merge_old(p, *pp);
		if (err) {
			proc_free(s, p);
			return err;
		}
		p->next = (*pp)->next;
		proc_free(s, *pp);
	}
	*pp = p;
	return 0;
}

void syms_forget_pid(struct syms *s, int pid)
{
	struct sproc **pp, *p;

	if (!s || pid <= 0)
		return;
	pp = proc_slot(s, pid);
	p = *pp;
	if (!p)
		return;
	*pp = p->next;
	proc_free(s, p);
}

static const struct smap *proc_find_map(const struct sproc *p, __u64 addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

/* File offset to ELF vaddr through the PT_LOAD holding it (code first). */
static bool file_vaddr(const struct sfile *f, __u64 off, __u64 *vaddr)
{
	const struct seg *best = NULL;
	size_t i;

	for (i = 0; i < f->nsegs; i++) {
		const struct seg *g = &f->segs[i];

		if (off < g->off || off - g->off >= g->filesz)
			continue;
		if (!best || (g->exec && !best->exec))
			best = g;
	}
	if (!best)
		return false;
	*vaddr = off - best->off + best->vaddr;
	return true;
}

/*
 * The snapshot of @pid; a pid never added is snapshotted now, best
 * effort. A failure is remembered so a dead pid costs one /proc lookup,
 * not one per frame; syms_add_pid() replaces the entry.
 */
static struct sproc *proc_get(struct syms *s, int pid)
{
	struct sproc **pp = proc_slot(s, pid);

	if (!*pp && syms_add_pid(s, pid)) {
		struct sproc *p = calloc(1, sizeof(*p));

		if (!p)
			return NULL;
		p->pid = pid;
		p->gone = true;
		*pp = p;
	}
	return *pp;
}

int syms_user(struct syms *s, int pid, __u64 addr,
	      struct report_frame *out, int max)
{
	const struct smap *m;
	struct sproc *p;
	struct sfile *f;
	__u64 off, vaddr;
	int err;

	if (!s || !out || max < 1 || pid <= 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->addr = addr;

	p = proc_get(s, pid);
	if (!p)
		return -ENOMEM;
	m = proc_find_map(p, addr);
	f = m ? m->file : NULL;
	off = m ? addr - m->start + m->pgoff : 0;
	if (f && file_vaddr(f, off, &vaddr)) {
		err = sfile_load(s, f);
		if (err)
			return err;
		return file_frames(s, m->module, f, addr, vaddr, out, max);
	}
	/* anonymous, or a file that is not ELF (a JIT's memfd) */
	err = jit_frame(s, p, addr, out);
	if (err)
		return err;	/* named, or -errno */
	if (!m)
		return 1;
	out->module = strdup(m->module);
	if (!out->module)
		return -ENOMEM;
	out->off = off;
	return 1;
}

/* ---- lifetime ------------------------------------------------------- */

struct syms *syms_new(void)
{
	struct syms *s;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOTSUP;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		errno = ENOMEM;
	return s;
}

void syms_set_flags(struct syms *s, unsigned flags)
{
	if (s)
		s->flags = flags;
}

void syms_free(struct syms *s)
{
	struct sproc *p, *pn;
	struct sfile *f, *fn;
	size_t b;

	if (!s)
		return;
	for (b = 0; b < PID_BUCKETS; b++) {
		for (p = s->procs[b]; p; p = pn) {
			pn = p->next;
			proc_free(s, p);
		}
	}
	for (b = 0; b < FILE_BUCKETS; b++) {
		for (f = s->files[b]; f; f = fn) {
			fn = f->next;
			sfile_free(f);
		}
	}
	if (s->vdso)
		sfile_free(s->vdso);
	ksyms_free(&s->k);
	if (s->cxx)
		dlclose(s->cxx);
	free(s);
}

#ifdef SCRY_TESTING
/* File symbol tables read so far (not the vDSO): proves sharing. */
unsigned int syms_debug_files_loaded(const struct syms *s);
unsigned int syms_debug_files_loaded(const struct syms *s)
{
	return s ? s->nloaded : 0;
}
#endif
