// SPDX-License-Identifier: GPL-2.0
/*
 * cmd: the -c command's life (include/scry/cmd.h has the contract).
 *
 * The child, between fork and exec, runs only async-signal-safe code:
 * everything it needs (argv, environment, groups) is built before the
 * fork. In order it: restores the signal state scry changed, takes its
 * own process group (unless scry runs in the terminal's foreground, where
 * the command must keep the terminal and get Ctrl-C with scry), installs
 * the seccomp filter and passes its listener to scry, drops to -u USER,
 * then waits for scry to release it.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <gelf.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <scry/cmd.h>
#include <scry/proc.h>
#include <scry/log.h>

#define CMD_GRACE_MS	1000	/* SIGTERM to SIGKILL */
#define CMD_SHEBANG_MAX	4	/* interpreters of interpreters, as the kernel */
#define CMD_MAX_GROUPS	256
#define KEEPER_FD	3

/* Characters that make a command line need a shell. */
#define SHELL_CHARS	";&|<>()$`\\\"'*?[]~{}=#\n"

struct cmd {
	struct cmd_opts o;
	char **argv;		/* the exec'ed argv: the words, or sh -c LINE */
	char *words;		/* storage of a simple command's words */
	char **envp;		/* environment for -u, or NULL: scry's own */
	char *env_own[3];	/* the strings env_set() made */
	int nenv_own;
	bool direct;		/* a simple command, exec'ed without a shell */
	bool own_group;		/* the child leads its own process group */
	uid_t uid;
	gid_t gid;
	gid_t groups[CMD_MAX_GROUPS];
	int ngroups;
	pid_t pid;
	int pidfd;
	int go_fd;		/* write end: one byte releases the child */
	int err_fd;		/* read end: errno of a failed exec */
	int notify_fd;		/* seccomp listener, or -1 */
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	size_t req_size, resp_size;
	int status;
	bool reaped;
	bool ended;		/* scry ended it at stop */
	bool kept;		/* left running at stop */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Words that only a shell understands as the first word: reserved words
 * and builtins (POSIX's special ones and those that change the shell's
 * own state). "exec ./app" or "cd /srv" look simple but need /bin/sh.
 */
static bool shell_word(const char *w, size_t n)
{
	static const char *const words[] = {
		"!", ".", ":", "alias", "bg", "break", "case", "cd", "command",
		"continue", "eval", "exec", "exit", "export", "fg", "for",
		"getopts", "hash", "if", "jobs", "read", "readonly", "return",
		"set", "shift", "source", "times", "trap", "type", "ulimit",
		"umask", "unalias", "unset", "until", "wait", "while", "{",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && !strncmp(words[i], w, n))
			return true;
	return false;
}

static bool is_simple(const char *line)
{
	line += strspn(line, " \t");
	return !strpbrk(line, SHELL_CHARS) &&
	       !shell_word(line, strcspn(line, " \t"));
}

/*
 * A program named without a '/' is looked up on PATH, as execvp does;
 * the file found into @out (@len bytes, NULL: not wanted).
 */
static int find_program(const char *prog, char *out, size_t len)
{
	const char *env = getenv("PATH"), *p;
	char path[2 * PATH_MAX + 2];

	if (strchr(prog, '/')) {
		if (access(prog, X_OK))
			return -errno;
		if (out && snprintf(out, len, "%s", prog) >= (int)len)
			return -ENAMETOOLONG;
		return 0;
	}
	for (p = env ? env : "/usr/bin:/bin"; *p; p += *p == ':') {
		size_t n = strcspn(p, ":");

		if (n < PATH_MAX) {
			snprintf(path, sizeof(path), "%.*s/%s", (int)n, p,
				 prog);
			if (access(path, X_OK) == 0) {
				if (out && snprintf(out, len, "%s", path) >=
					   (int)len)
					return -ENAMETOOLONG;
				return 0;
			}
		}
		p += n;
	}
	return -ENOENT;
}

/*
 * -u USER: a name or a number, as sudo -u takes it. Read from /etc/passwd
 * itself rather than through NSS: the static scry has no NSS modules to
 * load (and a root tool should not load a module a config names).
 */
struct user {
	char name[256];
	char home[PATH_MAX];
	uid_t uid;
	gid_t gid;
};

static int find_user(const char *user, struct user *out)
{
	struct passwd *pw;
	char *end;
	unsigned long uid;
	bool numeric;
	FILE *f = fopen("/etc/passwd", "re");

	if (!f)
		return -errno;
	errno = 0;
	uid = strtoul(user[0] == '#' ? user + 1 : user, &end, 10);
	numeric = !errno && *end == '\0' && end != user && uid < (uid_t)-1;
	while ((pw = fgetpwent(f))) {
		if (strcmp(pw->pw_name, user) && !(numeric && pw->pw_uid == uid))
			continue;
		snprintf(out->name, sizeof(out->name), "%s", pw->pw_name);
		snprintf(out->home, sizeof(out->home), "%s", pw->pw_dir);
		out->uid = pw->pw_uid;
		out->gid = pw->pw_gid;
		fclose(f);
		return 0;
	}
	fclose(f);
	return -ENOENT;
}

/* USER's supplementary groups from /etc/group, the primary one first. */
static int user_groups(const struct user *u, gid_t *groups, int max)
{
	struct group *gr;
	int n = 0;
	char **m;
	FILE *f = fopen("/etc/group", "re");

	groups[n++] = u->gid;
	while (f && (gr = fgetgrent(f)) && n < max)
		for (m = gr->gr_mem; m && *m; m++)
			if (!strcmp(*m, u->name) && gr->gr_gid != u->gid) {
				groups[n++] = gr->gr_gid;
				break;
			}
	if (f)
		fclose(f);
	return n;
}

int cmd_check(const struct cmd_opts *o)
{
	char prog[PATH_MAX];
	const char *line = o->line + strspn(o->line, " \t");
	size_t n = strcspn(line, " \t");
	struct user u;
	int err;

	if (!*line) {
		log_err("-c: empty command");
		return -EINVAL;
	}
	if (o->user && find_user(o->user, &u)) {
		log_err("-u: no such user '%s'", o->user);
		return -EINVAL;
	}
	/* through the shell, the shell reports what it cannot find (127) */
	if (!is_simple(line))
		return 0;
	if (n >= sizeof(prog)) {
		log_err("-c: program name too long");
		return -ENAMETOOLONG;
	}
	memcpy(prog, line, n);
	prog[n] = '\0';
	err = find_program(prog, NULL, 0);
	if (err == -ENOENT && !strchr(prog, '/'))
		log_err("-c: %s: command not found", prog);
	else if (err)
		log_err("-c: %s: %s", prog, strerror(-err));
	return err;
}

/* argv before the fork: the child may not allocate (see the top). */
static int build_argv(struct cmd *c)
{
	static const char *shell[] = { "/bin/sh", "-c", NULL, NULL };
	char *save = NULL;
	int n = 0;

	c->direct = is_simple(c->o.line);
	if (!c->direct) {
		shell[2] = c->o.line;
		c->argv = calloc(4, sizeof(*c->argv));
		if (!c->argv)
			return -ENOMEM;
		memcpy(c->argv, shell, sizeof(shell));
		return 0;
	}
	c->words = strdup(c->o.line);
	c->argv = calloc(strlen(c->o.line) / 2 + 2, sizeof(*c->argv));
	if (!c->words || !c->argv)
		return -ENOMEM;
	for (c->argv[n] = strtok_r(c->words, " \t", &save); c->argv[n];
	     c->argv[++n] = strtok_r(NULL, " \t", &save))
		;
	return 0;
}

/* Replace or add NAME=VALUE in c->envp, a copy of environ of @n entries. */
static int env_set(struct cmd *c, size_t *n, const char *name,
		   const char *value)
{
	size_t len = strlen(name), i;
	char *kv;
	char **p;

	if (c->nenv_own == 3 || asprintf(&kv, "%s=%s", name, value) < 0)
		return -ENOMEM;
	c->env_own[c->nenv_own++] = kv;
	for (i = 0; i < *n; i++) {
		if (!strncmp(c->envp[i], name, len) && c->envp[i][len] == '=') {
			c->envp[i] = kv;
			return 0;
		}
	}
	p = realloc(c->envp, (*n + 2) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	p[(*n)++] = kv;
	p[*n] = NULL;
	c->envp = p;
	return 0;
}

/* -u USER: who the child becomes, and the environment sudo -u gives. */
static int build_user(struct cmd *c)
{
	extern char **environ;
	struct user u;
	size_t n = 0;
	int err;

	if (!c->o.user)
		return 0;
	if (find_user(c->o.user, &u))
		return -ENOENT;
	c->uid = u.uid;
	c->gid = u.gid;
	c->ngroups = user_groups(&u, c->groups, CMD_MAX_GROUPS);
	while (environ[n])
		n++;
	c->envp = calloc(n + 1, sizeof(*c->envp));
	if (!c->envp)
		return -ENOMEM;
	memcpy(c->envp, environ, n * sizeof(*c->envp));
	err = env_set(c, &n, "HOME", u.home);
	err = err ? : env_set(c, &n, "USER", u.name);
	err = err ? : env_set(c, &n, "LOGNAME", u.name);
	return err;
}

/*
 * The filter: execve, execveat, mmap of a file with PROT_EXEC and
 * exit_group go to scry (SECCOMP_RET_USER_NOTIF); everything else, and
 * every call of another ABI (i386, x32), runs as if there were no
 * filter. exit_group is held so scry can read the mappings of a process
 * that lived a millisecond while they are still there.
 */
static int install_filter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 10, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 9, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 8, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* the low halves: PROT_ and MAP_ flags fit in 32 bits */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[3])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_ANONYMOUS, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		       SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

static int send_fd(int sock, int fd)
{
	char c = fd >= 0, ctl[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		m.msg_control = ctl;
		m.msg_controllen = sizeof(ctl);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1 || !c)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static void __attribute__((noreturn))
child(struct cmd *c, const int sock_pair[2], const int go_pipe[2],
      const int err_pipe[2])
{
	extern char **environ;
	int sock = sock_pair[1], go = go_pipe[0], errw = err_pipe[1];
	sigset_t none;
	char b;
	int fd, e;

	/*
	 * scry's ends are scry's alone, or its end (kill -9 mid-load too)
	 * would never show: the release pipe's write end held here kept
	 * the read below waiting, and the socket's, holding the listener in
	 * flight, kept the filter's calls waiting for a listener no one
	 * would read (the exit_group of the give-up below among them)
	 */
	close(sock_pair[0]);
	close(go_pipe[1]);
	close(err_pipe[0]);

	/* scry blocks its stop signals and ignores SIGPIPE: the command must not */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (c->own_group)
		setpgid(0, 0);
	fd = c->o.hold ? install_filter() : -1;
	send_fd(sock, fd);
	if (fd >= 0)
		close(fd);
	close(sock);
	if (c->o.user && ((c->ngroups && setgroups(c->ngroups, c->groups)) ||
			  setgid(c->gid) || setuid(c->uid))) {
		e = errno;
		(void)!write(errw, &e, sizeof(e));
		_exit(126);
	}
	if (read(go, &b, 1) != 1)
		_exit(127);	/* scry gave up before attaching */
	execvpe(c->argv[0], c->argv, c->envp ? c->envp : environ);
	e = errno;
	(void)!write(errw, &e, sizeof(e));
	_exit(127);
}

static int notif_buffers(struct cmd *c)
{
	struct seccomp_notif_sizes sz;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz))
		return -errno;
	c->req_size = sz.seccomp_notif > sizeof(*c->req) ?
		      sz.seccomp_notif : sizeof(*c->req);
	c->resp_size = sz.seccomp_notif_resp > sizeof(*c->resp) ?
		       sz.seccomp_notif_resp : sizeof(*c->resp);
	c->req = calloc(1, c->req_size);
	c->resp = calloc(1, c->resp_size);
	return c->req && c->resp ? 0 : -ENOMEM;
}

struct cmd *cmd_start(const struct cmd_opts *o)
{
	struct cmd *c = calloc(1, sizeof(*c));
	int sock[2] = { -1, -1 }, go[2] = { -1, -1 }, err[2] = { -1, -1 };
	int e = 0;

	if (!c)
		return NULL;
	c->o = *o;
	c->pidfd = c->go_fd = c->err_fd = c->notify_fd = -1;
	/* in the terminal's foreground the command shares it, and Ctrl-C */
	c->own_group = !(isatty(STDIN_FILENO) &&
			 tcgetpgrp(STDIN_FILENO) == getpgrp());
	e = build_argv(c);
	e = e ? : build_user(c);
	if (!e && c->o.hold && notif_buffers(c))
		c->o.hold = false;	/* no seccomp notifications here */
	if (!e && (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) ||
		   pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)))
		e = -errno;
	if (!e) {
		c->pid = fork();
		if (c->pid < 0)
			e = -errno;
		else if (c->pid == 0)
			child(c, sock, go, err);
	}
	if (sock[1] >= 0)
		close(sock[1]);
	if (go[0] >= 0)
		close(go[0]);
	if (err[1] >= 0)
		close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
	if (!e) {
		c->notify_fd = recv_fd(sock[0]);
		if (c->o.hold && c->notify_fd < 0)
			log_debug("-c: no seccomp listener: stacks of the "
				  "command's first moments may be partial");
		if (c->own_group)	/* either side may be first */
			setpgid(c->pid, c->pid);
		c->pidfd = syscall(SYS_pidfd_open, c->pid, 0);
	}
	if (sock[0] >= 0)
		close(sock[0]);
	if (e) {
		cmd_free(c);
		errno = -e;
		return NULL;
	}
	return c;
}

pid_t cmd_pid(const struct cmd *c)
{
	return c ? c->pid : 0;
}

bool cmd_shell(const struct cmd *c)
{
	return c && !c->direct;
}

int cmd_notify_fd(const struct cmd *c)
{
	return c ? c->notify_fd : -1;
}

int cmd_release(struct cmd *c)
{
	char go = 1;

	if (write(c->go_fd, &go, 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	return 0;
}

static bool elf_interp(int fd, char *buf, size_t len);
static int open_checked(int dirfd, const char *path, bool in_root);

int cmd_files(const struct cmd *c, char *exe, size_t elen, char *interp,
	      size_t ilen)
{
	int err, fd;

	*interp = '\0';
	err = find_program(c->argv[0], exe, elen);
	if (err)
		return err;
	fd = open_checked(AT_FDCWD, exe, false);
	if (fd < 0)
		return fd;
	if (!elf_interp(fd, interp, ilen))
		*interp = '\0';
	close(fd);
	return 0;
}

/* ---- serving held execs and mmaps ---------------------------------- */

/* A NUL-terminated string at @addr in @pid's memory, page by page. */
static int read_string(pid_t pid, __u64 addr, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len - 1) {
		size_t want = 4096 - ((addr + got) & 4095);
		struct iovec l, r;
		ssize_t n;

		if (want > len - 1 - got)
			want = len - 1 - got;
		l = (struct iovec){ buf + got, want };
		r = (struct iovec){ (void *)(uintptr_t)(addr + got), want };
		n = process_vm_readv(pid, &l, 1, &r, 1, 0);
		if (n <= 0)
			return -EFAULT;
		if (memchr(buf + got, '\0', n))
			return 0;
		got += n;
	}
	return -ENAMETOOLONG;
}

/*
 * Open a file the command names, for reading only: never blocks (a FIFO
 * planted in its place), never a controlling terminal, regular files
 * only. The file is the command's choice, not a path scry trusts.
 */
static int open_checked(int dirfd, const char *path, bool in_root)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		.resolve = in_root ? RESOLVE_IN_ROOT : 0,
	};
	struct stat st;
	int fd;

	fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* @path as process @pid resolves it: absolute ones inside its root. */
static int open_in(pid_t pid, int dirfd, const char *path)
{
	char proc[64];
	int base, fd;

	if (!path[0]) {		/* execveat(fd, "", AT_EMPTY_PATH): fexecve */
		snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", pid, dirfd);
		return open_checked(AT_FDCWD, proc, false);
	}
	if (path[0] == '/') {
		snprintf(proc, sizeof(proc), "/proc/%d/root", pid);
		base = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (base < 0)
			return -errno;
		fd = open_checked(base, path, true);
	} else {
		if (dirfd == AT_FDCWD)
			snprintf(proc, sizeof(proc), "/proc/%d/cwd", pid);
		else
			snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", pid, dirfd);
		base = open(proc, O_PATH | O_CLOEXEC);
		if (base < 0)
			return -errno;
		fd = open_checked(base, path, false);
	}
	close(base);
	return fd;
}

/* The interpreter a "#!" line names, into @buf; false if none. */
static bool shebang(int fd, char *buf, size_t len)
{
	char line[256];
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	size_t s, e;

	if (n < 3 || line[0] != '#' || line[1] != '!')
		return false;
	line[n] = '\0';
	s = 2 + strspn(line + 2, " \t");
	e = s + strcspn(line + s, " \t\n");
	if (e == s || e - s >= len)
		return false;
	memcpy(buf, line + s, e - s);
	buf[e - s] = '\0';
	return true;
}

/* PT_INTERP of the ELF file at @fd (ld.so), into @buf; false if none. */
static bool elf_interp(int fd, char *buf, size_t len)
{
	Elf *e;
	size_t n, i;
	GElf_Phdr ph;
	bool found = false;

	/* libelf opens nothing before a version is set: cmd_files() may be
	 * its first use */
	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return false;
	if (elf_kind(e) == ELF_K_ELF && !elf_getphdrnum(e, &n)) {
		for (i = 0; i < n && i < 128 && !found; i++) {
			if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_INTERP)
				continue;
			if (ph.p_filesz < 2 || ph.p_filesz > len ||
			    pread(fd, buf, ph.p_filesz, ph.p_offset) !=
			    (ssize_t)ph.p_filesz)
				break;
			buf[ph.p_filesz - 1] = '\0';
			found = buf[0] == '/';
		}
	}
	elf_end(e);
	return found;
}

/*
 * An exec: the file, and what the kernel will map with it: the "#!"
 * interpreter chain, and the ELF interpreter (ld.so). Only the kernel
 * maps these; libraries come later, each through its own held mmap.
 */
static void serve_exec(struct cmd *c, pid_t pid, pid_t tgid, int dirfd,
		       __u64 path_addr, const struct cmd_hooks *h)
{
	char path[PATH_MAX], next[PATH_MAX];
	struct cmd_file f = { .pid = pid, .tgid = tgid, .name = path };
	int fd, depth;

	if (read_string(pid, path_addr, path, sizeof(path)))
		return;
	/* the memory read belonged to a call still waiting: still valid */
	if (ioctl(c->notify_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &c->req->id))
		return;
	fd = open_in(pid, dirfd, path);
	for (depth = 0; fd >= 0 && depth <= CMD_SHEBANG_MAX; depth++) {
		f.fd = fd;
		if (shebang(fd, next, sizeof(next))) {
			f.role = CMD_FILE_SCRIPT;
			h->file(h->ctx, &f);
			close(fd);
			memcpy(path, next, sizeof(path));
			fd = open_in(pid, AT_FDCWD, path);
			continue;
		}
		f.role = CMD_FILE_EXE;
		h->file(h->ctx, &f);
		if (elf_interp(fd, next, sizeof(next))) {
			close(fd);
			memcpy(path, next, sizeof(path));
			fd = open_in(pid, AT_FDCWD, path);
			f.fd = fd;
			f.role = CMD_FILE_INTERP;
			if (fd >= 0)
				h->file(h->ctx, &f);
		}
		break;
	}
	if (fd >= 0)
		close(fd);
}

static void serve_mmap(pid_t pid, pid_t tgid, const __u64 *a,
		       const struct cmd_hooks *h)
{
	char proc[64], name[PATH_MAX];
	int mfd = (int)a[4];
	ssize_t n;
	int fd;

	snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", pid, mfd);
	fd = open_checked(AT_FDCWD, proc, false);
	if (fd < 0)
		return;
	/* the path, for messages and frames only: the fd is what counts */
	n = readlink(proc, name, sizeof(name) - 1);
	if (n > 0)
		name[n] = '\0';
	else
		snprintf(name, sizeof(name), "fd %d", mfd);
	h->file(h->ctx, &(struct cmd_file){
		.pid = pid, .tgid = tgid, .fd = fd, .name = name,
		.role = CMD_FILE_LIB,
		/* mmap(addr, len, prot, flags, fd, off) */
		.at_fixed = a[3] & MAP_FIXED, .addr = a[0], .len = a[1],
		.off = a[5] });
	close(fd);
}

/* The process a thread belongs to (the notification names the thread). */
static pid_t tgid_of(pid_t tid)
{
	char buf[512], *p;

	if (proc_read(tid, "status", buf, sizeof(buf)) <= 0)
		return tid;
	p = strstr(buf, "\nTgid:");
	return p ? (pid_t)strtol(p + 6, NULL, 10) : tid;
}

void cmd_serve(struct cmd *c, const struct cmd_hooks *h)
{
	struct pollfd p;
	const __u64 *a;
	pid_t tgid;

	if (!c || c->notify_fd < 0)
		return;
	for (;;) {
		p = (struct pollfd){ .fd = c->notify_fd, .events = POLLIN };
		if (poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN))
			return;
		memset(c->req, 0, c->req_size);
		if (ioctl(c->notify_fd, SECCOMP_IOCTL_NOTIF_RECV, c->req)) {
			if (errno == EINTR || errno == ENOENT)
				continue;	/* the caller died meanwhile */
			return;
		}
		a = (const __u64 *)c->req->data.args;
		tgid = tgid_of(c->req->pid);
		h->held(h->ctx, c->req->pid, tgid, c->req->data.nr != SYS_mmap);
		if (c->req->data.nr == SYS_execve)
			serve_exec(c, c->req->pid, tgid, AT_FDCWD, a[0], h);
		else if (c->req->data.nr == SYS_execveat)
			serve_exec(c, c->req->pid, tgid, (int)a[0], a[1], h);
		else if (c->req->data.nr == SYS_mmap)
			serve_mmap(c->req->pid, tgid, a, h);
		else if (c->req->data.nr == SYS_exit_group && h->exiting)
			h->exiting(h->ctx, tgid);
		memset(c->resp, 0, c->resp_size);
		c->resp->id = c->req->id;
		c->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		/* ENOENT: the caller was killed while it waited */
		ioctl(c->notify_fd, SECCOMP_IOCTL_NOTIF_SEND, c->resp);
	}
}

/* ---- stop, keep, reap ---------------------------------------------- */

bool cmd_reaped(struct cmd *c)
{
	if (c && c->pid && !c->reaped &&
	    waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->reaped = true;
	return !c || c->reaped;
}

/* Alive and not a zombie waiting for its parent. */
static bool running(pid_t pid)
{
	char buf[256], *p;

	if (proc_read(pid, "stat", buf, sizeof(buf)) <= 0)
		return false;
	p = strrchr(buf, ')');	/* comm may hold anything, even ')' */
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static bool any_running(struct cmd *c, const int *others, int n)
{
	int i;

	if (!cmd_reaped(c))
		return true;
	for (i = 0; i < n; i++)
		if (running(others[i]))
			return true;
	return false;
}

static void signal_all(struct cmd *c, int sig, const int *others, int n)
{
	int i;

	if (c->own_group)
		kill(-c->pid, sig);
	if (!c->reaped)
		kill(c->pid, sig);
	for (i = 0; i < n; i++)
		if (others[i] > 0 && others[i] != getpid())
			kill(others[i], sig);
}

/*
 * --keep-running: the command keeps the seccomp filter scry installed,
 * and a filter without a listener fails every exec and code mmap with
 * ENOSYS. A keeper (scry itself, re-exec'ed small, detached) answers
 * "go on" until every process using the filter is gone.
 */
static void start_keeper(struct cmd *c)
{
	pid_t p;

	if (c->notify_fd < 0)
		return;
	p = fork();
	if (p < 0)
		return;
	if (p == 0) {
		char *argv[] = { "scry-keeper", NULL }, *envp[] = { NULL };

		setsid();
		if (fork() != 0)
			_exit(0);	/* the keeper is init's child */
		if (dup2(c->notify_fd, KEEPER_FD) != KEEPER_FD)
			_exit(1);
		/* nothing else: no BPF link may outlive scry */
		syscall(SYS_close_range, KEEPER_FD + 1, ~0U, 0);
		execve("/proc/self/exe", argv, envp);
		_exit(1);
	}
	waitpid(p, NULL, 0);
}

void cmd_keeper(void)
{
	struct seccomp_notif_sizes sz;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	struct pollfd p = { .fd = KEEPER_FD, .events = POLLIN };
	int devnull = open("/dev/null", O_RDWR);

	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		if (devnull > 2)
			close(devnull);
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz))
		_exit(1);
	req = calloc(1, sz.seccomp_notif + sizeof(*req));
	resp = calloc(1, sz.seccomp_notif_resp + sizeof(*resp));
	if (!req || !resp)
		_exit(1);
	/* POLLHUP: no process uses the filter any more */
	while (poll(&p, 1, -1) >= 0 && !(p.revents & (POLLHUP | POLLERR))) {
		if (!(p.revents & POLLIN))
			continue;
		memset(req, 0, sz.seccomp_notif);
		if (ioctl(KEEPER_FD, SECCOMP_IOCTL_NOTIF_RECV, req))
			continue;
		memset(resp, 0, sz.seccomp_notif_resp);
		resp->id = req->id;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(KEEPER_FD, SECCOMP_IOCTL_NOTIF_SEND, resp);
	}
	_exit(0);
}

void cmd_stop(struct cmd *c, const int *others, int nothers)
{
	double end;
	struct pollfd p;

	if (!c || !c->pid || !any_running(c, others, nothers))
		return;
	if (c->o.keep) {
		start_keeper(c);
		c->kept = true;
		return;
	}
	c->ended = true;
	signal_all(c, SIGTERM, others, nothers);
	end = now_ms() + CMD_GRACE_MS;
	while (any_running(c, others, nothers) && now_ms() < end) {
		p = (struct pollfd){ .fd = c->pidfd, .events = POLLIN };
		poll(&p, c->pidfd >= 0 && !c->reaped ? 1 : 0, 10);
		if (c->pidfd < 0 || c->reaped)
			usleep(10000);
	}
	if (any_running(c, others, nothers))
		signal_all(c, SIGKILL, others, nothers);
	if (!c->reaped && waitpid(c->pid, &c->status, 0) == c->pid)
		c->reaped = true;
}

void cmd_report(const struct cmd *c)
{
	int e = 0;

	if (!c || !c->pid)
		return;
	if (c->kept) {
		log_info("-c: command (pid %d) left running", c->pid);
		return;
	}
	if (!c->reaped || c->ended)
		return;		/* ended by scry: not the command's failure */
	if (c->err_fd >= 0 && read(c->err_fd, &e, sizeof(e)) == sizeof(e)) {
		log_err("-c: %s: %s", c->argv[0], strerror(e));
		return;
	}
	if (WIFEXITED(c->status) && WEXITSTATUS(c->status) == 127 && !c->direct)
		log_err("-c: the shell could not run the command (status 127: "
			"a command not found?)");
	else if (WIFEXITED(c->status) && WEXITSTATUS(c->status))
		log_err("-c: command exited with status %d",
			WEXITSTATUS(c->status));
	else if (WIFSIGNALED(c->status))
		log_err("-c: command killed by signal %d (%s)",
			WTERMSIG(c->status), strsignal(WTERMSIG(c->status)));
}

void cmd_free(struct cmd *c)
{
	if (!c)
		return;
	if (c->go_fd >= 0)
		close(c->go_fd);	/* a child never released exits */
	if (c->pid && !c->reaped && !c->kept)
		waitpid(c->pid, &c->status, 0);
	if (c->err_fd >= 0)
		close(c->err_fd);
	if (c->notify_fd >= 0)
		close(c->notify_fd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	free(c->req);
	free(c->resp);
	free(c->words);
	free(c->argv);
	free(c->envp);
	while (c->nenv_own)
		free(c->env_own[--c->nenv_own]);
	free(c);
}
