// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_floor: attach empty.bpf.o's do-nothing program to FUNC in LIB for
 * every process (as `scry -c` and `bpftrace -c` attach uprobes), run CMD
 * once it is attached, exit when CMD does. What a traced workload loses
 * here is the price of the uprobe trap itself: any tracer's floor.
 *
 *   uprobe_floor BPF_OBJ LIB FUNC CMD [ARGS...]
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .func_name = argc > 3 ? argv[3] : "");
	struct bpf_object *obj;
	struct bpf_program *prog;
	int go[2], status;
	pid_t pid;

	if (argc < 5) {
		fprintf(stderr, "usage: uprobe_floor BPF_OBJ LIB FUNC CMD [ARGS...]\n");
		return 2;
	}
	/* the child waits, as under a tracer's -c, until the probe is in */
	if (pipe(go))
		return 1;
	pid = fork();
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	close(go[0]);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj))
		return 1;
	prog = bpf_object__find_program_by_name(obj, "empty");
	if (!prog || !bpf_program__attach_uprobe_opts(prog, -1, argv[2], 0, &opts))
		return 1;
	fprintf(stderr, "uprobe_floor: attached\n");
	if (write(go[1], "g", 1) != 1 || waitpid(pid, &status, 0) < 0)
		return 1;
	bpf_object__close(obj);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
