/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF unwind tables as the BPF walker (bpf/unwind.bpf.h) reads them and
 * the frontend (src/unwind.c) writes them. Shapes only, valid on both
 * sides. docs/UNWIND.md explains the format and the walk.
 *
 * Three maps:
 *   unwind_rows    ARRAY_OF_MAPS  chunk -> ARRAY u32 -> struct
 *                         scry_unwind_row; every table's rows, one table
 *                         after the other (a bump allocator), row i in
 *                         chunk i >> SCRY_UNWIND_CHUNK_SHIFT, made by the
 *                         frontend when the first row goes there
 *   unwind_tables  ARRAY  table id -> struct scry_unwind_tinfo (where its
 *                         rows start, how many); id 0 means "no table"
 *   unwind_procs   HASH   tgid -> struct scry_unwind_proc (the process's
 *                         executable file mappings, sorted by address)
 *
 * Names carry a scry_ prefix: vmlinux.h already defines struct unwind_*.
 */
#ifndef SCRY_UNWIND_ABI_H
#define SCRY_UNWIND_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* How to find the CFA (the caller's rsp) at a pc: scry_unwind_row.cfa */
enum scry_unwind_cfa {
	SCRY_UNWIND_CFA_NONE = 0,	/* no FDE covers the pc (a gap) */
	SCRY_UNWIND_CFA_RSP,		/* CFA = rsp + off */
	SCRY_UNWIND_CFA_RBP,		/* CFA = rbp + off */
	SCRY_UNWIND_CFA_PLT,		/* CFA = rsp + 8 + ((rip & 15) >= off ? 8 : 0) */
	SCRY_UNWIND_CFA_DEREF_RBP,	/* CFA = *(rbp + off): gcc's stack realignment */
	SCRY_UNWIND_CFA_SIGNAL,		/* __restore_rt: registers in the rt_sigframe */
	SCRY_UNWIND_CFA_END,		/* return address undefined: outermost frame */
	SCRY_UNWIND_CFA_UNSUPPORTED,	/* any other rule: the walk stops here */
	SCRY_UNWIND_CFA_COUNT,
};

/*
 * Flag in scry_unwind_row.cfa: off counts 8-byte units. Frames larger
 * than 32 KiB exist (glibc's buffered_vfprintf: rsp + 33360).
 */
#define SCRY_UNWIND_CFA_OFF8	0x80
#define SCRY_UNWIND_CFA_MASK	0x7f

/* scry_unwind_row.rbp: how to restore the caller's rbp */
#define SCRY_UNWIND_RBP_SAME	0	/* unchanged (not saved, or same value) */
#define SCRY_UNWIND_RBP_LOST	0xff	/* undefined, or a rule we do not model */
/* any other k: saved at CFA - 8 * k */

/*
 * One row: from pc until the next row's pc, the rule is (cfa, off, rbp).
 * pc is the ELF virtual address (runtime address - load bias), low 32
 * bits: files whose code lies above 4 GiB get no table. The return
 * address is always at CFA - 8 (rows where CFI says otherwise are
 * UNSUPPORTED), and the caller's rsp is the CFA.
 */
struct scry_unwind_row {
	__u32 pc;
	__u8 cfa;		/* enum scry_unwind_cfa | SCRY_UNWIND_CFA_OFF8 */
	__u8 rbp;		/* SCRY_UNWIND_RBP_* or k */
	__s16 off;		/* CFA offset, bytes or 8-byte units (OFF8);
				 * PLT: the rip & 15 threshold */
};

/*
 * Rows per chunk of unwind_rows: 64Ki rows, 512 KiB. A start makes only
 * the chunks its tables fill (one for a program and libc), not the
 * --max-unwind-rows (16 MiB) a single array took, every page of it
 * zeroed and charged at creation (2.3 ms of a 21 ms start here).
 */
#define SCRY_UNWIND_CHUNK_SHIFT	16
#define SCRY_UNWIND_CHUNK_ROWS	(1U << SCRY_UNWIND_CHUNK_SHIFT)

/*
 * unwind_tables[id]: rows [base, base + nrows) of unwind_rows, by pc,
 * and their bucket index, so a lookup searches a few rows, not the whole
 * table: the file's range from pc0 (its first row's pc) is cut into
 * nbuckets buckets of 1 << shift bytes; the nbuckets + 1 slots of
 * unwind_rows from `index` hold, in their pc field, the table's row
 * (0-based) that covers each bucket's first byte (the last slot: its
 * last row). The row of a vaddr in bucket b lies between slots b and
 * b + 1, both included. nbuckets 0: no index (search all rows).
 */
struct scry_unwind_tinfo {
	__u32 base;
	__u32 nrows;
	__u32 index;
	__u32 nbuckets;
	__u32 pc0;
	__u32 shift;
};

/*
 * A file as the kernel knows it: its inode's superblock device, in the
 * kernel's dev_t encoding (major << 20 | minor, not user space's), and
 * the inode number. The vDSO, which has no file, is {0, 0}.
 */
struct scry_file_key {
	__u64 dev;
	__u64 ino;
};

/*
 * unwind_files[file]: the file's table, found from any process that maps
 * it, and how a file offset becomes the ELF vaddr its rows use: inside an
 * executable PT_LOAD [off, off + len), vaddr = offset + delta
 * (p_vaddr - p_offset). With it the walker needs no per-process list to
 * unwind through a mapping the kernel reports (bpf_find_vma).
 */
#define SCRY_UNWIND_MAX_SEGS	4

struct scry_unwind_seg {
	__u64 off;
	__u64 len;
	__s64 delta;
};

struct scry_unwind_file {
	__u32 table;		/* unwind_tables id, never 0 */
	__u32 nsegs;
	struct scry_unwind_seg seg[SCRY_UNWIND_MAX_SEGS];
};

#define SCRY_UNWIND_MAX_MAPS	256	/* executable file mappings per process */

/* One executable file mapping: [start, end), ELF vaddr = addr - bias */
struct scry_unwind_map {
	__u64 start;
	__u64 end;
	__u64 bias;
	__u32 table;		/* unwind_tables id, never 0 */
	__u32 pad;
};

struct scry_unwind_proc {
	__u32 n;		/* live entries of map[], sorted by start */
	__u32 gen;		/* address space it describes (abi.h: gens) */
	struct scry_unwind_map map[SCRY_UNWIND_MAX_MAPS];
};

/*
 * Why a user stack walk ended early or fell back to frame pointers. The
 * walker counts them with scry_stat(SCRY_UNWIND_STAT_BASE + reason); abi.h
 * reserves SCRY_UNWIND_NSTATS ids starting at SCRY_UNWIND_STAT_BASE.
 */
enum scry_unwind_stat {
	SCRY_UNWIND_STAT_NO_PROC = 0,	/* no mapping list yet: asked the kernel */
	SCRY_UNWIND_STAT_NO_MAPPING,	/* pc in no mapped file (JIT): one FP step */
	SCRY_UNWIND_STAT_NO_ROW,	/* pc in a file but no CFI row: one FP step */
	SCRY_UNWIND_STAT_NO_TABLE,	/* pc in a file without a table yet: FP step */
	SCRY_UNWIND_STAT_VMA_BUSY,	/* the kernel could not say (mmap lock): FP step */
	SCRY_UNWIND_STAT_FAULT,		/* unreadable stack memory: walk ends */
	SCRY_UNWIND_STAT_DEPTH,		/* more than SCRY_MAX_FRAMES frames */
	SCRY_UNWIND_STAT_UNSUPPORTED,	/* a CFI rule not modelled: walk ends */
	SCRY_UNWIND_NSTATS,
};

#endif /* SCRY_UNWIND_ABI_H */
