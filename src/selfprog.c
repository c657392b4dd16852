// SPDX-License-Identifier: GPL-2.0
/* scry's own programs' JIT images: see include/scry/selfprog.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <scry/array.h>
#include <scry/selfprog.h>

/* one program has its main function and its subprograms */
#define MAX_FUNCS	256

struct range {
	__u64 lo, hi;
};

struct selfprog {
	struct range *v;
	size_t n, cap;
};

/* Add @fd's functions to @sp. 0, or -ENOMEM. */
static int add_prog(struct selfprog *sp, int fd)
{
	__u64 addrs[MAX_FUNCS];
	__u32 lens[MAX_FUNCS], len, i, n;
	struct bpf_prog_info info;

	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	n = info.nr_jited_ksyms;
	if (!n || n > MAX_FUNCS || info.nr_jited_func_lens != n)
		return 0;
	/* zeroed: the kernel fills them, which valgrind cannot see */
	memset(addrs, 0, n * sizeof(*addrs));
	memset(lens, 0, n * sizeof(*lens));
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = n;
	info.jited_ksyms = (__u64)(unsigned long)addrs;
	info.nr_jited_func_lens = n;
	info.jited_func_lens = (__u64)(unsigned long)lens;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.nr_jited_ksyms != n || info.nr_jited_func_lens != n)
		return 0;
	for (i = 0; i < n; i++) {
		/* 0: the kernel hides addresses from this caller */
		if (!addrs[i] || !lens[i])
			continue;
		if (array_ensure(&sp->v, &sp->cap, sizeof(*sp->v), sp->n + 1))
			return -ENOMEM;
		sp->v[sp->n].lo = addrs[i];
		sp->v[sp->n].hi = addrs[i] + lens[i];
		sp->n++;
	}
	return 0;
}

struct selfprog *selfprog_new(struct bpf_object *const *objs, size_t nobjs)
{
	struct selfprog *sp = calloc(1, sizeof(*sp));
	struct bpf_program *prog;
	size_t i;

	if (!sp)
		return NULL;
	for (i = 0; i < nobjs; i++) {
		if (!objs[i])
			continue;
		bpf_object__for_each_program(prog, objs[i]) {
			int fd = bpf_program__fd(prog);

			if (fd >= 0 && add_prog(sp, fd)) {
				selfprog_free(sp);
				errno = ENOMEM;
				return NULL;
			}
		}
	}
	return sp;
}

void selfprog_free(struct selfprog *sp)
{
	if (!sp)
		return;
	free(sp->v);
	free(sp);
}

bool selfprog_has(const struct selfprog *sp, __u64 addr)
{
	size_t i;

	/* tens of ranges, asked once per distinct stack's first frames */
	for (i = 0; sp && i < sp->n; i++)
		if (addr >= sp->v[i].lo && addr < sp->v[i].hi)
			return true;
	return false;
}
