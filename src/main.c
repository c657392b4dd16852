// SPDX-License-Identifier: GPL-2.0
/*
 * scry: options, the table of questions, exit status. Nothing else: a
 * question expands to an expression, the expression becomes a plan, the
 * session runs it.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <scry/cmd.h>
#include <scry/proc.h>
#include <scry/expr.h>
#include <scry/format.h>
#include <scry/hint.h>
#include <scry/kernel.h>
#include <scry/list.h>
#include <scry/log.h>
#include <scry/plan.h>
#include <scry/report.h>
#include <scry/session.h>

#define EXIT_USAGE 2

struct cli {
	struct scry_opts o;
	const char *state;		/* offcpu --state */
	bool list;			/* -l */
	unsigned int hz;		/* profile -F */
	bool hz_given;			/* -F written (profile's alone) */
	unsigned long long min_block_us;/* offcpu --min-block */
	bool min_block_given;		/* --min-block written, 0 too */
	char expr[1024];		/* a question's expansion */
	const char *program;		/* an expression, -e, or -f's text */
	const char *program_opt;	/* "-e" or "-f": which gave it */
	const char *program_file;	/* -f's FILE, for errors */
	char *file_text;		/* -f FILE, read */
};

/* A question: a name, the expression it expands to, its text header. */
struct question {
	const char *name;
	const char *summary;
	int (*expand)(struct cli *c);
};

static int expand_offcpu(struct cli *c)
{
	char pred[128] = "";
	char *p = pred;
	const char *st = c->state ? c->state : "all";

	if (!strcmp(st, "S"))
		p += sprintf(p, "state == 1");
	else if (!strcmp(st, "D"))
		p += sprintf(p, "state == 2");
	else if (strcmp(st, "all")) {
		log_err("--state: unknown state '%s' (all, S, D)", st);
		return -EINVAL;
	}
	if (c->min_block_us)
		sprintf(p, "%slatency >= %llu", p == pred ? "" : " && ",
			c->min_block_us * 1000);
	snprintf(c->expr, sizeof(c->expr),
		 "offcpu %s%s%s{ @[kstack, ustack, comm] = quantize(latency) }",
		 *pred ? "/" : "", pred, *pred ? "/ " : "");
	c->o.header = "off-CPU time (ns) by kernel stack, user stack, comm:";
	c->o.folded_div = 1000;	/* folded counts are microseconds */
	c->o.palette = REPORT_PALETTE_BLUE;
	c->o.value_name = "off-CPU time";
	return 0;
}

static int expand_profile(struct cli *c)
{
	static char header[96];

	snprintf(c->expr, sizeof(c->expr),
		 "profile:%u { @[kstack, ustack, comm] = count() }", c->hz);
	snprintf(header, sizeof(header), "CPU samples at %u Hz by kernel "
		 "stack, user stack, comm:", c->hz);
	c->o.header = header;
	c->o.palette = REPORT_PALETTE_HOT;
	c->o.value_name = "samples";
	return 0;
}

/* read/write: bytes actually moved (return values), by path and errno */
static int expand_files(struct cli *c, const char *verb, const char *calls,
			const char *path)
{
	snprintf(c->expr, sizeof(c->expr),
		 "syscall:%s { @[%s, errno] = sum(retval) }", calls, path);
	c->o.files_verb = verb;
	c->o.count_label = "calls";	/* pprof's sample types; text has */
	c->o.sum_label = "bytes";	/* its own file table */
	c->o.unit = "bytes";
	c->o.palette = REPORT_PALETTE_BLUE;
	c->o.value_name = "bytes";
	return 0;
}

static int expand_read(struct cli *c)
{
	/* cat and cp move bytes with copy_file_range, servers with sendfile */
	return expand_files(c, "read", "read,pread64,readv,preadv,preadv2,"
			    "copy_file_range,splice,sendfile,io_uring_read",
			    "src.path");
}

static int expand_write(struct cli *c)
{
	return expand_files(c, "write", "write,pwrite64,writev,pwritev,"
			    "pwritev2,copy_file_range,splice,sendfile,"
			    "io_uring_write", "dst.path");
}

static int expand_malloc(struct cli *c)
{
	snprintf(c->expr, sizeof(c->expr),
		 "uprobe:*:malloc { @[ustack] = quantize(arg0) }");
	c->o.header = "malloc calls by user stack: calls, bytes, size "
		      "distribution (bytes):";
	c->o.unit = "bytes";
	c->o.palette = REPORT_PALETTE_GREEN;
	c->o.value_name = "bytes";
	c->o.count_label = "calls";
	c->o.sum_label = "bytes";
	return 0;
}

static const struct question questions[] = {
	{ "offcpu", "why am I going off CPU? (blocked-time histograms by stack)",
	  expand_offcpu },
	{ "malloc", "why am I calling malloc? (calls, bytes, sizes by stack)",
	  expand_malloc },
	{ "read", "what files am I reading? (bytes and calls by full path)",
	  expand_read },
	{ "write", "what files am I writing? (bytes and calls by full path)",
	  expand_write },
	{ "profile", "where is my CPU time going? (samples by stack)",
	  expand_profile },
};

/* @text after a 24-column option, wrapped at 78 columns under itself. */
static void usage_wrapped(FILE *f, const char *text)
{
	int col = 24;
	size_t n;

	while (*text) {
		n = strcspn(text, " ");
		if (col > 24 && col + 1 + (int)n > 78) {
			fprintf(f, "\n%24s", "");
			col = 24;
		} else if (col > 24) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)n, text);
		col += (int)n;
		text += n;
		text += *text == ' ';
	}
	fputc('\n', f);
}

/* Format options and -o's endings, from the format table. */
static void usage_formats(FILE *f)
{
	const struct format *fm;

	for (fm = format_table; fm->name; fm++) {
		if (!fm->help)
			continue;
		fprintf(f, "      --%-16s", fm->name);
		usage_wrapped(f, fm->help);
	}
	fprintf(f, "  -o, --output FILE     write there, atomically; FILE's "
		"ending picks the\n                        format:");
	for (fm = format_table; fm->name; fm++)
		if (fm->ext)
			fprintf(f, " %s", fm->ext);
	fprintf(f, "\n");
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
"usage: scry [OPTIONS] QUESTION\n"
"       scry [OPTIONS] 'PROBE [/PREDICATE/] { STATEMENTS } ...'\n"
"       scry [OPTIONS] -e PROGRAM | -f FILE\n"
"\n"
"Ask a running system a question through eBPF; answers are aggregated in\n"
"the kernel and printed when tracing stops.\n"
"\n"
"Questions:\n");
	for (i = 0; i < sizeof(questions) / sizeof(questions[0]); i++)
		fprintf(f, "  %-10s %s\n", questions[i].name,
			questions[i].summary);
	fprintf(f,
"\n"
"Options:\n"
"  -p, --pid PID         trace this process (repeatable); stop when all exit\n"
"  -c, --cmd CMD         run CMD and trace it from its first instruction;\n"
"                        stop when it exits. Words run directly, anything\n"
"                        else through /bin/sh (that shell is not traced,\n"
"                        what it runs is). At -d, Ctrl-C or SIGTERM the\n"
"                        command and what it started are ended\n"
"  -u, --user USER       run -c as USER (uid, gid, groups, HOME), as sudo -u\n"
"      --keep-running    leave the -c command running when scry stops\n"
"  -a, --all             with -c, trace every process, not only CMD's (as\n"
"                        bpftrace's -c: /pid == cpid/ picks CMD's events)\n"
"  -d, --duration SECS   stop after SECS seconds\n");
	usage_formats(f);
	fprintf(f,
"      --interval SECS   print a snapshot every SECS and start afresh\n"
"      --top N           keep the N largest keys\n"
"      --unwind METHOD   user stacks: auto (default: DWARF tables from\n"
"                        .eh_frame, frame pointers where none), dwarf, fp\n"
"      --max-unwind-rows N  DWARF rows kept in the kernel (default 2097152)\n"
"      --stats           print unwinder table memory at exit\n"
"      --lines           add file:line to frames (needs debug info)\n"
"      --no-demangle     keep C++ names as the symbol table has them\n"
"      --max-keys N      aggregation keys kept in the kernel (default 10240)\n"
"      --max-stacks N    distinct stacks kept in the kernel (default 16384)\n"
"      --buffer-size N   bytes for printf's ring buffer (default 4 MiB)\n"
"      --map @NAME       the map --folded and flame graphs draw, and JSON's\n"
"                        top level shows (default: the one with stacks)\n"
"  -e, --program PROG    the program (as a bpftrace one-liner's -e)\n"
"  -f, --file FILE       the program from a file (a bpftrace/D script)\n"
"  -w, --unsafe          allow destructive actions: signal()\n"
"  -l, --list [PATTERN]  list probes: kinds, uprobe:LIB:GLOB functions,\n"
"                        usdt:BIN[:PROVIDER[:NAME]] probes (globs)\n"
"  -q, --quiet           no banners on stderr (losses and warnings stay)\n"
"  -v, --verbose         print the expression a question expands to, and\n"
"                        libbpf's messages\n"
"  -h, --help            this help\n"
"  -V, --version         print the version\n"
"\n"
"profile options:\n"
"  -F, --frequency HZ    samples per second per CPU (default 99)\n"
"      --idle            include the idle task\n"
"\n"
"offcpu options:\n"
"      --state STATE     all (default), S (interruptible sleep) or\n"
"                        D (uninterruptible)\n"
"      --min-block USEC  ignore off-CPU periods shorter than USEC\n"
"\n"
"Exit status: 0 success, 1 runtime failure, 2 usage error.\n"
"\n"
"EXAMPLES:\n"
"  scry offcpu -p 1234               # why is 1234 blocking, and how long?\n"
"  scry offcpu -c './myprog args' -d 10  # run a command, trace it 10 s\n"
"  scry offcpu -p 1234 --folded | flamegraph.pl > offcpu.svg\n"
"  scry offcpu --state D -d 5        # who waits uninterruptibly, system-wide\n"
"  scry -v offcpu -p 1234            # also show the expression it runs\n"
"  scry malloc -p 1234               # who calls malloc, how much, what sizes\n"
"  scry -p 1234 'uprobe:libc:malloc /arg0 > 4096/ { @[ustack] = quantize(arg0) }'\n"
"  scry -c ./srv 'uretprobe:./srv:handle { @[comm] = quantize(latency) }'\n"
"  scry -l 'uprobe:libc:mall*'       # which functions could be probed\n"
"  scry read -p 1234                 # bytes read by full path\n"
"  scry profile -F 99 -d 10 -o cpu.svg   # a CPU flame graph, no perl needed\n"
"  scry malloc -p 1234 --json | jq .  # for runbooks\n"
"  scry read -p 1234 --interval 1 --top 10   # a refreshed top 10\n"
"  scry 'tracepoint:syscalls:sys_enter_openat { printf(\"%%s %%s\\n\", comm,\n"
"        str(args->filename)) }'    # opens as they happen\n"
"  scry 'kprobe:vfs_read { @start[tid] = nsecs } kretprobe:vfs_read\n"
"        /@start[tid]/ { @ns[comm] = hist(nsecs - @start[tid]);\n"
"        delete(@start[tid]) }'     # a bpftrace one-liner, unchanged\n");
}

enum {
	OPT_INTERVAL = 256,
	OPT_TOP,
	OPT_IDLE,
	OPT_LINES,
	OPT_UNWIND,
	OPT_STATS,
	OPT_MAX_UNWIND_ROWS,
	OPT_NO_DEMANGLE,
	OPT_MAX_KEYS,
	OPT_MAX_STACKS,
	OPT_STATE,
	OPT_MIN_BLOCK,
	OPT_UNSAFE,
	OPT_MAP,
	OPT_BUFFER_SIZE,
	OPT_KEEP,
	OPT_FORMAT = 512,	/* + index into format_table: --json, ... */
};

static const struct option base_opts[] = {
	{ "pid",	required_argument, NULL, 'p' },
	{ "cmd",	required_argument, NULL, 'c' },
	{ "user",	required_argument, NULL, 'u' },
	{ "keep-running", no_argument,	   NULL, OPT_KEEP },
	{ "duration",	required_argument, NULL, 'd' },
	{ "output",	required_argument, NULL, 'o' },
	{ "interval",	required_argument, NULL, OPT_INTERVAL },
	{ "top",	required_argument, NULL, OPT_TOP },
	{ "frequency",	required_argument, NULL, 'F' },
	{ "idle",	no_argument,	   NULL, OPT_IDLE },
	{ "lines",	no_argument,	   NULL, OPT_LINES },
	{ "unwind",	required_argument, NULL, OPT_UNWIND },
	{ "stats",	no_argument,	   NULL, OPT_STATS },
	{ "max-unwind-rows", required_argument, NULL, OPT_MAX_UNWIND_ROWS },
	{ "no-demangle", no_argument,	   NULL, OPT_NO_DEMANGLE },
	{ "max-keys",	required_argument, NULL, OPT_MAX_KEYS },
	{ "max-stacks",	required_argument, NULL, OPT_MAX_STACKS },
	{ "state",	required_argument, NULL, OPT_STATE },
	{ "min-block",	required_argument, NULL, OPT_MIN_BLOCK },
	{ "unsafe",	no_argument,	   NULL, OPT_UNSAFE },
	{ "all",	no_argument,	   NULL, 'a' },
	{ "map",	required_argument, NULL, OPT_MAP },
	{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
	{ "program",	required_argument, NULL, 'e' },
	{ "file",	required_argument, NULL, 'f' },
	{ "list",	no_argument,	   NULL, 'l' },
	{ "quiet",	no_argument,	   NULL, 'q' },
	{ "verbose",	no_argument,	   NULL, 'v' },
	{ "help",	no_argument,	   NULL, 'h' },
	{ "version",	no_argument,	   NULL, 'V' },
};

/* base_opts, then one --NAME per format, then getopt's empty end. */
static const struct option *long_opts(void)
{
	static struct option *all;
	size_t nb = sizeof(base_opts) / sizeof(base_opts[0]), n = 0, i;

	if (all)
		return all;
	while (format_table[n].name)
		n++;
	all = calloc(nb + n + 1, sizeof(*all));
	if (!all)
		return base_opts;	/* without format options */
	memcpy(all, base_opts, sizeof(base_opts));
	for (i = 0; i < n; i++)
		all[nb + i] = (struct option){ format_table[i].name,
					       no_argument, NULL,
					       OPT_FORMAT + (int)i };
	return all;
}

static int parse_ull(const char *opt, const char *s, unsigned long long min,
		     unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *out < min ||
	    *out > max) {
		log_err("%s: invalid value '%s' (a number from %llu to %llu)",
			opt, s, min, max);
		return -EINVAL;
	}
	return 0;
}

/*
 * A zombie has exited and only waits for its parent to reap it: nothing
 * to trace. Its leader alone being a zombie is not enough (main() may
 * have called pthread_exit while threads run): the whole group is gone
 * when the zombie leader is its last thread.
 */
static bool pid_exited(pid_t pid)
{
	char buf[4096], *state, *threads;

	/* kill() just saw it: if it is gone now, let the run find out */
	if (proc_read(pid, "status", buf, sizeof(buf)) <= 0)
		return false;
	state = strstr(buf, "\nState:");
	threads = strstr(buf, "\nThreads:");
	return state && (state[8 + strspn(state + 8, " \t")] == 'Z' ||
			 state[8 + strspn(state + 8, " \t")] == 'X') &&
	       (!threads || atoi(threads + 9) <= 1);
}

/*
 * -p names processes, as perf's -p and bpftrace's -p: a thread's id (top
 * -H shows them) is refused with its process's, not widened to the
 * process silently, nor traced alone (uprobes and the pidfds are per
 * process). A pid given twice is one process, traced once (each -p of it
 * attached its uprobes again, counting every call twice).
 */
static int parse_pid(struct cli *c, const char *s)
{
	unsigned long long v;
	bool kthread;
	int i, tgid;

	if (parse_ull("-p", s, 1, INT_MAX, &v))
		return -EINVAL;
	if (kill((pid_t)v, 0) && errno == ESRCH) {
		log_err("-p: pid %llu: no such process", v);
		return -ESRCH;
	}
	if (!proc_task((int)v, &tgid, &kthread) && tgid != (int)v) {
		log_err("-p: %llu is a thread of process %d: use -p %d (-p "
			"traces whole processes)", v, tgid, tgid);
		return -EINVAL;
	}
	if (pid_exited((pid_t)v)) {
		log_err("-p: pid %llu has exited (a zombie its parent has not "
			"reaped yet): nothing to trace", v);
		return -ESRCH;
	}
	for (i = 0; i < c->o.npids; i++)
		if (c->o.pids[i] == (int)v)
			return 0;
	if (c->o.npids >= SCRY_MAX_TARGETS) {
		log_err("-p: at most %d processes", SCRY_MAX_TARGETS);
		return -E2BIG;
	}
	c->o.pids[c->o.npids++] = (int)v;
	return 0;
}

static int parse_seconds(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	/* nan and inf parse, and would trace for ever */
	if (errno || end == s || *end || !isfinite(*out) || *out <= 0) {
		log_err("%s: invalid duration '%s' (seconds, e.g. 10 or 0.5)",
			opt, s);
		return -EINVAL;
	}
	return 0;
}

/* -f FILE: a program (a bpftrace or D script) from a file */
static int read_program(struct cli *c, const char *path)
{
	FILE *f = fopen(path, "r");
	size_t len = 0;
	char *buf = NULL;
	FILE *m;
	int ch;

	if (!f) {
		log_err("-f: %s: %s", path, strerror(errno));
		return -errno;
	}
	m = open_memstream(&buf, &len);
	while (m && (ch = fgetc(f)) != EOF)
		fputc(ch, m);
	fclose(f);
	if (!m || fclose(m)) {
		log_err("-f: %s: out of memory", path);
		return -ENOMEM;
	}
	free(c->file_text);
	c->file_text = buf;
	c->program = buf;
	c->program_file = path;
	return 0;
}

/* A ring buffer is a power of two pages: round up. */
static __u32 ring_size(unsigned long long v)
{
	__u32 n = 4096;

	while (n < v && n < (1U << 30))
		n <<= 1;
	return n;
}

/* getopt's complaint, in one line: @opt '?' (unknown) or ':' (no value). */
static void bad_option(int opt, const char *arg)
{
	char shortopt[3] = { '-', (char)optopt, 0 };

	/*
	 * A short option is named alone: it may sit in a group (-qx, -xq),
	 * and then argv[optind - 1] is not where it was.
	 */
	if (optopt > 0 && optopt < 128 && strncmp(arg, "--", 2))
		arg = shortopt;
	if (opt == ':')
		log_err("option '%s' needs a value (try 'scry --help')", arg);
	else
		log_err("unknown option '%s' (try 'scry --help')", arg);
}

/*
 * An option that says once what only one thing can be (the program, the
 * command, the output format) is refused the second time: the last one
 * silently winning ran something else than the user asked for.
 */
static int once(const char *opt, const char *given, const char *what)
{
	if (!given)
		return 0;
	if (!strcmp(opt, given))
		log_err("%s given twice: a run has one %s", opt, what);
	else
		log_err("%s and %s both given: a run has one %s; use one",
			given, opt, what);
	return -EINVAL;
}

static int parse_args(struct cli *c, int argc, char **argv)
{
	unsigned long long v;
	int opt, err = 0;

	if (!c->hz)
		c->hz = 99;
	if (!c->o.max_keys)
		c->o.max_keys = 10240;
	if (!c->o.max_stacks)
		c->o.max_stacks = 16384;
	if (!c->o.max_unwind_rows)
		c->o.max_unwind_rows = 1 << 21;	/* 16 MiB of 8-byte rows */
	if (!c->o.buffer_size)
		c->o.buffer_size = 1 << 22;
	opterr = 0;	/* said below in one line, without argv[0]'s path */
	while (!err && (opt = getopt_long(argc, argv, "+:p:c:u:d:o:F:e:f:alqvwhV",
					  long_opts(), NULL)) != -1) {
		switch (opt) {
		case 'p': err = parse_pid(c, optarg); break;
		case 'c':
			err = once("-c", c->o.cmd ? "-c" : NULL, "command "
				   "(one -c runs several: -c 'A; B')");
			c->o.cmd = optarg;
			break;
		case 'u': c->o.user = optarg; break;
		case OPT_KEEP: c->o.keep = true; break;
		case 'd':
			err = parse_seconds("-d", optarg, &c->o.duration_s);
			break;
		case 'l': c->list = true; break;
		case 'e':
			err = once("-e", c->program_opt, "program (it "
				   "holds any number of clauses)");
			c->program = optarg;
			c->program_opt = "-e";
			break;
		case 'a': c->o.all = true; break;
		case 'f':
			err = once("-f", c->program_opt, "program (it "
				   "holds any number of clauses)");
			err = err ? : read_program(c, optarg);
			c->program_opt = "-f";
			break;
		case 'w':
		case OPT_UNSAFE: c->o.unsafe = true; break;
		case OPT_MAP: c->o.map = optarg; break;
		case OPT_BUFFER_SIZE:
			err = parse_ull("--buffer-size", optarg, 4096, 1 << 30,
					&v);
			c->o.buffer_size = ring_size(v);
			break;
		case 'q': c->o.quiet = true; break;
		case 'v': c->o.verbose = true; break;
		case 'o':
			err = once("-o", c->o.output ? "-o" : NULL,
				   "output file");
			c->o.output = optarg;
			break;
		case OPT_IDLE: c->o.idle = true; break;
		case OPT_LINES: c->o.lines = true; break;
		case OPT_STATS: c->o.stats = true; break;
		case OPT_UNWIND:
			if (!strcmp(optarg, "fp")) {
				c->o.unwind_fp = true;
			} else if (strcmp(optarg, "auto") &&
				   strcmp(optarg, "dwarf")) {
				log_err("--unwind: unknown method '%s' (auto, "
					"dwarf, fp)", optarg);
				err = -EINVAL;
			}
			break;
		case OPT_MAX_UNWIND_ROWS:
			err = parse_ull("--max-unwind-rows", optarg, 1024,
					1 << 26, &v);
			c->o.max_unwind_rows = v;
			break;
		case OPT_NO_DEMANGLE: c->o.no_demangle = true; break;
		case 'F':
			err = parse_ull("-F", optarg, 1, 10000, &v);
			c->hz = v;
			c->hz_given = true;
			break;
		case OPT_TOP:
			err = parse_ull("--top", optarg, 1, 1 << 24, &v);
			c->o.top = v;
			break;
		case OPT_INTERVAL:
			err = parse_seconds("--interval", optarg,
					    &c->o.interval_s);
			break;
		case OPT_STATE: c->state = optarg; break;
		case OPT_MIN_BLOCK:
			err = parse_ull("--min-block", optarg, 0,
					ULLONG_MAX / 1000, &c->min_block_us);
			c->min_block_given = true;
			break;
		case OPT_MAX_KEYS:
		case OPT_MAX_STACKS:
			err = parse_ull(opt == OPT_MAX_KEYS ? "--max-keys" :
					"--max-stacks", optarg, 1, 1 << 24, &v);
			if (opt == OPT_MAX_KEYS)
				c->o.max_keys = v;
			else
				c->o.max_stacks = v;
			break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("scry %s\n", SCRY_VERSION); exit(0);
		default:
			if (opt >= OPT_FORMAT) {
				const struct format *f =
					&format_table[opt - OPT_FORMAT];
				char was[32], now[32];

				if (c->o.format && c->o.format != f) {
					snprintf(was, sizeof(was), "--%s",
						 c->o.format->name);
					snprintf(now, sizeof(now), "--%s",
						 f->name);
					err = once(now, was, "output format");
				}
				c->o.format = f;
				break;
			}
			bad_option(opt, argv[optind - 1]);
			return -EINVAL;
		}
	}
	return err;
}

/*
 * A program that fails to parse or plan and is one bare word was most
 * likely a question misspelt (mallocs) or guessed (help), not a probe:
 * said so, with the questions, instead of a probe error at column 1.
 */
static void program_error(const char *prog, const char *file,
			  const struct expr_error *eerr)
{
	struct hint h[2];
	char hint[128], names[128];
	size_t i, k = 0, n = strlen(prog);
	int nh = 0;

	if (!n || strspn(prog, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n ||
	    !strstr(eerr->msg, "unknown probe kind")) {
		expr_print_error(stderr, prog, file, eerr);
		return;
	}
	for (i = 0; i < sizeof(questions) / sizeof(questions[0]); i++) {
		const char *q = questions[i].name;

		hint_offer(h, &nh, 2, q, strlen(q),
			   hint_distance(prog, n, q, strlen(q),
					 hint_limit(n)));
		k += snprintf(names + k, sizeof(names) - k, "%s%s",
			      i ? " " : "", q);
	}
	log_err("unknown question '%s'%s (questions: %s; 'scry --help' "
		"shows them and how to write a program)", prog,
		hint_format(h, nh, hint, sizeof(hint)), names);
}

/*
 * Options that belong to one question (-F to profile; --state and
 * --min-block to offcpu), given with another or with a program of one's
 * own, where they would be ignored: @q is the question, or NULL.
 */
static int check_question_opts(const struct cli *c, const char *q)
{
	if ((c->state || c->min_block_given) &&
	    (!q || strcmp(q, "offcpu"))) {
		if (q)
			log_err("--state and --min-block belong to 'scry "
				"offcpu', not 'scry %s'", q);
		else
			log_err("--state and --min-block belong to 'scry "
				"offcpu'; in an expression write /state == 2 "
				"&& latency >= NS/");
		return -EINVAL;
	}
	if (c->hz_given && (!q || strcmp(q, "profile"))) {
		if (q)
			log_err("-F belongs to 'scry profile', not 'scry %s'",
				q);
		else
			log_err("-F belongs to 'scry profile'; in an "
				"expression write the rate in the probe: "
				"profile:HZ");
		return -EINVAL;
	}
	return 0;
}

/* The question (or expression) and any options written after it. */
static int parse_question(struct cli *c, int argc, char **argv)
{
	const char *word;
	size_t i;

	if (c->program) {
		/* -e / -f: options may still follow */
		if (parse_args(c, argc, argv))
			return -EINVAL;
		if (optind < argc) {
			log_err("unexpected argument '%s': the program is "
				"given by -e or -f", argv[optind]);
			return -EINVAL;
		}
		return check_question_opts(c, NULL);
	}
	if (optind >= argc) {
		log_err("no question or expression given (try 'scry offcpu "
			"-p PID'; 'scry --help' lists questions)");
		return -EINVAL;
	}
	word = argv[optind++];
	/* options may follow the question: scry offcpu -p 1 */
	if (parse_args(c, argc, argv))
		return -EINVAL;
	if (optind < argc) {
		log_err("unexpected argument '%s' (quote the expression as one "
			"argument)", argv[optind]);
		return -EINVAL;
	}
	/* scry malloc -e PROG: which one was meant? */
	if (c->program) {
		log_err("'%s' and %s both give the program: use one", word,
			c->program_opt);
		return -EINVAL;
	}
	for (i = 0; i < sizeof(questions) / sizeof(questions[0]); i++) {
		if (strcmp(word, questions[i].name))
			continue;
		c->o.question = questions[i].name;
		return check_question_opts(c, c->o.question) ? :
		       questions[i].expand(c);
	}
	if (check_question_opts(c, NULL))
		return -EINVAL;
	c->program = word;
	return 0;
}

/*
 * Which map --folded, flame graphs and JSON's top level show: --map's,
 * else for stack formats the one map keyed by a stack, else plan's main
 * map. Returns 0 or -EINVAL, having said why.
 */
static int pick_map(struct scry_opts *o, const struct plan *p)
{
	int i, n = 0, first = -1;
	char names[256] = "";
	size_t k = 0;

	for (i = 0; i < p->nmaps && k < sizeof(names); i++)
		k += snprintf(names + k, sizeof(names) - k, "%s%s", i ? " " :
			      "", p->maps[i].name);
	if (o->map) {
		if (plan_map_find(p, o->map) >= 0)
			return 0;
		log_err("--map %s: no such map (the program has: %s)", o->map,
			p->nmaps ? names : "no maps");
		return -EINVAL;
	}
	if (!strcmp(o->format->name, "text") ||
	    !strcmp(o->format->name, "json"))
		return 0;
	for (i = 0; i < p->nmaps; i++) {
		int j;

		for (j = 0; j < p->maps[i].nkeys; j++)
			if (p->maps[i].key_dst[j] == SCRY_KC_KSTACK ||
			    p->maps[i].key_dst[j] == SCRY_KC_USTACK)
				break;
		if (j == p->maps[i].nkeys)
			continue;
		if (!n++)
			first = i;
	}
	if (n > 1) {
		log_err("--%s draws one map, and %d have stacks (%s): pick one "
			"with --map @NAME", o->format->name, n, names);
		return -EINVAL;
	}
	if (first >= 0)
		o->map = p->maps[first].name;
	return 0;
}

/*
 * -o FILE's ending (cpu.svg, cpu.pb.gz) picks the format unless one was
 * asked for; text otherwise. A binary format is not for a terminal.
 */
static int pick_format(struct scry_opts *o)
{
	if (!o->format && o->output)
		o->format = format_for_path(o->output);
	if (!o->format)
		o->format = format_text();
	/* profiles back to back in one stream read as one, garbled */
	if (o->format->binary && !o->output && o->interval_s > 0) {
		log_err("--%s with --interval needs -o FILE%s (each snapshot "
			"replaces the file)", o->format->name, o->format->ext);
		return -EINVAL;
	}
	if (o->format->binary && !o->output && isatty(STDOUT_FILENO)) {
		log_err("--%s writes binary data: redirect it (> FILE%s) or "
			"use -o FILE%s", o->format->name, o->format->ext,
			o->format->ext);
		return -EINVAL;
	}
	return 0;
}

/* CAP_BPF (39) and CAP_PERFMON (38), or CAP_SYS_ADMIN on older kernels. */
static bool privileged(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	__u64 eff;

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
	eff = data[0].effective | (__u64)data[1].effective << 32;
	if (eff & (1ULL << 21))		/* CAP_SYS_ADMIN */
		return true;
	return (eff & (1ULL << 39)) && (eff & (1ULL << 38));
}

static int check_system(void)
{
	if (!privileged()) {
		log_err("permission denied: tracing needs root (CAP_BPF and "
			"CAP_PERFMON); run with sudo");
		return -EPERM;
	}
	return kernel_check();
}

int main(int argc, char **argv)
{
	struct cli c = {};
	struct expr_error eerr = {};
	struct expr *e;
	struct plan plan;
	int status;

	/* cmd.c's keeper, re-exec'ed to answer a kept command's seccomp calls */
	if (argc == 1 && !strcmp(argv[0], "scry-keeper"))
		cmd_keeper();
	if (parse_args(&c, argc, argv))
		goto usage;
	if (c.list) {
		if (optind < argc - 1) {
			log_err("-l takes one pattern");
			return EXIT_USAGE;
		}
		return list_probes(stdout, optind < argc ? argv[optind] : NULL,
				   c.o.npids ? c.o.pids[0] : -1);
	}
	if (parse_question(&c, argc, argv) || pick_format(&c.o))
		goto usage;
	if (c.o.cmd && cmd_check(&(struct cmd_opts){ .line = c.o.cmd,
						     .user = c.o.user }))
		goto usage;
	if ((c.o.user || c.o.keep) && !c.o.cmd) {
		log_err("%s needs -c", c.o.user ? "-u" : "--keep-running");
		goto usage;
	}
	if (c.o.all && !c.o.cmd) {
		log_err("-a needs -c: it traces every process alongside the "
			"command (without -c or -p every process is traced)");
		goto usage;
	}
	log_verbose = c.o.verbose;
	log_quiet = c.o.quiet;
	log_setup_libbpf();
	if (c.o.question) {
		log_debug("%s expands to: %s", c.o.question, c.expr);
		c.program = c.expr;
	}

	e = expr_parse(c.program, &eerr);
	if (!e) {
		program_error(c.program, c.program_file, &eerr);
		free(c.file_text);
		return EXIT_USAGE;
	}
	if (plan_build(e, &plan, &plan_env_system, c.o.unsafe, &eerr)) {
		program_error(c.program, c.program_file, &eerr);
		status = EXIT_USAGE;
		goto out;
	}
	if (pick_map(&c.o, &plan)) {
		status = EXIT_USAGE;
		goto out;
	}
	if (check_system()) {
		status = 1;
		goto out;
	}
	/* a closed pipe ends output quietly (| head), not with SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	status = session_run(&c.o, &plan);
out:
	plan_free(&plan);
	expr_free(e);
	free(c.file_text);
	return status;
usage:
	/* -f's text, read before a later option was refused */
	free(c.file_text);
	return EXIT_USAGE;
}
