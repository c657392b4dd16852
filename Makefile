# SPDX-License-Identifier: GPL-2.0
#
# bpf/X.bpf.c -> build/X.bpf.o -> build/X.skel.h  (clang -target bpf, bpftool)
# src/*.c     -> build/src/*.o -> scry            (skeletons embedded)
# tests/unit/test_*.c -> build/tests/test_*      (no root: make check)
# tests/workloads/*.c -> build/workloads/*       (ground-truth programs)
#
# make            build scry
# make demo       install missing packages, build, run a real question
# make check      unit tests (no root)
# make test       everything: unit + root end-to-end + ASan/UBSan + fuzz + vmtest
# make vmtest     the in-VM checks on each kernel of tests/vm/run's list (qemu)
# make SANITIZE=1 ASan/UBSan build into build-asan/
# make install    scry, scry(1), bash completion, docs under $(DESTDIR)$(PREFIX)
# make uninstall  remove exactly what install put there
# make static     build/static/scry: one file, no shared libraries

CC	?= gcc
CLANG	?= clang
BPFTOOL	?= bpftool
V	?= 0
SANITIZE ?= 0
SCDOC	?= scdoc
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
DOCDIR	?= $(PREFIX)/share/doc/scry
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

ifeq ($(SANITIZE),1)
BUILD	:= build-asan
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD	:= build
SANFLAGS :=
endif

VERSION	:= 0.1.0
ARCH	:= x86
CFLAGS	?= -O2 -g
CFLAGS	+= -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -Iinclude -I$(BUILD) \
	   -DSCRY_VERSION='"$(VERSION)"' -DSCRY_TESTING $(SANFLAGS)
LDFLAGS	+= $(SANFLAGS)
LDLIBS	:= -lbpf -lelf -ldw -lz -lm
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Iinclude -Ibpf \
	   -I/usr/include/$(shell uname -m)-linux-gnu \
	   -Wall -Werror -Wno-unused-function -mcpu=v3

ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
# the engine with every clause slot: see the rule below
SKELS	 := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS)) \
	    $(BUILD)/scry_all.skel.h $(BUILD)/scry_lean.skel.h
# static_dl.c is linked into the static build only (see there)
SRCS	 := $(filter-out src/static_dl.c,$(wildcard src/*.c))
OBJS	 := $(patsubst src/%.c,$(BUILD)/src/%.o,$(SRCS))
LIB_OBJS := $(filter-out $(BUILD)/src/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
WL_SRCS	 := $(wildcard tests/workloads/*.c)
WL_BINS	 := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(WL_SRCS))
WL_CXX_SRCS := $(wildcard tests/workloads/*.cc)
WL_BINS	 += $(patsubst tests/workloads/%.cc,$(BUILD)/workloads/%,$(WL_CXX_SRCS))

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all clean check test demo deps workloads unit bench fuzz sanitized \
	man install uninstall static vmtest

all: $(BUILD)/scry scry $(BUILD)/scry.1

scry: $(BUILD)/scry
ifneq ($(SANITIZE),1)
	$(Q)ln -sf $(BUILD)/scry scry
endif

$(BUILD) $(BUILD)/src $(BUILD)/tests $(BUILD)/workloads:
	$(Q)mkdir -p $@

# clang's object keeps its DWARF (-g is how clang makes BTF): 2 of its
# 3.6 MB. The skeleton embeds the object, libbpf opens it at every start,
# and needs only code, data, .BTF and .BTF.ext: bpftool's linker keeps
# those (1.6 MB), and the DWARF stays in X.bpf.dbg.o for a debugger.
$(BUILD)/%.bpf.dbg.o: bpf/%.bpf.c $(wildcard bpf/*.bpf.h) $(wildcard include/scry/*abi.h) | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(BPF_DEFS) -c $< -o $@

# The engine is built three times (bpf/scry.bpf.c: SCRY_CLAUSES): scry.bpf.o
# has clause slot 0 alone, for plans of one clause, and gives the
# skeleton; scry_lean.bpf.o is the same without the operations no question
# uses (include/scry/prog_abi.h SCRY_OPS_RARE), for the plans of one
# clause that do without them; scry_all.bpf.o has all 8 slots. The bytes
# of the other two are opened with the skeleton (attach.c: the same maps,
# data and programs).
$(BUILD)/scry.bpf.dbg.o: BPF_DEFS := -DSCRY_ONE_CLAUSE
$(BUILD)/scry_all.bpf.dbg.o $(BUILD)/scry_lean.bpf.dbg.o: bpf/scry.bpf.c $(wildcard bpf/*.bpf.h) $(wildcard include/scry/*abi.h) | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(BPF_DEFS) -c $< -o $@
$(BUILD)/scry_lean.bpf.dbg.o: BPF_DEFS := -DSCRY_ONE_CLAUSE -DSCRY_LEAN

$(BUILD)/%.bpf.o: $(BUILD)/%.bpf.dbg.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(notdir $*) > $@

# syscall names -> numbers, from the uapi header of the build machine's arch
UNISTD := /usr/include/$(shell uname -m)-linux-gnu/asm/unistd_64.h
$(BUILD)/syscalls.h: $(UNISTD) | $(BUILD)
	$(call msg,GEN,$@)
	$(Q)awk '/^#define __NR_[a-z0-9_]+ [0-9]+$$/ { n = $$2; sub("__NR_", "", n); \
		printf "\t{ \"%s\", %s },\n", n, $$3 }' $< > $@

$(BUILD)/src/%.o: src/%.c $(wildcard include/scry/*.h) $(SKELS) $(BUILD)/syscalls.h Makefile | $(BUILD)/src
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libscry.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/scry: $(BUILD)/src/main.o $(BUILD)/libscry.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c tests/unit/check.h tests/unit/test_util.h $(BUILD)/libscry.a | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $< $(BUILD)/libscry.a $(LDFLAGS) $(LDLIBS) -o $@

# the browser test's flame graph of a fixed report (tests/tool/browser.sh)
$(BUILD)/tests/svg_fixture: tests/browser/svg_fixture.c tests/unit/test_util.h $(BUILD)/libscry.a | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $< $(BUILD)/libscry.a $(LDFLAGS) $(LDLIBS) -o $@

# Workloads are built the way the issue's ground truth needs: frame
# pointers, no inlining of the functions the tests look for.
WL_CFLAGS := -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra -Werror -D_GNU_SOURCE -pthread
$(BUILD)/workloads/%: tests/workloads/%.c $(wildcard tests/workloads/*.h) Makefile | $(BUILD)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) $(WL_CFLAGS) $< -o $@ -ldl

# gcc drops the frame of a leaf at -O1 even with frame pointers: cpu_wl's
# profile ground truth needs every frame, so it is built without optimizing
$(BUILD)/workloads/cpu_wl: WL_CFLAGS += -O0

# read_wl's reads are the ground truth of a whole table: linked statically,
# no dynamic loader reads libc.so.6 before main
$(BUILD)/workloads/read_wl: WL_CFLAGS += -static

# C++ workloads (demangling end to end), the same flags
$(BUILD)/workloads/%: tests/workloads/%.cc $(wildcard tests/workloads/*.h) Makefile | $(BUILD)/workloads
	$(call msg,CXX,$@)
	$(Q)$(CXX) $(filter-out -pthread,$(WL_CFLAGS)) $< -o $@

# stacks from the first instruction of a program without frame pointers
$(BUILD)/workloads/nofp_wl: WL_CFLAGS += -O2 -fomit-frame-pointer

# memo_wl's four paths without frame pointers (tests/root/unwind_memo.sh)
$(BUILD)/workloads/memo_nofp_wl: tests/workloads/memo_wl.c Makefile | $(BUILD)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) $(WL_CFLAGS) -O2 -fomit-frame-pointer $< -o $@

# threads_wl's threads without frame pointers (tests/root/cmd_stacks.sh)
$(BUILD)/workloads/threads_nofp_wl: tests/workloads/threads_wl.c Makefile | $(BUILD)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) $(WL_CFLAGS) -O2 -fomit-frame-pointer $< -o $@

# a library dl_wl loads while being traced, without frame pointers
$(BUILD)/workloads/libdlwl.so: tests/workloads/lib/dlwl_lib.c Makefile | $(BUILD)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fPIC -shared -Wall -Wextra -Werror $< -o $@

# big_fde: 75k push/pop pairs, each with its CFA offset, then a call:
# 150k CFI rows in one FDE (tests/root/hostile_files.sh)
$(BUILD)/workloads/bigfde.s: Makefile | $(BUILD)/workloads
	$(call msg,GEN,$@)
	$(Q)awk 'BEGIN { print "\t.text\n\t.globl big_fde\n\t.type big_fde,@function"; \
		print "big_fde:\n\t.cfi_startproc\n\tsub $$8, %rsp\n\t.cfi_adjust_cfa_offset 8"; \
		for (i = 0; i < 75000; i++) \
			print "\tpush %rax\n\t.cfi_adjust_cfa_offset 8\n\tpop %rax\n\t.cfi_adjust_cfa_offset -8"; \
		print "\tcall wl_block\n\tadd $$8, %rsp\n\t.cfi_adjust_cfa_offset -8\n\tret"; \
		print "\t.cfi_endproc\n\t.size big_fde, .-big_fde\n\t.section .note.GNU-stack,\"\",@progbits" }' > $@
$(BUILD)/workloads/bigfde_wl: tests/workloads/bigfde/bigfde_wl.c $(BUILD)/workloads/bigfde.s tests/workloads/gate.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(WL_CFLAGS) tests/workloads/bigfde/bigfde_wl.c $(BUILD)/workloads/bigfde.s -o $@


# The man page: one source, docs/scry.1.scd, turned into roff at build
# time; the date is the source's last commit, so rebuilds are identical.
# After .TH: no hyphenation, ragged right (.nh, .ad l), as git's pages do:
# a path or probe broken at a hyphen ("docs/LAN-GUAGE.md") misleads.
# Two steps, not a pipe: a missing or failing scdoc must fail the rule
# (a pipe's status is sed's, and left an empty page behind).
MAN_DATE = $(shell git log -1 --format=%ct -- docs/scry.1.scd 2>/dev/null)
$(BUILD)/scry.1: docs/scry.1.scd Makefile | $(BUILD)
	$(call msg,SCDOC,$@)
	$(Q)SOURCE_DATE_EPOCH=$(or $(MAN_DATE),0) $(SCDOC) <$< >$@.roff
	$(Q)sed '/^\.TH /a .nh\n.ad l' $@.roff >$@ && rm -f $@.roff
man: $(BUILD)/scry.1

# Nothing is looked up beside the binary at run time (the BPF programs
# are inside it), so installing is copying these files.
DOCS := README.md LICENSE $(wildcard docs/*.md) docs/scry.schema.json
install: $(BUILD)/scry $(BUILD)/scry.1
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DOCDIR)
	$(Q)install -m 755 $(BUILD)/scry $(DESTDIR)$(BINDIR)/scry
	$(Q)install -m 644 $(BUILD)/scry.1 $(DESTDIR)$(MANDIR)/man1/scry.1
	$(Q)install -m 644 completion/scry.bash $(DESTDIR)$(BASHCOMPDIR)/scry
	$(Q)install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/

uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(BINDIR)/scry $(DESTDIR)$(MANDIR)/man1/scry.1 \
		$(DESTDIR)$(BASHCOMPDIR)/scry \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS)))
	$(Q)rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null || true

# One scry file for any x86_64 Linux with BTF: the same objects linked
# against Debian's static libbpf, libelf, libdw, zlib and what libdw needs
# (zstd, xz, bzip2), glibc and libstdc++'s demangler (static_dl.c).
STATIC_LIBS := -lbpf -ldw -lelf -lz -lzstd -llzma -lbz2 -lstdc++ -lm
static: $(BUILD)/static/scry
$(BUILD)/static/scry: $(BUILD)/src/main.o $(BUILD)/libscry.a src/static_dl.c Makefile
	$(call msg,STATIC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -c src/static_dl.c -o $(BUILD)/static/static_dl.o
	$(Q)$(CC) -static $(LDFLAGS) -Wl,--wrap=dlopen,--wrap=dlsym,--wrap=dlclose \
		$(BUILD)/src/main.o $(BUILD)/static/static_dl.o $(BUILD)/libscry.a \
		$(STATIC_LIBS) -o $@ 2>$(BUILD)/static/link.log || \
		{ cat $(BUILD)/static/link.log >&2; exit 1; }

# malloc_wl bound to jemalloc by DT_NEEDED, as redis is (make deps has it)
JEMALLOC := /usr/lib/$(shell uname -m)-linux-gnu/libjemalloc.so.2
$(BUILD)/workloads/je_wl: tests/workloads/malloc_wl.c tests/workloads/gate.h Makefile | $(BUILD)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) $(WL_CFLAGS) $< $(JEMALLOC) -o $@

workloads: $(WL_BINS) $(BUILD)/workloads/libdlwl.so $(BUILD)/workloads/bigfde_wl \
	$(BUILD)/workloads/je_wl $(BUILD)/workloads/memo_nofp_wl \
	$(BUILD)/workloads/threads_nofp_wl
unit: $(UNIT_BINS)

# libFuzzer target for the expression parser (clang).
$(BUILD)/fuzz_expr: tests/fuzz/fuzz_expr.c src/expr.c include/scry/expr.h | $(BUILD)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -D_GNU_SOURCE \
		tests/fuzz/fuzz_expr.c src/expr.c -o $@
# libFuzzer target for plan.c, against a fake system. plan.c, the parser
# and the hints are built instrumented; the sources' descriptions (and
# what they link) come from libscry.a, whose own plan.o is never pulled.
FUZZ_PLAN_SRCS := tests/fuzz/fuzz_plan.c src/expr.c src/plan.c src/hint.c
$(BUILD)/fuzz_plan: $(FUZZ_PLAN_SRCS) $(wildcard include/scry/*.h) $(BUILD)/libscry.a | $(BUILD)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -I$(BUILD) -D_GNU_SOURCE \
		$(FUZZ_PLAN_SRCS) $(BUILD)/libscry.a $(LDLIBS) -o $@
# libFuzzer targets for what scry reads from traced processes: the layer
# (src/elf.c, proc.c, ...) built instrumented once, one binary per input.
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -Iinclude -D_GNU_SOURCE
FUZZ_LAYER := array stop elf symtab unwind_table debuginfo fsafe resolve hint \
	      proc jitmap ranges
FUZZ_LAYER_OBJS := $(patsubst %,$(BUILD)/fuzz-obj/%.o,$(FUZZ_LAYER))
$(BUILD)/fuzz-obj:
	$(Q)mkdir -p $@
$(BUILD)/fuzz-obj/%.o: src/%.c $(wildcard include/scry/*.h) | $(BUILD)/fuzz-obj
	$(call msg,FUZZ-CC,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -c $< -o $@
FUZZ_ELF_BINS := $(patsubst %,$(BUILD)/fuzz_%,ehframe symtab stapsdt debuglink)
FUZZ_TEXT_BINS := $(patsubst %,$(BUILD)/fuzz_%,maps perfmap)
$(BUILD)/fuzz_ehframe: FUZZ_KIND := 1
$(BUILD)/fuzz_symtab: FUZZ_KIND := 2
$(BUILD)/fuzz_stapsdt: FUZZ_KIND := 3
$(BUILD)/fuzz_debuglink: FUZZ_KIND := 4
$(BUILD)/fuzz_maps: FUZZ_KIND := 1
$(BUILD)/fuzz_perfmap: FUZZ_KIND := 2
FUZZ_LINK = $(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -DFUZZ_KIND=$(FUZZ_KIND) $< \
	    $(FUZZ_LAYER_OBJS) -lelf -ldw -o $@
$(FUZZ_ELF_BINS): tests/fuzz/fuzz_elf.c tests/fuzz/elfimg.h $(FUZZ_LAYER_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_LINK)
$(FUZZ_TEXT_BINS): tests/fuzz/fuzz_text.c $(FUZZ_LAYER_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_LINK)
fuzz: $(BUILD)/fuzz_expr $(BUILD)/fuzz_plan $(FUZZ_ELF_BINS) $(FUZZ_TEXT_BINS)

check: $(UNIT_BINS)
	$(Q)tests/run --unit-only $(BUILD)

# Everything, as CI runs it: packages, the normal build, the ASan/UBSan
# build (unit tests and root tests run again against it), the fuzzer.
test: deps
	$(Q)$(MAKE) --no-print-directory all unit workloads fuzz
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 sanitized
	$(Q)tests/run $(BUILD)

# Kernels come from Debian's archive on first use, cached in
# /var/cache/scry-vm (SCRY_VM_CACHE); SCRY_VM_KERNELS="6.1" picks some.
vmtest: all workloads
	$(Q)tests/vm/run $(BUILD)

sanitized: $(BUILD)/scry $(UNIT_BINS)

deps:
	$(Q)tests/deps.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all workloads
	$(Q)tests/demo.sh

bench: deps all workloads
	$(Q)bench/run

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf build build-asan scry
