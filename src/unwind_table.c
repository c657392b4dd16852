/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF unwind tables: .eh_frame (or .debug_frame) -> compact rows.
 *
 * libdw evaluates the CFI; this file only asks it, row by row, what the
 * rule is at each pc and keeps the rules the BPF walker models (see
 * include/scry/unwind_abi.h). FDEs are enumerated with dwarf_next_cfi and
 * their address ranges decoded here, since libdw does not export them;
 * inside an FDE, dwarf_frame_info gives each row's [start, end), so the
 * walk visits every row boundary exactly once.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>

#include <scry/array.h>
#include <scry/elf.h>
#include <scry/stop.h>
#include <scry/unwind.h>

#define REG_RBP		6
#define REG_RSP		7
#define REG_RIP		16

struct unwind_table {
	struct scry_unwind_row *rows;
	size_t nrows;
	size_t cap;
	const struct elf_file *elf;	/* while building */
	struct unwind_stats stats;
};

/* ---- small helpers ---------------------------------------------------- */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static bool same_rule(const struct scry_unwind_row *a,
		      const struct scry_unwind_row *b)
{
	return a->cfa == b->cfa && a->off == b->off && a->rbp == b->rbp;
}

static int rows_push(struct unwind_table *t, struct scry_unwind_row r)
{
	struct scry_unwind_row *last = t->nrows ? &t->rows[t->nrows - 1] : NULL;

	/* one rule over a longer range: the walker needs only its start */
	if (last && same_rule(last, &r))
		return 0;
	/* an empty row (an FDE of zero length, or a rule changing twice at
	 * one pc): the later rule wins, and may now repeat the one before */
	if (last && last->pc == r.pc) {
		if (t->nrows > 1 && same_rule(&t->rows[t->nrows - 2], &r))
			t->nrows--;
		else
			*last = r;
		return 0;
	}
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		void *p = realloc(t->rows, cap * sizeof(*t->rows));

		if (!p)
			return -ENOMEM;
		t->rows = p;
		t->cap = cap;
	}
	t->rows[t->nrows++] = r;
	return 0;
}

/* ---- ELF ---------------------------------------------------------- */

static bool in_exec_seg(const struct unwind_table *t, __u64 pc)
{
	size_t i, n;
	const struct elf_seg *g = elf_file_segs(t->elf, &n);

	for (i = 0; i < n; i++)
		if (g[i].exec && pc >= g[i].vaddr &&
		    pc - g[i].vaddr < g[i].memsz)
			return true;
	return false;
}

/* A named section with bytes in the file. */
static Elf_Scn *find_scn(const struct elf_file *f, const char *name,
			 GElf_Shdr *sh)
{
	Elf_Scn *scn = elf_file_scn(f, SHT_NULL, name, sh);

	return scn && sh->sh_type != SHT_NOBITS ? scn : NULL;
}

/* ---- FDE enumeration -------------------------------------------------- */

struct fde {
	__u64 start;
	__u64 end;
	unsigned int src;	/* CFI_EH or CFI_DEBUG */
};

struct fde_list {
	struct fde *v;
	size_t n, cap;
};

enum { CFI_EH, CFI_DEBUG, CFI_NSRC };

struct cie_enc {
	Dwarf_Off off;
	int enc;		/* FDE pointer encoding, -1: not understood */
};

struct cfi_src {
	Dwarf_CFI *cfi;		/* libdw's view of the same section */
	Elf_Data *data;
	__u64 sec_addr;		/* .eh_frame's vaddr, base of pcrel pointers */
	bool eh;
	unsigned int addr_size;
	struct cie_enc *cies;
	size_t ncies, cap_cies;
};

static bool read_uleb(const uint8_t **p, const uint8_t *end, __u64 *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (__u64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static bool read_sleb(const uint8_t **p, const uint8_t *end, __s64 *v)
{
	unsigned int shift = 0;
	__u64 u = 0;
	uint8_t b = 0;

	while (*p < end && shift < 64) {
		b = *(*p)++;
		u |= (__u64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				u |= ~0ULL << shift;
			*v = (__s64)u;
			return true;
		}
	}
	return false;
}

/*
 * Read one DW_EH_PE-encoded pointer at *@p. Only what FDE addresses use:
 * absolute or pc-relative, fixed or LEB128 size.
 */
static bool read_encoded(const struct cfi_src *src, int enc, const uint8_t **p,
			 const uint8_t *end, __u64 *v)
{
	const uint8_t *at = *p;
	__u64 u = 0;
	__s64 s = 0;
	unsigned int size;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		size = src->addr_size;
		break;
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2:
		size = 2;
		break;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4:
		size = 4;
		break;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8:
		size = 8;
		break;
	case DW_EH_PE_uleb128:
		if (!read_uleb(p, end, &u))
			return false;
		size = 0;
		break;
	case DW_EH_PE_sleb128:
		if (!read_sleb(p, end, &s))
			return false;
		u = s;
		size = 0;
		break;
	default:
		return false;
	}
	if (size) {
		if ((size_t)(end - *p) < size)
			return false;
		memcpy(&u, *p, size);	/* little endian: x86-64 only */
		if ((enc & 0x08) && size < 8 && (u >> (size * 8 - 1)) & 1)
			u |= ~0ULL << (size * 8);	/* sdataN */
		*p += size;
	}
	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel:
		u += src->sec_addr + (at - (const uint8_t *)src->data->d_buf);
		break;
	default:
		return false;
	}
	*v = u;
	return true;
}

/* The FDE pointer encoding from a CIE's augmentation ('R'). */
static int cie_fde_enc(const struct cfi_src *src, const Dwarf_CIE *cie)
{
	const uint8_t *d = cie->augmentation_data;
	const uint8_t *end = d ? d + cie->augmentation_data_size : NULL;
	const char *a = cie->augmentation;
	__u64 skip;

	if (!src->eh)
		return DW_EH_PE_absptr;
	if (!a || a[0] != 'z')
		return a && a[0] ? -1 : DW_EH_PE_absptr;
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			return d && d < end ? *d : -1;
		case 'L':
			d++;
			break;
		case 'P':
			if (!d || d >= end)
				return -1;
			{
				int penc = *d++;

				if (!read_encoded(src, penc & 0x0f, &d, end, &skip))
					return -1;
			}
			break;
		case 'S': case 'B':
			break;
		default:
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

static int cie_add(struct cfi_src *src, Dwarf_Off off, const Dwarf_CIE *cie)
{
	if (src->ncies == src->cap_cies) {
		size_t cap = src->cap_cies ? src->cap_cies * 2 : 8;
		void *p = realloc(src->cies, cap * sizeof(*src->cies));

		if (!p)
			return -ENOMEM;
		src->cies = p;
		src->cap_cies = cap;
	}
	src->cies[src->ncies++] = (struct cie_enc){ off, cie_fde_enc(src, cie) };
	return 0;
}

static int cie_enc_of(const struct cfi_src *src, Dwarf_Off off)
{
	size_t i;

	/* a handful of CIEs per file: the newest is almost always it */
	for (i = src->ncies; i-- > 0;)
		if (src->cies[i].off == off)
			return src->cies[i].enc;
	return -1;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->src != y->src)		/* .eh_frame is what the code ships */
		return x->src < y->src ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end);	/* longest first */
}

/* Sort, and keep one FDE per start (.eh_frame's, the longest). */
static size_t sort_fdes(struct fde *v, size_t n)
{
	size_t i, k = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), fde_cmp);
	for (i = 1; i < n; i++)
		if (v[i].start != v[k].start)
			v[++k] = v[i];
	return k + 1;
}

static int fde_add(struct fde_list *l, struct fde f)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		void *q = realloc(l->v, cap * sizeof(*l->v));

		if (!q)
			return -ENOMEM;
		l->v = q;
		l->cap = cap;
	}
	l->v[l->n++] = f;
	return 0;
}

/* Append every FDE of @src whose code lies in an executable segment. */
static int list_fdes(Elf *e, struct cfi_src *src, unsigned int which,
		     const struct unwind_table *t, struct fde_list *l)
{
	const char *ident = elf_getident(e, NULL);
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry ent;
	int enc;

	/* a malformed entry ends the section; keep what came before */
	while (!dwarf_next_cfi((const unsigned char *)ident, src->data,
			       src->eh, off, &next, &ent)) {
		const uint8_t *p = ent.fde.start, *end = ent.fde.end;
		__u64 start, len;

		if (dwarf_cfi_cie_p(&ent)) {
			if (cie_add(src, off, &ent.cie))
				return -ENOMEM;
		} else if ((enc = cie_enc_of(src, ent.fde.CIE_pointer)) >= 0 &&
			   read_encoded(src, enc, &p, end, &start) &&
			   read_encoded(src, enc & 0x0f, &p, end, &len) &&
			   len && start + len > start && in_exec_seg(t, start) &&
			   fde_add(l, (struct fde){ start, start + len, which })) {
			return -ENOMEM;
		}
		if (next == (Dwarf_Off)-1 || next <= off)
			break;
		off = next;
	}
	return 0;
}

/* ---- one row from libdw's frame state --------------------------------- */

/* Register @reg saved at CFA + *off (ops as dwarf_frame_register gives). */
static bool saved_at_cfa(const Dwarf_Op *ops, size_t nops, __s64 *off)
{
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    ops[1].atom == DW_OP_plus_uconst) {
		*off = (__s64)ops[1].number;
		return true;
	}
	return false;
}

/* rsp + 8 + (((rip & 15) >= K) << 3): the CFI GNU ld writes for .plt */
static bool plt_rule(const Dwarf_Op *ops, size_t nops, __s16 *k)
{
	static const uint8_t want[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
		DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	size_t i;

	if (nops != sizeof(want) || ops[0].number != 8 || ops[1].number != 0)
		return false;
	for (i = 0; i < nops; i++)
		if (want[i] && ops[i].atom != want[i])
			return false;
	if (ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit31)
		return false;
	*k = ops[4].atom - DW_OP_lit0;
	return true;
}

/*
 * Rule @cfa with offset @off: in bytes if it fits, else in 8-byte units
 * (SCRY_UNWIND_CFA_OFF8), else UNSUPPORTED.
 */
static void set_rule(struct scry_unwind_row *r, __u8 cfa, __s64 off)
{
	if (off == (__s16)off) {
		r->cfa = cfa;
		r->off = off;
	} else if (!(off % 8) && off / 8 == (__s16)(off / 8)) {
		r->cfa = cfa | SCRY_UNWIND_CFA_OFF8;
		r->off = off / 8;
	}
}

static void cfa_rule(Dwarf_Frame *fr, struct scry_unwind_row *r)
{
	Dwarf_Op *ops;
	size_t nops;

	r->cfa = SCRY_UNWIND_CFA_UNSUPPORTED;
	if (dwarf_frame_cfa(fr, &ops, &nops) || !nops)
		return;
	if (nops == 1 && ops[0].atom == DW_OP_bregx &&
	    ops[0].number == REG_RSP)
		set_rule(r, SCRY_UNWIND_CFA_RSP, (__s64)ops[0].number2);
	else if (nops == 1 && ops[0].atom == DW_OP_bregx &&
		 ops[0].number == REG_RBP)
		set_rule(r, SCRY_UNWIND_CFA_RBP, (__s64)ops[0].number2);
	else if (nops == 2 && ops[0].atom == DW_OP_breg6 &&
		 ops[1].atom == DW_OP_deref)
		set_rule(r, SCRY_UNWIND_CFA_DEREF_RBP, (__s64)ops[0].number);
	else if (plt_rule(ops, nops, &r->off))
		r->cfa = SCRY_UNWIND_CFA_PLT;
}

static __u8 rbp_rule(Dwarf_Frame *fr)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	__s64 off;

	if (dwarf_frame_register(fr, REG_RBP, mem, &ops, &nops))
		return SCRY_UNWIND_RBP_LOST;
	if (!nops)
		return ops ? SCRY_UNWIND_RBP_LOST : SCRY_UNWIND_RBP_SAME;
	if (!saved_at_cfa(ops, nops, &off) || off >= 0 || off % 8 ||
	    -off / 8 >= SCRY_UNWIND_RBP_LOST)
		return SCRY_UNWIND_RBP_LOST;
	return -off / 8;
}

static struct scry_unwind_row row_of(Dwarf_Frame *fr, __u64 pc, int ra_reg,
				     bool signal)
{
	struct scry_unwind_row r = { .pc = pc };
	Dwarf_Op mem[3], *ops;
	size_t nops;
	__s64 off;

	if (signal) {
		r.cfa = SCRY_UNWIND_CFA_SIGNAL;
		return r;
	}
	if (dwarf_frame_register(fr, ra_reg, mem, &ops, &nops) ||
	    ra_reg != REG_RIP) {
		r.cfa = SCRY_UNWIND_CFA_UNSUPPORTED;
		return r;
	}
	if (!nops && ops) {		/* undefined: the outermost frame */
		r.cfa = SCRY_UNWIND_CFA_END;
		return r;
	}
	cfa_rule(fr, &r);
	/* the walker reads the return address at CFA - 8, nowhere else */
	if (!saved_at_cfa(ops, nops, &off) || off != -8)
		r.cfa = SCRY_UNWIND_CFA_UNSUPPORTED;
	if (r.cfa == SCRY_UNWIND_CFA_UNSUPPORTED)
		r.off = 0;
	else
		r.rbp = rbp_rule(fr);
	return r;
}

/* Every row of one FDE; a pc libdw cannot evaluate gets an UNSUPPORTED row. */
static int fde_rows(Dwarf_CFI *cfi, const struct fde *f, __u64 until,
		    struct unwind_table *t)
{
	Dwarf_Addr pc = f->start, start, end;
	struct scry_unwind_row r;
	Dwarf_Frame *fr;
	bool signal;
	int ra, err;

	while (pc < until) {
		if (dwarf_cfi_addrframe(cfi, pc, &fr))
			return rows_push(t, (struct scry_unwind_row){
				.pc = pc, .cfa = SCRY_UNWIND_CFA_UNSUPPORTED });
		ra = dwarf_frame_info(fr, &start, &end, &signal);
		r = row_of(fr, pc, ra, signal);
		free(fr);
		err = rows_push(t, r);
		if (err)
			return err;
		if (end <= pc)		/* libdw could not bound the row */
			break;
		pc = end;
	}
	return 0;
}

static void count_rows(struct unwind_table *t)
{
	struct unwind_stats *st = &t->stats;
	size_t i;

	st->rows = t->nrows;
	for (i = 0; i < t->nrows; i++) {
		const struct scry_unwind_row *r = &t->rows[i];

		unsigned int cfa = r->cfa & SCRY_UNWIND_CFA_MASK;

		if (cfa < SCRY_UNWIND_CFA_COUNT)
			st->cfa[cfa]++;
		if (cfa == SCRY_UNWIND_CFA_NONE ||
		    cfa == SCRY_UNWIND_CFA_UNSUPPORTED)
			continue;
		if (r->rbp == SCRY_UNWIND_RBP_LOST)
			st->rbp_lost++;
		else if (r->rbp != SCRY_UNWIND_RBP_SAME)
			st->rbp_saved++;
	}
}

/*
 * Rows of every FDE in order. Where one FDE ends before the next begins a
 * CFA_NONE row marks the gap, so a pc there is not unwound with the rule
 * of the code before it. Overlapping FDEs are cut at the next one's start.
 */
static int table_rows(const struct cfi_src *srcs, const struct fde *fdes,
		      size_t n, struct unwind_table *t)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		__u64 until = fdes[i].end;
		bool gap = true;

		if (i + 1 < n && fdes[i + 1].start <= until) {
			until = fdes[i + 1].start;
			gap = false;	/* the next FDE starts right here */
		}
		if (until > UINT32_MAX)
			return -EFBIG;
		err = fde_rows(srcs[fdes[i].src].cfi, &fdes[i], until, t);
		if (!err && gap)
			err = rows_push(t, (struct scry_unwind_row){
				.pc = until, .cfa = SCRY_UNWIND_CFA_NONE });
		if (err)
			return err;
	}
	return 0;
}

/* ---- table build ------------------------------------------------------ */

/*
 * .eh_frame (what the unwinders of the process itself use) through
 * dwarf_getcfi_elf; .debug_frame through libdw's DWARF reader. A file may
 * have both: code built with -fno-asynchronous-unwind-tables -g keeps its
 * CFI in .debug_frame while crt's _start still brings an .eh_frame.
 */
static int open_eh(const struct elf_file *f, struct cfi_src *src)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(f, ".eh_frame", &sh);

	if (!scn || !sh.sh_size)
		return -ENOENT;
	src->eh = true;
	src->sec_addr = sh.sh_addr;
	src->data = elf_getdata(scn, NULL);
	src->cfi = dwarf_getcfi_elf(elf_file_elf(f));
	return src->data && src->cfi ? 0 : -ENOENT;
}

static int open_debug(const struct elf_file *f, struct cfi_src *src,
		      Dwarf **dw)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(f, ".debug_frame", &sh);

	if (!scn || !sh.sh_size)
		return -ENOENT;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return -ENOENT;
	src->data = elf_getdata(scn, NULL);
	*dw = dwarf_begin_elf(elf_file_elf(f), DWARF_C_READ, NULL);
	src->cfi = *dw ? dwarf_getcfi(*dw) : NULL;
	return src->data && src->cfi ? 0 : -ENOENT;
}

static int build(const struct elf_file *f, struct unwind_table *t)
{
	struct cfi_src srcs[CFI_NSRC] = {};
	struct fde_list l = {};
	Dwarf *dw = NULL;
	unsigned int i;
	size_t n;
	int err = 0;

	if (gelf_getclass(elf_file_elf(f)) != ELFCLASS64)
		return -ENOEXEC;
	for (i = 0; !err && i < CFI_NSRC; i++) {
		srcs[i].addr_size = 8;
		if (!(i == CFI_EH ? open_eh(f, &srcs[i])
				  : open_debug(f, &srcs[i], &dw)))
			err = list_fdes(elf_file_elf(f), &srcs[i], i, t, &l);
	}
	n = sort_fdes(l.v, l.n);
	if (!err && !n)
		err = -ENOENT;
	if (!err) {
		t->stats.fdes = n;
		err = table_rows(srcs, l.v, n, t);
	}
	free(l.v);
	for (i = 0; i < CFI_NSRC; i++)
		free(srcs[i].cies);
	if (srcs[CFI_EH].cfi)
		dwarf_cfi_end(srcs[CFI_EH].cfi);
	if (dw)
		dwarf_end(dw);		/* owns the .debug_frame cfi */
	if (!err)
		count_rows(t);
	return err;
}

struct unwind_table *unwind_table_build(const struct elf_file *f)
{
	struct unwind_table *t = calloc(1, sizeof(*t));
	double t0 = now_ms();
	int err = -ENOMEM;

	if (t) {
		t->elf = f;
		err = build(f, t);
		t->elf = NULL;
	}
	if (err) {
		unwind_table_free(t);
		errno = -err;
		return NULL;
	}
	t->stats.build_ms = now_ms() - t0;
	return t;
}

void unwind_table_free(struct unwind_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

const struct scry_unwind_row *unwind_table_rows(const struct unwind_table *t,
						size_t *nrows)
{
	*nrows = t->nrows;
	return t->rows;
}

const struct unwind_stats *unwind_table_stats(const struct unwind_table *t)
{
	return &t->stats;
}

/* Last row at or before @pc: the same search the BPF walker does. */
const struct scry_unwind_row *unwind_table_find(const struct unwind_table *t,
						__u64 pc)
{
	size_t lo = 0, hi = t->nrows;

	if (!t->nrows || pc < t->rows[0].pc || pc > UINT32_MAX)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return t->rows[lo].cfa == SCRY_UNWIND_CFA_NONE ? NULL : &t->rows[lo];
}

const char *unwind_cfa_name(unsigned int cfa)
{
	static const char *const names[SCRY_UNWIND_CFA_COUNT] = {
		[SCRY_UNWIND_CFA_NONE] = "gap",
		[SCRY_UNWIND_CFA_RSP] = "rsp",
		[SCRY_UNWIND_CFA_RBP] = "rbp",
		[SCRY_UNWIND_CFA_PLT] = "plt",
		[SCRY_UNWIND_CFA_DEREF_RBP] = "deref-rbp",
		[SCRY_UNWIND_CFA_SIGNAL] = "signal",
		[SCRY_UNWIND_CFA_END] = "end",
		[SCRY_UNWIND_CFA_UNSUPPORTED] = "unsupported",
	};

	return cfa < SCRY_UNWIND_CFA_COUNT ? names[cfa] : "?";
}

const char *unwind_stat_name(unsigned int reason)
{
	static const char *const names[SCRY_UNWIND_NSTATS] = {
		[SCRY_UNWIND_STAT_NO_PROC] = "unwind-no-tables",
		[SCRY_UNWIND_STAT_NO_MAPPING] = "unwind-no-mapping",
		[SCRY_UNWIND_STAT_NO_ROW] = "unwind-no-row",
		[SCRY_UNWIND_STAT_FAULT] = "unwind-read-fault",
		[SCRY_UNWIND_STAT_DEPTH] = "unwind-depth-limit",
		[SCRY_UNWIND_STAT_UNSUPPORTED] = "unwind-unsupported-row",
	};

	return reason < SCRY_UNWIND_NSTATS ? names[reason] : "?";
}

void unwind_stats_print(FILE *f, const char *name, const struct unwind_stats *st)
{
	unsigned int i;

	fprintf(f, "%s: %zu rows (", name, st->rows);
	for (i = 0; i < SCRY_UNWIND_CFA_COUNT; i++)
		fprintf(f, "%s%s %zu", i ? ", " : "", unwind_cfa_name(i),
			st->cfa[i]);
	fprintf(f, "; rbp saved %zu, lost %zu), %zu FDEs, %.1f ms\n",
		st->rbp_saved, st->rbp_lost, st->fdes, st->build_ms);
}

