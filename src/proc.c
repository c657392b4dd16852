// SPDX-License-Identifier: GPL-2.0
/*
 * proc: /proc/PID/maps and the files behind the mappings.
 *
 * A maps line, as fs/proc/task_mmu.c writes it:
 *
 *	7f1c2a428000-7f1c2a44e000 r-xp 00028000 fe:01 1835029    /usr/lib/x.so
 *
 * start-end in hex, four permission letters, the offset in hex, the
 * device as hex major:minor, the inode in decimal, then (after padding)
 * the path, "[vdso]"-like names, or nothing. A path is escaped by the
 * kernel ('\n' -> "\012") and may end in " (deleted)". The parser takes
 * exactly that and refuses anything else, since a later field cannot be
 * trusted once an earlier one is off.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <scry/array.h>
#include <scry/fsafe.h>
#include <scry/proc.h>

#define DELETED_SUFFIX	" (deleted)"

/* Hex digits at *@p up to @end: at least one, at most 16. */
static bool parse_hex(const char **p, const char *end, __u64 *v)
{
	const char *s = *p;
	int digits = 0;

	*v = 0;
	while (s < end) {
		char c = *s;
		int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		if (++digits > 16)
			return false;
		*v = *v << 4 | d;
		s++;
	}
	*p = s;
	return digits > 0;
}

static bool parse_dec(const char **p, const char *end, __u64 *v)
{
	const char *s = *p;

	*v = 0;
	while (s < end && *s >= '0' && *s <= '9') {
		__u64 d = *s - '0';

		if (*v > (~0ULL - d) / 10)
			return false;
		*v = *v * 10 + d;
		s++;
	}
	if (s == *p)
		return false;
	*p = s;
	return true;
}

static bool expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

static bool parse_perms(const char **p, const char *end, struct proc_map *m)
{
	const char *s = *p;

	if (end - s < 4 || (s[0] != 'r' && s[0] != '-') ||
	    (s[1] != 'w' && s[1] != '-') || (s[2] != 'x' && s[2] != '-') ||
	    (s[3] != 'p' && s[3] != 's'))
		return false;
	m->read = s[0] == 'r';
	m->write = s[1] == 'w';
	m->exec = s[2] == 'x';
	m->shared = s[3] == 's';
	*p = s + 4;
	return true;
}

int proc_maps_parse(const char *line, size_t len, struct proc_map *m)
{
	const char *p = line, *end = line + len;
	__u64 maj, min;
	size_t plen, dl = sizeof(DELETED_SUFFIX) - 1;

	memset(m, 0, sizeof(*m));
	if (len && end[-1] == '\n')
		end--;
	if (!parse_hex(&p, end, &m->start) || !expect(&p, end, '-') ||
	    !parse_hex(&p, end, &m->end) || !expect(&p, end, ' ') ||
	    !parse_perms(&p, end, m) || !expect(&p, end, ' ') ||
	    !parse_hex(&p, end, &m->pgoff) || !expect(&p, end, ' ') ||
	    !parse_hex(&p, end, &maj) || !expect(&p, end, ':') ||
	    !parse_hex(&p, end, &min) || !expect(&p, end, ' ') ||
	    !parse_dec(&p, end, &m->ino))
		return -EINVAL;
	if (m->end < m->start || maj > 0xfff || min > 0xfffff)
		return -EINVAL;
	m->dev = makedev(maj, min);
	if (p == end)
		return 0;		/* anonymous */
	if (*p != ' ')
		return -EINVAL;
	while (p < end && *p == ' ')
		p++;
	plen = (size_t)(end - p);
	if (!plen)
		return 0;
	if (memchr(p, '\0', plen) || memchr(p, '\n', plen))
		return -EINVAL;
	if (p[0] == '/' && plen > dl &&
	    !memcmp(p + plen - dl, DELETED_SUFFIX, dl)) {
		m->deleted = true;
		plen -= dl;
	}
	m->path = strndup(p, plen);
	return m->path ? 0 : -ENOMEM;
}

bool proc_map_is_vdso(const struct proc_map *m)
{
	return m->path && !strcmp(m->path, "[vdso]");
}

static bool is_code(const struct proc_map *m)
{
	return m->exec && m->path &&
	       ((m->path[0] == '/' && m->ino) || proc_map_is_vdso(m));
}

static int map_cmp(const void *a, const void *b)
{
	const struct proc_map *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static void proc_dir(int pid, char *buf, size_t len)
{
	if (pid)
		snprintf(buf, len, "/proc/%d", pid);
	else
		snprintf(buf, len, "/proc/self");
}

/*
 * One maps line into @v (code only with PROC_MAPS_CODE); a line the
 * kernel would not write is skipped. Returns 0 or -ENOMEM.
 */
static int take_line(const char *line, size_t len, unsigned int flags,
		     struct proc_map **v, size_t *nv, size_t *cap)
{
	struct proc_map m;
	int err;

	/* the kernel writes no such line: skip it, keep the rest */
	if (len > PROC_MAPS_LINE_MAX)
		return 0;
	err = proc_maps_parse(line, len, &m);
	if (err == -EINVAL)
		return 0;
	if (err)
		return err;
	if ((flags & PROC_MAPS_CODE) && !is_code(&m)) {
		free(m.path);
		return 0;
	}
	err = array_ensure(v, cap, sizeof(**v), *nv + 1);
	if (err) {
		free(m.path);
		return err;
	}
	(*v)[(*nv)++] = m;
	return 0;
}

/*
 * read(2) in large pieces, no stdio: a busy host's new processes are read
 * by the hundred a second, and a FILE costs an fstat and a read per page.
 */
#define MAPS_CHUNK	(PROC_MAPS_LINE_MAX * 4)

int proc_maps_read(int pid, unsigned int flags, struct proc_map **out,
		   size_t *n)
{
	struct proc_map *v = NULL;
	size_t nv = 0, cap = 0, have = 0, i, start;
	char path[48], *buf;
	bool any = false, skip = false;
	ssize_t got;
	int fd, err = 0;

	*out = NULL;
	*n = 0;
	if (pid < 0)
		return -ESRCH;
	proc_dir(pid, path, sizeof(path));
	strcat(path, "/maps");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	buf = malloc(MAPS_CHUNK);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		got = read(fd, buf + have, MAPS_CHUNK - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = errno == ESRCH || errno == ENOENT ? -ESRCH : -EIO;
			break;
		}
		if (got > 0)
			any = true;
		have += got;
		/* whole lines; the last one may go on in the next read */
		for (start = 0, i = 0; i < have && !err; i++) {
			if (buf[i] != '\n')
				continue;
			if (!skip)
				err = take_line(buf + start, i + 1 - start,
						flags, &v, &nv, &cap);
			skip = false;
			start = i + 1;
		}
		if (err)
			break;
		if (!got) {
			if (start < have && !skip)	/* no final newline */
				err = take_line(buf + start, have - start,
						flags, &v, &nv, &cap);
			break;
		}
		/* a piece without a newline is longer than any line */
		if (!start && have == MAPS_CHUNK) {
			skip = true;
			have = 0;
			continue;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
	}
	free(buf);
	close(fd);
	/* A zombie (or a process gone between open and read) has no maps. */
	if (!err && !any)
		err = -ESRCH;
	if (err) {
		proc_maps_free(v, nv);
		return err;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), map_cmp);
	*out = v;
	*n = nv;
	return 0;
}

void proc_maps_free(struct proc_map *m, size_t n)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < n; i++)
		free(m[i].path);
	free(m);
}

int proc_open_mapped(int pid, const struct proc_map *m, struct stat *st)
{
	struct fsafe_rules by_ino = { .check_ino = true, .ino = m->ino };
	char dir[48], p[4096 + 64];
	int fd, err;

	proc_dir(pid, dir, sizeof(dir));
	/* the mapped inode itself: nothing to verify but the rules */
	snprintf(p, sizeof(p), "%s/map_files/%llx-%llx", dir,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = fsafe_open(p, &by_ino, st);
	if (fd >= 0 || !m->path || m->path[0] != '/')
		return fd;
	err = fd;
	/* a deleted file's name now names another file, or none */
	if (!m->deleted) {
		if (snprintf(p, sizeof(p), "%s/root%s", dir, m->path) <
		    (int)sizeof(p)) {
			fd = fsafe_open(p, &by_ino, st);
			if (fd >= 0)
				return fd;
		}
		fd = fsafe_open(m->path, &by_ino, st);
		if (fd >= 0)
			return fd;
	}
	/* the main binary, even deleted or replaced */
	snprintf(p, sizeof(p), "%s/exe", dir);
	fd = fsafe_open(p, &by_ino, st);
	return fd >= 0 ? fd : err;
}

ssize_t proc_read(int pid, const char *file, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

int proc_start_ticks(int pid, unsigned long long *ticks)
{
	char buf[1024], *p, *end;
	int i;

	if (proc_read(pid, "stat", buf, sizeof(buf)) <= 0)
		return -ESRCH;
	/* comm may hold anything, ')' too: fields start after the last */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	/* field 22, starttime: 20 fields on from the ')' that ends field 2 */
	for (i = 0; i < 20 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -EINVAL;
	errno = 0;
	*ticks = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1 || *end != ' ')
		return -EINVAL;
	return 0;
}

int proc_start_time(int pid, struct timespec *start)
{
	struct timespec rt, bt;
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	__s64 ns;
	int err;

	if (hz <= 0)
		return -EINVAL;
	err = proc_start_ticks(pid, &ticks);
	if (err)
		return err;
	/* starttime counts from boot on CLOCK_BOOTTIME (suspend included) */
	if (clock_gettime(CLOCK_REALTIME, &rt) ||
	    clock_gettime(CLOCK_BOOTTIME, &bt))
		return -errno;
	ns = (__s64)(rt.tv_sec - bt.tv_sec) * 1000000000 +
	     (rt.tv_nsec - bt.tv_nsec) +
	     (__s64)(ticks / hz) * 1000000000 +
	     (__s64)(ticks % hz) * (1000000000 / hz);
	start->tv_sec = ns / 1000000000;
	start->tv_nsec = ns % 1000000000;
	return 0;
}

#define PROC_PF_KTHREAD	0x00200000	/* include/linux/sched.h */

int proc_task(int pid, int *tgid, bool *kthread)
{
	char buf[1024], *p, *end;
	unsigned long flags;
	int i;

	if (proc_read(pid, "status", buf, sizeof(buf)) <= 0)
		return -ESRCH;
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -EINVAL;
	*tgid = (int)strtol(p + 6, &end, 10);
	if (end == p + 6 || *tgid <= 0)
		return -EINVAL;
	if (proc_read(pid, "stat", buf, sizeof(buf)) <= 0)
		return -ESRCH;
	/* field 9, flags: 7 fields on from the ')' that ends comm (field 2),
	 * the last ')' as comm may hold one. /proc/PID/status says
	 * "Kthread:" only from 6.0 */
	p = strrchr(buf, ')');
	for (i = 0; i < 7 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -EINVAL;
	errno = 0;
	flags = strtoul(p + 1, &end, 10);
	if (errno || end == p + 1 || *end != ' ')
		return -EINVAL;
	*kthread = flags & PROC_PF_KTHREAD;
	return 0;
}
