/* SPDX-License-Identifier: GPL-2.0 */
/* Diagnostics go to stderr as "scry: <object>: <what failed>[: fix]". */
#ifndef SCRY_LOG_H
#define SCRY_LOG_H

#include <stdbool.h>

extern bool log_verbose;	/* -v: libbpf's own messages too */
extern bool log_quiet;		/* -q: no banners */

/* One error line; saves and restores errno. */
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A banner ("Tracing ... Ctrl-C to stop."), suppressed by -q. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Only with -v. */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Route libbpf's messages through log_debug (warnings only with -v). */
void log_setup_libbpf(void);

#endif /* SCRY_LOG_H */
