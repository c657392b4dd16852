/* SPDX-License-Identifier: GPL-2.0 */
/*
 * detach: the slow closes of a run's links, after its answer is out, in a
 * short-lived child ("scry-detach"). detach.c says why and how.
 */
#ifndef SCRY_DETACH_H
#define SCRY_DETACH_H

struct bpf_link;

/*
 * Fork a child that holds the fds of @links and the @nfds @fds (and no
 * other fd): every BPF link and perf event fd scry has open, which
 * covers links made of several (USDT). Returns the fd that lets it go
 * (>= 0): the caller destroys its own links and closes @fds, which then
 * only drops references, and passes the fd to detach_go(). Returns -1
 * when no child could be made: the caller's closes wait as before.
 */
int detach_fork(struct bpf_link **links, int n, const int *fds, size_t nfds);

/*
 * Scry holds no reference to the links any more: the child closes them
 * and exits. -1 is ignored.
 */
void detach_go(int fd);

#endif /* SCRY_DETACH_H */
