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
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC_LOST		2
#define REC_SAMPLE		9
#define REC_LOST_SAMPLES	13

struct rec_header {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
};

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : stdin;
	uint64_t hdr[2], samples = 0, lost = 0, lost_samples = 0, left = UINT64_MAX;
	static unsigned char buf[65536];
	struct rec_header h;

	if (!f || fread(hdr, 8, 2, f) != 2 || memcmp(hdr, "PERFILE2", 8)) {
		fprintf(stderr, "perfcount: not perf.data\n");
		return 1;
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
		if (h.type == REC_SAMPLE)
			samples++;
		else if (h.type == REC_LOST && body >= 16)
			lost += ((uint64_t *)buf)[1];
		else if (h.type == REC_LOST_SAMPLES && body >= 8)
			lost_samples += ((uint64_t *)buf)[0];
	}
	printf("%llu %llu\n", (unsigned long long)samples,
	       (unsigned long long)(lost > lost_samples ? lost : lost_samples));
	return 0;
}
