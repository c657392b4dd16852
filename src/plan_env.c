// SPDX-License-Identifier: GPL-2.0
/*
 * plan_env: the running system as plan.c sees it. plan.c itself does no
 * I/O; what it must know of the system (tracepoint formats and names,
 * whether there are kprobes) comes through here, so its tests can put a
 * fake in its place.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/btf.h>
#include <scry/plan.h>
#include <scry/tracefs.h>

/* Tracepoints matching CAT:NAME (fnmatch globs), in name order. */
static int tp_glob(const char *cat, const char *name,
		   void (*fn)(void *ctx, const char *cat, const char *name),
		   void *ctx)
{
	struct dirent **cats = NULL, **evs = NULL;
	char dir[512];
	int nc, ne, i, j, n = 0;

	if (tracefs_ensure())
		return -ENOENT;
	nc = scandir(TRACEFS "/events", &cats, NULL, alphasort);
	if (nc < 0)
		return -errno;
	for (i = 0; i < nc; i++) {
		if (cats[i]->d_name[0] == '.' ||
		    fnmatch(cat, cats[i]->d_name, 0))
			continue;
		snprintf(dir, sizeof(dir), TRACEFS "/events/%s",
			 cats[i]->d_name);
		ne = scandir(dir, &evs, NULL, alphasort);
		for (j = 0; j < ne; j++) {
			if (evs[j]->d_name[0] != '.' &&
			    evs[j]->d_type == DT_DIR &&
			    !fnmatch(name, evs[j]->d_name, 0)) {
				fn(ctx, cats[i]->d_name, evs[j]->d_name);
				n++;
			}
			free(evs[j]);
		}
		free(evs);
		evs = NULL;
	}
	for (i = 0; i < nc; i++)
		free(cats[i]);
	free(cats);
	return n;
}

/*
 * A kernel without CONFIG_KPROBES has neither the kprobe PMU nor the
 * tracefs kprobe_events file.
 */
static bool has_kprobes(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", F_OK) ||
	       !access(TRACEFS "/kprobe_events", F_OK);
}

/*
 * The kernel's BTF, parsed once (milliseconds) when first asked for,
 * kept for the run: plan's struct access, fentry and kprobe arguments
 * share it.
 */
static struct btf *vmlinux_parsed;

static struct btf *vmlinux_btf(void)
{
	static bool tried;

	if (!tried) {
		tried = true;
		vmlinux_parsed = btf__load_vmlinux_btf();
	}
	return vmlinux_parsed;
}

/*
 * Some kernels (lockdown, a sandbox) load tracepoint programs but refuse
 * BPF trampolines with EPERM, which scry's whole load would report as a
 * missing capability. A two-instruction fentry program on the function
 * itself says so first, while plan can still point at the probe; only
 * programs that use fentry pay for it (well under a millisecond).
 */
static int trampoline(int func)
{
	const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = func);
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "scry_probe", "GPL",
			       ret0, 2, &opts);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

const struct plan_env plan_env_system = {
	.tp_field = tracefs_field,
	.tp_glob = tp_glob,
	.has_kprobes = has_kprobes,
	.trampoline = trampoline,
	.btf = vmlinux_btf,
};
