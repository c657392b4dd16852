// SPDX-License-Identifier: GPL-2.0
/*
 * elf: see include/scry/elf.h.
 *
 * Everything here reads untrusted files (any user's binaries), so every
 * size and offset that comes from the file is checked against the data
 * libelf actually has before it is used; a malformed part is skipped,
 * never trusted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <scry/array.h>
#include <scry/elf.h>
#include <scry/stop.h>

/* Symbols between two looks at stop_requested(). */
#define SYMS_PER_STOP_CHECK	4096

struct elf_file {
	Elf *e;
	void *image;		/* elf_file_mem's copy, else NULL */
	char *name;
	GElf_Ehdr eh;
	struct elf_seg *segs;
	size_t nsegs;
	__u8 build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;
};

static bool libelf_ready(void)
{
	static int ready;	/* 0 unknown, 1 yes, -1 no */

	if (!ready)
		ready = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return ready > 0;
}

static int read_segs(struct elf_file *f)
{
	size_t i, n, cap = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->e, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(f->e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (array_ensure(&f->segs, &cap, sizeof(*f->segs),
				 f->nsegs + 1))
			return -ENOMEM;
		f->segs[f->nsegs++] = (struct elf_seg){
			.vaddr = ph.p_vaddr, .off = ph.p_offset,
			.filesz = ph.p_filesz, .memsz = ph.p_memsz,
			.exec = ph.p_flags & PF_X,
		};
	}
	return 0;
}

static bool notes_build_id(Elf_Data *d, struct elf_file *f)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < d->d_size &&
	       (next = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz > 0 && nh.n_descsz <= ELF_BUILD_ID_MAX) {
			memcpy(f->build_id, (char *)d->d_buf + desc_off,
			       nh.n_descsz);
			f->build_id_len = nh.n_descsz;
			return true;
		}
		off = next;
	}
	return false;
}

/* Note sections first (debug files keep them), else PT_NOTE segments. */
static void read_build_id(struct elf_file *f)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf_Data *d;
	size_t i, n;

	while ((scn = elf_nextscn(f->e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && notes_build_id(d, f))
			return;
	}
	if (elf_getphdrnum(f->e, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(f->e, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(f->e, ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 :
					 ELF_T_NHDR);
		if (d && notes_build_id(d, f))
			return;
	}
}

/* Take @e (and @image) into a new elf_file, or end them. */
static struct elf_file *wrap(Elf *e, void *image, const char *name)
{
	struct elf_file *f = NULL;
	int err = ENOEXEC;

	if (!e || elf_kind(e) != ELF_K_ELF)
		goto fail;
	err = ENOMEM;
	f = calloc(1, sizeof(*f));
	if (!f)
		goto fail;
	f->e = e;
	f->image = image;
	f->name = strdup(name ? name : "");
	if (!f->name)
		goto fail;
	err = ENOEXEC;
	if (!gelf_getehdr(e, &f->eh))
		goto fail;
	err = ENOMEM;
	if (read_segs(f))
		goto fail;
	read_build_id(f);
	return f;
fail:
	if (f) {
		free(f->segs);
		free(f->name);
		free(f);
	}
	elf_end(e);
	free(image);
	errno = err;
	return NULL;
}

/*
 * Mapping a file is cheap (the page cache is shared, nothing is copied),
 * but whoever may write the file can truncate it under the mapping, and
 * the next read of a page past the new end kills scry with SIGBUS. Only
 * root can do that to a root-owned file nobody else may write (system
 * binaries and libraries, debug packages): those are mapped. Any other
 * file a traced user could shrink at will is read into memory, up to
 * READ_MAX bytes; past that it is mapped anyway (a choice between memory
 * and that risk).
 */
#define READ_MAX	(1ULL << 30)

static bool map_safe(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;
	return (!st.st_uid && !(st.st_mode & (S_IWGRP | S_IWOTH))) ||
	       (__u64)st.st_size > READ_MAX;
}

struct elf_file *elf_file_open(int fd, const char *name)
{
	Elf *e;

	if (!libelf_ready()) {
		errno = ENOTSUP;
		return NULL;
	}
	e = elf_begin(fd, map_safe(fd) ? ELF_C_READ_MMAP : ELF_C_READ, NULL);
	/*
	 * Done with @fd: a mapped image needs it no more, and one read (or
	 * that libelf could not map) is read into memory now, so the caller
	 * may close it and a deleted or replaced file keeps its data.
	 */
	if (e && elf_cntl(e, ELF_C_FDREAD)) {
		elf_end(e);
		e = NULL;
	}
	return wrap(e, NULL, name);
}

struct elf_file *elf_file_mem(const char *name, const void *image,
			      size_t size)
{
	void *copy;

	if (!libelf_ready()) {
		errno = ENOTSUP;
		return NULL;
	}
	/* elf_memory wants writable memory (section conversion) */
	copy = malloc(size ? size : 1);
	if (!copy) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(copy, image, size);
	return wrap(elf_memory(copy, size), copy, name);
}

void elf_file_pageout(const struct elf_file *f)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), at;
	size_t size = 0, len;
	char path[64], c;
	char *raw;

	if (!f || !f->e || f->image)
		return;
	raw = elf_rawfile(f->e, &size);
	at = (uintptr_t)raw;
	/*
	 * libelf's mmap of the file starts on a page (a read-in copy, on
	 * the heap, does not): MADV_PAGEOUT never loses data either way, a
	 * clean file page is read again, an anonymous one kept or swapped.
	 */
	if (!raw || !size || (at & (page - 1)))
		return;
	len = (size + page - 1) & ~(page - 1);
	/*
	 * But the kernel may skip pages it cannot take at once (seen: 2 MiB
	 * of a debug file's 4 kept in 2 runs of 6): when the range is
	 * exactly one mapping of a file (it has a /proc/self/map_files
	 * entry; libelf maps PROT_READ, so it holds no page of its own),
	 * MADV_DONTNEED drops them for sure, and the page cache keeps them.
	 */
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx",
		 (unsigned long)at, (unsigned long)(at + len));
	madvise(raw, len, readlink(path, &c, 1) == 1 ? MADV_DONTNEED :
						     MADV_PAGEOUT);
}

void elf_file_free(struct elf_file *f)
{
	if (!f)
		return;
	elf_end(f->e);
	free(f->image);
	free(f->segs);
	free(f->name);
	free(f);
}

Elf *elf_file_elf(const struct elf_file *f)
{
	return f->e;
}

const char *elf_file_name(const struct elf_file *f)
{
	return f->name;
}

const GElf_Ehdr *elf_file_ehdr(const struct elf_file *f)
{
	return &f->eh;
}

const struct elf_seg *elf_file_segs(const struct elf_file *f, size_t *n)
{
	*n = f->nsegs;
	return f->segs;
}

int elf_file_vaddr_to_off(const struct elf_file *f, __u64 vaddr, __u64 *off)
{
	size_t i;

	for (i = 0; i < f->nsegs; i++) {
		const struct elf_seg *s = &f->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = vaddr - s->vaddr + s->off;
			return 0;
		}
	}
	return -ENOENT;
}

int elf_file_off_to_vaddr(const struct elf_file *f, __u64 off, __u64 *vaddr)
{
	const struct elf_seg *best = NULL;
	size_t i;

	for (i = 0; i < f->nsegs; i++) {
		const struct elf_seg *s = &f->segs[i];

		if ((s->off & ~0xfffULL) <= off &&
		    off < s->off + (s->filesz ? s->filesz : 1) &&
		    (!best || (s->exec && !best->exec)))
			best = s;
	}
	if (!best)
		return -ENOENT;
	*vaddr = off - best->off + best->vaddr;
	return 0;
}

int elf_file_bias(const struct elf_file *f, __u64 start, __u64 pgoff,
		  __u64 *bias)
{
	__u64 vaddr;
	int err = elf_file_off_to_vaddr(f, pgoff, &vaddr);

	if (!err)
		*bias = start - vaddr;
	return err;
}

size_t elf_file_build_id(const struct elf_file *f, const __u8 **id)
{
	*id = f->build_id;
	return f->build_id_len;
}

Elf_Scn *elf_file_scn(const struct elf_file *f, Elf64_Word type,
		      const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr tmp;

	if (!sh)
		sh = &tmp;
	if (name && elf_getshdrstrndx(f->e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(f->e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		if (type != SHT_NULL && sh->sh_type != type)
			continue;
		if (!name)
			return scn;
		n = elf_strptr(f->e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

bool elf_file_has_dwarf(const struct elf_file *f)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_file_scn(f, SHT_NULL, ".debug_info", &sh);

	if (!scn)
		scn = elf_file_scn(f, SHT_NULL, ".zdebug_info", &sh);
	return scn && sh.sh_type != SHT_NOBITS && sh.sh_size;
}

int elf_file_debuglink(const struct elf_file *f, const char **name,
		       __u32 *crc)
{
	Elf_Scn *scn = elf_file_scn(f, SHT_PROGBITS, ".gnu_debuglink", NULL);
	const unsigned char *c;
	Elf_Data *d;
	size_t nlen;

	d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || !d->d_buf || !d->d_size)
		return -ENOENT;
	*name = d->d_buf;
	nlen = strnlen(*name, d->d_size);
	/* The CRC follows the name, 4-byte aligned, in the file's order. */
	if (!nlen || nlen == d->d_size ||
	    ((nlen + 4) & ~3UL) + 4 > d->d_size || strchr(*name, '/'))
		return -ENOENT;
	c = (const unsigned char *)d->d_buf + ((nlen + 4) & ~3UL);
	if (f->eh.e_ident[EI_DATA] == ELFDATA2MSB)
		*crc = (__u32)c[0] << 24 | c[1] << 16 | c[2] << 8 | c[3];
	else
		*crc = (__u32)c[3] << 24 | c[2] << 16 | c[1] << 8 | c[0];
	return 0;
}

/* ---- function symbols ------------------------------------------------ */

struct elf_sym_iter {
	struct elf_file *f;
	unsigned int tables;	/* still to visit, ELF_SYMS_* */
	/* the table being read */
	Elf_Data *syms;
	size_t strndx;
	size_t i, n;
	bool dynsym;
	Elf_Data *versym;	/* .gnu.version, with .dynsym only */
	/* .gnu.version_d names, indexed by vd_ndx */
	const char **vername;
	size_t nvername;
};

static int load_verdefs(struct elf_sym_iter *it, Elf_Scn *scn,
			const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Verdef def;
	GElf_Verdaux aux;
	size_t off, i, max = 0;
	int pass;

	if (!d)
		return 0;
	for (pass = 0; pass < 2; pass++) {
		off = 0;
		for (i = 0; i < sh->sh_info; i++) {
			if (off > INT32_MAX || !gelf_getverdef(d, (int)off, &def))
				break;
			if (pass == 0 && def.vd_ndx > max)
				max = def.vd_ndx;
			if (pass == 1 && def.vd_cnt &&
			    off + def.vd_aux <= INT32_MAX &&
			    gelf_getverdaux(d, (int)(off + def.vd_aux), &aux))
				it->vername[def.vd_ndx] = elf_strptr(it->f->e,
						sh->sh_link, aux.vda_name);
			if (!def.vd_next)
				break;
			off += def.vd_next;
		}
		if (pass == 0) {
			it->vername = calloc(max + 1, sizeof(*it->vername));
			if (!it->vername)
				return -ENOMEM;
			it->nvername = max + 1;
		}
	}
	return 0;
}

struct elf_sym_iter *elf_sym_iter_new(struct elf_file *f, unsigned int tables)
{
	struct elf_sym_iter *it = calloc(1, sizeof(*it));
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!it) {
		errno = ENOMEM;
		return NULL;
	}
	it->f = f;
	it->tables = tables & (ELF_SYMS_SYMTAB | ELF_SYMS_DYNSYM);
	/* versions of .dynsym need both .gnu.version and .gnu.version_d */
	scn = elf_file_scn(f, SHT_GNU_verdef, NULL, &sh);
	if (scn && (tables & ELF_SYMS_DYNSYM)) {
		if (load_verdefs(it, scn, &sh)) {
			free(it);
			errno = ENOMEM;
			return NULL;
		}
		scn = elf_file_scn(f, SHT_GNU_versym, NULL, NULL);
		it->versym = scn ? elf_getdata(scn, NULL) : NULL;
	}
	return it;
}

/* Start the next table to visit; false when none is left. */
static bool next_table(struct elf_sym_iter *it)
{
	while (it->tables) {
		bool dyn = !(it->tables & ELF_SYMS_SYMTAB);
		Elf_Scn *scn;
		GElf_Shdr sh;

		it->tables &= ~(dyn ? ELF_SYMS_DYNSYM : ELF_SYMS_SYMTAB);
		scn = elf_file_scn(it->f, dyn ? SHT_DYNSYM : SHT_SYMTAB, NULL,
				   &sh);
		if (!scn || !sh.sh_entsize)
			continue;
		it->syms = elf_getdata(scn, NULL);
		if (!it->syms)
			continue;
		it->strndx = sh.sh_link;
		it->dynsym = dyn;
		it->i = 1;		/* entry 0 is the null symbol */
		it->n = it->syms->d_size / (gelf_getclass(it->f->e) ==
			ELFCLASS64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym));
		return true;
	}
	it->syms = NULL;
	return false;
}

static void sym_version(struct elf_sym_iter *it, size_t i, struct elf_sym *s)
{
	const char *at = strchr(s->name, '@');
	GElf_Versym vs;

	s->baselen = strlen(s->name);
	s->deflt = true;
	s->ver = NULL;
	if (at) {
		/* .symver names kept literally in .symtab */
		s->baselen = (size_t)(at - s->name);
		s->deflt = at[1] == '@';
		s->ver = at + 1 + s->deflt;
	} else if (it->dynsym && it->versym && i <= INT32_MAX &&
		   gelf_getversym(it->versym, (int)i, &vs)) {
		unsigned int ndx = vs & 0x7fff;

		if (ndx > 1 && ndx < it->nvername && it->vername[ndx]) {
			s->ver = it->vername[ndx];
			s->deflt = !(vs & 0x8000);
		}
	}
}

int elf_sym_iter_next(struct elf_sym_iter *it, struct elf_sym *out)
{
	GElf_Sym st;

	for (;;) {
		int type;

		if (!it->syms && !next_table(it))
			return 0;
		if (it->i >= it->n || it->i > INT32_MAX) {
			it->syms = NULL;
			continue;
		}
		if (it->i % SYMS_PER_STOP_CHECK == 1 && stop_requested())
			return -EINTR;
		if (!gelf_getsym(it->syms, (int)it->i, &st)) {
			it->syms = NULL;	/* a broken table ends */
			continue;
		}
		it->i++;
		type = GELF_ST_TYPE(st.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		out->name = elf_strptr(it->f->e, it->strndx, st.st_name);
		if (!out->name || !*out->name)
			continue;
		out->value = st.st_value;
		out->size = st.st_size;
		out->bind = GELF_ST_BIND(st.st_info);
		out->defined = st.st_shndx != SHN_UNDEF && st.st_value;
		out->ifunc = type == STT_GNU_IFUNC;
		out->dynsym = it->dynsym;
		sym_version(it, it->i - 1, out);
		return 1;
	}
}

void elf_sym_iter_free(struct elf_sym_iter *it)
{
	if (!it)
		return;
	free(it->vername);
	free(it);
}
