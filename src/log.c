// SPDX-License-Identifier: GPL-2.0
/* Diagnostics: one place decides what reaches stderr. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include <scry/log.h>

bool log_verbose;
bool log_quiet;

static void vlog(const char *fmt, va_list ap)
{
	int saved = errno;

	fputs("scry: ", stderr);
	vfprintf(stderr, fmt, ap);
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
	/* libbpf's messages explain failures we report ourselves: -v only */
	if (!log_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
