// SPDX-License-Identifier: GPL-2.0
/*
 * sources: the table of probe kinds. A new kind is one row here, its
 * source_*.c and its BPF adapter; plan.c, list.c and attach.c find
 * everything else in the row's struct source.
 */
#include <string.h>
#include <scry/source.h>

const struct source *const sources[] = {
	&source_offcpu,
	&source_uprobe,
	&source_uretprobe,
	&source_usdt,
	&source_syscall,
	&source_tracepoint,
	&source_kprobe,
	&source_kretprobe,
	&source_fbt,
	&source_fentry,
	&source_fexit,
	&source_kfunc,
	&source_kretfunc,
	&source_profile,
	&source_interval,
	&source_software,
	&source_hardware,
	&source_begin,
	&source_end,
	&source_dtrace,
	NULL,
};

const struct source *source_find(const char *name)
{
	int i;

	for (i = 0; sources[i]; i++)
		if (!strcmp(sources[i]->name, name) ||
		    (sources[i]->alias && !strcmp(sources[i]->alias, name)))
			return sources[i];
	return NULL;
}
