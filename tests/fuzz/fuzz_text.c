/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libFuzzer targets for the text scry reads from traced processes
 * (FUZZ_KIND): 1 /proc/PID/maps lines (proc_maps_parse), 2 a JIT's
 * /tmp/perf-PID.map (jitmap_parse). Whatever the input: no crash, no
 * leak, no undefined behaviour, and what is accepted keeps its
 * invariants; a perf map never holds more than its bounds allow.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scry/jitmap.h>
#include <scry/proc.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_maps(const char *line, size_t len)
{
	struct proc_map m;

	if (proc_maps_parse(line, len, &m))
		return;
	if (m.end < m.start)
		abort();
	if (m.path && (!*m.path || strchr(m.path, '\n')))
		abort();
	free(m.path);
}

static void fuzz_perfmap(const char *text, size_t len)
{
	struct jitmap *j = jitmap_new();
	const struct jitmap_stats *st;
	__u64 start, addr;
	const char *name;
	size_t i;

	if (!j)
		abort();
	if (!jitmap_parse(j, text, len)) {
		st = jitmap_stats(j);
		if (st->entries > JITMAP_MAX_ENTRIES)
			abort();
		/* every address the text names resolves inside an entry */
		for (i = 0; i + 8 <= len; i += 97) {
			memcpy(&addr, text + i, 8);
			name = jitmap_lookup(j, addr, &start);
			if (name && (!*name || start > addr))
				abort();
		}
	}
	jitmap_free(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (FUZZ_KIND == 1)
		fuzz_maps((const char *)data, size);
	else
		fuzz_perfmap((const char *)data, size);
	return 0;
}
