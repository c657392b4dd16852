/* SPDX-License-Identifier: GPL-2.0 */
/*
 * corebtf: the cut of vmlinux BTF relocates every engine program exactly
 * as all of vmlinux BTF does (root: libbpf relocates for a load, the
 * kernel refuses the programs before its verifier sees them, and the
 * relocated instructions of both loads are compared); what is kept of a
 * synthetic kernel's types; and the cache: made 0700 root, a warm start
 * that parses no vmlinux BTF, and links, other owners' files, writable
 * files and directories, corrupt files never used.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <scry/abi.h>
#include <scry/attach.h>
#include <scry/corebtf.h>

#include "check.h"
#include "scry.skel.h"

/* ---- the cut of a synthetic kernel ------------------------------------ */

static void cut_synthetic(void)
{
	struct btf *local = btf__new_empty(), *vm = btf__new_empty(), *cut;
	int l_int, l_task, v_int, v_long, v_anon, v_se, v_mm, v_other, v_task;
	int v_arr, v_ptr, v_fn;
	const struct btf_type *t;
	const struct btf_member *m;
	int id;

	/* the engine's side: task_struct___old { int pid; }, mm_struct */
	l_int = btf__add_int(local, "int", 4, BTF_INT_SIGNED);
	l_task = btf__add_struct(local, "task_struct___old", 4);
	btf__add_field(local, "pid", l_int, 0, 0);
	btf__add_struct(local, "sched_entity", 8);
	btf__add_fwd(local, "mm_struct", BTF_FWD_STRUCT);
	(void)l_task;

	/* the kernel's */
	v_int = btf__add_int(vm, "int", 4, BTF_INT_SIGNED);
	v_long = btf__add_int(vm, "long unsigned int", 8, 0);
	v_se = btf__add_struct(vm, "sched_entity", 8);
	btf__add_field(vm, "sum_exec_runtime", v_long, 0, 0);
	v_other = btf__add_struct(vm, "list_head", 16);
	btf__add_field(vm, "next", v_long, 0, 0);
	v_mm = btf__add_struct(vm, "mm_struct", 8);
	btf__add_field(vm, "x", v_long, 0, 0);
	v_anon = btf__add_union(vm, NULL, 8);
	btf__add_field(vm, "state", v_long, 0, 0);
	btf__add_field(vm, "__state", v_int, 0, 0);
	v_ptr = btf__add_ptr(vm, v_mm);
	v_fn = btf__add_func_proto(vm, v_int);
	v_fn = btf__add_ptr(vm, v_fn);
	v_arr = btf__add_array(vm, v_int, v_long, 4);	/* index, element */
	v_task = btf__add_struct(vm, "task_struct", 120);
	btf__add_field(vm, "pid", v_int, 0, 0);
	btf__add_field(vm, NULL, v_anon, 64, 0);
	btf__add_field(vm, "se", v_se, 128, 0);
	btf__add_field(vm, "tasks", v_other, 192, 0);
	btf__add_field(vm, "mm", v_ptr, 320, 0);
	btf__add_field(vm, "fn", v_fn, 384, 0);
	btf__add_field(vm, "regs", v_arr, 448, 0);
	btf__add_struct(vm, "unrelated", 8);
	(void)v_task;

	cut = corebtf_cut(local, vm);
	CHECK(cut != NULL, "cut: a synthetic kernel");
	if (!cut)
		goto out;
	id = btf__find_by_name_kind(cut, "task_struct", BTF_KIND_STRUCT);
	CHECK(id > 0, "cut: task_struct, by its flavour's essential name");
	t = btf__type_by_id(cut, id);
	CHECK(t && btf_vlen(t) == 7 && t->size == 120,
	      "cut: task_struct whole (7 members, 120 bytes)");
	if (!t || btf_vlen(t) != 7)
		goto out;
	m = btf_members(t);
	t = btf__type_by_id(cut, m[1].type);
	CHECK(btf_is_union(t) && btf_vlen(t) == 2,
	      "cut: an anonymous member whole");
	t = btf__type_by_id(cut, m[2].type);
	CHECK(btf_is_struct(t) && btf_vlen(t) == 1,
	      "cut: a member struct the engine names (sched_entity) whole");
	t = btf__type_by_id(cut, m[3].type);
	CHECK(btf_is_struct(t) && btf_vlen(t) == 0 && t->size == 16 &&
	      !strcmp(btf__name_by_offset(cut, t->name_off), "list_head"),
	      "cut: a member struct it does not name: a shell, same size");
	t = btf__type_by_id(cut, m[4].type);
	CHECK(btf_is_ptr(t) && t->type &&
	      btf_is_struct(btf__type_by_id(cut, t->type)),
	      "cut: a pointer to a named struct (mm_struct, a local FWD) kept");
	t = btf__type_by_id(cut, m[5].type);
	CHECK(btf_is_ptr(t) && t->type == 0,
	      "cut: a pointer to anything else points to void");
	t = btf__type_by_id(cut, m[6].type);
	CHECK(btf_is_array(t) && btf_array(t)->nelems == 4 &&
	      btf__resolve_size(cut, m[6].type) == 32,
	      "cut: an array member, its size");
	CHECK(btf__find_by_name(cut, "unrelated") < 0,
	      "cut: types the engine does not name left out");
out:
	btf__free(cut);
	btf__free(local);
	btf__free(vm);
}

/* ---- the engine, relocated both ways ---------------------------------- */

static struct btf *vmlinux_parsed;
static int vmlinux_calls;

static struct btf *vmlinux(void)
{
	vmlinux_calls++;
	if (!vmlinux_parsed)
		vmlinux_parsed = btf__load_vmlinux_btf();
	return libbpf_get_error(vmlinux_parsed) ? NULL : vmlinux_parsed;
}

/*
 * The engine with every program loaded, relocated against @path (NULL:
 * all of vmlinux BTF). A program flag no kernel knows makes the kernel
 * refuse each before verifying it: libbpf has relocated them all by then.
 */
static struct scry *relocated(enum attach_engine all, const char *path)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = path);
	struct bpf_program *p;
	struct bpf_map *m;
	struct scry *s = attach_engine_open(all, &oo);

	if (!s)
		return NULL;
	/* small maps: loaded twice, used never */
	bpf_object__for_each_map(m, s->obj)
		if ((bpf_map__type(m) == BPF_MAP_TYPE_HASH ||
		     bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_HASH ||
		     bpf_map__type(m) == BPF_MAP_TYPE_ARRAY ||
		     bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_ARRAY) &&
		    !bpf_map__is_internal(m))
			bpf_map__set_max_entries(m, 1);
	bpf_object__for_each_program(p, s->obj) {
		bpf_program__set_autoload(p, true);
		bpf_program__set_flags(p, 1u << 30);
	}
	(void)scry__load(s);
	return s;
}

static bool map_ld(const struct bpf_insn *i)
{
	return i->code == (BPF_LD | BPF_IMM | BPF_DW) &&
	       (i->src_reg == BPF_PSEUDO_MAP_FD ||
		i->src_reg == BPF_PSEUDO_MAP_VALUE);
}

/*
 * Instruction by instruction, but for the fd in a map load: each object
 * has its own maps, and which map an instruction loads is libbpf's data
 * relocation, which no BTF takes part in.
 */
static bool same_insns(const struct bpf_program *p,
		       const struct bpf_program *q)
{
	const struct bpf_insn *a = bpf_program__insns(p);
	const struct bpf_insn *b = bpf_program__insns(q);
	struct bpf_insn x, y;
	size_t k, n = bpf_program__insn_cnt(p);

	if (n != bpf_program__insn_cnt(q))
		return false;
	for (k = 0; k < n; k++) {
		x = a[k];
		y = b[k];
		if (map_ld(&x) && map_ld(&y))
			x.imm = y.imm = 0;
		if (memcmp(&x, &y, sizeof(x))) {
			printf("# %s: instruction %zu relocated differently\n",
			       bpf_program__name(p), k);
			return false;
		}
	}
	return true;
}

/* Each build of the engine (Makefile). */
static void same_relocations(enum attach_engine all)
{
	const char *e = all == ENGINE_ALL ? "every slot's engine" :
			all == ENGINE_LEAN ? "the lean engine" :
					     "slot 0's engine";
	struct scry *full = NULL, *cut = NULL;
	struct bpf_program *p, *q;
	char path[64], what[160];
	size_t objsz;
	const void *obj = attach_engine_bytes(all, &objsz);
	int fd, nprogs = 0, differ = 0, nvm, ncut;
	struct btf *b;

	if (geteuid()) {
		SKIP("cut: relocations as with vmlinux BTF", "needs root");
		return;
	}
	if (!vmlinux()) {
		SKIP("cut: relocations as with vmlinux BTF",
		     "no /sys/kernel/btf/vmlinux");
		return;
	}
	fd = corebtf_open("/nonexistent/scry", obj, objsz, vmlinux);
	snprintf(what, sizeof(what), "cut of %s: made in memory when it "
		 "cannot be kept", e);
	CHECK(fd >= 0, what);
	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	b = btf__parse(path, NULL);
	nvm = btf__type_cnt(vmlinux_parsed);
	ncut = libbpf_get_error(b) ? 0 : btf__type_cnt(b);
	snprintf(what, sizeof(what), "cut of %s: %d of vmlinux's %d types", e,
		 ncut, nvm);
	CHECK(ncut > 100 && ncut < nvm / 20, what);
	btf__free(b);
	full = relocated(all, NULL);
	cut = relocated(all, path);
	snprintf(what, sizeof(what), "cut of %s: it opens both ways", e);
	CHECK(full && cut, what);
	if (!full || !cut)
		goto out;
	bpf_object__for_each_program(p, full->obj) {
		q = bpf_object__find_program_by_name(cut->obj,
						     bpf_program__name(p));
		nprogs++;
		differ += !q || !same_insns(p, q);
	}
	snprintf(what, sizeof(what), "cut of %s: all %d programs relocated "
		 "as with all of vmlinux BTF", e, nprogs);
	CHECK(nprogs > (all == ENGINE_ALL ? 100 : 15) && differ == 0, what);
out:
	scry__destroy(full);
	scry__destroy(cut);
	close(fd);
}

/* ---- the cache -------------------------------------------------------- */

static char *cache_file(const char *dir)
{
	static char path[512];
	struct dirent *e;
	DIR *d = opendir(dir);

	path[0] = '\0';
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "core-", 5) &&
		    !strstr(e->d_name, ".tmp"))
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
	if (d)
		closedir(d);
	return path;
}

/* corebtf_open(@dir): did it cut (parse vmlinux BTF), and is the fd good? */
static bool open_cuts(const char *dir, bool *good)
{
	size_t objsz;
	const void *obj = attach_engine_bytes(ENGINE_ONE, &objsz);
	int fd, before = vmlinux_calls;
	struct btf *b;
	char path[64];

	fd = corebtf_open(dir, obj, objsz, vmlinux);
	*good = fd >= 0;
	if (fd >= 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		b = btf__parse(path, NULL);
		*good = !libbpf_get_error(b) &&
			btf__find_by_name_kind(b, "task_struct",
					       BTF_KIND_STRUCT) > 0;
		btf__free(b);
		close(fd);
	}
	return vmlinux_calls != before;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void cache(void)
{
	char top[] = "/tmp/scry-test-corebtf.XXXXXX", dir[300], file[512];
	char other[300], link[512], buf[16] = "";
	struct stat st;
	bool good, cut;
	FILE *f;

	if (geteuid() || !vmlinux()) {
		SKIP("cache", geteuid() ? "needs root (root's cache)" :
			      "no /sys/kernel/btf/vmlinux");
		return;
	}
	if (!mkdtemp(top))
		return;
	snprintf(dir, sizeof(dir), "%s/cache", top);
	snprintf(other, sizeof(other), "%s/planted", top);

	cut = open_cuts(dir, &good);
	CHECK(cut && good, "cache: a cold start cuts");
	CHECK(!lstat(dir, &st) && S_ISDIR(st.st_mode) &&
	      (st.st_mode & 07777) == 0700 && st.st_uid == 0,
	      "cache: its directory made 0700, root's");
	snprintf(file, sizeof(file), "%s", cache_file(dir));
	CHECK(!lstat(file, &st) && S_ISREG(st.st_mode) &&
	      (st.st_mode & 07777) == 0600 && st.st_uid == 0,
	      "cache: the cut kept 0600, root's");
	cut = open_cuts(dir, &good);
	CHECK(!cut && good, "cache: a warm start parses no vmlinux BTF");

	put(file, "not BTF at all");
	cut = open_cuts(dir, &good);
	CHECK(cut && good, "cache: a corrupt file is not used");
	cut = open_cuts(dir, &good);
	CHECK(!cut && good, "cache: ... and is replaced");

	/* a link under the cut's name: neither followed nor written through */
	put(other, "x");
	snprintf(link, sizeof(link), "%s", file);
	unlink(file);
	if (symlink(other, link))
		CHECK(0, "cache: symlink");
	cut = open_cuts(dir, &good);
	f = fopen(other, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	CHECK(cut && good && !strcmp(buf, "x") && !lstat(link, &st) &&
	      S_ISREG(st.st_mode),
	      "cache: a link planted as the file is replaced, not followed");

	if (chown(file, 65534, 65534))
		CHECK(0, "cache: chown");
	cut = open_cuts(dir, &good);
	CHECK(cut && good && !lstat(file, &st) && st.st_uid == 0,
	      "cache: a file another user owns is not used (and replaced)");
	chmod(file, 0666);
	cut = open_cuts(dir, &good);
	CHECK(cut && good && !lstat(file, &st) &&
	      (st.st_mode & 07777) == 0600,
	      "cache: a file others may write is not used (and replaced)");

	chmod(dir, 0777);
	unlink(file);
	cut = open_cuts(dir, &good);
	CHECK(cut && good && !cache_file(dir)[0],
	      "cache: a directory others may write: not used, nothing "
	      "written into it");
	chmod(dir, 0700);
	if (chown(dir, 65534, 65534))
		CHECK(0, "cache: chown dir");
	cut = open_cuts(dir, &good);
	CHECK(cut && good && !cache_file(dir)[0],
	      "cache: a directory another user owns: not used");
	if (chown(dir, 0, 0))
		CHECK(0, "cache: chown dir back");

	rmdir(dir);
	if (symlink(top, dir))
		CHECK(0, "cache: symlink dir");
	cut = open_cuts(dir, &good);
	CHECK(cut && good && !cache_file(top)[0],
	      "cache: a directory that is a link: not followed");
	unlink(dir);
	unlink(other);

	snprintf(dir, sizeof(dir), "%s/no/such/dir", top);
	cut = open_cuts(dir, &good);
	CHECK(cut && good, "cache: no place to keep it: cut in memory");
	rmdir(top);
}

int main(void)
{
	libbpf_set_print(NULL);	/* the refused loads are the point */
	cut_synthetic();
	same_relocations(ENGINE_ONE);
	same_relocations(ENGINE_LEAN);
	same_relocations(ENGINE_ALL);
	cache();
	btf__free(vmlinux_parsed);
	return CHECK_DONE();
}
