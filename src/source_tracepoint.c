// SPDX-License-Identifier: GPL-2.0
/*
 * source_tracepoint: tracepoint:CATEGORY:NAME. One generic program reads
 * the plan's args.FIELD operands by offset (from the event's format) and
 * hands the event to the engine. Attaching needs the event id from tracefs,
 * which scry mounts if it must.
 */
#include <errno.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <scry/attach.h>
#include <scry/log.h>
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
	.probes = 1u << PLAN_TRACEPOINT,
	.prepare = tp_prepare,
	.attach = tp_attach,
};
