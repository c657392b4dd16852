/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd: the -c command, from the line the user typed to its exit.
 *
 * A simple command (words only) is exec'ed directly; anything else runs
 * through /bin/sh -c, exactly as typed. The child waits, held before
 * exec, until scry has attached; it then runs with a seccomp filter that
 * hands each execve and each executable file mmap of the command (and of
 * every process it starts) to scry before the kernel performs it, so scry
 * loads the file's unwind table first and stacks are complete from the
 * first instruction, and each exit_group, so scry reads the mappings of
 * a process that lived a millisecond before they go
 * (SECCOMP_RET_USER_NOTIF; the command is not ptraced, so gdb or strace
 * still work inside it).
 *
 * When scry stops (-d, Ctrl-C, SIGTERM) the command's process group and
 * every process it started are ended: SIGTERM, then SIGKILL after a short
 * grace, unless the user asked to leave it running.
 */
#ifndef SCRY_CMD_H
#define SCRY_CMD_H

#include <stdbool.h>
#include <sys/types.h>

struct cmd;

struct cmd_opts {
	const char *line;	/* -c, as typed */
	const char *user;	/* -u USER (name or uid), or NULL */
	bool keep;		/* --keep-running: leave it running at stop */
	bool hold;		/* hand execs and code mmaps to cmd_serve() */
};

/* What a file is to the process that is about to run code from it. */
enum cmd_file_role {
	CMD_FILE_EXE,		/* the ELF file exec'ed (a script's #! one) */
	CMD_FILE_INTERP,	/* its ELF interpreter (ld.so) */
	CMD_FILE_SCRIPT,	/* a "#!" script exec'ed (not code itself) */
	CMD_FILE_LIB,		/* a file mapped executable (ld.so, dlopen) */
};

/* A file the command is about to run code from. */
struct cmd_file {
	int pid;		/* the thread that asked */
	int tgid;		/* its process */
	int fd;			/* scry's own read-only fd of the file */
	const char *name;	/* for messages: the path as the process gave
				 * it, or "fd N" */
	enum cmd_file_role role;
	/*
	 * CMD_FILE_LIB mapped with MAP_FIXED (ld.so maps each segment after
	 * the first so): where it will be, [addr, addr + len) from file
	 * offset off. at_fixed false: the kernel picks the address.
	 */
	bool at_fixed;
	__u64 addr, len, off;
};

/* What scry does while a call of the command waits for it. */
struct cmd_hooks {
	/*
	 * thread @tid of process @tgid waits for scry from now on (its wait
	 * is scry's), in an exec (@exec) or an mmap: its address space
	 * stands still until answered
	 */
	void (*held)(void *ctx, int tid, int tgid, bool exec);
	/* a file it is about to run code from */
	void (*file)(void *ctx, const struct cmd_file *f);
	/* process @tgid is about to exit, its mappings still in place */
	void (*exiting)(void *ctx, int tgid);
	void *ctx;
};

/*
 * Check @o before anything runs: a simple command's program must exist
 * (a usage error otherwise), -u USER must name a user. Reports the problem
 * once on stderr. Returns 0 or -errno.
 */
int cmd_check(const struct cmd_opts *o);

/* Fork the child, held before exec. Returns NULL with errno set. */
struct cmd *cmd_start(const struct cmd_opts *o);

pid_t cmd_pid(const struct cmd *c);

/* True when the command runs through /bin/sh (not a simple command). */
bool cmd_shell(const struct cmd *c);

/* The fd to poll for held execs and mmaps (POLLIN), or -1. */
int cmd_notify_fd(const struct cmd *c);

/*
 * The file the child will exec (/bin/sh for a command that needs the
 * shell), found on PATH as execvp finds it, into @exe, and its ELF
 * interpreter into @interp ("" when it has none): what the kernel maps
 * at the exec, for work done before the release. Returns 0 or -errno.
 */
int cmd_files(const struct cmd *c, char *exe, size_t elen, char *interp,
	      size_t ilen);

/* Let the child exec. Returns 0 or -errno. */
int cmd_release(struct cmd *c);

/*
 * Answer every held exec or mmap waiting now: call @h->held, then
 * @h->file for each file it would run code from, then let the call
 * proceed. Never blocks.
 */
void cmd_serve(struct cmd *c, const struct cmd_hooks *h);

/* True once the child has exited (reaped, no waiting). */
bool cmd_reaped(struct cmd *c);

/*
 * Stop: end the command unless it is to be kept: SIGTERM its process
 * group and @others (processes it started, by pid), SIGKILL what is left
 * after the grace period; reap the child. With keep, hand the held calls
 * to a small keeper process that answers them until the command is gone.
 */
void cmd_stop(struct cmd *c, const int *others, int nothers);

/* Say how the command ended, if it failed; "still running" if kept. */
void cmd_report(const struct cmd *c);

void cmd_free(struct cmd *c);

/*
 * The keeper's body: scry re-exec'ed as "scry-keeper" with the listener
 * at fd 3 (main() dispatches on argv[0]). Never returns.
 */
void cmd_keeper(void) __attribute__((noreturn));

#endif /* SCRY_CMD_H */
