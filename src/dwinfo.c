// SPDX-License-Identifier: GPL-2.0
/*
 * dwinfo: inlined frames and source lines from DWARF.
 *
 * Compile units are indexed by address here: libdw's dwarf_addrdie()
 * needs .debug_aranges, which clang does not emit. Inside a unit the
 * outermost functions are indexed by address too, on the unit's first
 * lookup (one unit can hold thousands of functions: a linear walk of
 * them per pc made symbolizing quadratic); from the function only the
 * path of DIEs down to the pc is read, not the whole unit as
 * dwarf_getscopes() does.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scry/array.h>
#include <scry/dwinfo.h>
#include <scry/elf.h>
#include <scry/ranges.h>
#include <scry/stop.h>

/* DWARF scopes deeper than this are not searched */
#define DW_MAX_DEPTH	128
/* DIEs or units visited between two looks at stop_requested() */
#define PER_STOP_CHECK	1024

/* An outermost scope of a unit: where descend() goes on from. */
struct dw_top {
	Dwarf_Off off;		/* its DIE */
	int depth;		/* descend()'s depth at its parent */
};

struct dw_unit {
	Dwarf_Off off;		/* the CU DIE */
	bool indexed;		/* tops and funcs built (or failed) */
	struct dw_top *tops;	/* in the order descend() meets them */
	size_t ntops, cap;
	struct ranges funcs;	/* tops' address ranges -> index in tops */
};

/*
 * dwinfo_funcs() results by pc, direct-mapped: a drain asks about the
 * same return addresses once per stack that passes them (12000 stacks
 * through one malloc). The names point into the DWARF data, which lives
 * as long as the dwinfo.
 */
#define MEMO_SLOTS	1024

struct dw_memo {
	__u64 pc;
	int max, k;		/* the call's @max and its result */
	bool lines, used;
	struct dwinfo_func *out;	/* k + 1 entries when k >= 0 */
};

struct dwinfo {
	Dwarf *dw;
	struct ranges cus;	/* CU address ranges -> index in units */
	struct dw_unit *units;
	size_t nunits, cap;
	struct dw_memo *memo;	/* MEMO_SLOTS, on first use */
	unsigned int steps;	/* work since the last stop check */
};

/* True when the caller should give up (checked every so often). */
static bool tired(struct dwinfo *d)
{
	return !(++d->steps % PER_STOP_CHECK) && stop_requested();
}

/* Ranges at 0 are functions the linker dropped (--gc-sections). */
static int index_cus(struct dwinfo *d)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	__u8 type;
	int err = 0;

	while (!err && !dwarf_get_units(d->dw, cu, &cu, NULL, &type, &cudie,
					NULL)) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (tired(d))
			return -EINTR;
		if (type != DW_UT_compile)
			continue;
		if (array_ensure(&d->units, &d->cap, sizeof(*d->units),
				 d->nunits + 1))
			return -ENOMEM;
		memset(&d->units[d->nunits], 0, sizeof(d->units[0]));
		d->units[d->nunits].off = dwarf_dieoffset(&cudie);
		while (!err &&
		       (off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0)
			if (lo && lo < hi)
				err = ranges_add(&d->cus, lo, hi, d->nunits);
		d->nunits++;
	}
	ranges_finish(&d->cus);
	return err;
}

struct dwinfo *dwinfo_new(struct elf_file *f)
{
	struct dwinfo *d;
	int err;

	if (!elf_file_has_dwarf(f)) {
		errno = ENOENT;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	d->dw = dwarf_begin_elf(elf_file_elf(f), DWARF_C_READ, NULL);
	err = d->dw ? index_cus(d) : -ENOENT;
	if (err) {
		dwinfo_free(d);
		errno = -err;
		return NULL;
	}
	return d;
}

void dwinfo_free(struct dwinfo *d)
{
	size_t i;

	if (!d)
		return;
	dwarf_end(d->dw);
	ranges_clear(&d->cus);
	while (d->nunits--) {
		free(d->units[d->nunits].tops);
		ranges_clear(&d->units[d->nunits].funcs);
	}
	free(d->units);
	for (i = 0; d->memo && i < MEMO_SLOTS; i++)
		free(d->memo[i].out);
	free(d->memo);
	free(d);
}

static bool is_func(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/*
 * Descend from @die into the scope holding @pc, appending the function
 * DIEs met on the way (outermost first) to @fn. Namespaces and classes
 * have no addresses but may hold C++ function definitions.
 */
static bool descend(struct dwinfo *d, Dwarf_Die *die, __u64 pc,
		    Dwarf_Die *fn, int *k, int depth)
{
	Dwarf_Die c;
	int tag;

	if (depth > DW_MAX_DEPTH || dwarf_child(die, &c))
		return false;
	do {
		if (tired(d))
			return false;
		switch ((tag = dwarf_tag(&c))) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&c, pc) <= 0)
				break;
			if (is_func(tag) && *k < DW_MAX_DEPTH)
				fn[(*k)++] = c;
			descend(d, &c, pc, fn, k, depth + 1);
			return true;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (descend(d, &c, pc, fn, k, depth + 1))
				return true;
			break;
		}
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

/*
 * The scopes descend() would test from @die down, in its order: the
 * addressed ones (functions, blocks) are recorded, the containers
 * (namespaces, classes) walked into.
 */
static int collect_tops(struct dwinfo *d, struct dw_unit *u, Dwarf_Die *die,
			int depth)
{
	Dwarf_Die c;
	int err;

	if (depth > DW_MAX_DEPTH || dwarf_child(die, &c))
		return 0;
	do {
		if (tired(d))
			return -EINTR;
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (array_ensure(&u->tops, &u->cap, sizeof(*u->tops),
					 u->ntops + 1))
				return -ENOMEM;
			u->tops[u->ntops].off = dwarf_dieoffset(&c);
			u->tops[u->ntops++].depth = depth;
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			err = collect_tops(d, u, &c, depth + 1);
			if (err)
				return err;
			break;
		}
	} while (!dwarf_siblingof(&c, &c));
	return 0;
}

/*
 * Index @u's outermost scopes by address. descend() takes the first of
 * them holding the pc; ranges_find() the last added: so added last to
 * first. A scope's ranges are exactly what dwarf_haspc() tests.
 */
static void index_unit(struct dwinfo *d, struct dw_unit *u, Dwarf_Die *cu)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Die c;
	size_t i;
	int err;

	u->indexed = true;
	err = collect_tops(d, u, cu, 0);
	for (i = u->ntops; !err && i-- > 0;) {
		ptrdiff_t off = 0;

		if (!dwarf_offdie(d->dw, u->tops[i].off, &c))
			continue;
		while (!err && (off = dwarf_ranges(&c, off, &base, &lo,
						   &hi)) > 0)
			if (lo < hi)
				err = ranges_add(&u->funcs, lo, hi, i);
	}
	if (err)
		ranges_clear(&u->funcs);	/* nothing found, not a wrong find */
	ranges_finish(&u->funcs);
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

static void pc_line(Dwarf_Die *cu, __u64 pc, struct dwinfo_func *f)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
	int line;

	if (!l || dwarf_lineno(l, &line) || line <= 0)
		return;
	f->line = line;
	f->file = dwarf_linesrc(l, NULL, NULL);
}

/* Where the inlined instance @inl was called from. */
static void call_site(Dwarf_Die *inl, struct dwinfo_func *f)
{
	Dwarf_Attribute a;
	Dwarf_Word idx, line;
	Dwarf_Files *files;
	size_t nfiles;
	Dwarf_Die cu;

	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &line) ||
	    !line || line > INT32_MAX)
		return;
	f->line = line;
	if (!dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &idx) &&
	    dwarf_diecu(inl, &cu, NULL, NULL) &&
	    !dwarf_getsrcfiles(&cu, &files, &nfiles) && idx < nfiles)
		f->file = dwarf_filesrc(files, idx, NULL, NULL);
}

static int funcs_of(struct dwinfo *d, __u64 pc, struct dwinfo_func *out,
		    int max, bool lines)
{
	Dwarf_Die path[DW_MAX_DEPTH], fn[DWINFO_MAX_INLINE], cu, top;
	const struct range *r = ranges_find(&d->cus, pc);
	struct dw_unit *u;
	Dwarf_Addr entry;
	int n = 0, i, k = 0;

	if (!r || r->val >= d->nunits)
		return -ENOENT;
	u = &d->units[r->val];
	if (!dwarf_offdie(d->dw, u->off, &cu))
		return -ENOENT;
	if (max > DWINFO_MAX_INLINE)
		max = DWINFO_MAX_INLINE;
	if (!u->indexed)
		index_unit(d, u, &cu);
	/* the outermost scope holding pc, then down from it as descend() */
	r = ranges_find(&u->funcs, pc);
	if (r && r->val < u->ntops &&
	    dwarf_offdie(d->dw, u->tops[r->val].off, &top)) {
		if (is_func(dwarf_tag(&top)))
			path[n++] = top;
		descend(d, &top, pc, path, &n, u->tops[r->val].depth + 1);
	}
	/* a nested function's enclosing function is not its caller */
	for (i = n; i-- > 0 && k < max;) {
		fn[k++] = path[i];
		if (dwarf_tag(&path[i]) == DW_TAG_subprogram)
			break;
	}
	for (i = 0; i <= k; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		if (i < k) {
			out[i].name = die_name(&fn[i]);
			out[i].inlined = dwarf_tag(&fn[i]) !=
					 DW_TAG_subprogram;
			out[i].has_entry = !out[i].inlined &&
					   !dwarf_entrypc(&fn[i], &entry);
			out[i].entry = out[i].has_entry ? entry : 0;
		}
		if (!lines)
			continue;
		if (!i)
			pc_line(&cu, pc, &out[i]);
		else
			call_site(&fn[i - 1], &out[i]);
	}
	return k;
}

int dwinfo_funcs(struct dwinfo *d, __u64 pc, struct dwinfo_func *out,
		 int max, bool lines)
{
	struct dw_memo *m;
	int k;

	if (max > DWINFO_MAX_INLINE)
		max = DWINFO_MAX_INLINE;
	if (!d->memo)
		d->memo = calloc(MEMO_SLOTS, sizeof(*d->memo));
	if (!d->memo)
		return funcs_of(d, pc, out, max, lines);
	m = &d->memo[((pc * 0x9e3779b97f4a7c15ULL) >> 32) % MEMO_SLOTS];
	if (m->used && m->pc == pc && m->max == max && m->lines == lines) {
		if (m->k >= 0)
			memcpy(out, m->out, (m->k + 1) * sizeof(*out));
		return m->k;
	}
	k = funcs_of(d, pc, out, max, lines);
	/* a walk cut short by a stop is not the answer to keep */
	if (stop_requested())
		return k;
	free(m->out);
	m->out = NULL;
	m->used = false;
	if (k >= 0 && !(m->out = malloc((k + 1) * sizeof(*out))))
		return k;
	if (k >= 0)
		memcpy(m->out, out, (k + 1) * sizeof(*out));
	m->pc = pc;
	m->max = max;
	m->lines = lines;
	m->k = k;
	m->used = true;
	return k;
}
