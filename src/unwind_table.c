/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF unwind tables: .eh_frame (or .debug_frame) -> compact rows.
 *
 * FDEs are enumerated with libdw's dwarf_next_cfi and their address
 * ranges decoded here; each FDE's call frame program is then run here,
 * once, from start to end (linear in its size), and every row boundary
 * it passes yields a row with the rules the BPF walker models (see
 * include/scry/unwind_abi.h). tests/unit/test_unwind.c checks every row
 * of libc against libdw's own evaluation.
 */
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

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
	/* a file that needs more is unwound by frame pointers instead */
	if (t->nrows >= UNWIND_MAX_ROWS)
		return -E2BIG;
	if (array_ensure(&t->rows, &t->cap, sizeof(*t->rows), t->nrows + 1))
		return -ENOMEM;
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
	unsigned int cie;	/* index into its source's cies */
	const uint8_t *ins;	/* call frame instructions */
	const uint8_t *ins_end;
};

struct fde_list {
	struct fde *v;
	size_t n, cap;
};

enum { CFI_EH, CFI_DEBUG, CFI_NSRC };

/* What an FDE needs of its CIE. */
struct cie {
	Dwarf_Off off;
	int enc;		/* FDE pointer encoding, -1: not understood */
	bool fde_aug;		/* 'z': FDEs carry augmentation data */
	bool signal;		/* 'S': a signal frame (__restore_rt) */
	__u64 caf;		/* code alignment factor */
	__s64 daf;		/* data alignment factor */
	__u64 ra;		/* return address column */
	const uint8_t *ins;	/* initial instructions */
	const uint8_t *ins_end;
};

struct cfi_src {
	Elf_Data *data;
	__u64 sec_addr;		/* .eh_frame's vaddr, base of pcrel pointers */
	bool eh;
	unsigned int addr_size;
	struct cie *cies;
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
	const char *a = cie->augmentation;

	if (array_ensure(&src->cies, &src->cap_cies, sizeof(*src->cies),
			 src->ncies + 1))
		return -ENOMEM;
	src->cies[src->ncies++] = (struct cie){
		.off = off, .enc = cie_fde_enc(src, cie),
		.fde_aug = a && a[0] == 'z',
		.signal = a && strchr(a, 'S'),
		.caf = cie->code_alignment_factor,
		.daf = cie->data_alignment_factor,
		.ra = cie->return_address_register,
		.ins = cie->initial_instructions,
		.ins_end = cie->initial_instructions_end,
	};
	return 0;
}

/*
 * The CIE at section offset @off, or -1. CIEs are met in section order,
 * so the list is sorted by offset: a binary search, whatever a hostile
 * file makes its FDEs point at.
 */
static long cie_find(const struct cfi_src *src, Dwarf_Off off)
{
	size_t lo = 0, hi = src->ncies;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (src->cies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < src->ncies && src->cies[lo].off == off ? (long)lo : -1;
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
	if (array_ensure(&l->v, &l->cap, sizeof(*l->v), l->n + 1))
		return -ENOMEM;
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
	long ci;

	/* a malformed entry ends the section; keep what came before */
	while (!dwarf_next_cfi((const unsigned char *)ident, src->data,
			       src->eh, off, &next, &ent)) {
		const uint8_t *p = ent.fde.start, *end = ent.fde.end;
		const struct cie *c;
		__u64 start, len, aug;

		if (dwarf_cfi_cie_p(&ent)) {
			if (cie_add(src, off, &ent.cie))
				return -ENOMEM;
		} else if ((ci = cie_find(src, ent.fde.CIE_pointer)) >= 0 &&
			   (c = &src->cies[ci])->enc >= 0 &&
			   read_encoded(src, c->enc, &p, end, &start) &&
			   read_encoded(src, c->enc & 0x0f, &p, end, &len) &&
			   (!c->fde_aug || (read_uleb(&p, end, &aug) &&
					    aug <= (__u64)(end - p) &&
					    (p += aug))) &&
			   len && start + len > start && in_exec_seg(t, start) &&
			   fde_add(l, (struct fde){ start, start + len, which,
						    ci, p, end })) {
			return -ENOMEM;
		}
		if (next == (Dwarf_Off)-1 || next <= off)
			break;
		off = next;
		if (stop_requested())
			return -EINTR;
	}
	return 0;
}

/* ---- the CFA program, run once per FDE --------------------------------- */

/*
 * The rows of an FDE come from running its CIE's initial instructions
 * and then its own, in one pass: every DW_CFA_advance_loc ends a row.
 * (Asking libdw for the rule at each row instead replays the program
 * from the FDE's start every time: a function with n rows cost n^2, and
 * a 150k-row function minutes.) Only the registers the walker models
 * are tracked: the CFA, rbp and the return address; rules that cannot
 * be expressed make the row UNSUPPORTED, as the walker needs.
 *
 * The initial state is libdw's x86-64 ABI default (the CFA is rsp + 8,
 * the return address at CFA - 8, rbp unchanged), so files that leave
 * those out get the rows libdw would give.
 */
enum reg_rule {
	RULE_SAME,		/* unchanged */
	RULE_UNDEF,		/* undefined */
	RULE_OFFSET,		/* saved at CFA + off */
	RULE_OTHER,		/* anything else: not modelled */
};

struct reg_state {
	enum reg_rule rule;
	__s64 off;
};

struct cfa_state {
	bool expr;		/* DW_CFA_def_cfa_expression */
	__u64 reg;		/* !expr: CFA = reg + off */
	__s64 off;
	const uint8_t *e;	/* expr: the expression */
	__u64 elen;
};

struct frame_state {
	struct cfa_state cfa;
	struct reg_state rbp;
	struct reg_state ra;
};

/* remember_state nests this deep at most (gcc uses one level) */
#define MAX_REMEMBER	64
/* instructions between two looks at stop_requested() */
#define INS_PER_STOP_CHECK	(1 << 16)

struct cfa_run {
	const struct cfi_src *src;
	const struct cie *cie;
	struct frame_state st;
	struct frame_state init;	/* after the CIE: DW_CFA_restore */
	struct frame_state stack[MAX_REMEMBER];
	unsigned int depth;
	__u64 loc;
	unsigned long steps;
};

/* rsp + 8 + (((rip & 15) >= K) << 3): the CFI GNU ld writes for .plt */
static bool plt_rule(const uint8_t *e, __u64 len, __s16 *k)
{
	static const uint8_t want[] = {
		DW_OP_breg7, 8, DW_OP_breg16, 0, DW_OP_lit15, DW_OP_and, 0,
		DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	size_t i;

	if (len != sizeof(want))
		return false;
	for (i = 0; i < len; i++)
		if (i != 6 && e[i] != want[i])
			return false;
	if (e[6] < DW_OP_lit0 || e[6] > DW_OP_lit31)
		return false;
	*k = e[6] - DW_OP_lit0;
	return true;
}

/* *(rbp + off): gcc's stack realignment (DW_OP_breg6 off; DW_OP_deref) */
static bool deref_rbp_rule(const uint8_t *e, __u64 len, __s64 *off)
{
	const uint8_t *p = e + 1, *end = e + len;

	if (len < 3 || e[0] != DW_OP_breg6 || !read_sleb(&p, end, off))
		return false;
	return p + 1 == end && *p == DW_OP_deref;
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

static void cfa_rule(const struct cfa_state *c, struct scry_unwind_row *r)
{
	__s64 off;

	r->cfa = SCRY_UNWIND_CFA_UNSUPPORTED;
	if (!c->expr && c->reg == REG_RSP)
		set_rule(r, SCRY_UNWIND_CFA_RSP, c->off);
	else if (!c->expr && c->reg == REG_RBP)
		set_rule(r, SCRY_UNWIND_CFA_RBP, c->off);
	else if (c->expr && deref_rbp_rule(c->e, c->elen, &off))
		set_rule(r, SCRY_UNWIND_CFA_DEREF_RBP, off);
	else if (c->expr && plt_rule(c->e, c->elen, &r->off))
		r->cfa = SCRY_UNWIND_CFA_PLT;
}

static __u8 rbp_rule(const struct reg_state *rbp)
{
	if (rbp->rule == RULE_SAME)
		return SCRY_UNWIND_RBP_SAME;
	if (rbp->rule != RULE_OFFSET || rbp->off >= 0 || rbp->off % 8 ||
	    -rbp->off / 8 >= SCRY_UNWIND_RBP_LOST)
		return SCRY_UNWIND_RBP_LOST;
	return -rbp->off / 8;
}

static struct scry_unwind_row row_of(const struct cfa_run *run)
{
	struct scry_unwind_row r = { .pc = run->loc };
	const struct frame_state *st = &run->st;

	if (run->cie->signal) {
		r.cfa = SCRY_UNWIND_CFA_SIGNAL;
		return r;
	}
	if (run->cie->ra != REG_RIP) {
		r.cfa = SCRY_UNWIND_CFA_UNSUPPORTED;
		return r;
	}
	if (st->ra.rule == RULE_UNDEF) {	/* the outermost frame */
		r.cfa = SCRY_UNWIND_CFA_END;
		return r;
	}
	cfa_rule(&st->cfa, &r);
	/* the walker reads the return address at CFA - 8, nowhere else */
	if (st->ra.rule != RULE_OFFSET || st->ra.off != -8)
		r.cfa = SCRY_UNWIND_CFA_UNSUPPORTED;
	if (r.cfa == SCRY_UNWIND_CFA_UNSUPPORTED)
		r.off = 0;
	else
		r.rbp = rbp_rule(&st->rbp);
	return r;
}

static struct reg_state *reg_of(struct frame_state *st, __u64 reg,
				const struct cie *cie)
{
	if (reg == cie->ra)
		return &st->ra;
	return reg == REG_RBP ? &st->rbp : NULL;
}

static void set_reg(struct cfa_run *run, __u64 reg, enum reg_rule rule,
		    __s64 off)
{
	struct reg_state *r = reg_of(&run->st, reg, run->cie);

	if (r)
		*r = (struct reg_state){ rule, off };
}

/* The row of the state so far, if it starts before @until. */
static int emit(struct unwind_table *t, const struct cfa_run *run,
		__u64 until)
{
	return run->loc < until ? rows_push(t, row_of(run)) : 0;
}

/*
 * Move to @loc: the state so far is the row up to there. Returns 1 when
 * the new row starts past @until (the rest does not matter), 0, -errno.
 */
static int advance(struct unwind_table *t, struct cfa_run *run, __u64 loc,
		   __u64 until)
{
	int err;

	if (loc < run->loc)
		return -EINVAL;		/* backwards: not a valid program */
	if (loc == run->loc)
		return 0;
	err = emit(t, run, until);
	run->loc = loc;
	return err ? err : loc >= until;
}

/* DW_CFA_advance_loc*: @delta code alignment units on. */
static int step(struct unwind_table *t, struct cfa_run *run, __u64 delta,
		__u64 until)
{
	const struct cie *c = run->cie;
	__u64 loc;

	/* the CIE sets up, it never moves */
	if (!t || (c->caf && delta > ~0ULL / c->caf))
		return -EINVAL;
	loc = run->loc + delta * c->caf;
	if (loc < run->loc)
		return -EINVAL;
	return advance(t, run, loc, until);
}

/*
 * Run the instructions [@p, @end). @t NULL: the CIE's initial
 * instructions, which must not advance. Returns 0, 1 when past @until,
 * -EINVAL for an instruction this file should not have, -errno.
 */
static int run_cfa(struct unwind_table *t, struct cfa_run *run,
		   const uint8_t *p, const uint8_t *end, __u64 until)
{
	const struct cie *c = run->cie;
	struct reg_state *r;
	__u64 reg, u, len;
	__s64 sv;
	int err = 0;

	while (p < end && !err) {
		uint8_t op = *p++;
		__u64 delta = 0;

		if (!(++run->steps % INS_PER_STOP_CHECK) && stop_requested())
			return -EINTR;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			err = step(t, run, op & 0x3f, until);
			continue;
		case DW_CFA_offset:
			if (!read_uleb(&p, end, &u))
				return -EINVAL;
			set_reg(run, op & 0x3f, RULE_OFFSET, (__s64)u * c->daf);
			continue;
		case DW_CFA_restore:
			r = reg_of(&run->st, op & 0x3f, c);
			if (r)
				*r = *reg_of(&run->init, op & 0x3f, c);
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
		case DW_CFA_GNU_args_size:
			if (op == DW_CFA_GNU_args_size && !read_uleb(&p, end, &u))
				return -EINVAL;
			break;
		case DW_CFA_set_loc:
			if (!t || c->enc < 0 ||
			    !read_encoded(run->src, c->enc, &p, end, &u))
				return -EINVAL;
			err = advance(t, run, u, until);
			continue;
		case DW_CFA_advance_loc1:
		case DW_CFA_advance_loc2:
		case DW_CFA_advance_loc4:
			len = op == DW_CFA_advance_loc1 ? 1 :
			      op == DW_CFA_advance_loc2 ? 2 : 4;
			if ((__u64)(end - p) < len)
				return -EINVAL;
			memcpy(&delta, p, len);	/* little endian */
			p += len;
			err = step(t, run, delta, until);
			break;
		case DW_CFA_offset_extended:
		case DW_CFA_val_offset:
		case DW_CFA_GNU_negative_offset_extended:
			if (!read_uleb(&p, end, &reg) || !read_uleb(&p, end, &u))
				return -EINVAL;
			sv = (__s64)u * c->daf;
			set_reg(run, reg, op == DW_CFA_val_offset ? RULE_OTHER :
				RULE_OFFSET, op == DW_CFA_GNU_negative_offset_extended ?
				-(__s64)u * c->daf : sv);
			break;
		case DW_CFA_offset_extended_sf:
		case DW_CFA_val_offset_sf:
			if (!read_uleb(&p, end, &reg) || !read_sleb(&p, end, &sv))
				return -EINVAL;
			set_reg(run, reg, op == DW_CFA_val_offset_sf ?
				RULE_OTHER : RULE_OFFSET, sv * c->daf);
			break;
		case DW_CFA_restore_extended:
			if (!read_uleb(&p, end, &reg))
				return -EINVAL;
			r = reg_of(&run->st, reg, c);
			if (r)
				*r = *reg_of(&run->init, reg, c);
			break;
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			if (!read_uleb(&p, end, &reg))
				return -EINVAL;
			set_reg(run, reg, op == DW_CFA_undefined ? RULE_UNDEF :
				RULE_SAME, 0);
			break;
		case DW_CFA_register:
			if (!read_uleb(&p, end, &reg) || !read_uleb(&p, end, &u))
				return -EINVAL;
			set_reg(run, reg, RULE_OTHER, 0);
			break;
		case DW_CFA_remember_state:
			if (run->depth == MAX_REMEMBER)
				return -EINVAL;
			run->stack[run->depth++] = run->st;
			break;
		case DW_CFA_restore_state:
			if (!run->depth)
				return -EINVAL;
			run->st = run->stack[--run->depth];
			break;
		case DW_CFA_def_cfa:
		case DW_CFA_def_cfa_sf:
			if (!read_uleb(&p, end, &reg))
				return -EINVAL;
			if (op == DW_CFA_def_cfa) {
				if (!read_uleb(&p, end, &u))
					return -EINVAL;
				sv = (__s64)u;
			} else {
				if (!read_sleb(&p, end, &sv))
					return -EINVAL;
				sv *= c->daf;
			}
			run->st.cfa = (struct cfa_state){ .reg = reg, .off = sv };
			break;
		case DW_CFA_def_cfa_register:
			if (!read_uleb(&p, end, &reg) || run->st.cfa.expr)
				return -EINVAL;
			run->st.cfa.reg = reg;
			break;
		case DW_CFA_def_cfa_offset:
		case DW_CFA_def_cfa_offset_sf:
			if (run->st.cfa.expr)
				return -EINVAL;
			if (op == DW_CFA_def_cfa_offset) {
				if (!read_uleb(&p, end, &u))
					return -EINVAL;
				run->st.cfa.off = (__s64)u;
			} else {
				if (!read_sleb(&p, end, &sv))
					return -EINVAL;
				run->st.cfa.off = sv * c->daf;
			}
			break;
		case DW_CFA_def_cfa_expression:
			if (!read_uleb(&p, end, &len) || len > (__u64)(end - p))
				return -EINVAL;
			run->st.cfa = (struct cfa_state){ .expr = true,
							  .e = p, .elen = len };
			p += len;
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			if (!read_uleb(&p, end, &reg) ||
			    !read_uleb(&p, end, &len) || len > (__u64)(end - p))
				return -EINVAL;
			set_reg(run, reg, RULE_OTHER, 0);
			p += len;
			break;
		default:
			return -EINVAL;
		}
	}
	return err;
}

/*
 * Every row of one FDE up to @until (the next FDE's start, or its end).
 * Where the program is broken or runs a rule libdw would refuse, the
 * rest of the FDE gets an UNSUPPORTED row: the walker stops there
 * rather than guess.
 */
static int fde_rows(const struct cfi_src *src, const struct fde *f,
		    __u64 until, struct unwind_table *t, struct cfa_run *run)
{
	int err;

	memset(run, 0, sizeof(*run));
	run->src = src;
	run->cie = &src->cies[f->cie];
	run->loc = f->start;
	run->st.cfa = (struct cfa_state){ .reg = REG_RSP, .off = 8 };
	run->st.ra = (struct reg_state){ RULE_OFFSET, -8 };
	err = run_cfa(NULL, run, run->cie->ins, run->cie->ins_end, until);
	run->init = run->st;
	run->depth = 0;
	if (!err)
		err = run_cfa(t, run, f->ins, f->ins_end, until);
	if (err == -EINVAL)
		err = rows_push(t, (struct scry_unwind_row){
			.pc = run->loc, .cfa = SCRY_UNWIND_CFA_UNSUPPORTED });
	else if (err >= 0)
		err = emit(t, run, until);	/* the last row */
	return err < 0 ? err : 0;
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
	struct cfa_run *run = malloc(sizeof(*run));
	size_t i;
	int err = 0;

	if (!run)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		__u64 until = fdes[i].end;
		bool gap = true;

		if (i + 1 < n && fdes[i + 1].start <= until) {
			until = fdes[i + 1].start;
			gap = false;	/* the next FDE starts right here */
		}
		if (until > UINT32_MAX)
			err = -EFBIG;
		else if (stop_requested())
			err = -EINTR;
		else
			err = fde_rows(&srcs[fdes[i].src], &fdes[i], until, t,
				       run);
		if (!err && gap)
			err = rows_push(t, (struct scry_unwind_row){
				.pc = until, .cfa = SCRY_UNWIND_CFA_NONE });
	}
	free(run);
	return err;
}

/* ---- table build ------------------------------------------------------ */

/*
 * .eh_frame (what the unwinders of the process itself use), else or
 * also .debug_frame (possibly compressed). A file may
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
	return src->data ? 0 : -ENOENT;
}

static int open_debug(const struct elf_file *f, struct cfi_src *src)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(f, ".debug_frame", &sh);

	if (!scn || !sh.sh_size)
		return -ENOENT;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return -ENOENT;
	src->data = elf_getdata(scn, NULL);
	return src->data ? 0 : -ENOENT;
}

static int build(const struct elf_file *f, struct unwind_table *t)
{
	struct cfi_src srcs[CFI_NSRC] = {};
	struct fde_list l = {};
	unsigned int i;
	size_t n;
	int err = 0;

	if (gelf_getclass(elf_file_elf(f)) != ELFCLASS64)
		return -ENOEXEC;
	for (i = 0; !err && i < CFI_NSRC; i++) {
		srcs[i].addr_size = 8;
		if (!(i == CFI_EH ? open_eh(f, &srcs[i])
				  : open_debug(f, &srcs[i])))
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

