// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfo: separate debug files. Every candidate path lies in a
 * directory the binary's owner may control (its own directory, its
 * .debug/), so candidates are opened with fsafe_open: a FIFO or device
 * planted under the debuglink name is refused, never waited on.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scry/debuginfo.h>
#include <scry/elf.h>
#include <scry/fsafe.h>
#include <scry/stop.h>

#define DEBUG_ROOT	"/usr/lib/debug"

static const char *debug_root = DEBUG_ROOT;

void debuginfo_set_root(const char *dir)
{
	debug_root = dir ? dir : DEBUG_ROOT;
}

static __u32 crc32_update(__u32 crc, const unsigned char *p, size_t n)
{
	static __u32 table[256];
	static bool ready;
	size_t i;

	if (!ready) {
		for (i = 0; i < 256; i++) {
			__u32 c = i;
			int b;

			for (b = 0; b < 8; b++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		ready = true;
	}
	crc = ~crc;
	for (i = 0; i < n; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* The whole file's CRC32 against @want; gives up on stop_requested(). */
static bool fd_crc_matches(int fd, __u32 want)
{
	static unsigned char buf[1 << 16];
	__u32 crc = 0;
	off_t pos = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), pos)) > 0) {
		if (stop_requested())
			return false;
		crc = crc32_update(crc, buf, n);
		pos += n;
	}
	return n == 0 && crc == want;
}

/*
 * @path as the debug file of @f: it must have a .symtab and the same
 * build-id as @f when both have one, else (@crc non-NULL) the CRC.
 */
static struct elf_file *try_file(const struct elf_file *f, const char *path,
				 const __u32 *crc)
{
	const __u8 *id, *fid;
	struct elf_file *d;
	size_t idlen, fidlen;
	bool ok = false;
	int fd;

	fd = fsafe_open(path, NULL, NULL);
	if (fd < 0)
		return NULL;
	d = elf_file_open(fd, path);
	if (!d || !elf_file_scn(d, SHT_SYMTAB, NULL, NULL))
		goto out;
	fidlen = elf_file_build_id(f, &fid);
	idlen = elf_file_build_id(d, &id);
	if (fidlen && idlen)
		ok = idlen == fidlen && !memcmp(id, fid, idlen);
	else if (crc)
		ok = fd_crc_matches(fd, *crc);
out:
	close(fd);
	if (ok)
		return d;
	elf_file_free(d);
	return NULL;
}

int debuginfo_build_id_path(const __u8 *id, size_t len, char *buf,
			    size_t size)
{
	size_t i, n;

	if (len < 2)
		return -EINVAL;
	n = snprintf(buf, size, "%s/.build-id/%02x/", debug_root, id[0]);
	for (i = 1; i < len && n < size; i++)
		n += snprintf(buf + n, size - n, "%02x", id[i]);
	if (n < size)
		n += snprintf(buf + n, size - n, ".debug");
	return n < size ? 0 : -ENAMETOOLONG;
}

int debuginfo_link_path(const char *path, const char *name, int i,
			char *buf, size_t size)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	int dl, n;

	if (!slash || !name || !*name || strchr(name, '/') ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	dl = (int)(slash - path);
	switch (i) {
	case 0:
		n = snprintf(buf, size, "%.*s/%s", dl, path, name);
		break;
	case 1:
		n = snprintf(buf, size, "%.*s/.debug/%s", dl, path, name);
		break;
	case 2:
		n = snprintf(buf, size, "%s%.*s/%s", debug_root, dl, path,
			     name);
		break;
	default:
		return -ENOENT;
	}
	return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

struct elf_file *debuginfo_find(const struct elf_file *f, const char *path)
{
	char buf[8192];
	struct elf_file *d = NULL;
	const char *name;
	const __u8 *id;
	size_t idlen;
	__u32 crc;
	int i;

	idlen = elf_file_build_id(f, &id);
	if (!debuginfo_build_id_path(id, idlen, buf, sizeof(buf)))
		d = try_file(f, buf, NULL);
	if (!d && path && !elf_file_debuglink(f, &name, &crc)) {
		for (i = 0; !d && !stop_requested(); i++) {
			int r = debuginfo_link_path(path, name, i, buf,
						    sizeof(buf));

			if (r == -ENOENT || r == -EINVAL)
				break;
			if (!r)
				d = try_file(f, buf, &crc);
		}
	}
	if (!d)
		errno = stop_requested() ? EINTR : ENOENT;
	return d;
}
