/* SPDX-License-Identifier: GPL-2.0 */
/*
 * framememo: the logical frames of each distinct file address, kept for
 * one drain. A drain names the same return addresses thousands of times
 * (12 000 stacks through a few thousand call sites); remembered here,
 * the answers outlive the DWARF that gave them, which is let go of
 * before the rows are built (drain.c), not held until the drain ends.
 *
 * A key is everything syms_user()'s answer for a file address depends
 * on: the file (an obj lives as long as its cache), the address, the
 * mapping it falls in and its name, and how many frames were asked for.
 */
#ifndef SCRY_FRAMEMEMO_H
#define SCRY_FRAMEMEMO_H

#include <linux/types.h>

struct obj;
struct report_frame;

struct framememo_key {
	const struct obj *obj;
	__u64 addr;
	__u64 start, end, pgoff;	/* the mapping */
	const char *module;		/* the mapping's name */
	int max;			/* frames asked for */
};

struct framememo;

struct framememo *framememo_new(void);
void framememo_free(struct framememo *m);

/*
 * Copies of the frames remembered for @k into @out (room for k->max):
 * their number, 0 when @k is not known, or -ENOMEM.
 */
int framememo_get(const struct framememo *m, const struct framememo_key *k,
		  struct report_frame *out);

/*
 * Remember the @n frames @fr for @k (copied). 0, or -ENOMEM: then
 * nothing is remembered and the next lookup asks the file again.
 */
int framememo_put(struct framememo *m, const struct framememo_key *k,
		  const struct report_frame *fr, int n);

#endif /* SCRY_FRAMEMEMO_H */
