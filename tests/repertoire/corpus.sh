# SPDX-License-Identifier: GPL-2.0
# The repertoire, sourced by tests/root/repertoire.sh (see entry() there).
# Sources: bt-tut (bpftrace docs/tutorial_one_liners.md, lesson N),
# bt-readme (bpftrace README / website one-liners), bt-man (bpftrace man
# page and reference), dtk (DTraceToolkit Docs/oneliners.txt, opendtrace
# toolkit), dtg (the DTrace guide), lbt (libbpf-tools' questions).
# Programs that watch every process pick the workload's events with
# /pid == cpid && comm == .../: after its exec, not the tool's child
# before it, nor another test's process of the same name.
# Workloads: $LW lang_wl (10 lang_fn calls, opens a x3 and b x5, reads
# 4 x 777, preads 2 x 777), $DIO its O_DIRECT write, $EXE its exec, $OW
# offcpu_wl 5 2, $MW malloc_wl sizes, $CW cpu_wl 1.

# -- bpftrace's tutorial ---------------------------------------------------
entry hello bt-tut-2 lines "$LW" \
	'BEGIN { printf("hello world\n"); exit(); }' \
	'BEGIN { printf("hello world\n"); exit(); }' 'hello world'
entry opens bt-tut-3 lines "$LW" \
	'tracepoint:syscalls:sys_enter_openat /pid == cpid && comm == "lang_wl"/ { printf("%s %s\n", comm, str(args.filename)); }' \
	'tracepoint:syscalls:sys_enter_openat /pid == cpid && comm == "lang_wl"/ { printf("%s %s\n", comm, str(args->filename)); }' \
	"lang_wl $D/a"
entry syscalls-by-comm bt-tut-4 map "$LW" \
	'tracepoint:raw_syscalls:sys_enter /pid == cpid && comm == "lang_wl"/ { @[comm] = count(); }' \
	'tracepoint:raw_syscalls:sys_enter /pid == cpid && comm == "lang_wl"/ { @[comm] = count(); }' -
entry read-bytes bt-tut-5 map "$LW" \
	'tracepoint:syscalls:sys_exit_read /pid == cpid && comm == "lang_wl"/ { @bytes = hist(args.ret); }' \
	'tracepoint:syscalls:sys_exit_read /pid == cpid && comm == "lang_wl"/ { @bytes = hist(args->ret); }' -
entry sched-events bt-tut-8 map "$LW" \
	'tracepoint:sched:sched_process_* /pid == cpid && comm == "lang_wl"/ { @[probe] = count(); }' \
	'tracepoint:sched:sched_process_* /pid == cpid && comm == "lang_wl"/ { @[probe] = count(); }' \
	'@[tracepoint:sched:sched_process_exit] 1'
entry interval-exit bt-tut-8 lines "$OW_LONG" \
	'interval:ms:100 { printf("tick\n"); exit(); }' \
	'interval:ms:100 { printf("tick\n"); exit(); }' 'tick'
entry profile-kstacks bt-tut-9 run "$CW" \
	'profile:hz:99 /pid == cpid && comm == "cpu_wl"/ { @[kstack] = count(); }' - 'ran'
# the workload's sleeps (prev_state 1, S): preemptions vary with the load
entry switch-kstacks bt-tut-10 map "$OW" \
	'tracepoint:sched:sched_switch /pid == cpid && comm == "offcpu_wl" && args.prev_comm == "offcpu_wl" && args.prev_state == 1/ { @n = count(); }' \
	'tracepoint:sched:sched_switch /pid == cpid && comm == "offcpu_wl" && args->prev_comm == "offcpu_wl" && args->prev_state == 1/ { @n = count(); }' -
# block requests: the device merges and splits as it goes, no two runs
# alike; these check that the programs run and see the workload's I/O
entry block-sizes bt-tut-11 run "$DIO" \
	'tracepoint:block:block_rq_issue /pid == cpid && comm == "lang_wl"/ { @ = hist(args.bytes); }' - ran
# kernel functions: kprobes here, where the kernel has them (tests/vm)
on_kernel kprobes entry vfs-read-bytes bt-tut-6 map "$LW" \
	'kretprobe:vfs_read /pid == cpid && retval == 777/ { @bytes = lhist(retval, 0, 2000, 200); }' \
	'kretprobe:vfs_read /pid == cpid && retval == 777/ { @bytes = lhist(retval, 0, 2000, 200); }' \
	'@bytes >=600 6'
on_kernel kprobes entry vfs-read-time bt-tut-7 map "$LW" \
	'kprobe:vfs_read /pid == cpid/ { @start[tid] = nsecs; } kretprobe:vfs_read /@start[tid]/ { @ns[comm] = hist(nsecs - @start[tid]); @n[retval == 777] = count(); delete(@start[tid]); }' \
	'kprobe:vfs_read /pid == cpid/ { @start[tid] = nsecs; } kretprobe:vfs_read /@start[tid]/ { @ns[comm] = hist(nsecs - @start[tid]); @n[retval == 777] = count(); delete(@start[tid]); }' \
	'@n[1] 6' @n
on_kernel kprobes entry vfs-open-path bt-tut-12 lines "$LW" \
	'kprobe:vfs_open /pid == cpid/ { printf("open path: %s\n", str(((struct path *)arg0)->dentry->d_name.name)); }' \
	'kprobe:vfs_open /pid == cpid/ { printf("open path: %s\n", str(((struct path *)arg0)->dentry->d_name.name)); }' \
	'open path: a;open path: b'
on_kernel trampolines entry kfunc-read-count bt-man map "$LW" \
	'kfunc:vfs_read /pid == cpid/ { @[args->count == 777] = count(); }' \
	'kfunc:vfs_read /pid == cpid/ { @[args->count == 777] = count(); }' \
	'@[1] 6' @

# -- bpftrace's README and man page ------------------------------------------
entry read-bytes-by-comm bt-readme map "$LW" \
	'tracepoint:syscalls:sys_exit_read /args->ret && pid == cpid && comm == "lang_wl"/ { @[comm] = sum(args->ret); }' \
	'tracepoint:syscalls:sys_exit_read /args->ret && pid == cpid && comm == "lang_wl"/ { @[comm] = sum(args->ret); }' -
entry read-dist-by-comm bt-readme map "$LW" \
	'tracepoint:syscalls:sys_exit_read /pid == cpid && comm == "lang_wl"/ { @[comm] = hist(args->ret); }' \
	'tracepoint:syscalls:sys_exit_read /pid == cpid && comm == "lang_wl"/ { @[comm] = hist(args->ret); }' \
	'@[lang_wl] >=512 5'
entry syscall-rate bt-readme run "$OW" \
	'tracepoint:raw_syscalls:sys_enter /pid == cpid && comm == "offcpu_wl"/ { @ = count(); } interval:ms:300 { print(@); clear(@); }' - 'ran'
entry block-events bt-readme run "$DIO" \
	'tracepoint:block:block_rq_issue /pid == cpid && comm == "lang_wl"/ { printf("%s %d\n", comm, args->bytes); }' - ran
entry page-faults bt-readme run "$LW" \
	'software:faults:1 /pid == cpid && comm == "lang_wl"/ { @[comm] = count(); }' - 'ran'
entry profile-ustacks bt-readme run "$CW" \
	'profile:hz:99 /pid == cpid/ { @[ustack] = count(); }' - 'ran'
entry uprobe-str bt-man map "$LW" \
	"uprobe:$LANGFN { @[str(arg1)] = count(); }" \
	"uprobe:$LANGFN { @[str(arg1)] = count(); }" \
	'@[name0] 4;@[name1] 3;@[name2] 3'
entry uretprobe-hist bt-man map "$LW" \
	"uretprobe:$LANGFN { @ = hist(retval); }" \
	"uretprobe:$LANGFN { @ = hist(retval); }" \
	'@ >=0 1;@ >=8 1;@ >=16 2;@ >=32 3;@ >=64 3'
entry exec-args bt-man lines "$EXE" \
	'tracepoint:syscalls:sys_enter_execve /pid == cpid/ { join(args->argv); }' \
	'tracepoint:syscalls:sys_enter_execve /pid == cpid/ { join(args->argv); }' \
	'true one two three'
entry malloc-sizes bt-man map "$MW" \
	"uprobe:libc:malloc /pid == cpid && comm == \"malloc_wl\"/ { @bytes = hist(arg0); }" \
	"uprobe:$LIBC:malloc /pid == cpid && comm == \"malloc_wl\"/ { @bytes = hist(arg0); }" \
	'@bytes >=32 100000;@bytes >=1048576 200'
entry map-var-timing bt-man map "$LW" \
	"uprobe:$LANGFN { @start[tid] = nsecs; } uretprobe:$LANGFN /@start[tid]/ { @ns[comm] = count(); delete(@start[tid]); }" \
	"uprobe:$LANGFN { @start[tid] = nsecs; } uretprobe:$LANGFN /@start[tid]/ { @ns[comm] = count(); delete(@start[tid]); }" \
	'@ns[lang_wl] 10'
entry syscalls-by-probe bt-man map "$LW" \
	'tracepoint:syscalls:sys_enter_* /pid == cpid && comm == "lang_wl"/ { @[probe] = count(); }' \
	'tracepoint:syscalls:sys_enter_* /pid == cpid && comm == "lang_wl"/ { @[probe] = count(); }' \
	'@[tracepoint:syscalls:sys_enter_write] 1'
entry arithmetic bt-man map "$LW" \
	"uprobe:$LANGFN { @b[arg0 % 3 == 0 ? \"three\" : \"other\"] = count(); @s = sum(arg0 * 2 + 1); @x = sum(arg0 << 2 | 1); }" \
	"uprobe:$LANGFN { @b[arg0 % 3 == 0 ? \"three\" : \"other\"] = count(); @s = sum(arg0 * 2 + 1); @x = sum(arg0 << 2 | 1); }" \
	'@b[three] 4;@b[other] 6;@s 100;@x 190'
entry if-else bt-man map "$LW" \
	"uprobe:$LANGFN { if (arg0 > 5) { @big = count(); } else { @small = count(); } }" \
	"uprobe:$LANGFN { if (arg0 > 5) { @big = count(); } else { @small = count(); } }" \
	'@big 4;@small 6'
entry stats bt-man map "$LW" \
	"uprobe:$LANGFN { @a = avg(arg0); @mn = min(arg0); @mx = max(arg0); }" \
	"uprobe:$LANGFN { @a = avg(arg0); @mn = min(arg0); @mx = max(arg0); }" \
	'@a 4;@mn 0;@mx 9'
entry scratch-var bt-man map "$LW" \
	"uprobe:$LANGFN { \$x = arg0 * 10; @[\$x > 50] = count(); }" \
	"uprobe:$LANGFN { \$x = arg0 * 10; @[\$x > 50] = count(); }" \
	'@[0] 6;@[1] 4'
entry curtask bt-man map "$LW" \
	"uprobe:$LANGFN { @[curtask->pid == pid, curtask->real_parent->tgid > 0] = count(); }" \
	"uprobe:$LANGFN { @[curtask->pid == pid, curtask->real_parent->tgid > 0] = count(); }" \
	'@[1,1] 10'

# -- DTrace: the toolkit's one-liners, the guide --------------------------
entry dt-syscalls-by-execname dtk map "$LW" \
	'syscall:::entry /pid == cpid && execname == "lang_wl"/ { @num[execname] = count(); }' \
	'tracepoint:raw_syscalls:sys_enter /pid == cpid && comm == "lang_wl"/ { @num[comm] = count(); }' -
entry dt-syscalls-by-func dtk map "$LW" \
	'syscall:::entry /pid == cpid && execname == "lang_wl" && (probefunc == "read" || probefunc == "pread64") && arg2 == 777/ { @num[probefunc] = count(); }' - \
	'@num[pread64] 2;@num[read] 4'
entry dt-opens dtk lines "$LW" \
	'syscall::openat*:entry /pid == cpid && execname == "lang_wl"/ { printf("%s %s\n", execname, copyinstr(arg1)); }' \
	'tracepoint:syscalls:sys_enter_openat /pid == cpid && comm == "lang_wl"/ { printf("%s %s\n", comm, str(args->filename)); }' \
	"lang_wl $D/b"
# DTrace's syscall::X:return has the return value in arg0 (and arg1)
entry dt-read-bytes dtk map "$LW" \
	'syscall::read:return /pid == cpid && execname == "lang_wl" && arg2 == 777/ { @bytes[execname] = sum(arg0); }' - \
	'@bytes[lang_wl] 3108'
entry dt-read-dist dtk map "$LW" \
	'syscall::read:return /pid == cpid && execname == "lang_wl"/ { @dist[execname] = quantize(arg0); }' \
	'tracepoint:syscalls:sys_exit_read /pid == cpid && comm == "lang_wl"/ { @dist[comm] = hist(args->ret); }' -
entry dt-write-bytes dtk map "$LW" \
	'syscall::write:return /pid == cpid && execname == "lang_wl"/ { @bytes[execname] = sum(arg1); }' \
	'tracepoint:syscalls:sys_exit_write /pid == cpid && comm == "lang_wl"/ { @bytes[comm] = sum(args->ret); }' \
	'@bytes[lang_wl] 9'
entry dt-read-size dtk map "$LW" \
	'syscall::read:return /pid == cpid && arg2 == 777/ { @["size"] = quantize(arg0); }' - \
	'@[size] >=512 4'
entry dt-io-sizes dtk run "$DIO" \
	'tracepoint:block:block_rq_issue /pid == cpid && comm == "lang_wl"/ { @size[comm] = quantize(args->bytes); }' - ran
entry dt-profile dtk run "$CW" \
	'profile:::profile-997 /pid == cpid && execname == "cpu_wl"/ { @[ustack()] = count(); }' - 'ran'
entry dt-self-ts dtg map "$LW" \
	'syscall::read:entry /pid == cpid && execname == "lang_wl" && arg2 == 777/ { self->t = timestamp; } syscall::read:return /self->t/ { @[execname] = count(); self->t = 0; }' - \
	'@[lang_wl] 4'
entry dt-this-var dtg map "$LW" \
	"uprobe:$LANGFN { this->x = arg0 + 1; @ = sum(this->x); }" - '@ 55'
entry dt-trace dtg lines "$LW" \
	"uprobe:$LANGFN /arg0 == 7/ { trace(arg0 * 6); }" - '42'
entry dt-begin-tick dtg lines "$OW" \
	'dtrace:::BEGIN { printf("start\n"); } tick-100ms { printf("tick\n"); exit(); } dtrace:::END { printf("end\n"); }' - \
	'start;tick;end'
entry dt-printa dtg lines "$LW" \
	"uprobe:$LANGFN { @c[arg0 % 2] = count(); } END { printa(@c); clear(@c); }" - '1 5;@c:'

# -- the questions libbpf-tools answers ------------------------------------
entry offcputime lbt run "$OW" offcpu - 'ran'
entry profile lbt run "$CW" profile - 'ran'
entry opensnoop lbt lines "$LW" \
	'syscall:openat /pid == cpid && comm == "lang_wl"/ { printf("%s %s %d\n", comm, str(arg1), retval); }' - \
	"lang_wl $D/a 3"
entry syscount lbt map "$LW" \
	'syscall:read,pread64 /pid == cpid && comm == "lang_wl" && arg2 == 777/ { @[func] = count(); }' - \
	'@[read] 4;@[pread64] 2'
entry biolatency lbt run "$DIO" \
	'tracepoint:block:block_rq_issue { @start[args->dev, args->sector] = nsecs; } tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ { @usecs = hist((nsecs - @start[args->dev, args->sector]) / 1000); delete(@start[args->dev, args->sector]); }' \
	'tracepoint:block:block_rq_issue { @start[args->dev, args->sector] = nsecs; } tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ { @usecs = hist((nsecs - @start[args->dev, args->sector]) / 1000); delete(@start[args->dev, args->sector]); }' \
	ran
entry funclatency lbt map "$LW" \
	"uprobe:$LANGFN { @s[tid] = nsecs; } uretprobe:$LANGFN /@s[tid]/ { @n = count(); delete(@s[tid]); }" \
	"uprobe:$LANGFN { @s[tid] = nsecs; } uretprobe:$LANGFN /@s[tid]/ { @n = count(); delete(@s[tid]); }" \
	'@n 10'
entry filetop lbt run "$WL/read_wl pipe_delay 10" read - 'ran'
# (system-wide, -a, as the tool is: a wakeup fires in the waker's
# context, which is rarely the command's own)
entry runqlat lbt run "$OW" \
	'tracepoint:sched:sched_wakeup { @q[args->pid] = nsecs; } tracepoint:sched:sched_switch { $ns = @q[args->next_pid]; if ($ns) { @usecs = hist((nsecs - $ns) / 1000); } delete(@q[args->next_pid]); }' \
	'tracepoint:sched:sched_wakeup { @q[args->pid] = nsecs; } tracepoint:sched:sched_switch { $ns = @q[args->next_pid]; if ($ns) { @usecs = hist((nsecs - $ns) / 1000); } delete(@q[args->next_pid]); }' \
	ran
entry memleak lbt map "$MW" \
	"uprobe:libc:malloc /pid == cpid && comm == \"malloc_wl\" && arg0 == 1048576/ { @size[tid] = arg0; } uretprobe:libc:malloc /@size[tid]/ { @mem[retval] = @size[tid]; @total = sum(@size[tid]); delete(@size[tid]); } uprobe:libc:free /@mem[arg0]/ { @freed = sum(@mem[arg0]); delete(@mem[arg0]); }" \
	"uprobe:$LIBC:malloc /pid == cpid && comm == \"malloc_wl\" && arg0 == 1048576/ { @size[tid] = arg0; } uretprobe:$LIBC:malloc /@size[tid]/ { @mem[retval] = @size[tid]; @total = sum(@size[tid]); delete(@size[tid]); } uprobe:$LIBC:free /@mem[arg0]/ { @freed = sum(@mem[arg0]); delete(@mem[arg0]); }" \
	'@total 209715200' @total @freed
