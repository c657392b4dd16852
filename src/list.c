// SPDX-License-Identifier: GPL-2.0
/*
 * list: `scry -l`. Probe kinds come from one table; functions and USDT
 * probes of a binary from resolve.c, filtered with fnmatch globs.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <scry/list.h>
#include <scry/plan.h>
#include <scry/tracefs.h>
#include <scry/log.h>
#include <scry/resolve.h>

static const struct {
	const char *usage;
	const char *what;
} kinds[] = {
	{ "offcpu", "off-CPU periods (sched_switch); latency = time blocked" },
	{ "uprobe:LIB:FUNC", "entry of a user function; arg0..arg5" },
	{ "uretprobe:LIB:FUNC", "return of a user function; retval, latency" },
	{ "usdt:BIN:PROVIDER:NAME", "a USDT probe; its arguments as arg0.." },
	{ "syscall:NAME[,NAME...]", "a syscall's return; args, retval, errno, "
	  "latency, fd.path" },
	{ "tracepoint:CAT:NAME", "a kernel tracepoint; its fields as args.FIELD" },
	{ "profile[:HZ]", "CPU samples on every CPU (default 99 Hz)" },
};

static int list_kinds(FILE *f, const char *glob)
{
	size_t i;
	int found = 0;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (glob && fnmatch(glob, kinds[i].usage, 0) &&
		    strncmp(glob, kinds[i].usage, strlen(glob)))
			continue;
		fprintf(f, "%-24s %s\n", kinds[i].usage, kinds[i].what);
		found++;
	}
	return found ? 0 : 1;
}

/* Split "a:b:c" into at most @max parts, in place. */
static int split(char *s, char **parts, int max)
{
	int n = 0;

	parts[n++] = s;
	while (n < max && (s = strchr(s, ':'))) {
		*s++ = '\0';
		parts[n++] = s;
	}
	return n;
}

static int resolve_path(const char *lib, int pid, char *path, size_t len)
{
	char why[RESOLVE_ERR_LEN];

	if (!resolve_lib(lib, pid, path, len, why, sizeof(why)))
		return 0;
	log_err("%s", why);
	return -ENOENT;
}

static int list_funcs(FILE *f, const char *kind, const char *lib,
		      const char *glob, int pid)
{
	char path[PATH_MAX];
	struct resolve_func *fn = NULL;
	size_t n = 0, i;
	int err;

	if (resolve_path(lib, pid, path, sizeof(path)))
		return 2;
	err = resolve_funcs(path, glob && *glob ? glob : "*", &fn, &n);
	if (err) {
		log_err("%s: cannot read symbols: %s", path, strerror(-err));
		return 1;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%s:%s:%s\n", kind, path, fn[i].name);
	resolve_funcs_free(fn, n);
	return n ? 0 : 1;
}

static int list_usdt(FILE *f, const char *bin, const char *prov,
		     const char *name, int pid)
{
	char path[PATH_MAX];
	struct resolve_usdt *u = NULL;
	size_t n = 0, i;
	int err;

	if (resolve_path(bin, pid, path, sizeof(path)))
		return 2;
	err = resolve_usdts(path, prov && *prov ? prov : "*",
			    name && *name ? name : "*", &u, &n);
	if (err) {
		log_err("%s: cannot read USDT notes: %s", path, strerror(-err));
		return 1;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "usdt:%s:%s:%s%s%s\n", path, u[i].provider,
			u[i].name, *u[i].args ? "  # args: " : "", u[i].args);
	resolve_usdts_free(u, n);
	return n ? 0 : 1;
}

static int list_syscalls(FILE *f, const char *glob)
{
	const char *name;
	int i, found = 0;

	for (i = 0; (name = plan_syscall_name(i)); i++) {
		if (fnmatch(glob && *glob ? glob : "*", name, 0))
			continue;
		fprintf(f, "syscall:%s\n", name);
		found++;
	}
	return found ? 0 : 1;
}

/* tracefs lists events as events/CATEGORY/NAME directories */
static int list_tracepoints(FILE *f, const char *cat, const char *name)
{
	char dir[512];
	struct dirent *c, *e;
	DIR *cd, *ed;
	int found = 0;

	if (tracefs_ensure())
		return 2;
	cd = opendir("/sys/kernel/tracing/events");
	if (!cd) {
		log_err("cannot list tracepoints: %s", strerror(errno));
		return 2;
	}
	while ((c = readdir(cd))) {
		if (c->d_name[0] == '.' ||
		    fnmatch(cat && *cat ? cat : "*", c->d_name, 0))
			continue;
		snprintf(dir, sizeof(dir), "/sys/kernel/tracing/events/%s",
			 c->d_name);
		ed = opendir(dir);
		while (ed && (e = readdir(ed))) {
			if (e->d_name[0] == '.' || e->d_type != DT_DIR ||
			    fnmatch(name && *name ? name : "*", e->d_name, 0))
				continue;
			fprintf(f, "tracepoint:%s:%s\n", c->d_name, e->d_name);
			found++;
		}
		if (ed)
			closedir(ed);
	}
	closedir(cd);
	return found ? 0 : 1;
}

int list_probes(FILE *f, const char *pattern, int pid)
{
	char buf[1024], *p[4] = {};
	int n, ret;

	if (!pattern || !*pattern)
		return list_kinds(f, NULL);
	if (strlen(pattern) >= sizeof(buf)) {
		log_err("-l: pattern too long");
		return 2;
	}
	strcpy(buf, pattern);
	n = split(buf, p, 4);
	if ((!strcmp(p[0], "uprobe") || !strcmp(p[0], "uretprobe")) && n >= 2)
		ret = list_funcs(f, p[0], p[1], n > 2 ? p[2] : NULL, pid);
	else if (!strcmp(p[0], "syscall") && n >= 2)
		ret = list_syscalls(f, p[1]);
	else if (!strcmp(p[0], "tracepoint") && n >= 2)
		ret = list_tracepoints(f, p[1], n > 2 ? p[2] : NULL);
	else if (!strcmp(p[0], "usdt") && n >= 2)
		ret = list_usdt(f, p[1], n > 2 ? p[2] : NULL,
				n > 3 ? p[3] : NULL, pid);
	else
		ret = list_kinds(f, pattern);
	if (ret == 1)
		log_err("-l: nothing matches '%s'", pattern);
	return ret;
}
