// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into the static scry only (make static links with
 * -Wl,--wrap=dlopen,--wrap=dlsym,--wrap=dlclose). A static binary must not
 * dlopen: glibc would load a shared libc beside the static one, and memory
 * allocated by one and freed by the other breaks. The two places scry uses
 * dlopen get what a static binary can give instead:
 *  - sym.c's demangler opens libstdc++ for __cxa_demangle: libstdc++.a is
 *    linked in, so the handle is a token and dlsym returns the function;
 *  - resolve.c's IFUNC lookup asks (RTLD_NOLOAD) whether a library is
 *    loaded in scry itself: in a static scry none is, so NULL, and the
 *    probe goes where the library's symbol table says (for an IFUNC, its
 *    resolver: README says so).
 */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
		     int *status);
void *__wrap_dlopen(const char *file, int mode);
void *__wrap_dlsym(void *handle, const char *name);
int __wrap_dlclose(void *handle);

static char libstdcxx;		/* libstdc++'s handle: this address */

void *__wrap_dlopen(const char *file, int mode)
{
	(void)mode;
	if (file && !strcmp(file, "libstdc++.so.6"))
		return &libstdcxx;
	return NULL;
}

void *__wrap_dlsym(void *handle, const char *name)
{
	if (handle == &libstdcxx && name && !strcmp(name, "__cxa_demangle"))
		return (void *)__cxa_demangle;
	return NULL;
}

int __wrap_dlclose(void *handle)
{
	(void)handle;
	return 0;
}
