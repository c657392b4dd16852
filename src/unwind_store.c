// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind store: places each file's table (built once, held by the
 * file cache) into the BPF maps the walker reads, and writes a mapping
 * list per process. Files are known by their obj: one library mapped by
 * many processes, or the same bytes under several inodes, is placed
 * once.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <scry/addrspace.h>
#include <scry/array.h>
#include <scry/elf.h>
#include <scry/obj.h>
#include <scry/unwind.h>

#define FILE_BUCKETS	256

/* One file seen in some process, with or without a placed table. */
struct ufile {
	struct ufile *next;
	const struct obj *obj;
	__u32 id;		/* unwind_tables id, 0: not placed */
	struct scry_file_key last;	/* the identity registered last */
	bool has_last;
};

/* An identity the walker may meet a placed table under (unwind_files). */
struct ukey {
	struct scry_file_key key;
	struct scry_unwind_file entry;
};

struct unwind_store {
	struct unwind_store_maps maps;
	struct ukey *keys;		/* every identity registered */
	size_t nkeys, cap_keys;
	struct scry_unwind_row *rows;	/* without a rows map: in memory */
	int *chunks;			/* unwind_rows' chunks, or -1 */
	__u32 nchunks;
	size_t page;			/* bytes */
	struct scry_unwind_tinfo *tinfo;
	__u32 ntables;			/* next id; 0 is never used */
	struct ufile *files[FILE_BUCKETS];
	struct unwind_store_stats stats;
	struct scry_unwind_proc proc;	/* scratch for unwind_store_pid */
};

/* The walker's lists or tables changed: what it kept is out of date. */
static void moved(struct unwind_store *s)
{
	if (s->maps.epoch)
		__atomic_fetch_add(s->maps.epoch, 1, __ATOMIC_SEQ_CST);
}

struct unwind_store *unwind_store_new(const struct unwind_store_maps *maps)
{
	struct unwind_store *s = calloc(1, sizeof(*s));
	long page = sysconf(_SC_PAGESIZE);

	if (!s)
		return NULL;
	s->maps = *maps;
	s->page = page > 0 ? page : 4096;
	if (!s->maps.max_tables || !s->maps.max_rows)
		goto fail;
	s->tinfo = calloc(s->maps.max_tables, sizeof(*s->tinfo));
	if (!s->tinfo)
		goto fail;
	s->ntables = 1;
	if (maps->rows_fd >= 0) {
		/* rows go straight to the map: write_rows */
		s->nchunks = unwind_chunks(s->maps.max_rows);
		s->chunks = malloc(s->nchunks * sizeof(*s->chunks));
		if (!s->chunks)
			goto fail;
		memset(s->chunks, -1, s->nchunks * sizeof(*s->chunks));
		return s;
	}
	s->rows = calloc(s->maps.max_rows, sizeof(*s->rows));
	if (s->rows)
		return s;
fail:
	free(s->tinfo);
	free(s);
	errno = ENOMEM;
	return NULL;
}

void unwind_store_free(struct unwind_store *s)
{
	struct ufile *f, *next;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < FILE_BUCKETS; i++) {
		for (f = s->files[i]; f; f = next) {
			next = f->next;
			free(f);
		}
	}
	for (i = 0; i < s->nchunks; i++)
		if (s->chunks[i] >= 0)
			close(s->chunks[i]);
	free(s->chunks);
	free(s->rows);
	free(s->tinfo);
	free(s->keys);
	free(s);
}

static void stats_add(struct unwind_stats *sum, const struct unwind_stats *st)
{
	size_t i;

	sum->fdes += st->fdes;
	sum->rows += st->rows;
	for (i = 0; i < SCRY_UNWIND_CFA_COUNT; i++)
		sum->cfa[i] += st->cfa[i];
	sum->rbp_saved += st->rbp_saved;
	sum->rbp_lost += st->rbp_lost;
	sum->build_ms += st->build_ms;
}

/*
 * One chunk put into unwind_rows by a thread of its own: the kernel
 * makes a map-of-maps update visible at once, then waits out an RCU
 * grace period before the bpf() call returns (17 ms here, most of a
 * start), for a caller that replaces or deletes an inner map; this one
 * fills an empty slot. The caller waits only for the slot to show the
 * chunk (chunk_put). Each side holds a reference; the last one frees.
 */
struct chunk_put {
	int outer, inner;	/* the thread's own dups */
	__u32 slot;
	int err;		/* the update's, once done */
	int done;
	int refs;
};

static void put_unref(struct chunk_put *p)
{
	if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL))
		return;
	close(p->outer);
	close(p->inner);
	free(p);
}

static void *put_thread(void *arg)
{
	struct chunk_put *p = arg;
	int err = 0;

	if (bpf_map_update_elem(p->outer, &p->slot, &p->inner, BPF_ANY))
		err = -errno;
	__atomic_store_n(&p->err, err, __ATOMIC_RELAXED);
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	put_unref(p);
	return NULL;
}

/* Put chunk @fd (map id @id) at @slot of unwind_rows: 0, or -errno. */
static int chunk_put(struct unwind_store *s, __u32 slot, int fd, __u32 id)
{
	struct chunk_put *p = calloc(1, sizeof(*p));
	pthread_attr_t attr;
	pthread_t t;
	__u32 got;
	int err = 0, i;

	if (!p)
		return -ENOMEM;
	p->slot = slot;
	p->refs = 2;
	p->outer = fcntl(s->maps.rows_fd, F_DUPFD_CLOEXEC, 0);
	p->inner = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (p->outer < 0 || p->inner < 0 || pthread_attr_init(&attr)) {
		p->refs = 1;
		put_unref(p);
		return -EMFILE;
	}
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, put_thread, p)) {
		pthread_attr_destroy(&attr);
		p->refs = 1;
		put_unref(p);
		return -EAGAIN;
	}
	pthread_attr_destroy(&attr);
	/* a slot reads as the id of the map in it; ~20 us, 1 s at most */
	for (i = 0; i < 20000; i++) {
		if (!bpf_map_lookup_elem(s->maps.rows_fd, &slot, &got) &&
		    got == id)
			break;
		if (__atomic_load_n(&p->done, __ATOMIC_ACQUIRE)) {
			err = __atomic_load_n(&p->err, __ATOMIC_RELAXED);
			if (err)
				break;
		}
		/* the thread may share this CPU: let it run first */
		if (i < 10)
			sched_yield();
		else
			usleep(50);
	}
	if (i == 20000)
		err = -ETIMEDOUT;
	put_unref(p);
	return err;
}

/*
 * unwind_rows' chunk @c: made, and put in unwind_rows, the first time a
 * row goes there. Its fd, or -errno.
 */
static int chunk_fd(struct unwind_store *s, __u32 c)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_MMAPABLE);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd, err;

	if (c >= s->nchunks)
		return -E2BIG;
	if (s->chunks[c] >= 0)
		return s->chunks[c];
	/* as unwind.bpf.h's template, or the kernel refuses it there */
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_chunk", sizeof(__u32),
			    sizeof(struct scry_unwind_row),
			    SCRY_UNWIND_CHUNK_ROWS, &o);
	if (fd < 0)
		return -errno;
	err = bpf_obj_get_info_by_fd(fd, &info, &len) ? -errno :
	      chunk_put(s, c, fd, info.id);
	if (err) {
		close(fd);
		return err;
	}
	s->chunks[c] = fd;
	s->stats.chunks++;
	return fd;
}

/*
 * @n rows at @first of chunk @fd. The chunk is BPF_F_MMAPABLE: the pages
 * that hold them are mapped for one memcpy, then unmapped. Not the whole
 * chunk for the run: the kernel maps every page of a BPF array at mmap(),
 * which would count in scry's RSS. Without mmap, one update per row
 * (slow, but once per file).
 */
static int write_chunk(struct unwind_store *s, int fd, __u32 first,
		       const struct scry_unwind_row *rows, size_t n)
{
	size_t sz = sizeof(*rows), off, len;
	void *p;
	__u32 i, key;

	/* first + n <= the chunk's rows: the window ends in its pages */
	off = first * sz / s->page * s->page;
	len = ((first + n) * sz - off + s->page - 1) / s->page * s->page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (p != MAP_FAILED) {
		memcpy((char *)p + (first * sz - off), rows, n * sz);
		munmap(p, len);
		return 0;
	}
	for (i = 0; i < n; i++) {
		key = first + i;
		if (bpf_map_update_elem(fd, &key, &rows[i], 0))
			return -errno;
	}
	return 0;
}

/* @n rows at @base of unwind_rows, chunk by chunk. */
static int write_rows(struct unwind_store *s, __u32 base,
		      const struct scry_unwind_row *rows, size_t n)
{
	__u32 c, first;
	size_t k;
	int fd, err;

	if (s->maps.rows_fd < 0) {
		memcpy(&s->rows[base], rows, n * sizeof(*rows));
		return 0;
	}
	while (n) {
		c = base / SCRY_UNWIND_CHUNK_ROWS;
		first = base % SCRY_UNWIND_CHUNK_ROWS;
		k = SCRY_UNWIND_CHUNK_ROWS - first;
		if (k > n)
			k = n;
		fd = chunk_fd(s, c);
		if (fd < 0)
			return fd;
		err = write_chunk(s, fd, first, rows, k);
		if (err)
			return err;
		base += k;
		rows += k;
		n -= k;
	}
	return 0;
}

/*
 * The bucket index of @n rows (scry_unwind_tinfo): buckets of a power of
 * two bytes, about one per two rows, so the walker's search in a bucket
 * takes a step or two instead of log2(n). Rows are unevenly spread (one
 * large function has many), so a bucket may still hold many: the search
 * stays a search, just a short one on average. Fills ti's index fields
 * and @slots (nbuckets + 1 of them, at most @room); false if they do not
 * fit, and the table goes without an index.
 */
static bool build_index(const struct scry_unwind_row *rows, size_t n,
			struct scry_unwind_row *slots, size_t room,
			struct scry_unwind_tinfo *ti)
{
	__u64 span, start, nb;
	__u32 shift = 4, b, i = 0;

	if (n < 2)
		return false;
	span = rows[n - 1].pc - rows[0].pc;	/* sorted: no wrap */
	while (shift < 31 && (span >> shift) + 1 > (n + 1) / 2)
		shift++;
	nb = (span >> shift) + 1;
	if (nb + 1 > room)
		return false;
	for (b = 0; b <= nb; b++) {
		start = rows[0].pc + ((__u64)b << shift);
		while (i + 1 < n && rows[i + 1].pc <= start)
			i++;
		slots[b] = (struct scry_unwind_row){ .pc = i };
	}
	ti->nbuckets = nb;
	ti->pc0 = rows[0].pc;
	ti->shift = shift;
	return true;
}

/* Give table @t an id and rows in the maps; rows before the id. */
static __u32 place(struct unwind_store *s, const struct unwind_table *t)
{
	struct unwind_store_stats *ss = &s->stats;
	__u32 base = ss->rows_used, id = s->ntables;
	size_t n, slots, room;
	const struct scry_unwind_row *rows = unwind_table_rows(t, &n);
	struct scry_unwind_row *buf;
	struct scry_unwind_tinfo ti;
	int err;

	if (id >= s->maps.max_tables) {
		ss->tables_full++;
		return 0;
	}
	if (n > s->maps.max_rows - base) {
		ss->rows_full++;
		return 0;
	}
	/*
	 * The rows and their index are written as one run of slots: they
	 * are put together here, then go through write_rows' window. The
	 * index needs at most (n + 1) / 2 + 1 slots (build_index's bucket
	 * count); a table whose index does not fit goes without one.
	 */
	room = s->maps.max_rows - base - n;
	if (room > (n + 1) / 2 + 1)
		room = (n + 1) / 2 + 1;
	buf = malloc((n + room + 1) * sizeof(*buf));	/* never 0 bytes */
	if (!buf) {
		ss->failed++;
		return 0;
	}
	memcpy(buf, rows, n * sizeof(*rows));
	slots = n;
	ti = (struct scry_unwind_tinfo){ .base = base, .nrows = n,
					 .index = base + n };
	if (build_index(rows, n, buf + n, room, &ti))
		slots = n + ti.nbuckets + 1;
	s->tinfo[id] = ti;
	err = write_rows(s, base, buf, slots);
	free(buf);
	if (err || (s->maps.tables_fd >= 0 &&
	    bpf_map_update_elem(s->maps.tables_fd, &id, &s->tinfo[id], 0))) {
		ss->failed++;
		return 0;
	}
	s->ntables++;
	moved(s);
	ss->rows_used += slots;
	ss->tables++;
	stats_add(&ss->sum, unwind_table_stats(t));
	return id;
}

static unsigned int obj_hash(const struct obj *o)
{
	return (unsigned int)(((__u64)(uintptr_t)o >> 4) % FILE_BUCKETS);
}

/* The store's entry for @o, placing its table on first sight. */
static struct ufile *file_of(struct unwind_store *s, struct obj *o)
{
	unsigned int h = obj_hash(o);
	const struct unwind_table *t;
	struct ufile *f;

	for (f = s->files[h]; f; f = f->next)
		if (f->obj == o)
			return f;
	t = obj_unwind(o);
	/* asked to stop: nothing learnt about the file, ask again later */
	if (!t && errno == EINTR)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->obj = o;
	f->next = s->files[h];
	s->files[h] = f;
	s->stats.files++;
	if (t) {
		f->id = place(s, t);
		/* placed, its rows are in the map; not placed, never will be */
		obj_unwind_release(o);
	} else if (errno == ENOENT || errno == EFBIG)
		s->stats.no_cfi++;
	else if (errno == E2BIG)
		s->stats.too_big++;
	else
		s->stats.failed++;
	return f;
}

/*
 * The unwind_files entry of table @id in ELF file @e: how a file offset
 * inside each executable PT_LOAD becomes the vaddr the rows use. A
 * mapping starts at the page holding a segment's first byte, so that
 * page counts as the segment's.
 */
static int file_entry(const struct elf_file *e, __u32 id,
		      struct scry_unwind_file *out)
{
	const struct elf_seg *seg;
	size_t n, i;

	memset(out, 0, sizeof(*out));
	out->table = id;
	seg = elf_file_segs(e, &n);
	for (i = 0; i < n && out->nsegs < SCRY_UNWIND_MAX_SEGS; i++) {
		__u64 off = seg[i].off & ~0xfffULL;

		if (!seg[i].exec || !seg[i].filesz)
			continue;
		out->seg[out->nsegs++] = (struct scry_unwind_seg){
			.off = off,
			.len = seg[i].off + seg[i].filesz - off,
			.delta = (__s64)(seg[i].vaddr - seg[i].off),
		};
	}
	return out->nsegs ? 0 : -ENOENT;
}

/*
 * Make @f's table findable under the kernel identity @key, so the walker
 * reaches it for any process that maps that inode, list written or not.
 * One obj may stand for several inodes (the same build-id): each is
 * registered as the walker meets it.
 */
static int register_key(struct unwind_store *s, struct ufile *f,
			const struct scry_file_key *key)
{
	struct scry_unwind_file entry = {};
	struct ukey *k;
	size_t i;

	/* a file is mapped under one inode, as a rule: asked once */
	if (f->has_last && !memcmp(&f->last, key, sizeof(*key)))
		return 0;
	f->last = *key;
	f->has_last = true;
	for (i = 0; i < s->nkeys; i++)
		if (!memcmp(&s->keys[i].key, key, sizeof(*key)))
			break;
	if (i == s->nkeys && array_ensure(&s->keys, &s->cap_keys,
					  sizeof(*s->keys), s->nkeys + 1))
		return -ENOMEM;
	k = &s->keys[i];
	if (!obj_elf(f->obj) || file_entry(obj_elf(f->obj), f->id, &entry))
		return -ENOENT;
	/* known, and still this file's: nothing to tell the kernel */
	if (i < s->nkeys && !memcmp(&k->entry, &entry, sizeof(entry)))
		return 0;
	/* else new, or the number now names another file: its table */
	k->key = *key;
	k->entry = entry;
	if (i == s->nkeys)
		s->nkeys++;
	if (s->maps.files_fd >= 0 &&
	    bpf_map_update_elem(s->maps.files_fd, key, &k->entry, 0)) {
		s->stats.files_full++;
		return -errno;
	}
	return 0;
}

int unwind_store_file(struct unwind_store *s, struct obj *o, __u64 dev,
		      __u64 ino)
{
	struct scry_file_key key = {
		.dev = obj_dev_to_kernel(dev), .ino = ino,
	};
	struct ufile *f = file_of(s, o);

	if (!f)
		return errno == EINTR ? -EINTR : -ENOMEM;
	if (!f->id)
		return -ENOENT;
	return register_key(s, f, &key);
}

int unwind_store_vdso(struct unwind_store *s, struct obj_cache *c)
{
	struct scry_file_key key = {};
	struct obj *o = obj_cache_vdso(c);
	struct ufile *f = o ? file_of(s, o) : NULL;

	if (!f || !f->id)
		return -ENOENT;
	return register_key(s, f, &key);
}

int unwind_store_file_entry(const struct unwind_store *s,
			    const struct scry_file_key *key,
			    struct scry_unwind_file *out)
{
	size_t i;

	for (i = 0; i < s->nkeys; i++) {
		if (!memcmp(&s->keys[i].key, key, sizeof(*key))) {
			*out = s->keys[i].entry;
			return 0;
		}
	}
	return -ENOENT;
}

int unwind_store_proc(struct unwind_store *s, const struct addrspace *as,
		      struct scry_unwind_proc *out)
{
	const struct addrspace_map *m;
	struct ufile *f;
	size_t n, i;
	__u64 bias;

	memset(out, 0, sizeof(*out));
	if (!as)
		return -ESRCH;
	m = addrspace_maps(as, &n);
	for (i = 0; i < n; i++) {
		if (!m[i].obj || !obj_elf(m[i].obj))
			continue;
		f = file_of(s, m[i].obj);
		if (!f || !f->id || elf_file_bias(obj_elf(m[i].obj),
						  m[i].start, m[i].pgoff,
						  &bias))
			continue;
		/*
		 * Findable by the inode too: the next process that maps the
		 * file (a compiler's next run) is unwound from its first
		 * sample, before its own list is written, or without one.
		 * Only an inode the file cache holds open: a number freed by
		 * a deleted file goes to the next file created, which is not
		 * this one.
		 */
		if (m[i].ino && obj_holds_inode(m[i].obj, m[i].dev, m[i].ino))
			register_key(s, f, &(struct scry_file_key){
				.dev = obj_dev_to_kernel(m[i].dev),
				.ino = m[i].ino });
		if (out->n == SCRY_UNWIND_MAX_MAPS) {
			s->stats.maps_dropped++;
			continue;
		}
		out->map[out->n++] = (struct scry_unwind_map){
			.start = m[i].start, .end = m[i].end,
			.bias = bias, .table = f->id,
		};
	}
	return out->n;
}

__u32 unwind_store_gen(const struct unwind_store *s, int pid)
{
	__u32 key = pid, gen = 0;

	if (s->maps.gens_fd >= 0 &&
	    bpf_map_lookup_elem(s->maps.gens_fd, &key, &gen))
		gen = 0;
	return gen;
}

int unwind_store_pid(struct unwind_store *s, int pid,
		     const struct addrspace *as, __u32 gen)
{
	__u32 key = pid;
	int n;

	n = unwind_store_proc(s, as, &s->proc);
	s->proc.gen = gen;
	if (n < 0 || s->maps.procs_fd < 0)
		return n;
	/* one update swaps the whole list: the walker never sees half */
	if (bpf_map_update_elem(s->maps.procs_fd, &key, &s->proc, 0)) {
		s->stats.procs_failed++;
		return -errno;
	}
	moved(s);
	s->stats.procs++;
	return n;
}

void unwind_store_forget(struct unwind_store *s, int pid)
{
	__u32 key = pid;

	if (s->maps.procs_fd >= 0 && !bpf_map_delete_elem(s->maps.procs_fd, &key))
		moved(s);
}

const struct scry_unwind_row *unwind_store_rows(const struct unwind_store *s,
						__u32 *nrows)
{
	*nrows = s->stats.rows_used;
	return s->rows;
}

const struct scry_unwind_tinfo *unwind_store_tinfo(const struct unwind_store *s,
						   __u32 *ntables)
{
	*ntables = s->ntables;
	return s->tinfo;
}

const struct unwind_store_stats *unwind_store_stats(const struct unwind_store *s)
{
	return &s->stats;
}
