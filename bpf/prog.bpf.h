/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clause interpreter: runs a clause's program (include/scry/
 * prog_abi.h), which plan.c compiled into .rodata.
 *
 * Each probe kind's adapter exists once per clause slot (scry.bpf.c), so
 * every loaded program calls scry_run() with its clause as a constant.
 * scry_run() is a static subprogram: the verifier walks it in the caller's
 * context, with that constant, so every instruction it loads is a known
 * value and every `switch` folds to the one case the clause uses. A
 * clause is verified for what it does, no more; the interpreter loop
 * remains at run time, a few branches per instruction.
 */
#ifndef SCRY_PROG_BPF_H
#define SCRY_PROG_BPF_H

#include <scry/abi.h>

const volatile struct scry_clause_def clauses[SCRY_MAX_CLAUSES] = {};
const volatile struct scry_mapdef mapdefs[SCRY_MAX_MAPS] = {};
const volatile struct scry_keyspec keyspecs[SCRY_MAX_KEYSPECS] = {};
const volatile struct scry_outdef outdefs[SCRY_MAX_OUTS] = {};
const volatile char lits[SCRY_MAX_LITS][SCRY_LIT_MAX] = {};
const volatile __u64 start_ns = 0;	/* CLOCK_MONOTONIC at scry's start */
const volatile __u64 wall_offset_ns = 0;	/* CLOCK_REALTIME - MONOTONIC */
const volatile __u32 cpid = 0;		/* the -c command */

/* Initial value: min/max start at the far ends so the first event sets them. */
const struct scry_val scry_val_init = {
	.min = 0x7fffffffffffffffLL,
	.max = -0x7fffffffffffffffLL - 1,
};

#define VS(i)	s->vs[(i) & (SCRY_VSTACK - 1)]
#define SLOT(i)	s->slots[(i) & (SCRY_NSLOTS - 1)]

static __always_inline __s64 scry_field(const struct scry_event *ev, __u8 f)
{
	struct task_struct *t;

	switch (f) {
	case SCRY_F_PID:	return ev->pid;
	case SCRY_F_TID:	return ev->tid;
	case SCRY_F_UID:	return ev->uid;
	case SCRY_F_GID:	return ev->gid;
	case SCRY_F_CPU:	return ev->cpu;
	case SCRY_F_ARG0:	return ev->args[0];
	case SCRY_F_ARG1:	return ev->args[1];
	case SCRY_F_ARG2:	return ev->args[2];
	case SCRY_F_ARG3:	return ev->args[3];
	case SCRY_F_ARG4:	return ev->args[4];
	case SCRY_F_ARG5:	return ev->args[5];
	case SCRY_F_RETVAL:	return ev->retval;
	case SCRY_F_LATENCY:	return ev->latency_ns;
	case SCRY_F_STATE:	return ev->state;
	case SCRY_F_ERRNO:	return ev->retval < 0 ? -ev->retval : 0;
	case SCRY_F_FDPATH:	return ev->path;
	case SCRY_F_KSTACK:	return ev->kstack;
	case SCRY_F_USTACK:	return ev->ustack;
	case SCRY_F_NSECS:	return bpf_ktime_get_ns();
	case SCRY_F_ELAPSED:	return bpf_ktime_get_ns() - start_ns;
	case SCRY_F_WALLTIME:	return bpf_ktime_get_ns() + wall_offset_ns;
	case SCRY_F_CPID:	return cpid;
	case SCRY_F_RAND:	return bpf_get_prandom_u32();
	case SCRY_F_CGROUP:	return bpf_get_current_cgroup_id();
	case SCRY_F_CURTASK:	return (__s64)bpf_get_current_task();
	case SCRY_F_PROBE:	return ev->probe;
	case SCRY_F_PPID:
		t = (struct task_struct *)bpf_get_current_task();
		return BPF_CORE_READ(t, real_parent, tgid);
	default:		return 0;
	}
}

/* A string by content hash into `strings`; 0 when it cannot be stored. */
static __always_inline __u64 scry_string_store(const struct scry_path *p)
{
	__u64 h = 0xcbf29ce484222325ULL;
	int err, i;

	for (i = 0; i < SCRY_PATH_MAX; i++) {
		if (i >= p->len)
			break;
		h = (h ^ (__u8)p->str[i & (SCRY_PATH_MAX - 1)]) *
		    0x100000001b3ULL;
	}
	h ^= p->flags;
	if (!h)
		h = 1;
	if (bpf_map_lookup_elem(&strings, &h))
		return h;
	err = scry_map_err(bpf_map_update_elem(&strings, &h, p, BPF_NOEXIST));
	if (err && err != -EEXIST) {
		scry_stat(SCRY_STAT_STRING_FULL);
		return 0;
	}
	return h;
}

/* User memory below the kernel's half: the address says whose it is. */
static __always_inline bool scry_kernel_addr(__u64 a)
{
	return (__s64)a < 0;
}

static __always_inline void scry_read_str(struct scry_path *dst, __u64 addr,
					  __u32 max)
{
	long n;

	if (!max || max > SCRY_PATH_MAX)
		max = SCRY_PATH_MAX;
	if (scry_kernel_addr(addr))
		n = bpf_probe_read_kernel_str(dst->str, max, (void *)addr);
	else
		n = bpf_probe_read_user_str(dst->str, max, (void *)addr);
	if (n < 1) {
		dst->str[0] = '\0';
		n = 1;
	}
	dst->len = n - 1;
	dst->flags = 0;
}

/* Two strings: same length, same bytes. */
static __always_inline bool scry_str_eq(const struct scry_path *a,
					const struct scry_path *b)
{
	__u32 n = a->len;
	int i;

	if (n != b->len)
		return false;
	for (i = 0; i < SCRY_PATH_MAX; i++) {
		if (i >= n)
			break;
		if (a->str[i] != b->str[i])
			return false;
	}
	return true;
}

/* Signed division as C has it (truncating); x / 0 = 0, x % 0 = x. */
static __always_inline __s64 scry_div(__s64 a, __s64 b, bool mod)
{
	__u64 ua = a < 0 ? -(__u64)a : (__u64)a;
	__u64 ub = b < 0 ? -(__u64)b : (__u64)b;
	__u64 r;

	if (!b)
		return mod ? a : 0;
	if (mod) {
		r = ua % ub;
		return a < 0 ? -(__s64)r : (__s64)r;
	}
	r = ua / ub;
	return (a < 0) != (b < 0) ? -(__s64)r : (__s64)r;
}

/*
 * Log2 slot, see abi.h: 0 negative, 1 zero, k+1 for [2^(k-1), 2^k).
 * The slot goes through @mem (scry_opaque) before anything compares it:
 * the 64 paths of the log2 meet again (2,507 instructions verified of a
 * malloc uprobe's scry_run before, 1,550 after).
 */
static __always_inline __u32 scry_qslot(__s64 v, volatile __u32 *mem)
{
	__u64 x = v;
	__u32 k = 0;

	if (v < 0)
		return SCRY_QSLOT_NEG;
	if (v == 0)
		return SCRY_QSLOT_ZERO;
	if (x >> 32) { k += 32; x >>= 32; }
	if (x >> 16) { k += 16; x >>= 16; }
	if (x >> 8)  { k += 8;  x >>= 8; }
	if (x >> 4)  { k += 4;  x >>= 4; }
	if (x >> 2)  { k += 2;  x >>= 2; }
	if (x >> 1)  { k += 1; }
	/* x in [2^k, 2^(k+1)) lives in slot k + 2 */
	k = scry_opaque(mem, k + 2);
	return k < SCRY_NBUCKETS ? k : SCRY_NBUCKETS - 1;
}

static __always_inline __u32 scry_lqslot(__s64 v, __s64 low, __s64 step,
					 __u32 levels)
{
	__u64 i;

	if (v < low)
		return 0;
	/*
	 * v >= low and step > 0 (plan.c checks): the distance fits a __u64
	 * (not always an __s64), and unsigned division is exact
	 */
	i = ((__u64)v - (__u64)low) / (__u64)step;
	if (i >= levels)
		return levels + 1;
	return i + 1;
}

static __always_inline void scry_atomic_min(__s64 *p, __s64 v)
{
	int i;

	for (i = 0; i < 4; i++) {
		__s64 old = *p;

		if (v >= old || __sync_val_compare_and_swap(p, old, v) == old)
			return;
	}
}

static __always_inline void scry_atomic_max(__s64 *p, __s64 v)
{
	int i;

	for (i = 0; i < 4; i++) {
		__s64 old = *p;

		if (v <= old || __sync_val_compare_and_swap(p, old, v) == old)
			return;
	}
}

/*
 * The value of @key in @map (aggs or aggs_alt), created when it is new;
 * NULL, counted, when it cannot be. Called with each map as a constant,
 * so the verifier inlines each lookup: a map pointer chosen at run time
 * takes the helper's indirect call (~14 ns more per lookup here).
 */
static __always_inline struct scry_val *scry_agg_val(void *map,
						     const struct scry_key *key)
{
	struct scry_val *val = bpf_map_lookup_elem(map, key);
	int err;

	if (val)
		return val;
	err = scry_map_err(bpf_map_update_elem(map, key, &scry_val_init,
					       BPF_NOEXIST));
	/*
	 * -E2BIG: full, --max-keys. -ENOMEM: a map that fills as keys
	 * arrive (attach.c) got no memory for one, however much room is
	 * left.
	 */
	if (err && err != -EEXIST) {
		scry_stat(err == -ENOMEM ? SCRY_STAT_AGG_NOMEM :
			  SCRY_STAT_AGG_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(map, key);
}

/*
 * Keys that repeat on a CPU add up there (abi.h: struct scry_pend), for
 * plans whose maps only the last drain reads (attach.c).
 */
const volatile bool agg_pend = false;
const volatile __u32 key_words = 10;	/* the maps' key: plan_key_size / 8 */

/* @a and @b the same key, in the prefix the maps hold? */
static __always_inline bool scry_key_same(const struct scry_key *a,
					  const struct scry_key *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	int i;

	for (i = 0; i < (int)(sizeof(*a) / 8); i++)
		if (i < key_words && x[i] != y[i])
			return false;
	return true;
}

/* The histogram slot of @v for map @md, SCRY_NBUCKETS for none. */
static __always_inline __u32 scry_agg_slot(const volatile struct scry_mapdef *md,
					   __s64 v, volatile __u32 *opaque)
{
	if (md->agg == SCRY_AGG_QUANTIZE)
		return scry_qslot(v, opaque);
	if (md->agg == SCRY_AGG_LQUANTIZE)
		return scry_lqslot(v, md->lq_low, md->lq_step, md->lq_levels);
	return SCRY_NBUCKETS;
}

static __always_inline bool scry_agg_hist(const volatile struct scry_mapdef *md)
{
	return md->agg == SCRY_AGG_QUANTIZE || md->agg == SCRY_AGG_LQUANTIZE;
}

/*
 * What @p holds added to its key's value in its map, with atomics as
 * every event's (another CPU adds to the same value), and @p emptied. Its
 * key is in the map: its first event put it there (scry_aggregate).
 */
static __always_inline void scry_pend_flush(struct scry_pend *p)
{
	const volatile struct scry_mapdef *md =
		&mapdefs[p->key.map & (SCRY_MAX_MAPS - 1)];
	struct scry_val *val;

	p->state = 0;
	if (p->side) {
		val = bpf_map_lookup_elem(&aggs_alt, &p->key);
	} else {
		asm volatile("");
		val = bpf_map_lookup_elem(&aggs, &p->key);
	}
	if (!val)
		return;		/* never: nothing deletes keys in these plans */
	if (scry_agg_hist(md))
		__sync_fetch_and_add(&val->slots[p->slot & (SCRY_NBUCKETS - 1)],
				     p->count);
	else
		__sync_fetch_and_add(&val->count, p->count);
	if (md->agg == SCRY_AGG_COUNT)
		return;
	__sync_fetch_and_add(&val->sum, p->sum);
	scry_atomic_min(&val->min, p->min);
	scry_atomic_max(&val->max, p->max);
}

/*
 * The event belongs to @p's key, already in the map, and (a histogram's)
 * to its slot: add it to @p, with no atomics and no lookup. true if it
 * did.
 */
static __always_inline bool scry_pend_add(struct scry_scratch *s,
					  const volatile struct scry_mapdef *md,
					  __s64 v)
{
	struct scry_pend *p = &s->pend;
	__u32 slot = SCRY_NBUCKETS;

	if (!p->state || p->side != side || !scry_key_same(&p->key, &s->key))
		return false;
	if (scry_agg_hist(md)) {
		slot = scry_agg_slot(md, v, &s->opaque);
		if (p->state == SCRY_PEND_ADDING && slot != p->slot)
			return false;
	}
	if (p->state == SCRY_PEND_SEEN) {
		p->state = SCRY_PEND_ADDING;
		p->slot = slot;
		p->count = 0;
		p->sum = 0;
		p->min = scry_val_init.min;
		p->max = scry_val_init.max;
	}
	p->count++;
	if (md->agg == SCRY_AGG_COUNT)
		return true;
	p->sum += v;
	if (v < p->min)
		p->min = v;
	if (v > p->max)
		p->max = v;
	return true;
}

#define SCRY_PEND_ADDED		0	/* added up in s->pend: done */
#define SCRY_PEND_DIRECT	1	/* not: to the map */
#define SCRY_PEND_FLUSH		2	/* not: to the map, after s->pend's */

/*
 * Whether the event of map @m, value @v, adds up in s->pend
 * (scry_pend_add). A global function: the verifier checks the key's
 * comparison and the pend's states once, not on every path of every
 * clause program into each aggregation (offcpu's sched_switch program
 * took 45-50 ms to load with them inlined, 22 without).
 */
__attribute__((noinline))
int scry_pend_try(struct scry_scratch *s, __u32 m, __s64 v)
{
	if (!s)
		return SCRY_PEND_DIRECT;
	if (scry_pend_add(s, &mapdefs[m & (SCRY_MAX_MAPS - 1)], v))
		return SCRY_PEND_ADDED;
	return s->pend.state == SCRY_PEND_ADDING ? SCRY_PEND_FLUSH :
	       SCRY_PEND_DIRECT;
}

/* Add v to map @m's aggregation under s->key. */
static __always_inline void scry_aggregate(struct scry_scratch *s, __u32 m,
					   __s64 v)
{
	const volatile struct scry_mapdef *md = &mapdefs[m];
	/* END's, run once stopped, go to the map: the stop took the rest */
	bool pend = agg_pend && !scry_stopped();
	struct scry_val *val;
	__u32 slot;

	if (pend) {
		int r = scry_pend_try(s, m, v);

		if (r == SCRY_PEND_ADDED) {
			scry_stat(SCRY_STAT_EVENTS);
			return;
		}
		if (r == SCRY_PEND_FLUSH)
			scry_pend_flush(&s->pend);
		s->pend.state = 0;
	}
	/* one side for the whole update (the asm keeps the calls apart) */
	if (side) {
		val = scry_agg_val(&aggs_alt, &s->key);
	} else {
		asm volatile("");
		val = scry_agg_val(&aggs, &s->key);
	}
	if (!val)
		return;
	if (pend) {
		/* in the map: its next events in a row may add up here */
		__builtin_memcpy(&s->pend.key, &s->key, sizeof(s->key));
		s->pend.side = side;
		s->pend.state = SCRY_PEND_SEEN;
	}
	scry_stat(SCRY_STAT_EVENTS);
	/*
	 * A histogram's count is the sum of its slots (drain.c take_key):
	 * one locked add less per event
	 */
	if (!scry_agg_hist(md))
		__sync_fetch_and_add(&val->count, 1);
	if (md->agg == SCRY_AGG_COUNT)
		return;
	__sync_fetch_and_add(&val->sum, v);
	scry_atomic_min(&val->min, v);
	scry_atomic_max(&val->max, v);
	slot = scry_agg_slot(md, v, &s->opaque);
	if (slot < SCRY_NBUCKETS)
		__sync_fetch_and_add(&val->slots[slot], 1);
}

/*
 * s->key for keyspec @k: columns read from the event, or popped, the
 * first popped one at vs[base].
 */
static __always_inline void scry_build_key(struct scry_scratch *s, __u32 k,
					   __u32 base)
{
	const volatile struct scry_keyspec *ks = &keyspecs[k];
	struct scry_key *key = &s->key;
	__u32 j = base;
	__s64 v;
	int i;

	__builtin_memset(key, 0, sizeof(*key));
	key->map = ks->map;
	for (i = 0; i < SCRY_MAX_KEYCOLS; i++) {
		__u8 src = ks->src[i], dst = ks->dst[i];

		if (i >= ks->ncols)
			break;
		if (dst == SCRY_KC_COMM) {
			if (src)
				__builtin_memcpy(key->comm, s->ev.comm,
						 sizeof(key->comm));
			else
				__builtin_memcpy(key->comm, SLOT(VS(j++)).str,
						 sizeof(key->comm));
			continue;
		}
		v = src ? scry_field(&s->ev, src) : VS(j++);
		if (dst < SCRY_KC_STR0)
			key->ints[dst & 3] = v;
		else if (dst < SCRY_KC_COMM)
			key->ints[dst & 3] = scry_string_store(&SLOT(v));
		else if (dst == SCRY_KC_KSTACK)
			key->kstack = v;
		else if (dst == SCRY_KC_USTACK) {
			key->ustack = v;
			key->pid = s->ev.pid;
			key->gen = s->ev.gen;
		} else if (dst == SCRY_KC_PID)
			key->pid = v;
	}
}

/* How many columns of keyspec @k are popped. */
static __always_inline __u32 scry_key_pops(__u32 k)
{
	const volatile struct scry_keyspec *ks = &keyspecs[k];
	__u32 n = 0;
	int i;

	for (i = 0; i < SCRY_MAX_KEYCOLS; i++)
		if (i < ks->ncols && !ks->src[i])
			n++;
	return n;
}

static __always_inline struct scry_tls *scry_tls(bool create)
{
	struct scry_tls *t;

	t = bpf_task_storage_get(&tls, bpf_get_current_task_btf(), 0,
				 create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (!t && create)
		scry_stat(SCRY_STAT_TLS_ERR);
	return t;
}

/* A record in `events`: its values popped from vs[base..]. */
static __always_inline void scry_out(struct scry_scratch *s, __u32 o,
				     __u32 base)
{
	const volatile struct scry_outdef *od = &outdefs[o];
	struct scry_out_hdr *h;
	__u32 off = sizeof(*h), j = base;
	void *rec;
	int i;

	rec = bpf_ringbuf_reserve(&events, od->size, 0);
	if (!rec) {
		scry_stat(SCRY_STAT_OUT_LOST);
		return;
	}
	h = rec;
	h->out = o;
	h->pid = s->ev.pid;
	h->tid = s->ev.tid;
	h->cpu = s->ev.cpu;
	h->ts_ns = bpf_ktime_get_ns();
	for (i = 0; i < SCRY_MAX_OUT_ARGS; i++) {
		if (i >= od->nargs)
			break;
		if (od->args[i] == SCRY_OUT_STR) {
			__builtin_memcpy(rec + off, &SLOT(VS(j)),
					 sizeof(struct scry_path));
			off += sizeof(struct scry_path);
		} else {
			*(__s64 *)(rec + off) = VS(j);
			off += sizeof(__s64);
		}
		j++;
	}
	bpf_ringbuf_submit(rec, 0);
}

/*
 * join(ARGV): the strings of a NULL-terminated array of pointers (execve's
 * argv), at most SCRY_JOIN_ARGS of them, SCRY_JOIN_LEN bytes each.
 */
static __always_inline void scry_join(struct scry_scratch *s, __u32 o,
				      __u64 addr)
{
	struct scry_out_hdr *h;
	__u64 p, *n;
	bool more = true;
	char *rec, *dst;
	int i;

	rec = bpf_ringbuf_reserve(&events, sizeof(*h) + sizeof(*n) +
				  SCRY_JOIN_ARGS * SCRY_JOIN_LEN, 0);
	if (!rec) {
		scry_stat(SCRY_STAT_OUT_LOST);
		return;
	}
	h = (void *)rec;
	h->out = o;
	h->pid = s->ev.pid;
	h->tid = s->ev.tid;
	h->cpu = s->ev.cpu;
	h->ts_ns = bpf_ktime_get_ns();
	n = (void *)(h + 1);
	*n = 0;
	for (i = 0; i < SCRY_JOIN_ARGS; i++) {
		dst = (char *)(n + 1) + i * SCRY_JOIN_LEN;
		dst[0] = '\0';
		if (!more)
			continue;
		p = 0;
		if ((scry_kernel_addr(addr) ?
		     bpf_probe_read_kernel(&p, sizeof(p), (void *)(addr + i * 8)) :
		     bpf_probe_read_user(&p, sizeof(p), (void *)(addr + i * 8))) ||
		    !p) {
			more = false;
			continue;
		}
		if (scry_kernel_addr(p))
			bpf_probe_read_kernel_str(dst, SCRY_JOIN_LEN, (void *)p);
		else
			bpf_probe_read_user_str(dst, SCRY_JOIN_LEN, (void *)p);
		*n = i + 1;
	}
	bpf_ringbuf_submit(rec, 0);
}

static __always_inline __s64 scry_read_int(__u64 addr, __u32 size,
					   bool is_signed, bool user)
{
	__u64 v = 0;
	int shift;

	size &= 0xf;
	if (size > 8)
		size = 8;
	if (!size || (scry_kernel_addr(addr) && !user ?
		      bpf_probe_read_kernel(&v, size, (void *)addr) :
		      bpf_probe_read_user(&v, size, (void *)addr)))
		return 0;
	if (is_signed && size < 8) {
		shift = 64 - size * 8;
		return (__s64)(v << shift) >> shift;
	}
	return v;
}

/* A tracepoint's string field @f (char[N] or __data_loc) into @dst. */
static __always_inline void scry_tp_str(void *ctx, __u32 c, __u32 f,
					struct scry_path *dst)
{
	const volatile struct scry_tp_field *tf = &clauses[c].tp[f & 7];
	__u16 off = tf->offset;
	__u32 loc = 0;
	long n;

	if (tf->kind == SCRY_TP_DATA_LOC) {
		bpf_probe_read_kernel(&loc, sizeof(loc), ctx + off);
		off = loc & 0xffff;
	}
	n = bpf_probe_read_kernel_str(dst->str, SCRY_PATH_MAX, ctx + off);
	if (n < 1) {
		dst->str[0] = '\0';
		n = 1;
	}
	dst->len = n - 1;
	dst->flags = 0;
}

/*
 * The first statement of a rare operation's case (prog_abi.h
 * SCRY_OPS_RARE): in the lean build it is malformed code there, and
 * clang drops the rest of the case, and what only it calls.
 */
#ifdef SCRY_LEAN
#define SCRY_RARE(op)							\
	do {								\
		if (SCRY_OPS_RARE & SCRY_OP_BIT(op))			\
			goto bad;					\
	} while (0)
#else
#define SCRY_RARE(op)	do { } while (0)
#endif

/* scry_run() of a body stopped at SCRY_OP_STACKS: walk, then resume */
#define SCRY_RUN_STACKS	2

/*
 * Run clause @c's begin program (@begin: its result, true when empty)
 * or its body from instruction @start (returns 0, or SCRY_RUN_STACKS at
 * the stack walk, which the adapter does: scry_body()). Malformed code,
 * which plan.c never makes, is counted and stops the clause.
 */
static __noinline int scry_run(void *ctx, struct scry_scratch *s,
			       const struct scry_uregs *ur, __u32 c,
			       bool begin, __u32 start)
{
	const volatile struct scry_insn *code = begin ? clauses[c].begin :
					       clauses[c].body;
	__u32 n = begin ? SCRY_MAX_BEGIN_INSNS : SCRY_MAX_INSNS;
	__u32 sp = 0, i, p;
	__s64 a, b;
	__u64 *vp;
	void *vm;
	struct scry_tls *t;

	if (code[0].op == SCRY_OP_END)
		return 1;
	for (i = start; i < n; i++) {
		const volatile struct scry_insn *in = &code[i];
		__u8 op = in->op;

		if (op == SCRY_OP_END)
			break;
		switch (op) {
		case SCRY_OP_IMM:
			VS(sp++) = in->imm;
			break;
		case SCRY_OP_FIELD:
			VS(sp++) = scry_field(&s->ev, in->a);
			break;
		case SCRY_OP_LDL:
			VS(sp++) = s->locals[in->a & (SCRY_MAX_LOCALS - 1)];
			break;
		case SCRY_OP_STL:
			s->locals[in->a & (SCRY_MAX_LOCALS - 1)] = VS(--sp);
			break;
		case SCRY_OP_LDT:
			SCRY_RARE(SCRY_OP_LDT);
			t = scry_tls(false);
			VS(sp++) = t ? t->v[in->a & (SCRY_MAX_TLS - 1)] : 0;
			break;
		case SCRY_OP_STT:
			SCRY_RARE(SCRY_OP_STT);
			t = scry_tls(true);
			if (t)
				t->v[in->a & (SCRY_MAX_TLS - 1)] = VS(sp - 1);
			sp--;
			break;
		case SCRY_OP_ADD: case SCRY_OP_SUB: case SCRY_OP_MUL:
		case SCRY_OP_DIV: case SCRY_OP_MOD: case SCRY_OP_BAND:
		case SCRY_OP_BOR: case SCRY_OP_BXOR: case SCRY_OP_SHL:
		case SCRY_OP_SHR: case SCRY_OP_EQ: case SCRY_OP_NE:
		case SCRY_OP_LT: case SCRY_OP_LE: case SCRY_OP_GT:
		case SCRY_OP_GE: case SCRY_OP_LAND: case SCRY_OP_LOR:
			if (sp < 2)
				goto bad;
			b = VS(sp - 1);
			a = VS(sp - 2);
			sp--;
			switch (op) {
			case SCRY_OP_ADD:  a = a + b; break;
			case SCRY_OP_SUB:  a = a - b; break;
			case SCRY_OP_MUL:  a = a * b; break;
			case SCRY_OP_DIV:
				SCRY_RARE(SCRY_OP_DIV);
				a = scry_div(a, b, false);
				break;
			case SCRY_OP_MOD:
				SCRY_RARE(SCRY_OP_MOD);
				a = scry_div(a, b, true);
				break;
			case SCRY_OP_BAND: a = a & b; break;
			case SCRY_OP_BOR:  a = a | b; break;
			case SCRY_OP_BXOR: a = a ^ b; break;
			case SCRY_OP_SHL:  a = (__u64)a << (b & 63); break;
			case SCRY_OP_SHR:  a = a >> (b & 63); break;
			case SCRY_OP_EQ:   a = a == b; break;
			case SCRY_OP_NE:   a = a != b; break;
			case SCRY_OP_LT:   a = a < b; break;
			case SCRY_OP_LE:   a = a <= b; break;
			case SCRY_OP_GT:   a = a > b; break;
			case SCRY_OP_GE:   a = a >= b; break;
			case SCRY_OP_LAND: a = a && b; break;
			default:	   a = a || b; break;
			}
			VS(sp - 1) = a;
			break;
		case SCRY_OP_NEG:
			VS(sp - 1) = -VS(sp - 1);
			break;
		case SCRY_OP_BNOT:
			VS(sp - 1) = ~VS(sp - 1);
			break;
		case SCRY_OP_LNOT:
			VS(sp - 1) = !VS(sp - 1);
			break;
		case SCRY_OP_JMP:
			i = in->d - 1;
			break;
		case SCRY_OP_JZ:
			if (!VS(--sp))
				i = in->d - 1;
			break;
		case SCRY_OP_DROP:
			sp--;
			break;
		case SCRY_OP_SCOMM:
			SCRY_RARE(SCRY_OP_SCOMM);
			__builtin_memcpy(SLOT(in->a).str, s->ev.comm,
					 SCRY_COMM_LEN);
			SLOT(in->a).str[SCRY_COMM_LEN - 1] = '\0';
			SLOT(in->a).len = 0;
			for (p = 0; p < SCRY_COMM_LEN; p++) {
				if (!s->ev.comm[p])
					break;
				SLOT(in->a).len = p + 1;
			}
			SLOT(in->a).flags = 0;
			VS(sp++) = in->a;
			break;
		case SCRY_OP_SREAD:
			SCRY_RARE(SCRY_OP_SREAD);
			scry_read_str(&SLOT(in->a), VS(sp - 1), in->d ?
				      in->d + 1 : 0);
			VS(sp - 1) = in->a;
			break;
		case SCRY_OP_SLIT:
			SCRY_RARE(SCRY_OP_SLIT);
			bpf_probe_read_kernel_str(SLOT(in->a).str, SCRY_LIT_MAX,
						  (void *)lits[in->imm &
							       (SCRY_MAX_LITS - 1)]);
			SLOT(in->a).len = 0;
			for (p = 0; p < SCRY_LIT_MAX; p++) {
				if (!lits[in->imm & (SCRY_MAX_LITS - 1)][p])
					break;
				SLOT(in->a).len = p + 1;
			}
			SLOT(in->a).flags = 0;
			VS(sp++) = in->a;
			break;
		case SCRY_OP_SID:
			SCRY_RARE(SCRY_OP_SID);
			VS(sp - 1) = scry_string_store(&SLOT(VS(sp - 1)));
			break;
		case SCRY_OP_SFROMID:
			SCRY_RARE(SCRY_OP_SFROMID);
			a = VS(sp - 1);
			vp = bpf_map_lookup_elem(&strings, &a);
			if (vp) {
				__builtin_memcpy(&SLOT(in->a), vp,
						 sizeof(struct scry_path));
			} else {
				SLOT(in->a).len = 0;
				SLOT(in->a).str[0] = '\0';
			}
			VS(sp - 1) = in->a;
			break;
		case SCRY_OP_STP:
			SCRY_RARE(SCRY_OP_STP);
			scry_tp_str(ctx, c, in->c, &SLOT(in->a));
			VS(sp++) = in->a;
			break;
		case SCRY_OP_SCMP:
			SCRY_RARE(SCRY_OP_SCMP);
			if (sp < 2)
				goto bad;
			a = scry_str_eq(&SLOT(VS(sp - 2)), &SLOT(VS(sp - 1)));
			sp--;
			VS(sp - 1) = in->c ? !a : a;
			break;
		case SCRY_OP_SCOPY:
			SCRY_RARE(SCRY_OP_SCOPY);
			__builtin_memcpy(&SLOT(in->a), &SLOT(in->b),
					 sizeof(struct scry_path));
			VS(sp++) = in->a;
			break;
		case SCRY_OP_SSTORE:
			SCRY_RARE(SCRY_OP_SSTORE);
			__builtin_memcpy(&SLOT(in->a), &SLOT(VS(sp - 1)),
					 sizeof(struct scry_path));
			sp--;
			break;
		case SCRY_OP_MLOAD:
			SCRY_RARE(SCRY_OP_MLOAD);
			p = scry_key_pops(in->b);
			if (sp < p)
				goto bad;
			scry_build_key(s, in->b, sp - p);
			sp -= p;
			vp = bpf_map_lookup_elem(scry_vars(), &s->key);
			VS(sp++) = vp ? *vp : 0;
			break;
		case SCRY_OP_MSTORE:
			SCRY_RARE(SCRY_OP_MSTORE);
			/* fallthrough */
		case SCRY_OP_MADD:
			SCRY_RARE(SCRY_OP_MADD);
			/* fallthrough */
		case SCRY_OP_MAGG:
			p = scry_key_pops(in->b);
			if (sp < p + 1)
				goto bad;
			scry_build_key(s, in->b, sp - 1 - p);
			a = VS(sp - 1);
			sp -= p + 1;
			if (op == SCRY_OP_MAGG) {
				scry_aggregate(s, in->a, a);
				break;
			}
			if (op == SCRY_OP_MSTORE) {
				if (in->c)
					a = scry_string_store(&SLOT(a));
				if (bpf_map_update_elem(scry_vars(), &s->key, &a,
							BPF_ANY))
					scry_stat(SCRY_STAT_VAR_FULL);
				break;
			}
			vm = scry_vars();	/* one side for the whole add */
			vp = bpf_map_lookup_elem(vm, &s->key);
			if (!vp) {
				b = 0;
				if (bpf_map_update_elem(vm, &s->key, &b,
							BPF_NOEXIST) &&
				    !bpf_map_lookup_elem(vm, &s->key)) {
					scry_stat(SCRY_STAT_VAR_FULL);
					break;
				}
				vp = bpf_map_lookup_elem(vm, &s->key);
				if (!vp)
					break;
			}
			__sync_fetch_and_add(vp, a);
			break;
		case SCRY_OP_MDEL:
			SCRY_RARE(SCRY_OP_MDEL);
			p = scry_key_pops(in->b);
			if (sp < p)
				goto bad;
			scry_build_key(s, in->b, sp - p);
			sp -= p;
			bpf_map_delete_elem(scry_vars(), &s->key);
			break;
		case SCRY_OP_OUT:
			SCRY_RARE(SCRY_OP_OUT);
			p = outdefs[in->imm & (SCRY_MAX_OUTS - 1)].nargs;
			if (sp < p)
				goto bad;
			scry_out(s, in->imm & (SCRY_MAX_OUTS - 1), sp - p);
			sp -= p;
			break;
		case SCRY_OP_SIGNAL:
			SCRY_RARE(SCRY_OP_SIGNAL);
			bpf_send_signal(VS(--sp));
			break;
		case SCRY_OP_READ:
			SCRY_RARE(SCRY_OP_READ);
			VS(sp - 1) = scry_read_int(VS(sp - 1) + in->imm, in->a,
						   in->c, in->b);
			break;
		case SCRY_OP_JOIN:
			SCRY_RARE(SCRY_OP_JOIN);
			scry_join(s, in->imm & (SCRY_MAX_OUTS - 1), VS(--sp));
			break;
		case SCRY_OP_STACKS:
			return SCRY_RUN_STACKS;
		default:
			goto bad;
		}
	}
	if (!begin)
		return 0;
	return sp == 1 && VS(0) != 0;
bad:
	scry_stat(SCRY_STAT_PRED_ERR);
	return 0;
}

#endif /* SCRY_PROG_BPF_H */
