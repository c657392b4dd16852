// SPDX-License-Identifier: GPL-2.0
/*
 * C++ fixture for test_sym, built at run time with
 * "g++ -O0 -g -shared -fPIC" and dlopen'ed: ns::fn(int) is
 * _ZN2ns2fnEi, and ns::twice(int) is inlined into it (always_inline
 * works at -O0) around a call whose return address fxx_sink records.
 */
extern "C" {
unsigned long fxx_ra;

__attribute__((noinline)) void fxx_sink(void)
{
	fxx_ra = (unsigned long)__builtin_return_address(0);
}
}

namespace ns {
inline __attribute__((always_inline)) int twice(int x)
{
	fxx_sink();
	return x * 2;
}

void fn(int x)
{
	volatile int v = twice(x);

	(void)v;
}
} // namespace ns
