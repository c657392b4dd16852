/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which file maps a user address, asked of the kernel at the moment it
 * matters (bpf_find_vma, 5.17+), instead of read from /proc afterwards:
 * the answer cannot be stale and needs no process still alive.
 *
 * bpf_find_vma takes the mmap lock with a trylock; when irqs are off
 * (sched_switch, perf_event) the unlock is deferred to an irq_work that
 * only one caller at a time may hold, so a second call in the same
 * program gets -EBUSY. Callers treat "busy" as "unknown", count it, and
 * go on without the answer.
 */
#ifndef SCRY_VMA_BPF_H
#define SCRY_VMA_BPF_H

#include <scry/abi.h>

enum scry_vma_kind {
	SCRY_VMA_NONE = 0,	/* no mapping covers the address */
	SCRY_VMA_FILE,		/* a file: key, pgoff */
	SCRY_VMA_VDSO,		/* the vDSO: key {0, 0} */
	SCRY_VMA_ANON,		/* anonymous memory (JIT code) */
	SCRY_VMA_BUSY,		/* the kernel could not say (mmap lock) */
};

struct scry_vma {
	__u64 start;
	__u64 end;
	__u64 pgoff;
	struct scry_file_key key;
	struct file *file;	/* SCRY_VMA_FILE: for its path */
	__u32 kind;
};

/* tests/unit/test_unwind.c answers from /proc/self/maps instead */
#ifndef SCRY_UNWIND_HOST

static long scry_vma_cb(struct task_struct *task, struct vm_area_struct *vma,
			void *ctx)
{
	struct scry_vma *v = ctx;
	struct inode *inode;
	struct file *file;
	void *vdso;

	v->start = BPF_CORE_READ(vma, vm_start);
	v->end = BPF_CORE_READ(vma, vm_end);
	v->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	file = BPF_CORE_READ(vma, vm_file);
	if (file) {
		inode = BPF_CORE_READ(file, f_inode);
		v->key.dev = BPF_CORE_READ(inode, i_sb, s_dev);
		v->key.ino = BPF_CORE_READ(inode, i_ino);
		v->file = file;
		v->kind = SCRY_VMA_FILE;
		return 0;
	}
	vdso = BPF_CORE_READ(vma, vm_mm, context.vdso);
	v->kind = (__u64)vdso == v->start ? SCRY_VMA_VDSO : SCRY_VMA_ANON;
	return 0;
}

/*
 * Fill @v for @addr in the current task's address space; v->kind says
 * what it is. A global function: the verifier checks the call and its
 * callback once, not once per state of the caller that reaches it (six
 * in on_mmap_exit: 523 of its 818 instructions verified). The callback's
 * context must be this function's stack, hence the copy.
 */
__attribute__((noinline))
int scry_vma_find_current(__u64 addr, struct scry_vma *v)
{
	struct scry_vma found = { .kind = SCRY_VMA_NONE };
	long err;

	if (!v)
		return 0;
	err = bpf_find_vma(bpf_get_current_task_btf(), addr, scry_vma_cb,
			   &found, 0);
	if (err == -EBUSY)
		found.kind = SCRY_VMA_BUSY;
	else if (err)
		found.kind = SCRY_VMA_NONE;
	*v = found;
	return 0;
}

#endif /* !SCRY_UNWIND_HOST */
#endif /* SCRY_VMA_BPF_H */
