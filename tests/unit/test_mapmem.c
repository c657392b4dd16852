/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mapmem: map sizes against what the kernel reports, the memory a
 * process may get read from fake /proc and cgroup trees (v1, v2, nested
 * limits), and the messages that name the option to lower.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>

#include <scry/log.h>
#include <scry/mapmem.h>

#include "check.h"
#include "test_util.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

/*
 * Ground truth: bpftool's bytes_memlock (the kernel's map_mem_usage) for
 * scry's own maps on Linux 6.18, 2 CPUs, --max-keys 1048576
 * --max-stacks 262144. The estimate stays within 0.01 %.
 */
static void sizes(void)
{
	static const struct {
		const char *name;
		__u32 type, key, value, entries, flags;
		__u64 kernel;
	} maps[] = {
		{ "aggs", BPF_MAP_TYPE_HASH, 72, 544, 1048576, 0, 713033920 },
		{ "stacks", BPF_MAP_TYPE_HASH, 8, 1024, 262144, 0, 287312896 },
		{ "inflight", BPF_MAP_TYPE_HASH, 4, 136, 1048576, 0, 218105104 },
		{ "unwind_rows", BPF_MAP_TYPE_ARRAY, 4, 8, 2097152,
		  BPF_F_MMAPABLE, 16781312 },
	};
	char what[64];
	__u64 got, diff;
	size_t i;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		got = mapmem_bytes(maps[i].type, maps[i].key, maps[i].value,
				   maps[i].entries, maps[i].flags, 2);
		diff = got > maps[i].kernel ? got - maps[i].kernel :
		       maps[i].kernel - got;
		snprintf(what, sizeof(what), "%s: within 0.01%% of the kernel's",
			 maps[i].name);
		CHECK(diff * 10000 <= maps[i].kernel, what);
	}
	/* the formulas, exactly */
	CHECK_INT(mapmem_bytes(BPF_MAP_TYPE_HASH, 72, 544, 1048576, 0, 2),
		  1048576ULL * 16 + 1048578ULL * (48 + 72 + 544),
		  "hash: buckets + (entries + a spare per CPU) * element");
	CHECK_INT(mapmem_bytes(BPF_MAP_TYPE_HASH, 4, 8192, 1000,
			       BPF_F_NO_PREALLOC, 2), 1024 * 16,
		  "hash without prealloc: its buckets only");
	CHECK_INT(mapmem_bytes(BPF_MAP_TYPE_PERCPU_HASH, 4, 12, 10, 0, 4),
		  16 * 16 + 14 * (48 + 8 + 8 + 16 * 4),
		  "per-CPU hash: values per CPU, rounded to 8");
	CHECK_INT(mapmem_bytes(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 18, 0, 2),
		  18 * 8 * 2, "per-CPU array");
	CHECK_INT(mapmem_bytes(BPF_MAP_TYPE_ARRAY, 4, 8, 100, BPF_F_MMAPABLE, 2),
		  4096 + 4096, "mmapable array: whole pages, a page before");
	CHECK_INT(mapmem_bytes(BPF_MAP_TYPE_RINGBUF, 0, 0, 65536, 0, 2), 65536,
		  "ring buffer: its pages");
}

static char root[] = "/tmp/scry-test-mapmem.XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		abort();
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static void clear(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/*", root);
	if (system(cmd))
		abort();
}

static __u64 avail(char *why, size_t len)
{
	why[0] = '\0';
	return mapmem_available(root, why, len);
}

/* This machine's layout: memory on cgroup v1, the rest hybrid. */
static void cgroup_v1(void)
{
	char why[64];

	clear();
	put("proc/meminfo", "MemTotal:       24684084 kB\n"
	    "MemAvailable:   23971244 kB\n");
	put("proc/self/cgroup", "9:name=systemd:/\n4:memory:/job/a\n"
	    "1:cpu:/\n0::/\n");
	put("proc/self/mountinfo",
	    "30 22 0:26 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	    "33 22 0:29 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup "
	    "rw,memory\n"
	    "40 22 0:36 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
	put("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
	put("sys/fs/cgroup/memory/job/memory.limit_in_bytes",
	    "9223372036854771712\n");
	put("sys/fs/cgroup/memory/job/memory.usage_in_bytes", "0\n");
	put("sys/fs/cgroup/memory/job/a/memory.limit_in_bytes", "1610612736\n");
	put("sys/fs/cgroup/memory/job/a/memory.usage_in_bytes", "419430400\n");
	put("sys/fs/cgroup/memory/job/a/memory.stat",
	    "cache 1\ntotal_inactive_file 104857600\ntotal_active_file 104857600\n");
	CHECK_INT(avail(why, sizeof(why)), 1536 * MiB - 200 * MiB,
		  "v1: limit - usage + page cache");
	CHECK_STR(why, "memory cgroup limit", "v1: the cgroup bounds it");

	/* a parent nearer its limit bounds the child */
	put("sys/fs/cgroup/memory/job/memory.limit_in_bytes", "1073741824\n");
	put("sys/fs/cgroup/memory/job/memory.usage_in_bytes", "536870912\n");
	CHECK_INT(avail(why, sizeof(why)), 512 * MiB, "v1: the parent's limit");

	/* no limit anywhere: MemAvailable */
	put("sys/fs/cgroup/memory/job/memory.limit_in_bytes",
	    "9223372036854771712\n");
	put("sys/fs/cgroup/memory/job/a/memory.limit_in_bytes",
	    "9223372036854771712\n");
	CHECK_INT(avail(why, sizeof(why)), 23971244ULL * 1024,
		  "v1 without limits: MemAvailable");
	CHECK_STR(why, "MemAvailable", "v1 without limits: says so");
}

static void cgroup_v2(void)
{
	char why[64];

	clear();
	put("proc/meminfo", "MemAvailable:   1048576 kB\n");
	put("proc/self/cgroup", "0::/user.slice/s.scope\n");
	put("proc/self/mountinfo",
	    "25 1 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n");
	put("sys/fs/cgroup/user.slice/s.scope/memory.max", "max\n");
	put("sys/fs/cgroup/user.slice/s.scope/memory.current", "1000\n");
	put("sys/fs/cgroup/user.slice/memory.max", "3221225472\n");
	put("sys/fs/cgroup/user.slice/memory.current", "1073741824\n");
	put("sys/fs/cgroup/user.slice/memory.stat",
	    "anon 1\nactive_file 0\ninactive_file 1073741824\n");
	CHECK_INT(avail(why, sizeof(why)), 1 * GiB,
		  "v2: MemAvailable when it is less than the cgroup's room");
	CHECK_STR(why, "MemAvailable", "v2: says MemAvailable");
	put("proc/meminfo", "MemAvailable:   16777216 kB\n");
	CHECK_INT(avail(why, sizeof(why)), 3 * GiB,
		  "v2: the parent's max, its page cache reclaimable");
	CHECK_STR(why, "memory cgroup limit", "v2: says the cgroup");

	/* a cgroup namespace: the mount's root is a prefix of the path */
	put("proc/self/mountinfo",
	    "25 1 0:22 /user.slice /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
	put("sys/fs/cgroup/s.scope/memory.max", "2147483648\n");
	put("sys/fs/cgroup/s.scope/memory.current", "0\n");
	CHECK_INT(avail(why, sizeof(why)), 2 * GiB,
		  "v2 in a cgroup namespace: the path under the mount's root");

	clear();
	CHECK_INT(avail(why, sizeof(why)), 0, "nothing readable: 0 (no check)");
}

static const struct mapmem big = {
	.total = 31 * GiB,
	.by = { [MAPMEM_KEYS] = 14 * GiB, [MAPMEM_STACKS] = 17 * GiB,
		[MAPMEM_UNWIND] = 16 * MiB },
	.value = { 16777216, 16777216, 2097152 },
};

static int check_ret;

static void refuse(void *arg)
{
	(void)arg;
	check_ret = mapmem_check(&big, (__u64)(1.5 * GiB), "memory cgroup limit");
}

static void fits(void *arg)
{
	(void)arg;
	check_ret = mapmem_check(&big, 40 * GiB, "MemAvailable");
}

static void enomem(void *arg)
{
	(void)arg;
	mapmem_enomem(&big);
}

static void messages(void)
{
	char *got;

	got = capture_stderr(refuse, NULL);
	CHECK_INT(check_ret, -ENOMEM, "too big: -ENOMEM");
	CHECK_STR(got, "scry: BPF maps would take 31.0 GiB of kernel memory, "
		  "more than the 1.5 GiB available (memory cgroup limit): "
		  "lower --max-stacks (17.0 GiB at 16777216) or --max-keys "
		  "(14.0 GiB at 16777216)\n",
		  "too big: one line, the options largest first");
	free(got);
	got = capture_stderr(fits, NULL);
	CHECK_INT(check_ret, 0, "fits: 0");
	CHECK_STR(got, "scry: BPF maps take 31.0 GiB of kernel memory "
		  "(--max-stacks (17.0 GiB at 16777216), --max-keys (14.0 GiB "
		  "at 16777216)); 40.0 GiB available\n",
		  "fits, but large: says how much");
	free(got);
	got = capture_stderr(enomem, NULL);
	CHECK_STR(got, "scry: loading BPF programs: Cannot allocate memory: "
		  "the kernel could not allocate the BPF maps (31.0 GiB): "
		  "lower --max-stacks (17.0 GiB at 16777216) or --max-keys "
		  "(14.0 GiB at 16777216)\n",
		  "ENOMEM at load: a map-size error, not the verifier");
	free(got);
}

int main(void)
{
	char cmd[600];

	if (!mkdtemp(root))
		return 1;
	sizes();
	cgroup_v1();
	cgroup_v2();
	messages();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		printf("# could not remove %s\n", root);
	return CHECK_DONE();
}
