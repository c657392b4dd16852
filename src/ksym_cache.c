// SPDX-License-Identifier: GPL-2.0
/* The per-boot cache of core-kernel text symbols: see include/scry/ksym_cache.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <scry/cachefile.h>
#include <scry/outfile.h>
#include <scry/ksym_cache.h>
#include <scry/symtab.h>

/*
 * The file: a header, then n addresses (sorted, one per symbol), n name
 * offsets, the names (each NUL-terminated). Native byte order: it never
 * leaves the machine, and a file of another scry version is refused by
 * its magic.
 */
#define KC_MAGIC	"SCRYKSY1"
#define KC_MAX_SYMS	(1u << 22)	/* kallsyms has ~10^5 functions */
#define KC_MAX_NAMES	(64u << 20)
#define KC_BUF		65536
#define KC_MAX		(sizeof(struct kc_header) + 12ULL * KC_MAX_SYMS + \
			 KC_MAX_NAMES)

struct kc_header {
	char magic[8];
	__u32 zero;
	__u32 crc;		/* crc32 of the file with this field 0 */
	char boot_id[40];
	__u64 end;		/* addresses in [addrs[0], end) are answered */
	__u64 n;
	__u64 names_len;
};

struct ksym_cache {
	void *map;
	size_t size;
	const __u64 *addrs;
	const __u32 *offs;
	const char *names;
	__u64 n, names_len, lo, end;
};

int ksym_cache_boot_id(char *id)
{
	char buf[64];
	ssize_t len;
	int fd, i;

	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf));
	close(fd);
	if (len != KSYM_BOOT_ID_LEN + 1 || buf[KSYM_BOOT_ID_LEN] != '\n')
		return -EBADMSG;
	for (i = 0; i < KSYM_BOOT_ID_LEN; i++)
		if (!strchr("0123456789abcdef-", buf[i]) || !buf[i])
			return -EBADMSG;
	memcpy(id, buf, KSYM_BOOT_ID_LEN);
	id[KSYM_BOOT_ID_LEN] = '\0';
	return 0;
}

static void boot_id_field(char *field, const char *boot_id)
{
	memset(field, 0, sizeof(((struct kc_header *)0)->boot_id));
	memcpy(field, boot_id, strnlen(boot_id, KSYM_BOOT_ID_LEN));
}

/* crc32 of the file read through @fd, the header's crc taken as 0. */
static int file_crc(int fd, const struct kc_header *h, size_t size,
		    __u32 *crc)
{
	struct kc_header z = *h;
	unsigned char *buf = malloc(KC_BUF);
	uLong c;
	size_t at = sizeof(z);
	ssize_t got;

	if (!buf)
		return -ENOMEM;
	z.crc = 0;
	c = crc32(0, (const Bytef *)&z, sizeof(z));
	while (at < size) {
		size_t want = size - at < KC_BUF ? size - at : KC_BUF;

		got = pread(fd, buf, want, at);
		if (got <= 0) {
			free(buf);
			return got < 0 ? -errno : -EBADMSG;
		}
		c = crc32(c, buf, got);
		at += got;
	}
	free(buf);
	*crc = c;
	return 0;
}

/* The header and checksum of @fd, a cache file of @size bytes. */
static int check_file(int fd, const char *boot_id, struct kc_header *h,
		      size_t size)
{
	char want[sizeof(h->boot_id)];
	__u64 body;
	__u32 crc = 0;
	int err;

	if (size < sizeof(*h))
		return -EBADMSG;
	if (pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h))
		return -EBADMSG;
	boot_id_field(want, boot_id);
	if (memcmp(h->magic, KC_MAGIC, sizeof(h->magic)) || h->zero ||
	    memcmp(h->boot_id, want, sizeof(want)) || !h->n ||
	    h->n > KC_MAX_SYMS || !h->names_len ||
	    h->names_len > KC_MAX_NAMES)
		return -EBADMSG;
	body = 12 * h->n + h->names_len;
	if (size != sizeof(*h) + body)
		return -EBADMSG;
	err = file_crc(fd, h, size, &crc);
	if (err)
		return err;
	return crc == h->crc ? 0 : -EBADMSG;
}

struct ksym_cache *ksym_cache_open(const char *dir, const char *boot_id)
{
	struct ksym_cache *c = NULL;
	struct kc_header h;
	struct stat st;
	size_t size = 0;
	int dfd, fd = -1, err;

	dfd = cachefile_dir(dir, CACHEFILE_SECRET);
	if (dfd < 0) {
		err = dfd;
		goto out;
	}
	fd = cachefile_open(dfd, KSYM_CACHE_FILE, CACHEFILE_SECRET, KC_MAX,
			    &st);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	size = st.st_size;
	err = check_file(fd, boot_id, &h, size);
	if (err)
		goto out;
	c = calloc(1, sizeof(*c));
	if (!c) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * Mapped, not read: a lookup touches ~20 pages of the 4 MiB, so
	 * the cache costs the run almost no memory. The file is only ever
	 * replaced by rename, never truncated, so the mapping stays whole.
	 */
	c->map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (c->map == MAP_FAILED) {
		err = -errno;
		free(c);
		c = NULL;
		goto out;
	}
	c->size = size;
	c->n = h.n;
	c->names_len = h.names_len;
	c->end = h.end;
	c->addrs = (const __u64 *)((char *)c->map + sizeof(h));
	c->offs = (const __u32 *)(c->addrs + c->n);
	c->names = (const char *)(c->offs + c->n);
	c->lo = c->addrs[0];
	/* Every name ends inside the file: the last byte is a NUL. */
	if (c->names[c->names_len - 1] || c->lo >= c->end) {
		ksym_cache_free(c);
		c = NULL;
		err = -EBADMSG;
	}
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (!c)
		errno = -err;
	return c;
}

void ksym_cache_free(struct ksym_cache *c)
{
	if (!c)
		return;
	munmap(c->map, c->size);
	free(c);
}

int ksym_cache_find(const struct ksym_cache *c, __u64 addr,
		    const char **name, __u64 *off)
{
	size_t lo = 0, hi = c->n;

	if (addr < c->lo || addr >= c->end)
		return -ERANGE;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->addrs[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo >= 1: addrs[0] == c->lo <= addr. A bad offset: ask live. */
	if (c->offs[lo - 1] >= c->names_len)
		return -ERANGE;
	*name = c->names + c->offs[lo - 1];
	*off = addr - c->addrs[lo - 1];
	return 0;
}

/* Buffered writes to the new file, its crc kept as they go. */
struct kc_out {
	int fd;
	int err;
	uLong crc;
	size_t len;
	unsigned char buf[KC_BUF];
};

static void out_flush(struct kc_out *o)
{
	if (!o->err)
		o->err = outfile_write_fd(o->fd, o->buf, o->len);
	o->len = 0;
}

static void out_put(struct kc_out *o, const void *p, size_t len)
{
	const unsigned char *s = p;

	o->crc = crc32(o->crc, s, len);
	while (len && !o->err) {
		size_t room = KC_BUF - o->len, k = len < room ? len : room;

		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		len -= k;
		if (o->len == KC_BUF)
			out_flush(o);
	}
}

static int write_body(struct kc_out *o, struct kc_header *h,
		      const struct symtab *t, size_t first)
{
	const struct symtab_sym *v = t->v + first;
	__u64 i;
	__u32 off = 0;

	h->crc = 0;
	o->crc = crc32(0, Z_NULL, 0);
	out_put(o, h, sizeof(*h));
	for (i = 0; i < h->n; i++)
		out_put(o, &v[i].addr, sizeof(v[i].addr));
	for (i = 0; i < h->n; i++) {
		out_put(o, &off, sizeof(off));
		off += strlen(symtab_name(t, &v[i])) + 1;
	}
	for (i = 0; i < h->n; i++) {
		const char *s = symtab_name(t, &v[i]);

		out_put(o, s, strlen(s) + 1);
	}
	out_flush(o);
	if (o->err)
		return o->err;
	h->crc = o->crc;
	if (pwrite(o->fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h))
		return -EIO;
	return 0;
}

int ksym_cache_write(const char *dir, const char *boot_id,
		     const struct symtab *t, size_t first, size_t n,
		     __u64 end)
{
	struct kc_header h = { .n = n, .end = end };
	struct kc_out *o = NULL;
	char tmp[CACHEFILE_TMP_LEN];
	size_t i;
	int dfd, err;

	if (!n || n > KC_MAX_SYMS || first + n > t->n || t->v[first].addr >= end)
		return -EINVAL;
	for (i = first; i < first + n; i++) {
		/* sorted, one per address: the lookup's binary search */
		if (i > first && t->v[i].addr <= t->v[i - 1].addr)
			return -EINVAL;
		h.names_len += strlen(symtab_name(t, &t->v[i])) + 1;
	}
	if (h.names_len > KC_MAX_NAMES)
		return -E2BIG;
	memcpy(h.magic, KC_MAGIC, sizeof(h.magic));
	boot_id_field(h.boot_id, boot_id);
	dfd = cachefile_dir(dir, CACHEFILE_SECRET | CACHEFILE_CREATE);
	if (dfd < 0)
		return dfd;
	o = malloc(sizeof(*o));
	if (!o) {
		close(dfd);
		return -ENOMEM;
	}
	o->err = 0;
	o->len = 0;
	o->fd = cachefile_create(dfd, KSYM_CACHE_FILE, tmp);
	if (o->fd < 0) {
		err = o->fd;
		goto out;
	}
	err = write_body(o, &h, t, first);
	err = cachefile_commit(dfd, tmp, KSYM_CACHE_FILE, o->fd, err);
	close(o->fd);
out:
	free(o);
	close(dfd);
	return err;
}
