/* SPDX-License-Identifier: GPL-2.0 */
/*
 * intern: the report's frame strings (module, function, source file),
 * one counted copy per distinct string. 12000 stacks of 12 frames name
 * a few thousand functions in a few files: a copy per frame was most of
 * a drain's memory.
 */
#ifndef SCRY_INTERN_H
#define SCRY_INTERN_H

/* A reference to the shared copy of @s; NULL (errno ENOMEM) on failure. */
char *intern(const char *s);

/* The same for a malloc'd @s, which is consumed (freed) either way. */
char *intern_take(char *s);

/* Another reference to the intern()ed @s; NULL stays NULL. */
char *intern_ref(char *s);

/* Drop a reference from intern(); NULL is ignored. The last frees it. */
void intern_put(char *s);

#endif /* SCRY_INTERN_H */
