// SPDX-License-Identifier: GPL-2.0
/*
 * source_tracepoint: tracepoint:CATEGORY:NAME. One generic program reads
 * the plan's args.FIELD operands by offset (from the event's format) and
 * hands the event to the engine. Attaching needs the event id from tracefs,
 * which scry mounts if it must.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/list.h>
#include <scry/log.h>
#include <scry/source.h>
#include <scry/expr.h>
#include <scry/tracefs.h>
#include "scry.skel.h"

static int tp_prepare(struct attach *a)
{
	const struct plan *p = a->plan;
	struct scry__rodata *ro = a->skel->rodata;
	int i;

	for (i = 0; i < p->ntp_fields; i++) {
		const struct plan_tp_field *f = &p->tp_fields[i];

		ro->tp_fields[i].offset = f->offset;
		ro->tp_fields[i].size = f->size;
		ro->tp_fields[i].is_signed = f->is_signed;
		ro->tp_fields[i].kind = !f->is_string ? SCRY_TP_INT :
					f->data_loc ? SCRY_TP_DATA_LOC :
					SCRY_TP_CHARS;
	}
	bpf_program__set_autoload(a->skel->progs.tp_fire, true);
	return 0;
}

/* tracefs lists events as events/CATEGORY/NAME directories */
static int tp_list(FILE *f, char *parts[], int nparts, int pid)
{
	const char *cat = nparts > 0 && *parts[0] ? parts[0] : "*";
	const char *name = nparts > 1 && *parts[1] ? parts[1] : "*";
	char dir[512];
	struct dirent *c, *e;
	DIR *cd, *ed;
	int found = 0;

	(void)pid;
	if (tracefs_ensure())
		return 2;
	cd = opendir("/sys/kernel/tracing/events");
	if (!cd) {
		log_err("cannot list tracepoints: %s", strerror(errno));
		return 2;
	}
	while ((c = readdir(cd))) {
		if (c->d_name[0] == '.' || fnmatch(cat, c->d_name, 0))
			continue;
		snprintf(dir, sizeof(dir), "/sys/kernel/tracing/events/%s",
			 c->d_name);
		ed = opendir(dir);
		while (ed && (e = readdir(ed))) {
			if (e->d_name[0] == '.' || e->d_type != DT_DIR ||
			    fnmatch(name, e->d_name, 0))
				continue;
			list_line(f, "tracepoint", c->d_name, e->d_name, NULL,
				  NULL);
			found++;
		}
		if (ed)
			closedir(ed);
	}
	closedir(cd);
	return found ? 0 : 1;
}

static int tp_attach(struct attach *a)
{
	const struct plan *p = a->plan;
	struct bpf_link *l;
	int err;

	err = tracefs_ensure();
	if (err)
		return err;
	l = bpf_program__attach_tracepoint(a->skel->progs.tp_fire,
					   p->target[0], p->target[1]);
	if (!l) {
		err = -errno;
		log_err("tracepoint:%s:%s: %s", p->target[0], p->target[1],
			err == -ENOENT ? "no such tracepoint" : strerror(-err));
		a->usage_error = err == -ENOENT;
		return err;
	}
	return attach_keep(a, l);
}

const struct source source_tracepoint = {
	.name = "tracepoint",
	.usage = "tracepoint:CAT:NAME",
	.what = "a kernel tracepoint; its fields as args.FIELD",
	.min_parts = 2,
	.max_parts = 2,
	.fields = SOURCE_F_TPARGS,
	.list = tp_list,
	.prepare = tp_prepare,
	.attach = tp_attach,
};
