// SPDX-License-Identifier: GPL-2.0
/*
 * bind: which definition of a function a process calls (include/scry/
 * bind.h). For a running process the order is rebuilt from what it maps:
 * the executable, its LD_PRELOAD (and /etc/ld.so.preload) libraries, then
 * a breadth-first walk of DT_NEEDED from the executable, each name found
 * among the mapped files by DT_SONAME, else by file name. Only mapped
 * files count: a library dlopen'ed RTLD_LOCAL later binds nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <scry/addrspace.h>
#include <scry/array.h>
#include <scry/bind.h>
#include <scry/elf.h>
#include <scry/fsafe.h>
#include <scry/obj.h>

#define BIND_MAX_NEEDED	256	/* DT_NEEDED entries read per file */
#define BIND_ENV_MAX	(256 * 1024)

bool bind_is_static(struct elf_file *f)
{
	return elf_file_ehdr(f)->e_type == ET_EXEC &&
	       !elf_file_scn(f, SHT_NULL, ".interp", NULL);
}

bool bind_exports(struct elf_file *f, const char *func, bool static_exe)
{
	struct elf_sym_iter *it;
	struct elf_sym sym;
	size_t len = strlen(func);
	bool found = false;

	it = elf_sym_iter_new(f, static_exe ? ELF_SYMS_SYMTAB | ELF_SYMS_DYNSYM
					    : ELF_SYMS_DYNSYM);
	if (!it)
		return false;
	while (!found && elf_sym_iter_next(it, &sym) == 1)
		found = sym.defined && sym.deflt && sym.baselen == len &&
			!strncmp(sym.name, func, len) &&
			(static_exe || sym.bind == STB_GLOBAL ||
			 sym.bind == STB_WEAK);
	elf_sym_iter_free(it);
	return found;
}

size_t bind_needed(struct elf_file *f, const char **soname,
		   const char **needed, size_t max)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_file_scn(f, SHT_DYNAMIC, NULL, &sh);
	Elf_Data *d;
	GElf_Dyn dyn;
	size_t i, n = 0;
	const char *s;

	*soname = NULL;
	if (!scn || !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
		return 0;
	for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME)
			continue;
		s = elf_strptr(elf_file_elf(f), sh.sh_link, dyn.d_un.d_val);
		if (!s)
			continue;
		if (dyn.d_tag == DT_SONAME)
			*soname = s;
		else if (n < max)
			needed[n++] = s;
	}
	return n;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* One file the process maps, with where ld.so puts it in its order. */
struct bobj {
	const struct addrspace_map *m;
	const char *soname;
	bool queued;
};

/* The mapped file @name (a DT_NEEDED or preload entry) stands for. */
static struct bobj *by_name(struct bobj *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].soname && !strcmp(v[i].soname, name))
			return &v[i];
	for (i = 0; i < n; i++)
		if (!strcmp(base_name(obj_path(v[i].m->obj)), base_name(name)))
			return &v[i];
	return NULL;
}

static int enqueue(struct bobj ***q, size_t *nq, size_t *cap, struct bobj *b)
{
	if (!b || b->queued)
		return 0;
	if (array_ensure(q, cap, sizeof(**q), *nq + 1))
		return -ENOMEM;
	b->queued = true;
	(*q)[(*nq)++] = b;
	return 0;
}

/* LD_PRELOAD of @pid and /etc/ld.so.preload, in ld.so's order. */
static int preloads(int pid, struct bobj *v, size_t n, struct bobj ***q,
		    size_t *nq, size_t *cap)
{
	char path[64], *buf, *p, *tok, *save;
	ssize_t len;
	int fd, err = 0;

	buf = malloc(BIND_ENV_MAX + 1);
	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	len = fd >= 0 ? read(fd, buf, BIND_ENV_MAX) : -1;
	if (fd >= 0)
		close(fd);
	if (len < 0)
		len = 0;
	buf[len] = '\0';
	for (p = buf; p < buf + len && !err; p += strlen(p) + 1) {
		if (strncmp(p, "LD_PRELOAD=", 11))
			continue;
		for (tok = strtok_r(p + 11, " :", &save); tok && !err;
		     tok = strtok_r(NULL, " :", &save))
			err = enqueue(q, nq, cap, by_name(v, n, tok));
	}
	fd = fsafe_open("/etc/ld.so.preload", NULL, NULL);
	len = fd >= 0 ? read(fd, buf, BIND_ENV_MAX) : -1;
	if (fd >= 0)
		close(fd);
	if (len > 0) {
		buf[len] = '\0';
		for (tok = strtok_r(buf, " :\t\n", &save); tok && !err;
		     tok = strtok_r(NULL, " :\t\n", &save))
			err = enqueue(q, nq, cap, by_name(v, n, tok));
	}
	free(buf);
	return err;
}

/* The mapping of @pid's executable (/proc/PID/exe's inode). */
static struct bobj *exe_of(int pid, struct bobj *v, size_t n)
{
	char path[64];
	struct stat st;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (stat(path, &st))
		return NULL;
	for (i = 0; i < n; i++)
		if (obj_id(v[i].m->obj)->ino == st.st_ino &&
		    obj_id(v[i].m->obj)->dev == st.st_dev)
			return &v[i];
	return NULL;
}

static int search_order(int pid, struct bobj *v, size_t n, struct bobj ***q,
			size_t *nq)
{
	const char *needed[BIND_MAX_NEEDED], *soname;
	size_t cap = 0, i, k, nn;
	int err;

	err = enqueue(q, nq, &cap, exe_of(pid, v, n));
	err = err ? : preloads(pid, v, n, q, nq, &cap);
	/* breadth-first: the queue grows while it is walked */
	for (i = 0; !err && i < *nq; i++) {
		if (!obj_elf((*q)[i]->m->obj))
			continue;
		nn = bind_needed(obj_elf((*q)[i]->m->obj), &soname, needed,
			  BIND_MAX_NEEDED);
		for (k = 0; k < nn && !err; k++)
			err = enqueue(q, nq, &cap, by_name(v, n, needed[k]));
	}
	return err;
}

int bind_pid(int pid, struct obj_cache *c, const char *func,
	     struct bind_choice *out)
{
	struct addrspace *as = addrspace_new();
	const struct addrspace_map *m;
	struct bobj *v = NULL, **q = NULL;
	const char *needed[1];
	size_t nm, n = 0, nq = 0, i;
	int err;

	if (!as)
		return -ENOMEM;
	err = addrspace_read(as, c, pid);
	m = addrspace_maps(as, &nm);
	v = calloc(nm ? nm : 1, sizeof(*v));
	if (!err && !v)
		err = -ENOMEM;
	/* one entry per file: its first mapping */
	for (i = 0; !err && i < nm; i++) {
		if (!m[i].obj || !obj_elf(m[i].obj) || obj_is_vdso(m[i].obj) ||
		    (n && v[n - 1].m->obj == m[i].obj))
			continue;
		v[n].m = &m[i];
		bind_needed(obj_elf(m[i].obj), &v[n].soname, needed, 0);
		n++;
	}
	err = err ? : search_order(pid, v, n, &q, &nq);
	for (i = 0, err = err ? : -ENOENT; err == -ENOENT && i < nq; i++) {
		struct elf_file *e = obj_elf(q[i]->m->obj);

		if (!bind_exports(e, func, i == 0 && bind_is_static(e)))
			continue;
		out->obj = q[i]->m->obj;
		out->start = q[i]->m->start;
		out->end = q[i]->m->end;
		err = 0;
	}
	free(q);
	free(v);
	addrspace_free(as);
	return err;
}
