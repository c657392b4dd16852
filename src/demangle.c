// SPDX-License-Identifier: GPL-2.0
/* C++ demangling: see include/scry/demangle.h. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <scry/demangle.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf,
				 size_t *len, int *status);

struct demangler {
	void *cxx;		/* libstdc++, once needed */
	cxa_demangle_fn fn;
	bool tried;
};

struct demangler *demangle_new(void)
{
	return calloc(1, sizeof(struct demangler));
}

void demangle_free(struct demangler *d)
{
	if (!d)
		return;
	if (d->cxx)
		dlclose(d->cxx);
	free(d);
}

static cxa_demangle_fn demangler_fn(struct demangler *d)
{
	if (!d->tried) {
		d->tried = true;
		d->cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (d->cxx)
			d->fn = (cxa_demangle_fn)dlsym(d->cxx,
						       "__cxa_demangle");
	}
	return d->fn;
}

char *demangle_dup(struct demangler *d, const char *name)
{
	cxa_demangle_fn fn;

	if (d && name[0] == '_' && name[1] == 'Z' && (fn = demangler_fn(d))) {
		int status = -1;
		char *out = fn(name, NULL, NULL, &status);

		if (out && !status)
			return out;
		free(out);
	}
	return strdup(name);
}
