# SPDX-License-Identifier: GPL-2.0
# The language: several clauses, map variables, self->, printf, str(),
# BEGIN/END, interval and exit(), probe lists and globs, `probe` and
# `func`, arithmetic, if/else, ?:, and the errors that name their fix.
# Ground truth: tests/workloads/lang_wl.c (exact counts and values).
. "$(dirname "$0")/../lib.sh"

W=$WL/lang_wl
D=$TMP/files
mkdir -p "$D"

# value KEY FILE: the number after KEY (a printa row: key columns, value)
value() { awk -v k="$1" '{ v = $NF; $NF = ""; sub(/ +$/, ""); sub(/^ +/, "") } $0 == k { print v }' "$2"; }
# scalar MAP FILE: the value printed under "@MAP:"
scalar() { awk -v m="$1:" '$1 == m { getline; print $1; exit }' "$2"; }

# -- map variables across two clauses: start times by thread -----------
"$SCRY" -q -c "$W $D" "uprobe:$W:lang_fn { @start[tid] = nsecs }
uretprobe:$W:lang_fn /@start[tid]/ { @n[comm] = count(); @ns = hist(nsecs - @start[tid]); delete(@start[tid]) }" \
	>"$TMP/v.out" 2>"$TMP/v.err"
check_status "map variables: exit status" $? 0 "$TMP/v.err"
check_eq "map variables: 10 calls timed, by comm" "$(value lang_wl "$TMP/v.out")" 10
check_eq "map variables: the histogram holds the 10" \
	"$(awk '/\|/ { n += $NF } END { print n }' "$TMP/v.out")" 10
check "map variables: delete() left @start empty (not printed)" \
	bash -c "! grep -q '^@start:' '$TMP/v.out'"
check "maps print under their names" grep -q '^@ns:$' "$TMP/v.out"
"$SCRY" -q --json -c "$W $D" "uprobe:$W:lang_fn { @start[tid] = nsecs; @c[comm] = count(); @v[arg0] = str(arg1); @h = hist(arg0) }" \
	| grep '^{' >"$TMP/v.json"
check "--json: every map by name, valid per docs/scry.schema.json" \
	python3 tests/schema_check.py docs/scry.schema.json "$TMP/v.json"
check_eq "--json: the main map and the others" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["map"], *[m["name"] for m in d["maps"]])' "$TMP/v.json")" \
	"@c @start @v @h"
check_eq "--json: a string variable's value" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([r["string"] for m in d["maps"] if m["name"] == "@v" for r in m["rows"] if r["keys"]["arg0"] == 4][0])' "$TMP/v.json")" \
	name1

# -- self-> thread-locals, as DTrace writes it ------------------------------
"$SCRY" -q -c "$W $D" "uprobe:$W:lang_fn { self->ts = timestamp }
uretprobe:$W:lang_fn /self->ts/ { @c = count(); @lat = sum(timestamp - self->ts > 0); self->ts = 0 }" \
	>"$TMP/t.out" 2>"$TMP/t.err"
check_status "self->: exit status" $? 0 "$TMP/t.err"
check_eq "self->: 10 returns saw their entry" "$(scalar @c "$TMP/t.out")" 10
check_eq "self->: every latency positive" "$(scalar @lat "$TMP/t.out")" 10

# -- printf per event, str() of a user pointer --------------------------------
"$SCRY" -q -c "$W $D" "uprobe:$W:lang_fn { printf(\"%d %s %-6s|\\n\", arg0, str(arg1), str(arg1, 4)) }" \
	>"$TMP/p.out" 2>"$TMP/p.err"
check_status "printf: exit status" $? 0 "$TMP/p.err"
grep -v '^done' "$TMP/p.out" >"$TMP/p.lines"
check_eq "printf: one line per call, in order, with the strings" \
	"$(paste -sd, "$TMP/p.lines")" \
	"0 name0 name  |,1 name1 name  |,2 name2 name  |,3 name0 name  |,4 name1 name  |,5 name2 name  |,6 name0 name  |,7 name1 name  |,8 name2 name  |,9 name0 name  |"

# -- strings as keys; a char * tracepoint field through str() ----------------
"$SCRY" -q -c "$W $D" 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @[str(args->filename)] = count() }' \
	>"$TMP/s.out" 2>"$TMP/s.err"
check_status "str(args->filename): exit status" $? 0 "$TMP/s.err"
check_eq "str(args->filename): DIR/a opened 3 times" "$(value "$D/a" "$TMP/s.out")" 3
check_eq "str(args->filename): DIR/b opened 5 times" "$(value "$D/b" "$TMP/s.out")" 5
expect "a char * key names str()" 2 "^scry: a key is a char \* pointer: use str\(\) for the string it points to" \
	-- "$SCRY" 'tracepoint:syscalls:sys_enter_openat { @[args->filename] = count() }'
expect "a char * for %s names str()" 2 "this is a char \* pointer: use str\(\)" \
	-- "$SCRY" 'tracepoint:syscalls:sys_enter_openat { printf("%s\n", args.filename) }'

# -- tracepoint globs and probe lists, `probe` ------------------------------
"$SCRY" -q -c "$W $D" "tracepoint:syscalls:sys_enter_openat* /pid == cpid && str(args->filename) == \"$D/a\"/ { @[probe] = count() }
tracepoint:syscalls:sys_enter_read, tracepoint:syscalls:sys_enter_pread64 /pid == cpid && args->count == 777/ { @io[probe] = count() }" \
	>"$TMP/g.out" 2>"$TMP/g.err"
check_status "globs: exit status" $? 0 "$TMP/g.err"
check_eq "glob: probe names openat" "$(value tracepoint:syscalls:sys_enter_openat "$TMP/g.out")" 3
check_eq "probe list: read 4 times" "$(value tracepoint:syscalls:sys_enter_read "$TMP/g.out")" 4
check_eq "probe list: pread64 twice" "$(value tracepoint:syscalls:sys_enter_pread64 "$TMP/g.out")" 2

# -- syscall names as keys; sums of return values ---------------------------
"$SCRY" -q -c "$W $D" 'syscall:read,pread64 /pid == cpid && arg2 == 777/ { @[func] = sum(retval) }' \
	>"$TMP/f.out" 2>"$TMP/f.err"
check_status "func of syscalls: exit status" $? 0 "$TMP/f.err"
check_eq "func: read returned 4 x 777" "$(value read "$TMP/f.out")" 3108
check_eq "func: pread64 returned 2 x 777" "$(value pread64 "$TMP/f.out")" 1554

# -- arithmetic, ?:, if/else, string-literal keys, ++ -------------------------
"$SCRY" -q -c "$W $D" "uprobe:$W:lang_fn { @x++; @b[arg0 % 3 == 0 ? \"three\" : \"other\"] = count();
if (arg0 > 5) { @big = sum(arg0 * 2 + 1) } else { @small = sum(arg0 << 1 | 1) }; @k[comm, \"calls\"] = count() }" \
	>"$TMP/a.out" 2>"$TMP/a.err"
check_status "arithmetic: exit status" $? 0 "$TMP/a.err"
check_eq "@x++: 10" "$(scalar @x "$TMP/a.out")" 10
check_eq "?: string keys: 4 multiples of 3" "$(value three "$TMP/a.out")" 4
check_eq "?: string keys: 6 others" "$(value other "$TMP/a.out")" 6
check_eq "if: arg0 6..9, sum of 2i+1" "$(scalar @big "$TMP/a.out")" 64
check_eq "else: arg0 0..5, sum of (i<<1)|1" "$(scalar @small "$TMP/a.out")" 36
check "comm and a literal as two key columns" grep -Eq '^  lang_wl +calls +10$' "$TMP/a.out"

# -- number casts convert as C does; bpftrace's number forms ---------------
"$SCRY" -q 'BEGIN { printf("%d %d %d %d %d\n", (u32)-1, (int8)255, (uint16)0x12345, (bool)7, 1e6 + 1_000); exit() }' \
	>"$TMP/cast.out" 2>"$TMP/cast.err"
check_eq "(u32)-1 (int8)255 (uint16)0x12345 (bool)7 1e6+1_000" \
	"$(cat "$TMP/cast.out")" "4294967295 -1 9029 1 1001000" "$TMP/cast.err"

# -- print(@map, N): its N largest rows (bpftrace's syscount) ---------------
"$SCRY" -q -c "$W $D" "uprobe:$W:lang_fn { @[arg0] = sum(arg0 * 10) } END { print(@, 2); clear(@) }" \
	>"$TMP/top.out" 2>"$TMP/top.err"
check_status "print(@, 2): exit status" $? 0 "$TMP/top.err"
check_eq "print(@, 2): the rows of arg0 8 and 9 only" \
	"$(awk 'NF == 2 && $1 ~ /^[0-9]+$/ { print $1, $2 }' "$TMP/top.out" | paste -sd' ')" "8 80 9 90" "$TMP/top.out"

# -- BEGIN, END, reading a variable in END ----------------------------------
"$SCRY" -q -c "$W $D" "BEGIN { printf(\"start\\n\") } uprobe:$W:lang_fn { @n++ } END { printf(\"end %d\\n\", @n) }" \
	>"$TMP/b.out" 2>"$TMP/b.err"
check_status "BEGIN/END: exit status" $? 0 "$TMP/b.err"
check_eq "BEGIN prints first" "$(head -1 "$TMP/b.out")" start
check "END prints after tracing, with the count" grep -qx 'end 10' "$TMP/b.out"
check "END prints before the maps" bash -c "awk '/^end 10/ { e = NR } /^@n:/ { m = NR } END { exit !(e && m > e) }' '$TMP/b.out'"

# -- interval and exit(): a run that stops itself ---------------------------
start=$(date +%s%N)
"$SCRY" -q 'interval:ms:200 { @ticks++; if (@ticks == 3) { exit() } }' >"$TMP/i.out" 2>"$TMP/i.err"
check_status "interval + exit(): exit status" $? 0 "$TMP/i.err"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check_range "exit() after 3 ticks of 200 ms: within 0.5..5 s" "$ms" 500 5000
check_eq "interval: 3 ticks counted" "$(scalar @ticks "$TMP/i.out")" 3

# -- software events --------------------------------------------------------
"$SCRY" -q -c "$W $D" 'software:page-faults:1 /pid == cpid/ { @ = count() }' >"$TMP/sw.out" 2>"$TMP/sw.err"
check_status "software:page-faults: exit status" $? 0 "$TMP/sw.err"
check "software:page-faults: the workload's faults counted" \
	bash -c "awk 'NF == 1 && \$1 > 0 { ok = 1 } END { exit !ok }' '$TMP/sw.out'"

# -- kernel structs through BTF; join() -------------------------------------
"$SCRY" -q -c "$W $D" "uprobe:$W:lang_fn { @[curtask->pid == pid, curtask->comm, curtask->real_parent->tgid == ppid, ((struct task_struct *)curtask)->mm->start_code > 0] = count() }" \
	>"$TMP/k.out" 2>"$TMP/k.err"
check_status "curtask->...: exit status" $? 0 "$TMP/k.err"
check "curtask->pid, ->comm, ->real_parent->tgid, a cast, ->mm->start_code" \
	grep -Eq '^ +1  lang_wl +1 +1 +10$' "$TMP/k.out"
"$SCRY" -q -c "/bin/sh -c '/bin/echo one two three >/dev/null'" \
	'tracepoint:syscalls:sys_enter_execve { join(args->argv); join(args->argv, ",") }' \
	>"$TMP/j.out" 2>"$TMP/j.err"
check_status "join(): exit status" $? 0 "$TMP/j.err"
check "join(args->argv): the words, blank-separated" grep -qx '/bin/echo one two three' "$TMP/j.out"
check "join(args->argv, \",\")" grep -qx '/bin/echo,one,two,three' "$TMP/j.out"

# -- a thread that exits leaves nothing parked -------------------------------
# exit_group never returns: its parked entry must go when the process
# exits (task_exit), or every exiting process leaks one inflight element
scry_bg "$TMP/x.out" "$TMP/x.err" 'syscall:exit_group,read /comm == "true"/ { @n = count() }'
for i in 1 2 3; do /bin/true; done
sleep 0.5
inflight=
for id in $(owned_ids map $SCRY_PID); do
	[ "$(bpftool map show id "$id" | awk 'NR == 1 { print $4 }')" = inflight ] &&
		inflight=$(bpftool map dump id "$id" -j | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
done
check_eq "exit_group's parked entries are dropped at exit (inflight map)" "$inflight" 0
kill -INT $SCRY_PID
wait_exit $SCRY_PID >/dev/null

# -- errors that name the fix -----------------------------------------------
expect "signal() needs --unsafe" 2 "^scry: signal\(\) sends signals to traced processes: allow it with --unsafe" \
	-- "$SCRY" 'uprobe:libc:malloc { signal("SIGKILL") }'
# kprobes: where the kernel has them, tests/vm/kprobes.sh counts them
# (kprobe, kretprobe, fbt return, their stacks); here they are refused
if [ ! -e /sys/bus/event_source/devices/kprobe/type ]; then
	expect "kretprobe here: no kprobes" 2 "^scry: this kernel has no kprobes" \
		-- "$SCRY" 'kretprobe:vfs_read { @ = hist(retval) }'
fi
# fentry/fexit: counted where the kernel has trampolines, else refused
# before anything loads (this host: EPERM), never the capability message
"$SCRY" -q -c "dd if=/dev/zero of=/dev/null bs=1 count=100 status=none" \
	'fentry:vfs_read /args.count == 1/ { @n = count() }
	 fexit:vfs_read /args.count == 1/ { @r[retval] = count() }' \
	>"$TMP/f.out" 2>"$TMP/f.err"
st=$?
if [ "$st" = 2 ]; then
	check "fentry: refused by this kernel, said so" \
		grep -q "^scry: this kernel refuses BPF trampolines" "$TMP/f.err"
else
	check_status "fentry/fexit: exit status" "$st" 0 "$TMP/f.err"
	check "fentry: 100 one-byte reads; fexit: each returned 1" \
		grep -Pzq '@n:\n +100\n\n@r:\n +1 +100\n' "$TMP/f.out"
fi
check "-l fentry: functions with their BTF parameters" \
	sh -c "'$SCRY' -l 'fentry:vfs_read' | grep -qx 'fentry:vfs_read  # args: struct file \*file, char \*buf, size_t count, loff_t \*pos'"
expect "--map names a map that exists" 2 "^scry: --map @nope: no such map \(the program has: @a @b\)" \
	-- "$SCRY" --map @nope 'offcpu { @a[kstack] = count(); @b[ustack] = count() }'
expect "--folded with two stack maps wants --map" 2 "^scry: --folded draws one map, and 2 have stacks \(@a @b\): pick one with --map @NAME" \
	-- "$SCRY" --folded 'offcpu { @a[kstack] = count(); @b[ustack] = count() }'
expect "two clauses once said 'trailing input'" 2 "^scry: unknown probe kind 'nope'" \
	-- "$SCRY" 'offcpu { @ = count() } nope { }'
