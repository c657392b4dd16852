// SPDX-License-Identifier: GPL-2.0
/*
 * jitmap: /tmp/perf-PID.map within bounds.
 *
 * A 1 GB file of one line once took scry to 2 GB (getline grows its
 * buffer to the line), 5 M lines to 485 MB. Here a line is at most
 * JITMAP_LINE_MAX bytes (longer ones are skipped up to their newline,
 * never buffered), at most JITMAP_MAX_ENTRIES are kept and at most
 * JITMAP_MAX_BYTES are read: memory stays under ~(entries * 40 B +
 * bytes) whatever the file holds.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scry/array.h>
#include <scry/jitmap.h>
#include <scry/ranges.h>
#include <scry/stop.h>

#define CHUNK	(64 * 1024)

struct jitmap {
	struct ranges t;	/* val: offset into names */
	char *names;
	size_t names_len, names_cap;
	struct jitmap_stats st;
};

/* Line assembly across reads. */
struct feeder {
	struct jitmap *j;
	char line[JITMAP_LINE_MAX + 1];
	size_t len;
	bool skipping;		/* inside an over-long line */
};

struct jitmap *jitmap_new(void)
{
	return calloc(1, sizeof(struct jitmap));
}

static void clear(struct jitmap *j)
{
	ranges_clear(&j->t);
	free(j->names);
	memset(j, 0, sizeof(*j));
}

void jitmap_free(struct jitmap *j)
{
	if (!j)
		return;
	clear(j);
	free(j);
}

/* "START SIZE name": hex, with or without 0x; the name may have spaces. */
static int parse_line(struct jitmap *j, char *line)
{
	unsigned long long start, size;
	char *p, *name;
	size_t len;

	errno = 0;
	start = strtoull(line, &p, 16);
	if (errno || p == line || (*p != ' ' && *p != '\t'))
		goto bad;
	line = p;
	size = strtoull(line, &p, 16);
	if (errno || p == line || (*p != ' ' && *p != '\t') || !size ||
	    start + size < start)
		goto bad;
	name = p + strspn(p, " \t");
	len = strcspn(name, "\r\n");
	if (!len)
		goto bad;
	if (j->st.entries >= JITMAP_MAX_ENTRIES) {
		j->st.over_entries++;
		return 0;
	}
	if (array_ensure(&j->names, &j->names_cap, 1,
			 j->names_len + len + 1) ||
	    ranges_add(&j->t, start, start + size, j->names_len))
		return -ENOMEM;
	memcpy(j->names + j->names_len, name, len);
	j->names[j->names_len + len] = '\0';
	j->names_len += len + 1;
	j->st.entries++;
	return 0;
bad:
	j->st.bad_lines++;
	return 0;
}

/* Feed @len bytes; complete lines are parsed, over-long ones skipped. */
static int feed(struct feeder *fd, const char *buf, size_t len)
{
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t take = nl ? (size_t)(nl - buf) + 1 : len;
		int err;

		if (fd->skipping) {
			if (nl)
				fd->skipping = false;
		} else if (fd->len + take > JITMAP_LINE_MAX) {
			fd->j->st.long_lines++;
			fd->len = 0;
			fd->skipping = !nl;
		} else {
			memcpy(fd->line + fd->len, buf, take);
			fd->len += take;
			if (nl) {
				fd->line[fd->len] = '\0';
				fd->len = 0;
				err = parse_line(fd->j, fd->line);
				if (err)
					return err;
			}
		}
		buf += take;
		len -= take;
	}
	return 0;
}

/* The last line may lack its newline. */
static int feed_end(struct feeder *fd)
{
	if (fd->skipping || !fd->len)
		return 0;
	fd->line[fd->len] = '\0';
	fd->len = 0;
	return parse_line(fd->j, fd->line);
}

/* Swap the new contents in, or drop them on error. */
static int finish(struct jitmap *j, struct jitmap *n, int err)
{
	if (err) {
		clear(n);
		return err;
	}
	ranges_finish(&n->t);
	clear(j);
	*j = *n;
	return 0;
}

int jitmap_parse(struct jitmap *j, const char *buf, size_t len)
{
	struct jitmap n = {};
	struct feeder *fd = calloc(1, sizeof(*fd));
	int err;

	if (!fd)
		return -ENOMEM;
	fd->j = &n;
	if (len > JITMAP_MAX_BYTES) {
		n.st.over_bytes = len - JITMAP_MAX_BYTES;
		len = JITMAP_MAX_BYTES;
	}
	err = feed(fd, buf, len);
	/* a line cut by the byte cap is not a line */
	if (!err && !n.st.over_bytes)
		err = feed_end(fd);
	free(fd);
	return finish(j, &n, err);
}

int jitmap_read(struct jitmap *j, int fd)
{
	struct jitmap n = {};
	struct feeder *f = calloc(1, sizeof(*f));
	char *buf = malloc(CHUNK);
	__u64 total = 0;
	ssize_t got = 0;
	int err = 0;

	if (!f || !buf) {
		free(f);
		free(buf);
		return -ENOMEM;
	}
	f->j = &n;
	while (!err && total < JITMAP_MAX_BYTES) {
		size_t want = CHUNK;

		if (want > JITMAP_MAX_BYTES - total)
			want = JITMAP_MAX_BYTES - total;
		got = pread(fd, buf, want, total);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		total += got;
		err = feed(f, buf, got);
		if (!err && stop_requested())
			err = -EINTR;
	}
	if (!err && got < 0)
		err = -errno;
	if (!err && total < JITMAP_MAX_BYTES)
		err = feed_end(f);
	if (!err && total >= JITMAP_MAX_BYTES) {
		off_t end = lseek(fd, 0, SEEK_END);

		if (end > 0 && (__u64)end > total)
			n.st.over_bytes = end - total;
	}
	free(buf);
	free(f);
	return finish(j, &n, err);
}

const char *jitmap_lookup(const struct jitmap *j, __u64 addr, __u64 *start)
{
	const struct range *r = ranges_find(&j->t, addr);

	if (!r)
		return NULL;
	*start = r->start;
	return j->names + r->val;
}

const struct jitmap_stats *jitmap_stats(const struct jitmap *j)
{
	return &j->st;
}

bool jitmap_truncated(const struct jitmap *j)
{
	return j->st.long_lines || j->st.over_entries || j->st.over_bytes;
}
