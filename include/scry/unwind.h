/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF unwind tables for the in-kernel user stack walker.
 *
 * A table is built once per file (src/unwind_table.c; the file cache,
 * obj.c, holds it) from its .eh_frame (.debug_frame when there is no
 * .eh_frame), compacted into 8-byte rows (include/scry/unwind_abi.h) and
 * shared by every process that maps the file. A store (src/unwind_store.c)
 * places tables into the BPF maps the walker reads (bpf/unwind.bpf.h) and
 * writes one mapping list per process. docs/UNWIND.md has the whole
 * picture.
 *
 * Typical use, in the frontend:
 *
 *	s = unwind_store_new(&(struct unwind_store_maps){ ...fds, sizes... });
 *	on SCRY_NOTICE_PID / SCRY_NOTICE_MAPS for pid, once the symbolizer
 *	has read its mappings:
 *		unwind_store_pid(s, pid, syms_addrspace(syms, pid));
 *	at the end: unwind_store_stats(s), unwind_store_free(s).
 */
#ifndef SCRY_UNWIND_H
#define SCRY_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include <scry/unwind_abi.h>

/* ---- one file's table ------------------------------------------------ */

struct unwind_table;
struct elf_file;
struct addrspace;
struct obj;
struct obj_cache;

struct unwind_stats {
	size_t fdes;			/* FDEs whose code lies in an executable segment */
	size_t rows;			/* rows after merging */
	size_t cfa[SCRY_UNWIND_CFA_COUNT];	/* rows per CFA rule */
	size_t rbp_saved;		/* rows that restore rbp from the stack */
	size_t rbp_lost;		/* rows whose rbp rule is not modelled */
	double build_ms;		/* wall time of the build */
};

/*
 * Rows one file may have (8 MiB of them). libc has 28k, python3 65k; a
 * file past this gets no table: frame pointers are used there, and the
 * store counts it (too_big).
 */
#define UNWIND_MAX_ROWS		(1U << 20)

/*
 * Build the table of @f from its .eh_frame (.debug_frame when there is
 * no .eh_frame), in time linear in its CFI. Returns NULL with errno set:
 * ENOENT when the file has no CFI, ENOEXEC when it is not a 64-bit ELF
 * file, EFBIG when its code lies above 4 GiB, E2BIG past UNWIND_MAX_ROWS,
 * EINTR when stop_requested(), ENOMEM.
 */
struct unwind_table *unwind_table_build(const struct elf_file *f);

void unwind_table_free(struct unwind_table *t);

/* Rows sorted by pc, ending in a CFA_NONE row past the last FDE. */
const struct scry_unwind_row *unwind_table_rows(const struct unwind_table *t,
						size_t *nrows);
const struct unwind_stats *unwind_table_stats(const struct unwind_table *t);

/* The row that covers ELF vaddr @pc, or NULL (outside every FDE). */
const struct scry_unwind_row *unwind_table_find(const struct unwind_table *t,
						__u64 pc);

/* Short names for messages: "rsp", "rbp", "plt", ...; "no-mapping", ... */
const char *unwind_cfa_name(unsigned int cfa);
const char *unwind_stat_name(unsigned int reason);

/* "NAME: N rows (rsp N, rbp N, ...), N FDEs, N ms" on one line. */
void unwind_stats_print(FILE *f, const char *name, const struct unwind_stats *st);

/* ---- the store: tables by file, placed into the walker's maps ---------- */

struct unwind_store;

/*
 * The walker's maps (bpf_map__fd / bpf_map__max_entries of unwind_rows,
 * unwind_tables, unwind_procs). rows_fd is unwind_rows, the array of
 * chunks: the store makes each chunk when its first row comes, up to
 * max_rows rows. rows_fd < 0 keeps everything in memory (tests, and the
 * host emulation of the walker); then max_rows and max_tables still
 * bound the store.
 */
struct unwind_store_maps {
	int rows_fd;
	__u32 max_rows;
	int tables_fd;
	__u32 max_tables;
	int procs_fd;
	int files_fd;			/* unwind_files: tables by identity */
	int gens_fd;			/* gens: which generation a list is of */
	/*
	 * The engine's who_epoch (bpf/maps.bpf.h), moved after each list
	 * or table written: walks kept from before are not taken. NULL:
	 * none.
	 */
	volatile __u32 *epoch;
};

struct unwind_store_stats {
	size_t files;			/* distinct files seen */
	size_t tables;			/* tables placed in the maps */
	size_t no_cfi;			/* files without usable CFI (FP fallback) */
	size_t failed;			/* files that could not be opened or read */
	size_t too_big;			/* files past UNWIND_MAX_ROWS (FP fallback) */
	size_t rows_full;		/* tables not placed: unwind_rows full */
	size_t tables_full;		/* tables not placed: unwind_tables full */
	size_t maps_dropped;		/* mappings past SCRY_UNWIND_MAX_MAPS */
	size_t procs;			/* processes written to unwind_procs */
	size_t procs_failed;		/* unwind_procs updates that failed (full) */
	size_t files_full;		/* unwind_files updates that failed */
	__u32 rows_used;		/* of max_rows: rows and index slots */
	__u32 chunks;			/* unwind_rows' chunks made */
	struct unwind_stats sum;	/* all placed tables together */
};

/* unwind_rows' chunks that hold @rows rows (unwind_abi.h). */
static inline __u32 unwind_chunks(__u32 rows)
{
	return (rows + SCRY_UNWIND_CHUNK_ROWS - 1) / SCRY_UNWIND_CHUNK_ROWS;
}

struct unwind_store *unwind_store_new(const struct unwind_store_maps *maps);
void unwind_store_free(struct unwind_store *s);

/*
 * Build and place the tables the mappings @as (of process @pid) need,
 * each file once per store (the files and their identity come from the
 * file cache), and write @pid's mapping list to unwind_procs, marked as
 * describing generation @gen of its address space (read it with
 * unwind_store_gen() BEFORE reading the mappings: should the process
 * exec in between, the list carries the old generation and the walker
 * ignores it, never the reverse). Call on a pid's first notice and again
 * after exec or a new executable mmap. Returns the number of mappings
 * with a table, or -errno (-ESRCH when @as is NULL: never read).
 */
int unwind_store_pid(struct unwind_store *s, int pid,
		     const struct addrspace *as, __u32 gen);

/* @pid's current generation as the engine counts it (0: none yet). */
__u32 unwind_store_gen(const struct unwind_store *s, int pid);

/*
 * Build and place the table of @o (about to be mapped by a process: an
 * exec or mmap scry holds) and make it findable under the inode (@dev,
 * @ino; user space dev_t) the process maps, before any of its code runs.
 * Returns 0, -ENOENT (no usable table), -EINTR (stop asked) or -errno.
 */
int unwind_store_file(struct unwind_store *s, struct obj *o, __u64 dev,
		      __u64 ino);

/* The vDSO's table, findable as {0, 0}: every process maps that image. */
int unwind_store_vdso(struct unwind_store *s, struct obj_cache *c);

/*
 * The unwind_files entry registered for kernel identity @key (also
 * without maps: the walker's host emulation reads it). 0 or -ENOENT.
 */
int unwind_store_file_entry(const struct unwind_store *s,
			    const struct scry_file_key *key,
			    struct scry_unwind_file *out);

/* The mapping list unwind_store_pid writes, without writing it. */
int unwind_store_proc(struct unwind_store *s, const struct addrspace *as,
		      struct scry_unwind_proc *out);

/* Drop @pid's mapping list (pid exited). */
void unwind_store_forget(struct unwind_store *s, int pid);

/*
 * The placed rows and table infos, as the maps hold them (index = id).
 * The rows are kept in memory only without a rows map (rows_fd < 0):
 * NULL otherwise, the map holds them.
 */
const struct scry_unwind_row *unwind_store_rows(const struct unwind_store *s,
						__u32 *nrows);
const struct scry_unwind_tinfo *unwind_store_tinfo(const struct unwind_store *s,
						   __u32 *ntables);

const struct unwind_store_stats *unwind_store_stats(const struct unwind_store *s);

#endif /* SCRY_UNWIND_H */
