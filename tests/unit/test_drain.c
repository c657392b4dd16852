/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drain: the engine's maps -> struct report, against maps written by hand.
 * The engine is loaded (never attached) for a plan, so the maps are the
 * real ones with the real sizes; the test then puts known keys, stacks and
 * loss counters into them and checks what drain makes of each: values
 * copied exactly, stacks symbolized with return addresses looked up one
 * byte back, tracing frames dropped from the top of kernel stacks, lost
 * and missing stacks flagged, per-CPU loss counters summed with their
 * fix, and a clearing drain emptying the map. Loading BPF needs root: not
 * root, the whole test is one skip.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <scry/attach.h>
#include <scry/drain.h>
#include <scry/expr.h>
#include <scry/plan.h>
#include <scry/report.h>
#include <scry/session.h>
#include <scry/sym.h>
#include "scry.skel.h"
#include "check.h"

#define EXPR "offcpu { @[kstack, ustack, comm, pid] = quantize(latency) }"
#define USTACK_ID 0x1111ULL
#define KSTACK_ID 0x2222ULL
#define TRUNC_ID 0x3333ULL
#define MISSING_ID 0x4444ULL	/* never stored: drain must call it lost */

/* The user frames of the synthetic stacks: symbols of this binary. */
__attribute__((noinline, used)) int drain_leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline, used)) int drain_mid(int x)
{
	return drain_leaf(x) + 2;
}

__attribute__((noinline, used)) int drain_root(int x)
{
	return drain_mid(x) * 5;
}

static char what[256];

static const char *label(const char *a, const char *b)
{
	snprintf(what, sizeof(what), "%s: %s", a, b);
	return what;
}

/* The address of kernel symbol NAME (text), 0 if absent. */
static __u64 ksym(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");
	__u64 found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    (type == 't' || type == 'T') && !strcmp(sym, name))
			found = addr;
	fclose(f);
	return found;
}

static void put_stack(struct attach *a, __u64 id, __u32 flags,
		      const __u64 *ip, __u32 nr)
{
	struct scry_stack st;

	memset(&st, 0, sizeof(st));
	st.nr = nr;
	st.flags = flags;
	memcpy(st.ip, ip, nr * sizeof(*ip));
	CHECK_INT(bpf_map__update_elem(a->skel->maps.stacks, &id, sizeof(id),
				       &st, sizeof(st), BPF_ANY), 0,
		  "store a synthetic stack");
}

/* The row holds @v: its totals, and every slot (a quantize map's). */
static bool same_val(const struct report_row *row, const struct scry_val *v)
{
	return row->val.count == v->count && row->val.sum == v->sum &&
	       row->val.min == v->min && row->val.max == v->max &&
	       row->val.slots &&
	       !memcmp(row->val.slots, v->slots, sizeof(v->slots));
}

static void put_row(struct attach *a, const struct plan *p, __u64 kstack,
		    __u64 ustack, const char *comm, __s64 pid_col,
		    const struct scry_val *v)
{
	struct scry_key k;

	memset(&k, 0, sizeof(k));
	k.kstack = kstack;
	k.ustack = ustack;
	k.pid = getpid();
	strncpy(k.comm, comm, sizeof(k.comm) - 1);
	k.ints[p->maps[0].key_dst[3] & 3] = pid_col;
	k.map = 0;
	CHECK_INT(bpf_map__update_elem(attach_map(a, false, false), &k,
				       sizeof(k), v,
				       sizeof(*v), BPF_NOEXIST), 0,
		  "store a synthetic aggregation row");
}

/* The row whose comm column is @comm. */
static const struct report_row *row_of(const struct report *r,
				       const char *comm)
{
	size_t i;

	for (i = 0; i < r->nrows; i++)
		if (r->rows[i].nkeys == 4 && r->rows[i].keys[2].s &&
		    !strcmp(r->rows[i].keys[2].s, comm))
			return &r->rows[i];
	return NULL;
}

static const struct report_stat *stat_of(const struct report *r,
					 const char *prefix)
{
	size_t i;

	for (i = 0; i < r->nstats; i++)
		if (!strncmp(r->stats[i].what, prefix, strlen(prefix)))
			return &r->stats[i];
	return NULL;
}

static void check_frame(const struct report_frame *fr, const char *sym,
			__u64 off, __u64 addr, const char *what_)
{
	CHECK_STR(fr->sym, sym, label(what_, "symbol"));
	CHECK_INT(fr->off, off, label(what_, "offset"));
	CHECK_INT(fr->addr, addr, label(what_, "address as captured"));
}

static void test_drain(struct attach *a, const struct plan *p)
{
	__u64 leaf = (__u64)(unsigned long)drain_leaf;
	__u64 mid = (__u64)(unsigned long)drain_mid;
	__u64 root = (__u64)(unsigned long)drain_root;
	__u64 uip[3] = { leaf + 2, mid + 5, root };
	__u64 kip[4] = { ksym("__traceiter_sched_switch"), ksym("schedule"),
			 ksym("do_nanosleep") + 0x10, ksym("schedule") + 4 };
	__u64 trunc_ip[1] = { leaf };
	struct scry_key k0;
	struct scry_val v1 = { .count = 3, .sum = 30, .min = 5, .max = 15 };
	struct scry_val v2 = { .count = 7, .sum = 70, .min = 10, .max = 10 };
	struct scry_val v3 = { .count = 1, .sum = 1, .min = 1, .max = 1 };
	struct report_frame before;
	struct syms *s = syms_new();
	const struct report_row *row;
	const struct report_stat *st;
	struct report r = {};
	int ncpu = libbpf_num_possible_cpus(), c;
	__u64 *per_cpu = calloc(ncpu > 0 ? ncpu : 1, sizeof(*per_cpu));
	__u32 id;

	if (!s || !per_cpu || ncpu < 1 || !kip[0] || !kip[1] || !kip[2]) {
		CHECK(0, "drain: symbolizer, kallsyms and per-CPU buffer");
		goto out;
	}
	v1.slots[3] = 1;
	v1.slots[4] = 2;
	v2.slots[0] = 7;
	put_stack(a, USTACK_ID, 0, uip, 3);
	put_stack(a, KSTACK_ID, SCRY_STACK_KERNEL, kip, 4);
	put_stack(a, TRUNC_ID, SCRY_STACK_TRUNCATED, trunc_ip, 1);
	put_row(a, p, KSTACK_ID, USTACK_ID, "full", 41, &v1);
	put_row(a, p, 0, SCRY_STACK_LOST, "lost", 42, &v2);
	put_row(a, p, 0, MISSING_ID, "missing", 43, &v3);
	put_row(a, p, 0, TRUNC_ID, "trunc", 44, &v3);
	/* per-CPU loss counters: drain sums the CPUs and names the fix */
	for (c = 0; c < ncpu; c++)
		per_cpu[c] = c + 2;
	id = SCRY_STAT_AGG_FULL;
	bpf_map__update_elem(a->skel->maps.stats, &id, sizeof(id), per_cpu,
			     ncpu * sizeof(*per_cpu), BPF_ANY);
	memset(per_cpu, 0, ncpu * sizeof(*per_cpu));
	per_cpu[ncpu - 1] = 1;
	id = SCRY_STAT_UNWIND_FIRST + SCRY_UNWIND_STAT_DEPTH;
	bpf_map__update_elem(a->skel->maps.stats, &id, sizeof(id), per_cpu,
			     ncpu * sizeof(*per_cpu), BPF_ANY);
	id = SCRY_STAT_AGG_NOMEM;
	bpf_map__update_elem(a->skel->maps.stats, &id, sizeof(id), per_cpu,
			     ncpu * sizeof(*per_cpu), BPF_ANY);
	id = SCRY_STAT_STACK_NOMEM;
	bpf_map__update_elem(a->skel->maps.stats, &id, sizeof(id), per_cpu,
			     ncpu * sizeof(*per_cpu), BPF_ANY);
	per_cpu[ncpu - 1] = 99;	/* events: not a loss, never reported */
	id = SCRY_STAT_EVENTS;
	bpf_map__update_elem(a->skel->maps.stats, &id, sizeof(id), per_cpu,
			     ncpu * sizeof(*per_cpu), BPF_ANY);

	CHECK_INT(drain_report(a, s, &r, false), 0, "drain: returns 0");
	CHECK_INT(r.nrows, 4, "drain: one row per key");

	row = row_of(&r, "full");
	CHECK(row != NULL, "drain: the row keyed comm \"full\"");
	if (row) {
		CHECK(same_val(row, &v1),
		      "drain: count, sum, min, max and every slot copied exactly");
		CHECK_INT(row->keys[3].kind, REPORT_KEY_INT, "drain: pid column is an int");
		CHECK_INT(row->keys[3].i, 41, "drain: pid column from its slot");
		/* kernel: the iterator frame at the top is scry's, dropped */
		CHECK_INT(row->keys[0].stack.nr, 3,
			  "drain: kstack without the tracing frame at its top");
		if (row->keys[0].stack.nr == 3) {
			CHECK_STR(row->keys[0].stack.frames[0].sym, "schedule",
				  "drain: kstack frame 0 is schedule");
			CHECK(row->keys[0].stack.frames[0].kernel,
			      "drain: kernel frames are marked kernel");
			check_frame(&row->keys[0].stack.frames[1], "do_nanosleep",
				    0x10, kip[2], "drain: kstack frame 1");
		}
		/* user: the leaf's pc as is; return addresses looked up
		 * one byte back, the offset then counted to the address */
		CHECK_INT(row->keys[1].stack.nr, 3, "drain: ustack has 3 frames");
		if (row->keys[1].stack.nr == 3) {
			check_frame(&row->keys[1].stack.frames[0], "drain_leaf", 2,
				    leaf + 2, "drain: ustack leaf (a pc)");
			check_frame(&row->keys[1].stack.frames[1], "drain_mid", 5,
				    mid + 5, "drain: ustack return address");
			/* a return address at a function's first byte is
			 * the end of what comes before it (a noreturn call
			 * as a function's last instruction), here the
			 * padding before drain_root or another function:
			 * whatever the byte before resolves to, never
			 * drain_root itself */
			const struct report_frame *f2 = &row->keys[1].stack.frames[2];

			memset(&before, 0, sizeof(before));
			if (syms_user(s, getpid(), root - 1, &before, 1) < 1)
				before.sym = NULL;
			CHECK((!f2->sym && !before.sym) ||
			      (f2->sym && before.sym && !strcmp(f2->sym, before.sym) &&
			       f2->off == before.off + 1),
			      "drain: a return address is looked up one byte back");
			CHECK(!f2->sym || strcmp(f2->sym, "drain_root"),
			      "drain: ... so not named after the function it starts");
			CHECK_INT(f2->addr, root, "drain: ... and keeps its own address");
			syms_frame_clear(&before);
		}
		CHECK(!row->keys[1].stack.lost && !row->keys[1].stack.truncated,
		      "drain: a stored stack is neither lost nor truncated");
	}
	row = row_of(&r, "lost");
	CHECK(row && row->keys[1].stack.lost && row->keys[1].stack.nr == 0,
	      "drain: SCRY_STACK_LOST is a lost stack, no frames");
	CHECK(row && row->keys[0].stack.nr == 0 && !row->keys[0].stack.lost,
	      "drain: stack id 0 is no stack (not lost)");
	CHECK(row && same_val(row, &v2),
	      "drain: the lost-stack row keeps its values");
	row = row_of(&r, "missing");
	CHECK(row && row->keys[1].stack.lost,
	      "drain: a stack id not in the store is lost");
	row = row_of(&r, "trunc");
	CHECK(row && row->keys[1].stack.truncated && row->keys[1].stack.nr == 1,
	      "drain: the truncated flag is kept");

	st = stat_of(&r, "aggregation drops");
	CHECK_INT(st ? st->count : 0, ncpu * (ncpu + 3) / 2,
		  "drain: aggregation drops summed over every CPU");
	CHECK_STR(st ? st->fix : NULL, "raise --max-keys",
		  "drain: aggregation drops name their fix");
	st = stat_of(&r, "user stacks deeper than 127 frames");
	CHECK_INT(st ? st->count : 0, 1, "drain: the unwinder's depth counter");
	CHECK(st && !st->fix, "drain: ... which has no option to fix it");
	/* a key the kernel had no memory for: not "raise --max-keys" */
	st = stat_of(&r, "aggregation drops (the kernel could not allocate "
		     "map memory)");
	CHECK_INT(st ? st->count : 0, 1,
		  "drain: keys lost to the kernel's memory, counted apart");
	CHECK(st && !st->fix, "drain: ... and not told to raise --max-keys");
	/* the same for a stack: not "raise --max-stacks" */
	st = stat_of(&r, "stack drops (the kernel could not allocate map "
		     "memory)");
	CHECK_INT(st ? st->count : 0, 1,
		  "drain: stacks lost to the kernel's memory, counted apart");
	CHECK(st && !st->fix, "drain: ... and not told to raise --max-stacks");
	CHECK_INT(r.nstats, 4, "drain: counters at zero and 'events' not reported");
	report_clear(&r);

	/* --interval: a clearing drain reports the same, then the map is empty */
	memset(&r, 0, sizeof(r));
	CHECK_INT(drain_report(a, s, &r, true), 0, "drain clear: returns 0");
	CHECK_INT(r.nrows, 4, "drain clear: reports every row");
	report_clear(&r);
	memset(&r, 0, sizeof(r));
	CHECK_INT(drain_report(a, s, &r, false), 0, "drain after clear: returns 0");
	CHECK_INT(r.nrows, 0, "drain after clear: no row left");
	report_clear(&r);
	/*
	 * The clearing drain moved the probes to the other map before
	 * reading: what they add now lands there, and the map it read is
	 * empty (tests/root/interval_exact.sh has the race itself).
	 */
	CHECK(attach_map(a, false, false) == a->skel->maps.aggs_alt &&
	      attach_map(a, false, true) == a->skel->maps.aggs,
	      "drain clear: the probes write the other map now");
	CHECK(bpf_map__get_next_key(a->skel->maps.aggs, NULL, &k0,
				    sizeof(k0)) != 0,
	      "drain clear: the map it read is empty");
	put_row(a, p, 0, 0, "after", 1, &v1);
	memset(&r, 0, sizeof(r));
	CHECK_INT(drain_report(a, s, &r, false), 0, "drain after flip: returns 0");
	CHECK(r.nrows == 1 && row_of(&r, "after"),
	      "drain after flip: reads the map the probes write");
	report_clear(&r);
out:
	free(per_cpu);
	syms_free(s);
}

int main(void)
{
	struct scry_opts o = { .max_keys = 64, .max_stacks = 32,
			       .max_unwind_rows = 4096, .interval_s = 1 };
	struct expr_error err;
	struct attach a = {};
	struct plan p;
	struct expr *e;

	if (geteuid() != 0) {
		SKIP("drain against real BPF maps",
		     "loading the engine needs root: run as root (make test)");
		return 0;
	}
	libbpf_set_print(NULL);
	e = expr_parse(EXPR, &err);
	memset(&p, 0, sizeof(p));
	if (!e || plan_build(e, &p, &plan_env_system, false, &err)) {
		CHECK(0, "drain: parse and plan " EXPR);
		return 1;
	}
	a.plan = &p;
	a.opts = &o;
	if (attach_load(&a)) {
		CHECK(0, "drain: load the engine (not attached)");
		plan_free(&p);
		expr_free(e);
		return 1;
	}
	CHECK_INT(bpf_map__max_entries(a.skel->maps.aggs), 64,
		  "attach: aggregation map sized by --max-keys");
	CHECK_INT(bpf_map__max_entries(a.skel->maps.aggs_alt), 64,
		  "attach: --interval's second aggregation map sized alike");
	CHECK_INT(bpf_map__max_entries(a.skel->maps.stacks), 32,
		  "attach: stack store sized by --max-stacks");
	test_drain(&a, &p);
	attach_close(&a);
	plan_free(&p);
	expr_free(e);
	return CHECK_DONE();
}
