/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inlining fixture for test_sym, built by the test at run time with
 * "cc -O2 -g -shared -fPIC" and dlopen'ed. fx_outer inlines fx_mid,
 * which inlines fx_leaf, whose call to fx_sink leaves a return address
 * inside the inlined code. Each level passes its __LINE__ down, so the
 * test learns the expected lines without hard-coding them.
 */
unsigned long fx_ra;
int fx_leaf_line, fx_mid_line, fx_outer_line;

__attribute__((noinline, noclone)) int fx_sink(int x, int leaf, int mid,
					       int outer)
{
	fx_ra = (unsigned long)__builtin_return_address(0);
	fx_leaf_line = leaf;
	fx_mid_line = mid;
	fx_outer_line = outer;
	return x ^ 0x5a;
}

static inline __attribute__((always_inline)) int fx_leaf(int x, int mid,
							 int outer)
{
	int r = x * 3;

	/* multiplied after the call: not a tail call */
	r += fx_sink(r, __LINE__, mid, outer) * 2;
	return r;
}

static inline __attribute__((always_inline)) int fx_mid(int x, int outer)
{
	int r = fx_leaf(x + 1, __LINE__, outer);

	return r ^ 0x33;
}

__attribute__((noinline, noclone)) int fx_outer(int x)
{
	int r = fx_mid(x, __LINE__);

	return r - 1;
}
