// SPDX-License-Identifier: GPL-2.0
/*
 * mapmem: what the maps cost and what the process may still allocate
 * (include/scry/mapmem.h). The sizes follow the kernel's allocators
 * (kernel/bpf/hashtab.c, arraymap.c, ringbuf.c) closely enough to tell
 * 30 GiB from 1.5 GiB; the check is a guard, not an accountant.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <scry/log.h>
#include <scry/mapmem.h>
#include <scry/out.h>

#define HTAB_ELEM	48	/* struct htab_elem before its key */
#define HTAB_BUCKET	16	/* struct bucket: list head and lock */
#define NO_LIMIT	(1ULL << 62)	/* v1 says 0x7ffffffffffff000 */
#define LOUD_BYTES	(256ULL << 20)	/* say the size from here on */

static const char *const opt_names[MAPMEM_NOPTS] = {
	[MAPMEM_KEYS] = "--max-keys",
	[MAPMEM_STACKS] = "--max-stacks",
	[MAPMEM_UNWIND] = "--max-unwind-rows",
	[MAPMEM_BUFFER] = "--buffer-size",
};

static __u64 round8(__u64 v)
{
	return (v + 7) & ~7ULL;
}

static __u64 pow2_at_least(__u64 v)
{
	__u64 p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

__u64 mapmem_bytes(__u32 type, __u32 key_size, __u32 value_size,
		   __u32 max_entries, __u32 flags, unsigned int ncpus)
{
	__u64 n = max_entries, k = round8(key_size), v = round8(value_size);
	bool percpu = type == BPF_MAP_TYPE_PERCPU_HASH ||
		      type == BPF_MAP_TYPE_LRU_PERCPU_HASH;

	switch (type) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH: {
		__u64 buckets = pow2_at_least(n) * HTAB_BUCKET;
		/* a per-CPU element holds a pointer to its values */
		__u64 elem = HTAB_ELEM + k + (percpu ? 8 + v * ncpus : v);

		if (flags & BPF_F_NO_PREALLOC)
			return buckets;
		/* a preallocated hash keeps a spare element per CPU */
		return buckets + (n + ncpus) * elem;
	}
	case BPF_MAP_TYPE_ARRAY:
		/* mmapable: whole pages, after a page for struct bpf_array */
		if (flags & BPF_F_MMAPABLE)
			return 4096 + ((n * v + 4095) & ~4095ULL);
		return n * v;
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return n * v * ncpus;
	case BPF_MAP_TYPE_RINGBUF:
		return n;
	default:
		return n * (k + v);
	}
}

/* ---- what may still be allocated ---- */

/* The first number after "@key" on a line of @path, or false. */
static bool read_key(const char *path, const char *key, __u64 *out)
{
	char line[512];
	size_t n = strlen(key);
	bool found = false;
	FILE *f = fopen(path, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && (line[n] == ' ' || line[n] == ':'))
			found = sscanf(line + n + 1, " %llu",
				       (unsigned long long *)out) == 1;
	if (f)
		fclose(f);
	return found;
}

/* A one-number file (v2 "max" is no limit). */
static bool read_num(const char *path, __u64 *out)
{
	char buf[64];
	bool ok = false;
	FILE *f = fopen(path, "r");

	if (f && fgets(buf, sizeof(buf), f)) {
		if (!strncmp(buf, "max", 3)) {
			*out = NO_LIMIT;
			ok = true;
		} else {
			ok = sscanf(buf, "%llu", (unsigned long long *)out) == 1;
		}
	}
	if (f)
		fclose(f);
	return ok;
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n] ||
						    p[n] == '\n'))
			return true;
	return false;
}

/*
 * The memory cgroup's path in its hierarchy, from /proc/self/cgroup:
 * "N:memory[,...]:/path" (v1) wins over "0::/path" (v2), as the memory
 * controller is on v1 then (a hybrid layout).
 */
static bool memcg_path(const char *root, char *path, size_t len, bool *v2)
{
	char file[4096], line[4096], *ctl, *p;
	bool found = false;
	FILE *f;

	snprintf(file, sizeof(file), "%s/proc/self/cgroup", root);
	f = fopen(file, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ctl = strchr(line, ':');
		if (!ctl)
			continue;
		*ctl++ = '\0';
		p = strchr(ctl, ':');
		if (!p)
			continue;
		*p++ = '\0';
		if (has_word(ctl, "memory")) {
			snprintf(path, len, "%s", p);
			*v2 = false;
			found = true;
			break;
		}
		if (!*ctl && !strcmp(line, "0")) {
			snprintf(path, len, "%s", p);
			*v2 = true;
			found = true;	/* keep looking for a v1 memory line */
		}
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * Where that hierarchy is mounted (/proc/self/mountinfo: "ID PARENT
 * MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS"),
 * and the path there: the cgroup path less the mount's own root.
 */
static bool memcg_dir(const char *root, const char *cg, bool v2, char *dir,
		      size_t len, size_t *top)
{
	char file[4096], line[4096], mroot[1024], mpoint[1024], type[64],
	     super[1024], *dash;
	bool found = false;
	size_t n;
	FILE *f;

	snprintf(file, sizeof(file), "%s/proc/self/mountinfo", root);
	f = fopen(file, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %1023s %1023s", mroot,
				    mpoint) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", type, super) != 2)
			continue;
		if (v2 ? strcmp(type, "cgroup2") :
		    strcmp(type, "cgroup") || !has_word(super, "memory"))
			continue;
		n = strlen(mroot);
		if (strcmp(mroot, "/") && !strncmp(cg, mroot, n))
			cg += n;
		*top = strlen(root) + strlen(mpoint);
		snprintf(dir, len, "%s%s%s", root, mpoint,
			 strcmp(cg, "/") ? cg : "");
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

/* limit - usage + page cache of one cgroup level; false if no limit */
static bool level_room(const char *dir, bool v2, __u64 *room)
{
	char file[4200];
	__u64 limit, usage, active = 0, inactive = 0;

	snprintf(file, sizeof(file), "%s/%s", dir,
		 v2 ? "memory.max" : "memory.limit_in_bytes");
	if (!read_num(file, &limit) || limit >= NO_LIMIT)
		return false;
	snprintf(file, sizeof(file), "%s/%s", dir,
		 v2 ? "memory.current" : "memory.usage_in_bytes");
	if (!read_num(file, &usage))
		return false;
	snprintf(file, sizeof(file), "%s/memory.stat", dir);
	/* page cache the kernel reclaims before it refuses a map */
	read_key(file, v2 ? "active_file" : "total_active_file", &active);
	read_key(file, v2 ? "inactive_file" : "total_inactive_file", &inactive);
	usage = usage > active + inactive ? usage - active - inactive : 0;
	*room = limit > usage ? limit - usage : 0;
	return true;
}

/* The least room of the cgroup levels from the process's up to the top. */
static bool memcg_room(const char *root, __u64 *room)
{
	char cg[2048], dir[4096];
	size_t top;
	bool v2, any = false;
	__u64 r;

	if (!memcg_path(root, cg, sizeof(cg), &v2) ||
	    !memcg_dir(root, cg, v2, dir, sizeof(dir), &top))
		return false;
	for (;;) {
		if (level_room(dir, v2, &r) && (!any || r < *room)) {
			*room = r;
			any = true;
		}
		if (strlen(dir) <= top || !strrchr(dir, '/'))
			break;
		*strrchr(dir, '/') = '\0';
		if (strlen(dir) < top)
			break;
	}
	return any;
}

__u64 mapmem_available(const char *root, char *why, size_t len)
{
	char file[4096];
	__u64 avail = 0, room = 0;

	snprintf(file, sizeof(file), "%s/proc/meminfo", root);
	if (read_key(file, "MemAvailable", &avail)) {
		avail *= 1024;
		snprintf(why, len, "MemAvailable");
	}
	if (memcg_room(root, &room) && (!avail || room < avail)) {
		avail = room;
		snprintf(why, len, "memory cgroup limit");
	}
	return avail;
}

/* ---- messages ---- */

/* "--max-stacks (17.2 GiB at 16777216) or --max-keys (...)", largest first */
static void opts_text(const struct mapmem *need, const char *sep, char *buf,
		      size_t len)
{
	bool done[MAPMEM_NOPTS] = {};
	char human[32];
	size_t used = 0;
	int i, j, best;

	buf[0] = '\0';
	for (i = 0; i < MAPMEM_NOPTS; i++) {
		best = -1;
		for (j = 0; j < MAPMEM_NOPTS; j++)
			if (!done[j] && need->by[j] &&
			    (best < 0 || need->by[j] > need->by[best]))
				best = j;
		/* an option that sizes under 1% of the total is no fix */
		if (best < 0 || need->by[best] * 100 < need->total)
			break;
		done[best] = true;
		out_human(need->by[best], human, sizeof(human));
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s%s (%s at %llu)", used ? sep : "",
				 opt_names[best], human,
				 (unsigned long long)need->value[best]);
		if (used >= len)
			break;
	}
}

int mapmem_check(const struct mapmem *need, __u64 avail, const char *why)
{
	char total[32], room[32], opts[256];

	out_human(need->total, total, sizeof(total));
	out_human(avail, room, sizeof(room));
	if (avail && need->total > avail) {
		opts_text(need, " or ", opts, sizeof(opts));
		log_err("BPF maps would take %s of kernel memory, more than "
			"the %s available (%s): lower %s", total, room, why,
			*opts ? opts : "--max-keys or --max-stacks");
		return -ENOMEM;
	}
	if (need->total >= LOUD_BYTES) {
		opts_text(need, ", ", opts, sizeof(opts));
		log_info("BPF maps take %s of kernel memory (%s)%s%s%s", total,
			 opts, avail ? "; " : "", avail ? room : "",
			 avail ? " available" : "");
	}
	log_debug("BPF maps: %llu bytes of kernel memory, %llu available (%s)",
		  (unsigned long long)need->total, (unsigned long long)avail,
		  avail ? why : "unknown");
	return 0;
}

void mapmem_enomem(const struct mapmem *need)
{
	char total[32], opts[256];

	out_human(need->total, total, sizeof(total));
	opts_text(need, " or ", opts, sizeof(opts));
	log_err("loading BPF programs: %s: the kernel could not allocate the "
		"BPF maps (%s): lower %s", strerror(ENOMEM), total,
		*opts ? opts : "--max-keys or --max-stacks");
}
