/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libFuzzer targets for what scry reads out of ELF files a traced user
 * controls. One source, four targets (FUZZ_KIND):
 *
 *   1 ehframe    input = .eh_frame          -> unwind rows
 *   2 symtab     input = u16 split, .symtab, .strtab -> the symbol iterator,
 *                symbol tables, lookups
 *   3 stapsdt    input = .note.stapsdt      -> resolve_usdts()
 *   4 debuglink  input = u16 split, .gnu_debuglink, build-id note ->
 *                debuglink, build-id and the debug-file lookup paths
 *
 * Whatever the input: no crash, no leak, no undefined behaviour, and
 * the results keep their invariants (rows sorted, lookups inside the
 * table, paths never escaping the directories they are built in).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <scry/debuginfo.h>
#include <scry/elf.h>
#include <scry/resolve.h>
#include <scry/symtab.h>
#include <scry/unwind.h>
#include "elfimg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The first two input bytes (little endian) split the rest in two. */
static size_t split(const uint8_t **data, size_t *size)
{
	size_t at;

	if (*size < 2)
		return 0;
	at = (*data)[0] | (size_t)(*data)[1] << 8;
	*data += 2;
	*size -= 2;
	return at < *size ? at : *size;
}

static struct elf_file *open_img(const struct elfimg_scn *s, int n)
{
	struct elf_file *f;
	size_t len;
	void *img = elfimg_build(s, n, &len);

	f = elf_file_mem("fuzz", img, len);
	free(img);
	return f;
}

static void fuzz_ehframe(const uint8_t *data, size_t size)
{
	struct elfimg_scn s = { ".eh_frame", SHT_PROGBITS, SHF_ALLOC, 0, 0,
				data, size };
	struct elf_file *f = open_img(&s, 1);
	struct unwind_table *t = f ? unwind_table_build(f) : NULL;
	const struct scry_unwind_row *r;
	size_t n, i;

	if (t) {
		r = unwind_table_rows(t, &n);
		if (n > UNWIND_MAX_ROWS)
			abort();
		for (i = 1; i < n; i++)
			if (r[i].pc <= r[i - 1].pc)
				abort();	/* rows sorted, one per pc */
		for (i = 0; i < n; i++)
			if (unwind_table_find(t, r[i].pc) &&
			    unwind_table_find(t, r[i].pc)->pc != r[i].pc)
				abort();
	}
	unwind_table_free(t);
	elf_file_free(f);
}

static void fuzz_symtab(const uint8_t *data, size_t size)
{
	size_t at = split(&data, &size);
	struct elfimg_scn s[2] = {
		{ ".symtab", SHT_SYMTAB, 0, sizeof(Elf64_Sym), 2, data, at },
		{ ".strtab", SHT_STRTAB, 0, 0, 0, data + at, size - at },
	};
	struct elf_file *f = open_img(s, 2);
	struct symtab t = {};
	size_t i;

	if (f && !symtab_add_elf(&t, f, ELF_SYMS_SYMTAB | ELF_SYMS_DYNSYM)) {
		symtab_finish(&t);
		for (i = 0; i < t.n; i++) {
			const struct symtab_sym *y = symtab_find(&t, t.v[i].addr);

			if (!y || y->addr != t.v[i].addr ||
			    !*symtab_name(&t, y))
				abort();
			if (i && t.v[i].addr <= t.v[i - 1].addr)
				abort();	/* one symbol per address */
		}
	}
	symtab_clear(&t);
	elf_file_free(f);
}

/* resolve_usdts() takes a path: the image goes through a memfd. */
static void fuzz_stapsdt(const uint8_t *data, size_t size)
{
	struct elfimg_scn s = { ".note.stapsdt", SHT_NOTE, 0, 0, 0, data,
				size };
	struct resolve_usdt *u = NULL;
	char path[64];
	size_t len, n = 0, i;
	void *img = elfimg_build(&s, 1, &len);
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0 || write(fd, img, len) != (ssize_t)len)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!resolve_usdts(path, NULL, NULL, &u, &n))
		for (i = 0; i < n; i++)
			if (!u[i].provider || !u[i].name || !u[i].args)
				abort();
	resolve_usdts_free(u, n);
	close(fd);
	free(img);
}

static void fuzz_debuglink(const uint8_t *data, size_t size)
{
	size_t at = split(&data, &size);
	struct elfimg_scn s[2] = {
		{ ".gnu_debuglink", SHT_PROGBITS, 0, 0, 0, data, at },
		{ ".note.gnu.build-id", SHT_NOTE, SHF_ALLOC, 0, 0, data + at,
		  size - at },
	};
	struct elf_file *f = open_img(s, 2), *d;
	char buf[512];
	const char *name;
	const __u8 *id;
	size_t idlen;
	__u32 crc;
	int i;

	if (!f)
		return;
	idlen = elf_file_build_id(f, &id);
	if (idlen > ELF_BUILD_ID_MAX)
		abort();
	if (!debuginfo_build_id_path(id, idlen, buf, sizeof(buf)) &&
	    strncmp(buf, "/nonexistent-debug/.build-id/", 29))
		abort();
	if (!elf_file_debuglink(f, &name, &crc)) {
		if (strchr(name, '/'))
			abort();
		for (i = 0; i < 3; i++)
			if (!debuginfo_link_path("/nonexistent-bin/x", name, i,
						 buf, sizeof(buf)) &&
			    strstr(buf, "/../"))
				abort();	/* never climbs out */
	}
	d = debuginfo_find(f, "/nonexistent-bin/x");
	elf_file_free(d);
	elf_file_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;

	if (!ready) {
		debuginfo_set_root("/nonexistent-debug");
		ready = 1;
	}
	switch (FUZZ_KIND) {
	case 1:
		fuzz_ehframe(data, size);
		break;
	case 2:
		fuzz_symtab(data, size);
		break;
	case 3:
		fuzz_stapsdt(data, size);
		break;
	case 4:
		fuzz_debuglink(data, size);
		break;
	}
	return 0;
}
