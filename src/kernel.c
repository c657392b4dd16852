// SPDX-License-Identifier: GPL-2.0
/*
 * kernel: the running kernel against what scry's engine uses.
 *
 * Features are probed, not read from the version number: distributions
 * backport BPF features into older version numbers (RHEL does), so a
 * version test could refuse a kernel that works. libbpf loads a
 * two-instruction program calling each helper and reads the verifier's
 * answer: about 0.1 ms for all of them.
 * The version next to each feature is only the upstream release that
 * brought it, for the error message: the newest one is the minimum.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <scry/kernel.h>
#include <scry/log.h>

/*
 * What bpf/ uses that older kernels lack, newest first. Everything else
 * (tp_btf, raw_tp, BTF, bpf_probe_read_user, mmapable arrays) is older
 * than the oldest of these.
 */
static const struct kernel_feature {
	const char *name;		/* as the error names it */
	const char *since;		/* upstream Linux release that added it */
	enum bpf_func_id helper;	/* the helper probed, if any... */
	enum bpf_prog_type prog;	/* ...for the program type that calls it */
	enum bpf_map_type map;		/* else the map type probed */
} features[] = {
	/* stack walks (frame pointer, DWARF) and the fd-path walk */
	{ "bpf_loop", "5.17", .helper = BPF_FUNC_loop,
	  .prog = BPF_PROG_TYPE_RAW_TRACEPOINT },
	/* a user frame's file and offset, from the kernel's mappings */
	{ "bpf_find_vma", "5.17", .helper = BPF_FUNC_find_vma,
	  .prog = BPF_PROG_TYPE_RAW_TRACEPOINT },
	/* user registers of a task: off-CPU, profile and tracepoint stacks */
	{ "bpf_task_pt_regs", "5.15", .helper = BPF_FUNC_task_pt_regs,
	  .prog = BPF_PROG_TYPE_RAW_TRACEPOINT },
	/* which of a clause's uprobes or kprobes fired */
	{ "bpf_get_attach_cookie", "5.15", .helper = BPF_FUNC_get_attach_cookie,
	  .prog = BPF_PROG_TYPE_KPROBE },
	{ "bpf_get_current_task_btf", "5.11",
	  .helper = BPF_FUNC_get_current_task_btf,
	  .prog = BPF_PROG_TYPE_RAW_TRACEPOINT },
	/* self-> variables */
	{ "BPF task storage", "5.11", .map = BPF_MAP_TYPE_TASK_STORAGE },
	/* the notice channel (new pids, exec, mmap), printf and friends */
	{ "BPF ring buffers", "5.8", .map = BPF_MAP_TYPE_RINGBUF },
};

#define KERNEL_NFEATURES (sizeof(features) / sizeof(features[0]))

/* 1 if the kernel has @f, 0 if not, negative if it could not tell. */
static int kernel_feature_probe(const struct kernel_feature *f)
{
	if (f->helper)
		return libbpf_probe_bpf_helper(f->prog, f->helper, NULL);
	return libbpf_probe_bpf_map_type(f->map, NULL);
}

int kernel_check(void)
{
	char missing[256] = "";
	const char *need = NULL;
	struct utsname u;
	size_t i, len = 0;
	int ret;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		log_err("this kernel has no BTF (/sys/kernel/btf/vmlinux: %s): "
			"scry needs a kernel built with CONFIG_DEBUG_INFO_BTF=y",
			strerror(errno));
		return -ENOENT;
	}
	for (i = 0; i < KERNEL_NFEATURES; i++) {
		ret = kernel_feature_probe(&features[i]);
		if (ret < 0)	/* cannot tell: let loading say what is wrong */
			log_debug("probing %s: %s", features[i].name,
				  strerror(-ret));
		if (ret != 0)
			continue;
		if (!need)
			need = features[i].since;
		len += snprintf(missing + len, sizeof(missing) - len,
				"%s%s (Linux %s)", len ? ", " : "",
				features[i].name, features[i].since);
		if (len >= sizeof(missing))
			len = sizeof(missing) - 1;
	}
	if (!need)
		return 0;
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	log_err("this kernel (%s) lacks %s: scry needs Linux %s or later",
		u.release, missing, need);
	return -ENOTSUP;
}

/*
 * Before 6.1 a hash map allocated its elements with kmalloc, which the
 * verifier refused perf_event programs, and warned about (WARN_ONCE) in
 * other tracing programs: a program that interrupts the allocator may
 * deadlock in it. 6.1 moved them to bpf_mem_alloc and lifted both, so
 * the refusal is the probe: a lookup in such a map from a perf_event
 * program.
 */
bool kernel_htab_mem_alloc(void)
{
	static int known = -1;
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_NO_PREALLOC);
	struct bpf_insn insns[] = {
		/* *(u32 *)(fp - 4) = 0; r1 = the map; r2 = fp - 4 */
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = BPF_REG_10,
		  .off = -4 },
		{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD },
		{ 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2,
		  .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2,
		  .imm = -4 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int map, prog;

	if (known >= 0)
		return known;
	known = 0;
	map = bpf_map_create(BPF_MAP_TYPE_HASH, "scry_probe", 4, 4, 1, &mo);
	if (map < 0)
		return false;
	insns[1].imm = map;
	prog = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, "scry_probe", "GPL",
			     insns, sizeof(insns) / sizeof(insns[0]), NULL);
	if (prog >= 0) {
		known = 1;
		close(prog);
	}
	close(map);
	return known;
}
