// SPDX-License-Identifier: GPL-2.0
/*
 * C++ names end to end: shop::Basket<int>::add(int) mallocs 4321 bytes
 * three times; its symbol is _ZN4shop6BasketIiE3addEi. Built with frame
 * pointers like every workload.
 *
 *   cxx_wl [GATE]
 */
#include <cstdlib>
#include "gate.h"

void *volatile sink;

namespace shop {
template <typename T> struct Basket {
	__attribute__((noinline)) void add(int n)
	{
		for (int i = 0; i < n; i++) {
			sink = std::malloc(4321);
			std::free(sink);
		}
	}
};
} // namespace shop

int main(int argc, char **argv)
{
	shop::Basket<int> b;

	gate(argc > 1 ? argv[1] : NULL);
	b.add(3);
	return 0;
}
