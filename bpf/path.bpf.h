/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fd -> path, in BPF, as /proc/PID/fd/N shows it (fs/d_path.c d_path()).
 *
 * No bpf_d_path() here: it needs fentry/LSM hooks, and this engine runs
 * from tracepoints. So the walk is done by hand with CO-RE reads:
 *
 *   task->files->fdt->fd[fd] -> file->f_path {mnt, dentry}
 *   repeat: at the task's root          -> done
 *           at the root of a mount      -> cross to its mountpoint, or done
 *                                          at the root of the mount tree
 *           at a dentry that is its own parent -> done (escaped/detached)
 *           else prepend "/" + d_name, go to d_parent
 *
 * Names are prepended into a per-CPU scratch buffer written backwards, then
 * moved to the front of the caller's struct scry_path. Pseudo files (pipes,
 * sockets, anon inodes, pidfds) have no path: their names come from the
 * superblock type and the inode number, like the kernel's d_dname()
 * methods; other pseudo files get simple_dname()'s "/NAME (deleted)".
 * Names like nsfs's "net:[N]" are not reproduced.
 *
 * Never silently wrong: a walk cut short (deeper than SCRY_PATH_DEPTH, more
 * than SCRY_PATH_MOUNTS mount crossings, longer than the buffer) keeps the
 * tail of the path behind "..." and sets SCRY_PATH_TRUNCATED.
 *
 * Needs vmlinux.h, bpf_helpers.h and bpf_core_read.h included first, and
 * bpf_loop() (5.17+). Declares one map: scry_path_scratch (per-CPU, 1 KiB).
 *
 * Races: the walk reads without the rename/mount locks d_path() takes, so
 * a rename or umount during the walk can produce a stale mix of old and
 * new names. Every read is a probe read, so that is the worst case.
 */
#ifndef SCRY_PATH_BPF_H
#define SCRY_PATH_BPF_H

#include <scry/abi.h>

#include <linux/errno.h>

/* superblock magics of the pseudo filesystems (include/uapi/linux/magic.h) */
#define SCRY_PIPEFS_MAGIC	0x50495045
#define SCRY_SOCKFS_MAGIC	0x534F434B
#define SCRY_ANON_INODE_MAGIC	0x09041934
#define SCRY_PIDFS_MAGIC	0x50494446

/* Mount crossings the walk allows on top of SCRY_PATH_DEPTH names. */
#define SCRY_PATH_MOUNTS	16

/*
 * Scratch layout: the path is built backwards so it ends at SCRY_PATH_END.
 * At most SCRY_PATH_MAX - 1 bytes are kept, but the last name prepended
 * may overshoot by NAME_MAX + 1 before the walk notices: 2 * SCRY_PATH_MAX
 * of room below the end covers that without a check per byte. The room
 * above the end is slack the verifier needs for its worst case bounds.
 */
#define SCRY_NAME_MAX		255
#define SCRY_PATH_END		(2 * SCRY_PATH_MAX)
#define SCRY_PATH_SCRATCH	(4 * SCRY_PATH_MAX)
#define SCRY_PATH_KEEP		(SCRY_PATH_MAX - 1 - 3)	/* tail kept after "..." */

struct scry_path_buf {
	char b[SCRY_PATH_SCRATCH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scry_path_buf);
} scry_path_scratch SEC(".maps");

/* State of one walk, shared with the bpf_loop callback. */
struct scry_path_walk {
	struct dentry *dentry;
	struct mount *mnt;
	struct dentry *mnt_root;	/* mnt->mnt.mnt_root, read once per mount */
	struct dentry *root_dentry;	/* the task's root: where "/" is */
	struct vfsmount *root_mnt;
	char *buf;			/* scry_path_scratch, SCRY_PATH_SCRATCH bytes */
	__u32 used;			/* bytes in [SCRY_PATH_END - used, SCRY_PATH_END) */
	__u32 names;			/* names prepended */
	__u32 done;			/* reached a root: the path is complete */
	__u32 mounts;			/* mount crossings */
};

/*
 * Prepend the constant string @s (strlen @n, n small) at @used bytes below
 * the end. The caller keeps used + n <= SCRY_PATH_END.
 */
static __always_inline __u32 scry_path_put(char *buf, __u32 used,
					   const char *s, __u32 n)
{
	char *p = buf + ((SCRY_PATH_END - used - n) & (SCRY_PATH_END - 1));
	__u32 i;

	for (i = 0; i < n; i++)	/* unrolled: one store per byte */
		p[i] = s[i];
	return used + n;
}

/*
 * Prepend @v in decimal: our own formatter, BPF has no snprintf into maps.
 * All 20 digits a __u64 can have are written and the count of significant
 * ones is summed without a branch: a loop that breaks at the last digit
 * would hand the verifier 20 exact lengths, and it would then check all
 * that follows once per length.
 */
static __always_inline __u32 scry_path_put_u64(char *buf, __u32 used, __u64 v)
{
	__u64 nz;
	__u32 nd = 1;
	int i;

	for (i = 0; i < 20; i++) {
		buf[(SCRY_PATH_END - 1 - used - i) & (SCRY_PATH_END - 1)] = '0' + v % 10;
		v /= 10;
		/* v != 0 as arithmetic; the barrier keeps clang from making
		 * it a branch again */
		nz = v | -v;
		asm volatile("" : "+r"(nz));
		nd += nz >> 63;
	}
	return used + nd;
}

/* Prepend @n bytes of the kernel string at @name (n clamped to a name). */
static __always_inline __u32 scry_path_put_name(char *buf, __u32 used,
						const unsigned char *name,
						__u32 n)
{
	__u32 at;

	if (n > SCRY_NAME_MAX)
		n = SCRY_NAME_MAX;
	/*
	 * The bound again, on the register the read takes: clang may test a
	 * copy of @n (a caller's clamp, inlined) and pass the other, and
	 * 6.1's verifier does not carry the bound across that copy ("R1
	 * unbounded memory access" in sys_enter once the engine grew). The
	 * asm hides @n from clang, so the mask stays.
	 */
	asm volatile("" : "+r"(n));
	n &= SCRY_NAME_MAX;
	if (used > SCRY_PATH_MAX)
		return used;
	at = SCRY_PATH_END - used - n;	/* >= SCRY_PATH_END - 511 > 0 */
	bpf_probe_read_kernel(buf + (at & (SCRY_PATH_END - 1)), n, name);
	return used + n;
}

/*
 * One step of the walk; returns 1 when the walk is over. Mirrors
 * __prepend_path() in fs/d_path.c: the mount root test comes first, since
 * a mount's root is its own parent too.
 */
static __always_inline long scry_path_step(struct scry_path_walk *w)
{
	struct dentry *d = w->dentry, *parent;
	struct mount *m = w->mnt, *mp;

	if (!d || !m)
		return 1;	/* unreadable: not done, so marked truncated */
	if (d == w->root_dentry && &m->mnt == w->root_mnt) {
		w->done = 1;
		return 1;
	}
	if (d == w->mnt_root) {
		mp = BPF_CORE_READ(m, mnt_parent);
		if (mp == m || !mp) {
			w->done = 1;	/* root of the mount tree */
			return 1;
		}
		if (++w->mounts > SCRY_PATH_MOUNTS)
			return 1;
		w->dentry = BPF_CORE_READ(m, mnt_mountpoint);
		w->mnt = mp;
		w->mnt_root = BPF_CORE_READ(mp, mnt.mnt_root);
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (d == parent) {
		w->done = 1;	/* escaped the root, or a detached tree */
		return 1;
	}
	/* one more name would not fit: stop, the caller keeps the tail */
	if (w->names >= SCRY_PATH_DEPTH || w->used > SCRY_PATH_MAX - 1)
		return 1;
	w->used = scry_path_put_name(w->buf, w->used,
				     BPF_CORE_READ(d, d_name.name),
				     BPF_CORE_READ(d, d_name.len));
	if (w->used > SCRY_PATH_END - 1)
		return 1;	/* unreachable: tells the verifier */
	w->buf[(SCRY_PATH_END - 1 - w->used) & (SCRY_PATH_END - 1)] = '/';
	w->used++;
	w->names++;
	w->dentry = parent;
	return 0;
}

/*
 * bpf_loop() callback: the verifier checks the step once, not once per
 * iteration. The same walk as a bounded for-loop of SCRY_PATH_DEPTH +
 * SCRY_PATH_MOUNTS + 1 steps hits the 1M-instruction limit (measured).
 */
static long scry_path_loop_cb(__u32 i, void *ctx)
{
	return scry_path_step(ctx);
}

/*
 * The name of a dentry with no path: one that is its own parent without
 * being its mount's root, made by d_alloc_pseudo() and friends. The kernel
 * asks the filesystem's d_dname(); these are its answers.
 */
static __always_inline __u32 scry_path_pseudo(char *buf, struct dentry *d,
					      __u32 *flags)
{
	unsigned long magic = BPF_CORE_READ(d, d_sb, s_magic);
	__u32 used = 0, n;

	switch (magic) {
	case SCRY_PIPEFS_MAGIC:		/* pipefs_dname() */
		used = scry_path_put(buf, used, "]", 1);
		used = scry_path_put_u64(buf, used, BPF_CORE_READ(d, d_inode, i_ino));
		return scry_path_put(buf, used, "pipe:[", 6);
	case SCRY_SOCKFS_MAGIC:		/* sockfs_dname() */
		used = scry_path_put(buf, used, "]", 1);
		used = scry_path_put_u64(buf, used, BPF_CORE_READ(d, d_inode, i_ino));
		return scry_path_put(buf, used, "socket:[", 8);
	case SCRY_PIDFS_MAGIC:		/* pidfs_dname() */
		return scry_path_put(buf, used, "anon_inode:[pidfd]", 18);
	case SCRY_ANON_INODE_MAGIC:	/* anon_inodefs_dname(): the name has []s */
		n = BPF_CORE_READ(d, d_name.len);
		if (n > SCRY_PATH_MAX - 1 - 11)
			n = SCRY_PATH_MAX - 1 - 11;
		used = scry_path_put_name(buf, used, BPF_CORE_READ(d, d_name.name), n);
		return scry_path_put(buf, used, "anon_inode:", 11);
	default:
		/*
		 * simple_dname(), the default of d_alloc_pseudo(): shmem
		 * files such as memfds ("/memfd:NAME (deleted)").
		 */
		*flags |= SCRY_PATH_DELETED;
		used = scry_path_put(buf, used, " (deleted)", 10);
		n = BPF_CORE_READ(d, d_name.len);
		if (n > SCRY_PATH_MAX - 1 - 11)
			n = SCRY_PATH_MAX - 1 - 11;
		used = scry_path_put_name(buf, used, BPF_CORE_READ(d, d_name.name), n);
		return scry_path_put(buf, used, "/", 1);
	}
}

/* Move the @used bytes that end at SCRY_PATH_END to the front of @out. */
static __always_inline void scry_path_emit(struct scry_path *out, char *buf,
					   __u32 used, __u32 flags)
{
	if (used > SCRY_PATH_MAX - 1) {
		used = SCRY_PATH_MAX - 1;	/* callers keep this from happening */
		flags |= SCRY_PATH_TRUNCATED;
	}
	bpf_probe_read_kernel(out->str, used & (SCRY_PATH_MAX - 1),
			      buf + SCRY_PATH_END - used);
	out->str[used & (SCRY_PATH_MAX - 1)] = '\0';
	out->len = used;
	out->flags = flags;
}

/* "[closed fd N]": a printable key for a read of a closed or bad fd. */
static __always_inline int scry_path_closed(struct scry_path *out, char *buf,
					    int fd)
{
	__u32 used;

	used = scry_path_put(buf, 0, "]", 1);
	used = scry_path_put_u64(buf, used, fd < 0 ? -(__s64)fd : fd);
	if (fd < 0)
		used = scry_path_put(buf, used, "-", 1);
	used = scry_path_put(buf, used, "[closed fd ", 11);
	scry_path_emit(out, buf, used, 0);
	return -EBADF;
}

/*
 * Path of the open @file as @task sees it (relative to its root), as
 * /proc/PID/fd/N or /proc/PID/maps would show it; @buf is
 * scry_path_scratch. Fills @out; returns 0 or a negative errno.
 */
static __always_inline int scry_file_path(struct task_struct *task,
					  struct file *file,
					  struct scry_path *out, char *buf)
{
	struct scry_path_walk w = {};
	struct dentry *dentry, *mnt_root;
	struct vfsmount *vmnt;
	struct fs_struct *fs;
	__u32 flags = 0, sfx = 0, keep;

	out->len = 0;
	out->flags = 0;
	out->str[0] = '\0';

	/*
	 * Plain locals as BPF_CORE_READ() sources: a member of a local
	 * struct would become part of the relocated access chain.
	 */
	dentry = BPF_CORE_READ(file, f_path.dentry);
	vmnt = BPF_CORE_READ(file, f_path.mnt);
	mnt_root = BPF_CORE_READ(vmnt, mnt_root);
	w.buf = buf;
	w.dentry = dentry;
	/* container_of(), with the offset relocated by CO-RE */
	w.mnt = (void *)vmnt - bpf_core_field_offset(struct mount, mnt);
	w.mnt_root = mnt_root;

	/*
	 * d_path(): a dentry with a d_dname() method that is its own parent
	 * but not its mount's root is a pseudo file: the method names it.
	 */
	if (dentry && dentry != mnt_root &&
	    dentry == BPF_CORE_READ(dentry, d_parent) &&
	    BPF_CORE_READ(dentry, d_op, d_dname)) {
		scry_path_emit(out, buf, scry_path_pseudo(buf, dentry, &flags),
			       flags);
		return 0;
	}

	/* d_unlinked(): unhashed and not a root (roots are never hashed) */
	if (!BPF_CORE_READ(dentry, d_hash.pprev) &&
	    dentry != BPF_CORE_READ(dentry, d_parent)) {
		flags |= SCRY_PATH_DELETED;
		sfx = scry_path_put(buf, 0, " (deleted)", 10);
	}
	w.used = sfx;

	fs = BPF_CORE_READ(task, fs);
	if (fs) {	/* NULL while exiting: walk to the top instead */
		w.root_dentry = BPF_CORE_READ(fs, root.dentry);
		w.root_mnt = BPF_CORE_READ(fs, root.mnt);
	}

	bpf_loop(SCRY_PATH_DEPTH + SCRY_PATH_MOUNTS + 1, scry_path_loop_cb, &w, 0);

	if (w.done && w.used <= SCRY_PATH_MAX - 1) {
		if (w.used == sfx)	/* nothing above: the root itself */
			w.used = scry_path_put(buf, w.used, "/", 1);
		scry_path_emit(out, buf, w.used, flags);
		return 0;
	}
	/* cut short: keep the tail, which names the file, behind "..." */
	keep = w.used < SCRY_PATH_KEEP ? w.used : SCRY_PATH_KEEP;
	keep = scry_path_put(buf, keep, "...", 3);
	scry_path_emit(out, buf, keep, flags | SCRY_PATH_TRUNCATED);
	return 0;
}

/*
 * scry_file_path() for the current task, as a global function: the
 * verifier checks a global function once per program, from unknown
 * arguments, where an inlined walk is checked again at every call site
 * in each of its caller's states. The exec notice names two files (the
 * executable and its interpreter): inlined, on_exec cost the verifier
 * 25,548 instructions, about 20 ms of every -c start-up (measured on
 * 6.18). The file comes as an address, an argument every kernel takes in
 * a global function (BTF pointers need 6.8's __arg_trusted), and is only
 * ever probe-read.
 */
__attribute__((noinline))
int scry_current_file_path(__u64 file, struct scry_path *out)
{
	__u32 zero = 0;
	char *buf;

	if (!out)
		return -EINVAL;
	buf = bpf_map_lookup_elem(&scry_path_scratch, &zero);
	if (!buf)
		return -ENOMEM;
	return scry_file_path((void *)bpf_get_current_task(),
			      (struct file *)file, out, buf);
}

/*
 * Path of @fd in @task's fd table, as /proc/PID/fd/N would show it.
 * Fills @out (str NUL-terminated, len, flags). Returns 0 or a negative errno.
 *
 * Paths are relative to @task's root (chroot, mount namespace); deleted
 * files end in " (deleted)" (SCRY_PATH_DELETED); a walk cut short starts
 * with "..." (SCRY_PATH_TRUNCATED). A closed fd gives "[closed fd N]" and
 * -EBADF. @out should live in a map: it is larger than a BPF stack frame
 * can spare.
 */
static __always_inline int scry_fd_path(struct task_struct *task, int fd,
					struct scry_path *out)
{
	struct files_struct *files;
	struct fdtable *fdt;
	struct file **fds, *file = NULL;
	__u32 zero = 0;
	char *buf;

	buf = bpf_map_lookup_elem(&scry_path_scratch, &zero);
	if (!buf)
		return -ENOMEM;
	out->len = 0;
	out->flags = 0;
	out->str[0] = '\0';

	files = BPF_CORE_READ(task, files);
	if (!files) {	/* exiting: the fd table is gone, the fd with it */
		scry_path_closed(out, buf, fd);
		return -ESRCH;
	}
	fdt = BPF_CORE_READ(files, fdt);
	if (fd < 0 || (__u32)fd >= BPF_CORE_READ(fdt, max_fds))
		return scry_path_closed(out, buf, fd);
	fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&file, sizeof(file), fds + fd);
	if (!file)
		return scry_path_closed(out, buf, fd);
	return scry_file_path(task, file, out, buf);
}

#endif /* SCRY_PATH_BPF_H */
