/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake kernel's BTF for plan.c's tests and its fuzzer: a few structs,
 * pointers, an anonymous union, a bitfield and a function prototype,
 * built once per process (freed by fake_btf_free()).
 */
#ifndef SCRY_TEST_FAKE_BTF_H
#define SCRY_TEST_FAKE_BTF_H

#include <stdlib.h>
#include <bpf/btf.h>

/*
 * The fake kernel's types (ids in order):
 *   1 int, 2 unsigned long, 3 char, 4 char[16],
 *   5 struct mm_struct { unsigned long start_code; struct task_struct *owner; }
 *   6 struct task_struct *, 7 struct task_struct {
 *	int pid;			@0
 *	char comm[16];			@8
 *	struct mm_struct *mm;		@24
 *	union { int nested; };		@32
 *	int flags:3;			@40
 *	char *cptr;			@48
 *	struct mm_struct embedded;	@56 }
 *   8 struct mm_struct *, 9 the anonymous union, 10 char *,
 *   11, 12 int wake(struct task_struct *t, int n, char *s, char c,
 *		      unsigned long u)
 *   13 short, 14 typedef short fake_t,
 *   15 enum fake_state { FAKE_ONE = 1, FAKE_BIG = 0xfffffff0 }
 */
static struct btf *fake_btf;

static inline struct btf *fake_get_btf(void)
{
	struct btf *b = fake_btf;

	if (b)
		return b;
	b = btf__new_empty();
	if (!b)
		abort();
	btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	btf__add_int(b, "unsigned long", 8, 0);
	btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	btf__add_array(b, 1, 3, 16);
	btf__add_struct(b, "mm_struct", 16);
	btf__add_field(b, "start_code", 2, 0, 0);
	btf__add_field(b, "owner", 6, 64, 0);
	btf__add_ptr(b, 7);
	btf__add_struct(b, "task_struct", 72);
	btf__add_field(b, "pid", 1, 0, 0);
	btf__add_field(b, "comm", 4, 64, 0);
	btf__add_field(b, "mm", 8, 192, 0);
	btf__add_field(b, NULL, 9, 256, 0);
	btf__add_field(b, "flags", 1, 320, 3);
	btf__add_field(b, "cptr", 10, 384, 0);
	btf__add_field(b, "embedded", 5, 448, 0);
	btf__add_ptr(b, 5);
	btf__add_union(b, NULL, 4);
	btf__add_field(b, "nested", 1, 0, 0);
	btf__add_ptr(b, 3);
	/* 11 int (struct task_struct *t, int n, char *s, char c, unsigned
	 * long u), 12 its function wake() */
	btf__add_func_proto(b, 1);
	btf__add_func_param(b, "t", 6);
	btf__add_func_param(b, "n", 1);
	btf__add_func_param(b, "s", 10);
	btf__add_func_param(b, "c", 3);
	btf__add_func_param(b, "u", 2);
	btf__add_func(b, "wake", BTF_FUNC_GLOBAL, 11);
	btf__add_int(b, "short", 2, BTF_INT_SIGNED);
	btf__add_typedef(b, "fake_t", 13);
	btf__add_enum(b, "fake_state", 4);
	btf__add_enum_value(b, "FAKE_ONE", 1);
	btf__add_enum_value(b, "FAKE_BIG", (__s64)0xfffffff0);
	fake_btf = b;
	return b;
}

static inline void fake_btf_free(void)
{
	btf__free(fake_btf);
	fake_btf = NULL;
}

#endif /* SCRY_TEST_FAKE_BTF_H */
