/* SPDX-License-Identifier: GPL-2.0 */
/*
 * demangle: C++ names through libstdc++'s __cxa_demangle, loaded with
 * dlopen on first need so scry does not depend on libstdc++; without it
 * names stay mangled.
 */
#ifndef SCRY_DEMANGLE_H
#define SCRY_DEMANGLE_H

struct demangler;

struct demangler *demangle_new(void);
void demangle_free(struct demangler *d);

/*
 * A malloc'ed copy of @name, demangled when it is a C++ name ("_Z...")
 * and @d is non-NULL. NULL only when out of memory.
 */
char *demangle_dup(struct demangler *d, const char *name);

#endif /* SCRY_DEMANGLE_H */
