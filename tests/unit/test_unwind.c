/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF unwind tables (src/unwind.c) and the BPF walker (bpf/unwind.bpf.h)
 * without root: the walker is compiled right here for the host, with
 * bpf_* stubs that read this process's memory and the store's in-memory
 * maps, and its stacks are compared with glibc's backtrace() (libgcc's
 * unwinder) frame for frame.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <linux/bpf.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <scry/addrspace.h>
#include <scry/elf.h>
#include <scry/fsafe.h>
#include <scry/obj.h>
#include <scry/proc.h>
#include <scry/stop.h>
#include <scry/unwind.h>
#include "check.h"

/* ---- the BPF walker, built for the host -------------------------------- */

#define SCRY_UNWIND_HOST	1
#define SCRY_UNWIND_STAT_BASE	0
#define SEC(name)
#define __uint(name, val)	int (*name)[val]
#define __type(name, val)	typeof(val) *name
#define __array(name, val)	typeof(val) *name[]
#ifndef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#endif

struct scry_uregs {
	__u64 ip;
	__u64 sp;
	__u64 bp;
};

static bool ustack_at_entry;
static __u64 host_stats[SCRY_UNWIND_NSTATS];

static void scry_stat(__u32 which)
{
	if (which < SCRY_UNWIND_NSTATS)
		host_stats[which]++;
}

static void *bpf_map_lookup_elem(void *map, const void *key);

/* bpf_probe_read_user: our own memory, faults reported, never taken */
static long bpf_probe_read_user(void *dst, __u32 size, const void *src)
{
	struct iovec l = { dst, size }, r = { (void *)src, size };

	if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != (ssize_t)size) {
		memset(dst, 0, size);
		return -14;
	}
	return 0;
}

static long bpf_loop(__u32 n, long (*fn)(__u32, void *), void *ctx, __u64 flags)
{
	__u32 i;

	(void)flags;
	for (i = 0; i < n; i++)
		if (fn(i, ctx))
			return i + 1;
	return n;
}

/* bpf_find_vma, for the host: this process's own /proc/self/maps */
struct scry_vma;
static int scry_vma_find_current(__u64 addr, struct scry_vma *v);

#include "../../bpf/unwind.bpf.h"

static __u64 vma_asks;		/* scry_vma_find_current calls */

static int scry_vma_find_current(__u64 addr, struct scry_vma *v)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char line[512], path[256];
	FILE *f = fopen("/proc/self/maps", "r");

	vma_asks++;
	memset(v, 0, sizeof(*v));
	v->kind = SCRY_VMA_NONE;
	while (f && fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %255s", &start,
			   &end, &off, &maj, &min, &ino, path) < 6 ||
		    addr < start || addr >= end)
			continue;
		v->start = start;
		v->end = end;
		v->pgoff = off >> 12;
		if (!strcmp(path, "[vdso]")) {
			v->kind = SCRY_VMA_VDSO;
		} else if (ino) {
			/* the kernel's dev_t encoding, as an inode has it */
			v->kind = SCRY_VMA_FILE;
			v->key.dev = (__u64)maj << 20 | min;
			v->key.ino = ino;
		} else {
			v->kind = SCRY_VMA_ANON;
		}
		break;
	}
	if (f)
		fclose(f);
	return 0;
}

/* What the maps would hold: the store's arrays and one process. */
static const struct scry_unwind_row *host_rows;
static __u32 host_nrows;
#define HOST_CHUNKS	64	/* 4M rows: more than any test makes */
static __u32 host_chunks[HOST_CHUNKS] = {
#define C8(n) n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7
	C8(0), C8(8), C8(16), C8(24), C8(32), C8(40), C8(48), C8(56)
#undef C8
};
static const struct scry_unwind_tinfo *host_tinfo;
static __u32 host_ntables;
static struct scry_unwind_proc host_proc;
static __u32 host_pid;		/* the pid unwind_procs knows */
static __u32 walk_pid;		/* the pid probe() unwinds as */
static struct unwind_store *store;
static struct scry_unwind_kstate host_kstate;
static struct scry_unwind_file host_file;
static bool files_hidden;	/* unwind_files empty: tables not built yet */

static void *bpf_map_lookup_elem(void *map, const void *key)
{
	__u32 k = *(const __u32 *)key;

	if (map == &unwind_files)
		return !files_hidden && !unwind_store_file_entry(store, key,
								&host_file) ?
		       &host_file : NULL;
	/* a chunk of unwind_rows stands for itself: its number */
	if (map == &unwind_rows)
		return k < unwind_chunks(host_nrows) ? &host_chunks[k] : NULL;
	if (map >= (void *)host_chunks &&
	    map < (void *)&host_chunks[HOST_CHUNKS]) {
		k += *(const __u32 *)map * SCRY_UNWIND_CHUNK_ROWS;
		return k < host_nrows ? (void *)&host_rows[k] : NULL;
	}
	if (map == &unwind_tables)
		return k < host_ntables ? (void *)&host_tinfo[k] : NULL;
	if (map == &unwind_procs)
		return k == host_pid ? &host_proc : NULL;
	return NULL;
}

/* ---- helpers ------------------------------------------------------------ */

#define NOFP __attribute__((noinline, optimize("omit-frame-pointer")))

static char libc_path[4096];
static __u64 libc_bias;

/* libc's path and load bias, straight from the dynamic linker */
static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (!strstr(info->dlpi_name, "/libc.so"))
		return 0;
	snprintf(libc_path, sizeof(libc_path), "%s", info->dlpi_name);
	libc_bias = info->dlpi_addr;
	return 1;
}

static struct obj_cache *cache;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
static struct addrspace *self_as;	/* this process's code mappings */

/* The table of the file at @path, as the file cache would build it. */
static struct unwind_table *build_path(const char *path, struct elf_file **ef)
{
	struct unwind_table *t;
	struct elf_file *f;
	int fd, err;

	fd = fsafe_open(path, NULL, NULL);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = elf_file_open(fd, path);
	close(fd);
	if (!f)
		return NULL;
	t = unwind_table_build(f);
	err = errno;
	if (ef && t)
		*ef = f;
	else
		elf_file_free(f);
	errno = err;
	return t;
}

static size_t count_cfa(const struct unwind_stats *st, unsigned int cfa)
{
	return st->cfa[cfa];
}

/* ---- table shape ------------------------------------------------------- */

static void test_libc_table(const struct unwind_table *t)
{
	const struct unwind_stats *st = unwind_table_stats(t);
	size_t n, i, bad = 0, rules;
	const struct scry_unwind_row *r = unwind_table_rows(t, &n);
	char msg[160];

	rules = st->rows - count_cfa(st, SCRY_UNWIND_CFA_NONE);
	snprintf(msg, sizeof(msg), "libc table has > 20000 rows (%zu, %zu with a rule)",
		 st->rows, rules);
	CHECK(st->rows > 20000, msg);
	snprintf(msg, sizeof(msg), "libc rows > 95%% rsp-based (%zu of %zu)",
		 count_cfa(st, SCRY_UNWIND_CFA_RSP), rules);
	CHECK(count_cfa(st, SCRY_UNWIND_CFA_RSP) * 100 > rules * 95, msg);
	CHECK(count_cfa(st, SCRY_UNWIND_CFA_PLT) >= 1, "libc table has the PLT rule");
	CHECK(count_cfa(st, SCRY_UNWIND_CFA_SIGNAL) >= 1, "libc table has a signal row");
	CHECK(count_cfa(st, SCRY_UNWIND_CFA_UNSUPPORTED) * 1000 < rules,
	      "libc: under 0.1% unsupported rows");
	snprintf(msg, sizeof(msg), "libc table built in under a second (%.1f ms)",
		 st->build_ms);
	CHECK(st->build_ms < 1000, msg);

	for (i = 1; i < n; i++)
		if (r[i].pc <= r[i - 1].pc ||
		    (r[i].cfa == r[i - 1].cfa && r[i].off == r[i - 1].off &&
		     r[i].rbp == r[i - 1].rbp))
			bad++;
	CHECK_INT(bad, 0, "rows strictly sorted, consecutive duplicates merged");
	CHECK(n && r[n - 1].cfa == SCRY_UNWIND_CFA_NONE, "table ends in a gap row");
}

/* __restore_rt, as the kernel returns to it: sigaction's sa_restorer */
static void test_signal_row(const struct unwind_table *t)
{
	struct sigaction sa = { .sa_handler = SIG_IGN }, old;
	const struct scry_unwind_row *r, *r1;
	__u64 rt;

	sigaction(SIGURG, &sa, NULL);
	sigaction(SIGURG, NULL, &old);
	rt = (__u64)(uintptr_t)old.sa_restorer;
	CHECK(rt != 0, "sigaction reports sa_restorer");
	r = unwind_table_find(t, rt - libc_bias);
	r1 = unwind_table_find(t, rt - 1 - libc_bias);
	CHECK(r && r->cfa == SCRY_UNWIND_CFA_SIGNAL, "__restore_rt row is a signal row");
	/* the handler's return address is rt: non-leaf frames look up rt - 1 */
	CHECK(r1 && r1->cfa == SCRY_UNWIND_CFA_SIGNAL, "__restore_rt - 1 is a signal row too");
}

/* ---- cross-check against libdw, pc by pc ------------------------------- */

struct regs {
	__u64 sp, bp, pc;
};

/* Where our row says the CFA and the caller's rbp are, for @g. */
static bool eval_row(const struct scry_unwind_row *r, const struct regs *g,
		     __u64 *cfa, int *rbp_off)
{
	__s64 off = r->off;

	if (r->cfa & SCRY_UNWIND_CFA_OFF8)
		off *= 8;
	switch (r->cfa & SCRY_UNWIND_CFA_MASK) {
	case SCRY_UNWIND_CFA_RSP:
		*cfa = g->sp + off;
		break;
	case SCRY_UNWIND_CFA_RBP:
		*cfa = g->bp + off;
		break;
	case SCRY_UNWIND_CFA_PLT:
		*cfa = g->sp + 8 + ((__s64)(g->pc & 15) >= off ? 8 : 0);
		break;
	default:
		return false;
	}
	*rbp_off = r->rbp == SCRY_UNWIND_RBP_SAME ? 0 :
		   r->rbp == SCRY_UNWIND_RBP_LOST ? 1 : -8 * r->rbp;
	return true;
}

/*
 * The same question asked of libdw directly and answered by evaluating
 * its DWARF expression: CFA value and rbp's save slot. -1: libdw has a
 * rule this evaluator (and the table) does not model.
 */
static int eval_libdw(Dwarf_Frame *fr, const struct regs *g, __u64 *cfa,
		      int *rbp_off)
{
	Dwarf_Op mem[3], *ops;
	__u64 stack[8];
	size_t nops, i;
	int sp = 0;

	if (dwarf_frame_cfa(fr, &ops, &nops) || !nops)
		return -1;
	for (i = 0; i < nops; i++) {
		const Dwarf_Op *o = &ops[i];

		if (sp >= 7)
			return -1;
		if (o->atom == DW_OP_bregx && (o->number == 6 || o->number == 7))
			stack[sp++] = (o->number == 7 ? g->sp : g->bp) + o->number2;
		else if (o->atom == DW_OP_breg7)
			stack[sp++] = g->sp + o->number;
		else if (o->atom == DW_OP_breg16)
			stack[sp++] = g->pc + o->number;
		else if (o->atom >= DW_OP_lit0 && o->atom <= DW_OP_lit31)
			stack[sp++] = o->atom - DW_OP_lit0;
		else if (sp >= 2 && o->atom == DW_OP_and)
			sp--, stack[sp - 1] &= stack[sp];
		else if (sp >= 2 && o->atom == DW_OP_ge)
			sp--, stack[sp - 1] = (__s64)stack[sp - 1] >= (__s64)stack[sp];
		else if (sp >= 2 && o->atom == DW_OP_shl)
			sp--, stack[sp - 1] <<= stack[sp];
		else if (sp >= 2 && o->atom == DW_OP_plus)
			sp--, stack[sp - 1] += stack[sp];
		else
			return -1;
	}
	if (sp != 1)
		return -1;
	*cfa = stack[0];
	if (dwarf_frame_register(fr, 6, mem, &ops, &nops))
		return -1;
	if (!nops)
		*rbp_off = ops ? 1 : 0;
	else if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		 ops[1].atom == DW_OP_plus_uconst)
		*rbp_off = (int)(__s64)ops[1].number;
	else
		*rbp_off = 1;
	return 0;
}

/* 1: agree, 0: disagree */
static int same_rule(const struct unwind_table *t, Dwarf_CFI *cfi, __u64 pc)
{
	const struct scry_unwind_row *r = unwind_table_find(t, pc);
	struct regs g = { .sp = 1 << 20, .bp = 1 << 30, .pc = pc };
	Dwarf_Op mem[3], *ops;
	Dwarf_Frame *fr;
	Dwarf_Addr s, e;
	__u64 cfa1, cfa2;
	int rbp1, rbp2, ok, ra;
	size_t nops;
	bool sig;

	if (dwarf_cfi_addrframe(cfi, pc, &fr))
		return !r;		/* no FDE: no row */
	ra = dwarf_frame_info(fr, &s, &e, &sig);
	if (!r) {
		ok = 0;
	} else if (sig) {
		ok = r->cfa == SCRY_UNWIND_CFA_SIGNAL;
	} else if (dwarf_frame_register(fr, ra, mem, &ops, &nops)) {
		ok = 0;
	} else if (!nops && ops) {
		ok = r->cfa == SCRY_UNWIND_CFA_END;
	} else if (nops != 2 || ops[0].atom != DW_OP_call_frame_cfa ||
		   ops[1].atom != DW_OP_plus_uconst || (__s64)ops[1].number != -8) {
		/* return address anywhere but CFA - 8 (vfork keeps it in rdi) */
		ok = r->cfa == SCRY_UNWIND_CFA_UNSUPPORTED;
	} else if (eval_libdw(fr, &g, &cfa1, &rbp1)) {
		ok = r->cfa == SCRY_UNWIND_CFA_UNSUPPORTED ||
		     (r->cfa & SCRY_UNWIND_CFA_MASK) == SCRY_UNWIND_CFA_DEREF_RBP;
	} else {
		ok = eval_row(r, &g, &cfa2, &rbp2) && cfa1 == cfa2 &&
		     (rbp1 == rbp2 || (rbp2 == 1 && rbp1 < 0));
	}
	free(fr);
	return ok;
}

static void test_vs_libdw(const struct unwind_table *t)
{
	size_t n, i, bad = 0, checked = 0;
	const struct scry_unwind_row *r = unwind_table_rows(t, &n);
	__u64 lo = UINT64_MAX, hi = 0;
	Dwarf_CFI *cfi;
	GElf_Phdr ph;
	size_t nph;
	char msg[128];
	int fd;
	Elf *e;

	fd = open(libc_path, O_RDONLY);
	e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	cfi = e ? dwarf_getcfi_elf(e) : NULL;
	CHECK(cfi != NULL, "libdw opens libc's CFI");
	if (!cfi)
		goto out;
	for (i = 0; !elf_getphdrnum(e, &nph) && i < nph; i++) {
		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X)) {
			lo = ph.p_vaddr;
			hi = ph.p_vaddr + ph.p_memsz;
		}
	}
	/* every row's first pc, and its last */
	for (i = 0; i + 1 < n; i++) {
		checked += 2;
		bad += !same_rule(t, cfi, r[i].pc);
		bad += !same_rule(t, cfi, r[i + 1].pc - 1);
	}
	snprintf(msg, sizeof(msg), "every row agrees with libdw at both ends (%zu pcs)",
		 checked);
	CHECK_INT(bad, 0, msg);
	srandom(42);
	for (bad = 0, i = 0; i < 1000; i++)
		bad += !same_rule(t, cfi, lo + random() % (hi - lo));
	CHECK_INT(bad, 0, "1000 random libc text pcs: our lookup = libdw's rule");
	dwarf_cfi_end(cfi);
out:
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
}

/* ---- mappings ---------------------------------------------------------- */

static void test_fmaps(const struct elf_file *libc)
{
	struct proc_map *m;
	size_t n, i;
	int found = 0, vdso = 0;
	__u64 bias = 0;
	struct stat st;

	/* by inode: ld.so's name may differ from the maps' (merged /usr) */
	if (stat(libc_path, &st))
		memset(&st, 0, sizeof(st));

	CHECK_INT(proc_maps_read(0, PROC_MAPS_CODE, &m, &n), 0,
		  "read own code mappings");
	CHECK(n > 0, "own code mappings: some");
	for (i = 0; i < n; i++) {
		CHECK(m[i].exec, "only executable mappings listed");
		if (proc_map_is_vdso(&m[i]))
			vdso = 1;
		if (m[i].ino == st.st_ino && m[i].dev == st.st_dev && !found)
			found = !elf_file_bias(libc, m[i].start, m[i].pgoff,
					       &bias);
	}
	CHECK(found, "libc's executable mapping listed");
	/* valgrind maps no vDSO */
	CHECK(vdso || !getauxval(AT_SYSINFO_EHDR), "vDSO listed");
	CHECK(bias == libc_bias, "load bias from maps + PT_LOAD = dl_iterate_phdr's");
	proc_maps_free(m, n);
	CHECK_INT(proc_maps_read(-1, 0, &m, &n), -ESRCH, "no such pid: -ESRCH");
}

/* ---- the walker against backtrace() ------------------------------------ */

#define MAXBT 256

static void *bt[MAXBT];
static int bt_n;
static struct scry_stack walked;
static int depth_left;
static int use_signal;

/* Registers here, the walker over the live stack, then backtrace(). */
NOFP static void probe(void)
{
	struct scry_uregs ur;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ur.ip), "=r"(ur.sp), "=r"(ur.bp));
	memset(&walked, 0, sizeof(walked));
	/* the stack's top, read first as scry_ustack() does (stack.bpf.h) */
	scry_uwin_fill(&host_kstate.win, ur.sp);
	scry_ustack_dwarf(walk_pid, host_proc.gen, &ur, &walked, &host_kstate);
	bt_n = backtrace(bt, MAXBT);
}

NOFP static void on_signal(int sig)
{
	(void)sig;
	probe();
}

NOFP static int deep(int n)
{
	int r;

	if (n <= 0) {
		probe();
		return 0;
	}
	r = deep(n - 1);
	__asm__ volatile("" : : "r"(r) : "memory");
	return r + 1;
}

static volatile int probed;

NOFP static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (!probed) {
		probed = 1;
		if (use_signal)
			raise(SIGUSR2);
		else if (depth_left)
			deep(depth_left);
		else
			probe();
	}
	return (x > y) - (x < y);
}

NOFP static void sort_and_probe(void)
{
	int v[64], i;

	for (i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	probed = 0;
	qsort(v, 64, sizeof(*v), cmp);
}

static void load_self(void)
{
	const struct addrspace_map *m;
	size_t nm, i;
	__u32 n;
	int np;

	host_pid = walk_pid = getpid();
	np = unwind_store_proc(store, self_as, &host_proc);
	/* and by identity, as for a process about to map them */
	m = addrspace_maps(self_as, &nm);
	for (i = 0; i < nm; i++)
		if (m[i].obj && !obj_is_vdso(m[i].obj))
			unwind_store_file(store, m[i].obj,
					  obj_id(m[i].obj)->dev,
					  obj_id(m[i].obj)->ino);
	unwind_store_vdso(store, cache);
	host_rows = unwind_store_rows(store, &host_nrows);
	host_tinfo = unwind_store_tinfo(store, &host_ntables);
	CHECK(np >= 3, "own process: tables for the binary, libc and ld.so");
	n = unwind_store_stats(store)->tables;
	CHECK(n >= 3, "store placed the tables");
}

/*
 * Our frames 1.. are return addresses, as backtrace()'s; frame 0 differs
 * (the captured pc vs. backtrace's return into probe). Under ASan,
 * backtrace() itself is intercepted and reports one more frame first:
 * start at its first frame inside this binary.
 */
static int compare_bt(const char *what)
{
	Dl_info self = {}, di;
	int i, k = 0, n, bad = 0;
	char msg[160];

	dladdr((void *)probe, &self);
	for (k = 0; k < bt_n; k++)
		if (dladdr(bt[k], &di) && di.dli_fbase == self.dli_fbase)
			break;
	n = bt_n - k;
	for (i = 1; i < n && i < (int)walked.nr; i++)
		if (walked.ip[i] != (__u64)(uintptr_t)bt[k + i])
			bad++;
	snprintf(msg, sizeof(msg), "%s: %u frames, backtrace() %d", what,
		 walked.nr, n);
	CHECK(walked.nr == (__u32)n && !bad, msg);
	if (walked.nr != (__u32)n || bad) {
		for (i = 0; i < MAXBT && (i < n || i < (int)walked.nr); i++) {
			__u64 a = i < (int)walked.nr ? walked.ip[i] : 0;

			memset(&di, 0, sizeof(di));
			dladdr((void *)(uintptr_t)a, &di);
			printf("#   %2d walker %#llx %-28s backtrace %p\n", i,
			       (unsigned long long)a, di.dli_sname ? di.dli_sname : "?",
			       i < n ? bt[k + i] : NULL);
		}
	}
	return k;
}

/* Distinct files the walked stack runs through (ASan adds its own). */
static __u64 files_on_stack(void)
{
	void *seen[16];
	Dl_info di;
	__u32 i, j, n = 0;

	for (i = 0; i < walked.nr; i++) {
		if (!dladdr((void *)(uintptr_t)walked.ip[i], &di))
			continue;
		for (j = 0; j < n && seen[j] != di.dli_fbase; j++)
			;
		if (j == n && n < 16)
			seen[n++] = di.dli_fbase;
	}
	return n;
}

static void test_walker(void)
{
	__u64 before[SCRY_UNWIND_NSTATS];
	int i, k;

	load_self();
	sort_and_probe();
	k = compare_bt("qsort comparator (no frame pointers, libc without)");
	CHECK(walked.nr > 1 && walked.ip[walked.nr - 1] == (__u64)(uintptr_t)bt[bt_n - 1],
	      "qsort stack ends where backtrace()'s does (_start)");
	CHECK(!(walked.flags & SCRY_STACK_TRUNCATED), "not truncated");
	for (i = 0; i < SCRY_UNWIND_NSTATS; i++)
		if (host_stats[i])
			printf("# %s: %llu\n", unwind_stat_name(i),
			       (unsigned long long)host_stats[i]);

	signal(SIGUSR2, on_signal);
	use_signal = 1;
	sort_and_probe();
	use_signal = 0;
	compare_bt("through a signal frame (__restore_rt)");

	memcpy(before, host_stats, sizeof(before));
	depth_left = 200;
	sort_and_probe();
	depth_left = 0;
	CHECK_INT(walked.nr, SCRY_MAX_FRAMES, "200-deep recursion: 127 frames");
	CHECK(walked.flags & SCRY_STACK_TRUNCATED, "200-deep recursion: truncated");
	CHECK_INT(host_stats[SCRY_UNWIND_STAT_DEPTH] - before[SCRY_UNWIND_STAT_DEPTH],
		  1, "depth limit counted once");
	for (i = 1; i < SCRY_MAX_FRAMES && k + i < bt_n; i++)
		if (walked.ip[i] != (__u64)(uintptr_t)bt[k + i])
			break;
	CHECK_INT(i, SCRY_MAX_FRAMES, "127 frames equal backtrace()'s first 127");

	/*
	 * A pid whose mapping list the frontend has not written yet (a
	 * process's first instructions): the walker asks the kernel which
	 * file maps each pc and finds the table by the file's identity. The
	 * stack is the same, frame for frame; two remembered mappings keep
	 * the questions to one per file.
	 */
	memcpy(before, host_stats, sizeof(before));
	vma_asks = 0;
	walk_pid = host_pid + 1;
	sort_and_probe();
	CHECK_INT(host_stats[SCRY_UNWIND_STAT_NO_PROC] - before[SCRY_UNWIND_STAT_NO_PROC],
		  1, "no mapping list for the pid: counted once");
	compare_bt("no mapping list: tables found through the kernel's mappings");
	/* (under ASan a third file, its qsort interceptor, joins in: two
	 * remembered mappings then no longer hold all of them) */
	if (files_on_stack() <= SCRY_UNWIND_VMA_CACHE)
		CHECK_INT(vma_asks, files_on_stack(), "one question per file on "
			  "the stack, however often it goes back and forth");
	else
		CHECK(vma_asks <= SCRY_UNWIND_VMA_ASKS, "questions within the "
		      "per-stack budget");

	/* a list of another generation (before an exec) is not used */
	walk_pid = host_pid;
	host_proc.gen++;
	sort_and_probe();
	host_proc.gen--;
	compare_bt("a stale list is ignored: same stack through the kernel");

	/* files without tables yet: one FP step each, counted */
	memcpy(before, host_stats, sizeof(before));
	files_hidden = true;
	walk_pid = host_pid + 1;
	sort_and_probe();
	files_hidden = false;
	walk_pid = host_pid;
	CHECK(host_stats[SCRY_UNWIND_STAT_NO_TABLE] > before[SCRY_UNWIND_STAT_NO_TABLE],
	      "no tables yet: counted as such");
	CHECK(walked.nr >= 1 && walked.ip[0], "FP steps still yield the pc");
}

/*
 * A function with 150k CFI rows (75k push/pop pairs): the table is built
 * in one pass, well under a second (replaying the FDE for every row, as
 * asking libdw row by row does, took minutes), and agrees with libdw.
 */
static void test_big_fde(void)
{
	char dir[] = "/tmp/scry-bigfde.XXXXXX", src[128], so[128], cmd[512];
	struct unwind_table *t;
	struct elf_file *ef = NULL;
	Dwarf_CFI *cfi;
	const struct scry_unwind_row *r;
	size_t n, i, bad = 0;
	double t0;
	FILE *f;

	if (!mkdtemp(dir))
		return;
	snprintf(src, sizeof(src), "%s/big.s", dir);
	snprintf(so, sizeof(so), "%s/big.so", dir);
	f = fopen(src, "w");
	if (f) {
		fprintf(f, "\t.text\n\t.globl big\n\t.type big,@function\n"
			"big:\n\t.cfi_startproc\n");
		for (i = 0; i < 75000; i++)
			fprintf(f, "\tpush %%rax\n\t.cfi_adjust_cfa_offset 8\n"
				"\tpop %%rax\n\t.cfi_adjust_cfa_offset -8\n");
		fprintf(f, "\tret\n\t.cfi_endproc\n\t.size big, .-big\n");
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib -o %s %s", so, src);
	CHECK(f && !system(cmd), "150k rows: fixture assembled");
	t0 = now_ms();
	t = build_path(so, &ef);
	t0 = now_ms() - t0;
	r = t ? unwind_table_rows(t, &n) : NULL;
	CHECK(r && n >= 150000, "150k rows: table built with every row");
	printf("# 150k-row FDE: %zu rows in %.1f ms\n", t ? n : 0, t0);
	CHECK(t && t0 < 1000, "150k rows: built in under a second");
	/* a few rows against libdw (each of its answers costs a replay) */
	cfi = ef ? dwarf_getcfi_elf(elf_file_elf(ef)) : NULL;
	for (i = 0; cfi && r && i + 1 < n; i += n / 16)
		bad += !same_rule(t, cfi, r[i].pc) +
		       !same_rule(t, cfi, r[i + 1].pc - 1);
	CHECK(cfi && !bad, "150k rows: rows agree with libdw");
	if (cfi)
		dwarf_cfi_end(cfi);
	unwind_table_free(t);
	elf_file_free(ef);
	/* asked to stop: the build gives up, and is not remembered */
	stop_request();
	errno = 0;
	t = build_path(so, NULL);
	CHECK(!t && errno == EINTR, "stop requested: the build gives up (EINTR)");
	unwind_table_free(t);
	stop_reset();
	unlink(src);
	unlink(so);
	rmdir(dir);
}

static void test_errors(void)
{
	struct unwind_store_maps m = { .rows_fd = -1, .max_rows = 10,
				       .tables_fd = -1, .max_tables = 4,
				       .procs_fd = -1, .files_fd = -1,
				       .gens_fd = -1 };
	struct unwind_store *s;
	struct scry_unwind_proc *p = calloc(1, sizeof(*p));

	char text[] = "/tmp/scry-unwind-text.XXXXXX";
	int fd = mkstemp(text);

	errno = 0;
	CHECK(!build_path("/nonexistent", NULL) && errno == ENOENT,
	      "missing file: NULL, ENOENT");
	CHECK(fd >= 0 && write(fd, "not ELF\n", 8) == 8 &&
	      !build_path(text, NULL) && errno == ENOEXEC,
	      "not ELF: NULL, ENOEXEC");
	if (fd >= 0) {
		close(fd);
		unlink(text);
	}
	CHECK(!build_path("/proc/self/status", NULL) && errno == EPERM,
	      "a /proc file is not even opened: NULL, EPERM");
	/* a store too small for libc: counted, not placed, no crash */
	s = unwind_store_new(&m);
	CHECK(s && p && unwind_store_proc(s, self_as, p) >= 0,
	      "tiny store: proc still built");
	CHECK(s && p && unwind_store_proc(s, NULL, p) == -ESRCH,
	      "no mappings known: -ESRCH");
	CHECK(s && unwind_store_stats(s)->rows_full > 0, "tiny store: rows_full counted");
	unwind_store_free(s);
	free(p);
}

/* The row a lookup's caller accepts: the index, or -1 when none covers @pc. */
static int row_taken(int i, __u32 pc)
{
	return i >= 0 && host_rows[i].pc <= pc ? i : -1;
}

/*
 * The bucket index finds the same row as a search of the whole table, at
 * both ends of every row, past the last and before the first.
 */
static void test_index(void)
{
	const struct scry_unwind_tinfo *ti;
	__u32 id, i, pc, bad = 0, checked = 0, indexed = 0, d;
	__u32 probe_pc[4];
	int want, got;

	for (id = 1; id < host_ntables; id++) {
		ti = &host_tinfo[id];
		indexed += ti->nbuckets > 0;
		for (i = 0; i < ti->nrows; i++) {
			pc = host_rows[ti->base + i].pc;
			probe_pc[0] = pc;
			probe_pc[1] = pc - 1;
			probe_pc[2] = pc + 1;
			probe_pc[3] = pc + 0x100000;
			for (d = 0; d < 4; d++) {
				want = row_taken(scry_unwind_row_find(
					ti->base, ti->nrows, probe_pc[d]),
					probe_pc[d]);
				got = row_taken(scry_unwind_row_lookup(
					ti, probe_pc[d]), probe_pc[d]);
				checked++;
				bad += want != got;
			}
		}
	}
	CHECK(indexed == host_ntables - 1, "every placed table has an index");
	CHECK(checked > 4 * 20000 && bad == 0,
	      "indexed row lookup == whole-table search at every row's ends");
}

int main(void)
{
	struct unwind_store_maps m = { .rows_fd = -1, .max_rows = 1 << 21,
				       .tables_fd = -1, .max_tables = 512,
				       .procs_fd = -1, .files_fd = -1,
				       .gens_fd = -1 };
	struct elf_file *libc = NULL;
	struct unwind_table *t;

	backtrace(bt, 1);	/* load libgcc_s before the maps are read */
	dl_iterate_phdr(find_libc, NULL);
	CHECK(libc_path[0] != 0, "libc found");
	t = build_path(libc_path, &libc);
	CHECK(t != NULL, "build libc's table");
	if (!t)
		return CHECK_DONE();
	cache = obj_cache_new();
	self_as = addrspace_new();
	CHECK(cache && self_as && !addrspace_read(self_as, cache, getpid()),
	      "own mappings into an address space");
	unwind_stats_print(stdout, "# libc", unwind_table_stats(t));
	test_libc_table(t);
	test_signal_row(t);
	test_vs_libdw(t);
	test_fmaps(libc);
	unwind_table_free(t);
	elf_file_free(libc);

	store = unwind_store_new(&m);
	CHECK(store != NULL, "in-memory store");
	if (store) {
		test_walker();
		test_index();
	}
	unwind_store_free(store);
	test_errors();
	test_big_fde();
	addrspace_free(self_as);
	obj_cache_free(cache);
	return CHECK_DONE();
}
