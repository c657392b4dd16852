// SPDX-License-Identifier: GPL-2.0
/*
 * perfcount: count samples and lost samples in perf record's output, file
 * or pipe format (`perf record -o - | perfcount`), in one pass: `perf
 * report -D` takes longer than the runs it would check.
 *
 *   perfcount [FILE]      prints "SAMPLES LOST"
 *
 * LOST records carry the ring-buffer overflows perf saw; perf 6.1 also
 * appends LOST_SAMPLES with the kernel's own count of the same drops, so
 * the larger of the two sums is reported, not their total.
 *
 * It never stops reading early: perf dies of SIGPIPE when its reader
 * goes, and the workload would then run on untraced.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC_LOST		2
#define REC_SAMPLE		9
#define REC_LOST_SAMPLES	13
#define REC_TRACING_DATA	66	/* pipe mode: trace format files follow */
#define REC_AUXTRACE		71	/* AUX area data follows */

struct rec_header {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
};

/* Read the rest and fail: never leave perf writing into a closed pipe. */
static int drain(FILE *f)
{
	static char sink[65536];

	while (f && fread(sink, 1, sizeof(sink), f) > 0)
		;
	printf("? ?\n");
	return 1;
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : stdin;
	uint64_t hdr[2], samples = 0, lost = 0, lost_samples = 0, left = UINT64_MAX;
	static unsigned char buf[65536];
	struct rec_header h;

	if (!f || fread(hdr, 8, 2, f) != 2 || memcmp(hdr, "PERFILE2", 8)) {
		fprintf(stderr, "perfcount: not perf.data\n");
		return drain(f);
	}
	if (hdr[1] != 16) {
		/* file format: attr_size, attrs{off,size}, data{off,size} */
		uint64_t rest[5];

		if (fread(rest, 8, 5, f) != 5 || fseek(f, rest[3], SEEK_SET))
			return 1;
		left = rest[4];
	}
	while (left >= sizeof(h) && fread(&h, sizeof(h), 1, f) == 1) {
		size_t body = h.size - sizeof(h);

		if (h.size < sizeof(h) || fread(buf, 1, body, f) != body)
			break;
		left -= h.size;
		/* records whose payload is not counted in their size */
		if ((h.type == REC_TRACING_DATA && body >= 4) ||
		    (h.type == REC_AUXTRACE && body >= 8)) {
			uint64_t extra = h.type == REC_TRACING_DATA ?
				*(uint32_t *)buf : *(uint64_t *)buf;

			extra = (extra + 7) & ~7ULL;
			for (; extra; extra -= body) {
				body = extra < sizeof(buf) ? extra : sizeof(buf);
				if (fread(buf, 1, body, f) != body)
					return drain(f);
			}
			continue;
		}
		if (h.type == REC_SAMPLE)
			samples++;
		else if (h.type == REC_LOST && body >= 16)
			lost += ((uint64_t *)buf)[1];
		else if (h.type == REC_LOST_SAMPLES && body >= 8)
			lost_samples += ((uint64_t *)buf)[0];
	}
	if (!feof(f) && left >= sizeof(h)) {
		fprintf(stderr, "perfcount: unknown record %u\n", h.type);
		return drain(f);
	}
	printf("%llu %llu\n", (unsigned long long)samples,
	       (unsigned long long)(lost > lost_samples ? lost : lost_samples));
	return 0;
}
