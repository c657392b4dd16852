// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring ground truth for scry read / scry write, with the raw
 * syscalls (no liburing): reads and writes that never pass through
 * read(2) or write(2).
 *
 *   uring_wl DIR   DIR/in.dat must hold >= 12000 bytes; then
 *                  IORING_OP_READ   3 x 4000  DIR/in.dat
 *                  IORING_OP_WRITE  2 x 3000  DIR/out.dat (created)
 *                  one request at a time, each waited for.
 *
 * Exits 3 when the kernel refuses io_uring (a test skips then), another
 * non-zero status on any unexpected result, 0 and nothing printed else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>

static char buf[4096];

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static void die(const char *what)
{
	fprintf(stderr, "uring_wl: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void setup(struct ring *r)
{
	struct io_uring_params p = {};
	char *sq, *cq;

	r->fd = syscall(SYS_io_uring_setup, 4, &p);
	if (r->fd < 0) {
		fprintf(stderr, "uring_wl: io_uring_setup: %s\n", strerror(errno));
		exit(3);
	}
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned),
		  PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		die("mmap");
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
}

/* One request, submitted and waited for; its result. */
static int run(struct ring *r, int op, int fd, unsigned len, __u64 off)
{
	unsigned tail = *r->sq_tail, idx = tail & *r->sq_mask, head;
	struct io_uring_sqe *sqe = &r->sqes[idx];
	int res;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = op;
	sqe->fd = fd;
	sqe->addr = (unsigned long)buf;
	sqe->len = len;
	sqe->off = off;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		die("io_uring_enter");
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
		errno = EAGAIN;
		die("no completion");
	}
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

int main(int argc, char **argv)
{
	char path[4096];
	struct ring r;
	int in, out, i;

	if (argc != 2) {
		fprintf(stderr, "usage: uring_wl DIR\n");
		return 2;
	}
	setup(&r);
	snprintf(path, sizeof(path), "%s/in.dat", argv[1]);
	in = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "%s/out.dat", argv[1]);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		die("open");
	for (i = 0; i < 3; i++)
		if (run(&r, IORING_OP_READ, in, 4000, i * 4000ULL) != 4000)
			die("IORING_OP_READ");
	for (i = 0; i < 2; i++)
		if (run(&r, IORING_OP_WRITE, out, 3000, i * 3000ULL) != 3000)
			die("IORING_OP_WRITE");
	return 0;
}
