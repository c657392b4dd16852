/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs: what tracepoint:CAT:NAME needs from it, the event's format.
 * scry mounts tracefs at /sys/kernel/tracing itself when it is missing,
 * and says so.
 */
#ifndef SCRY_TRACEFS_H
#define SCRY_TRACEFS_H

#include <stddef.h>
#include <linux/types.h>

struct plan_tp_field;

#define TRACEFS		"/sys/kernel/tracing"

/* Mount tracefs if no tracefs is mounted. Returns 0 or -errno. */
int tracefs_ensure(void);

/*
 * Look up FIELD in CAT:NAME's format and fill @out (offset, size, sign,
 * string kind). Returns 0, -ENOENT with a message in @err when the event
 * or the field does not exist (the message lists the event's fields).
 */
int tracefs_field(const char *cat, const char *name, const char *field,
		  struct plan_tp_field *out, char *err, size_t errlen);

#endif /* SCRY_TRACEFS_H */
