// SPDX-License-Identifier: GPL-2.0
/*
 * Unwinding ground truth for code scry learns about while tracing:
 *
 *   dl_wl dlopen LIB [GATE]  after GATE, dlopen(LIB) and call its lib_fn(),
 *                            which mallocs 999 bytes from lib_leaf()
 *   dl_wl dlopen-now LIB     the same at once: no gate, and no pause
 *                            between dlopen and the call
 *   dl_wl thread [GATE]      after GATE, a second thread mallocs 888 bytes
 *                            from thread_fn(): its stack ends at clone3
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gate.h"

void *volatile sink;

__attribute__((noinline)) void *thread_fn(void *arg)
{
	(void)arg;
	sink = malloc(888);
	free(sink);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 2 && (!strcmp(argv[1], "dlopen") ||
			 !strcmp(argv[1], "dlopen-now"))) {
		bool now = !strcmp(argv[1], "dlopen-now");
		void (*fn)(void);
		void *h;

		gate(!now && argc > 3 ? argv[3] : NULL);
		h = dlopen(argv[2], RTLD_NOW);
		if (!h || !(fn = (void (*)(void))dlsym(h, "lib_fn"))) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		/* a library is loaded well before it runs hot: give scry
		 * the moment it needs to read the new mapping's tables */
		if (!now)
			usleep(300000);
		fn();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "thread")) {
		pthread_t t;

		gate(argc > 2 ? argv[2] : NULL);
		if (pthread_create(&t, NULL, thread_fn, NULL))
			return 1;
		pthread_join(t, NULL);
		return 0;
	}
	fprintf(stderr, "usage: dl_wl dlopen LIB [GATE] | thread [GATE]\n");
	return 2;
}
