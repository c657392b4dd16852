/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzzing helper: wrap fuzzer bytes into a minimal, well-formed ELF64
 * image (x86-64 ET_DYN, one r-x PT_LOAD over the whole image at vaddr 0)
 * as the contents of one or two named sections, so every mutation lands
 * in the section under test instead of breaking the ELF headers.
 */
#ifndef SCRY_FUZZ_ELFIMG_H
#define SCRY_FUZZ_ELFIMG_H

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct elfimg_scn {
	const char *name;
	Elf64_Word type;
	Elf64_Xword flags;
	Elf64_Xword entsize;
	Elf64_Word link;	/* section index, 0: none */
	const void *data;
	size_t size;
};

/*
 * A malloc'ed image holding @n (<= 4) sections after the null one; the
 * section header string table comes last. Sets *@len.
 */
static inline void *elfimg_build(const struct elfimg_scn *s, int n,
				 size_t *len)
{
	Elf64_Shdr sh[6];
	char names[256];
	size_t off, nl = 1, i, total;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	char *img;

	memset(sh, 0, sizeof(sh));
	names[0] = '\0';
	off = sizeof(eh) + sizeof(ph);
	for (i = 0; i < (size_t)n; i++) {
		size_t l = strlen(s[i].name) + 1;

		memcpy(names + nl, s[i].name, l);
		sh[i + 1] = (Elf64_Shdr){
			.sh_name = nl, .sh_type = s[i].type,
			.sh_flags = s[i].flags, .sh_addr = off,
			.sh_offset = off, .sh_size = s[i].size,
			.sh_link = s[i].link, .sh_addralign = 1,
			.sh_entsize = s[i].entsize,
		};
		nl += l;
		off += s[i].size;
	}
	memcpy(names + nl, ".shstrtab", 10);
	sh[n + 1] = (Elf64_Shdr){ .sh_name = nl, .sh_type = SHT_STRTAB,
				  .sh_offset = off, .sh_size = nl + 10,
				  .sh_addralign = 1 };
	off += nl + 10;
	off = (off + 7) & ~7UL;
	total = off + (n + 2) * sizeof(Elf64_Shdr);
	img = calloc(1, total);
	if (!img)
		abort();
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_shoff = off;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = n + 2;
	eh.e_shstrndx = n + 1;
	ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			   .p_filesz = off, .p_memsz = 0x7fffffff,
			   .p_align = 0x1000 };
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + sizeof(eh), &ph, sizeof(ph));
	for (i = 0; i < (size_t)n; i++)
		if (s[i].size)
			memcpy(img + sh[i + 1].sh_offset, s[i].data, s[i].size);
	memcpy(img + sh[n + 1].sh_offset, names, nl + 10);
	memcpy(img + off, sh, (n + 2) * sizeof(Elf64_Shdr));
	*len = total;
	return img;
}

#endif /* SCRY_FUZZ_ELFIMG_H */
