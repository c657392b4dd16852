// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_early: tables built ahead, on a thread (include/scry/
 * unwind_early.h). The thread shares nothing with the rest of scry: each
 * file was opened, and its ELF handle made, on the calling thread, and
 * the thread only runs unwind_table_build() on those private handles.
 * The file cache is touched after the join alone: a table goes to the
 * obj of the very descriptor it was built from, so to that file and
 * nothing else (obj.c keys files by build-id or dev, ino, size, mtime).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <scry/elf.h>
#include <scry/fsafe.h>
#include <scry/log.h>
#include <scry/obj.h>
#include <scry/unwind.h>
#include <scry/unwind_early.h>

#define EARLY_MAX	4

struct early_file {
	char *name;
	int fd;
	struct elf_file *elf;
	struct unwind_table *table;	/* the thread's, or NULL */
};

struct unwind_early {
	pthread_t thread;
	struct early_file f[EARLY_MAX];
	size_t n;
};

static void *build(void *arg)
{
	struct unwind_early *u = arg;
	size_t i;

	for (i = 0; i < u->n; i++)
		u->f[i].table = unwind_table_build(u->f[i].elf);
	return NULL;
}

static void files_free(struct unwind_early *u)
{
	size_t i;

	for (i = 0; i < u->n; i++) {
		unwind_table_free(u->f[i].table);
		elf_file_free(u->f[i].elf);
		close(u->f[i].fd);
		free(u->f[i].name);
	}
	free(u);
}

struct unwind_early *unwind_early_start(const char *const *paths, size_t n)
{
	struct unwind_early *u = calloc(1, sizeof(*u));
	struct early_file *f;
	size_t i;
	int err;

	if (!u)
		return NULL;
	for (i = 0; i < n && u->n < EARLY_MAX; i++) {
		f = &u->f[u->n];
		f->fd = fsafe_open(paths[i], NULL, NULL);
		if (f->fd < 0)
			continue;
		f->name = strdup(paths[i]);
		f->elf = f->name ? elf_file_open(f->fd, f->name) : NULL;
		if (!f->elf) {
			close(f->fd);
			free(f->name);
			continue;
		}
		u->n++;
	}
	err = u->n ? pthread_create(&u->thread, NULL, build, u) : ENOENT;
	if (err) {
		files_free(u);
		errno = err;
		return NULL;
	}
	return u;
}

void unwind_early_finish(struct unwind_early *u, struct obj_cache *c)
{
	struct obj *o;
	size_t i;

	if (!u)
		return;
	pthread_join(u->thread, NULL);
	for (i = 0; c && i < u->n; i++) {
		if (!u->f[i].table)
			continue;
		o = obj_cache_fd(c, u->f[i].fd, u->f[i].name);
		if (o) {
			log_debug("-c: %s: unwind table built while loading",
				  u->f[i].name);
			obj_unwind_set(o, u->f[i].table);
		} else {
			unwind_table_free(u->f[i].table);
		}
		u->f[i].table = NULL;
	}
	files_free(u);
}
