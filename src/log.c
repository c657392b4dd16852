// SPDX-License-Identifier: GPL-2.0
/*
 * Diagnostics: one place decides what reaches stderr. Messages quote
 * paths, comm and symbol names that traced processes choose, so each
 * whole message goes through the sanitizer (sane.h): no caller can forget
 * it, and a message is always one line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/libbpf.h>
#include <scry/log.h>
#include <scry/sane.h>

bool log_verbose;
bool log_quiet;

/* @prefix, then the message escaped with @flags (SANE_*). */
static void vlog_to(const char *prefix, unsigned int flags, const char *fmt,
		    va_list ap)
{
	char small[512], *msg = small;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n >= (int)sizeof(small)) {
		msg = malloc((size_t)n + 1);
		if (msg)
			vsnprintf(msg, (size_t)n + 1, fmt, ap);
	}
	fputs(prefix, stderr);
	/* out of memory: the format alone still says what failed */
	sane_fputs(stderr, n < 0 || !msg ? fmt : msg, flags, NULL);
	if (msg != small)
		free(msg);
}

static void vlog(const char *fmt, va_list ap)
{
	int saved = errno;

	vlog_to("scry: ", 0, fmt, ap);
	fputc('\n', stderr);
	errno = saved;
}

void log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	if (log_quiet)
		return;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	int saved = errno;

	/* libbpf's messages explain failures we report ourselves: -v only */
	if (!log_verbose || level == LIBBPF_DEBUG)
		return 0;
	/* they quote binary paths too; the verifier's log keeps its lines */
	vlog_to("", SANE_LINES, fmt, ap);
	errno = saved;
	return 0;
}

void log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
