# SPDX-License-Identifier: GPL-2.0
# -c as people write it, ungated: commands that start at once and live
# for milliseconds, through the shell or not, with or without frame
# pointers, loading libraries as they go. Every count is exact and every
# stack is one row, complete to _start. Then how the command ends: with
# scry at -d or a signal, or left running on request; and -u.
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl
FPSTACK='_start;__libc_start_main;__libc_start_call_main;main;hot_loop;malloc'

# folded_rows FILE: stack rows only (count at the end)
folded_rows() { grep -E ' [0-9]+$' "$1"; }

# one_row LABEL FILE STACK COUNT: exactly one row, that stack, that count
one_row() {
	check_eq "$1: one row" "$(folded_rows "$2" | wc -l)" 1 "$2"
	check_eq "$1: the whole stack, to _start, and the exact count" \
		"$(folded_rows "$2")" "$3 $4"
	check "$1: nothing lost or partial on stderr" \
		bash -c "! grep -Eq 'drop|unwind|before|partial|lost' '${2%.out}.err'"
}

count_expr='uprobe:libc:malloc /arg0 == 16/ { @[ustack] = count() }'

# a frame-pointer program that lives a few milliseconds
"$SCRY" -q --folded -c "$MWL rate 2000" "$count_expr" \
	>"$TMP/fp.out" 2>"$TMP/fp.err"
check_status "short-lived FP program: exit status" $? 0 "$TMP/fp.err"
one_row "short-lived FP program" "$TMP/fp.out" "$FPSTACK" 2000

# without frame pointers (nofp_wl is built -fomit-frame-pointer)
"$SCRY" -q --folded -c "$WL/nofp_wl 2000" \
	'uprobe:libc:malloc /arg0 == 64/ { @[ustack] = count() }' \
	>"$TMP/nofp.out" 2>"$TMP/nofp.err"
one_row "no frame pointers, malloc at once" "$TMP/nofp.out" \
	'_start;__libc_start_main;__libc_start_call_main;main;middle;leaf;malloc' 2000

# the same from an overlayfs (a container's root, as Docker mounts it):
# the kernel maps the lower layer's inode, whose device is not the one
# stat() of the merged path gives; the unwind tables must still match
O=$TMP/ovl
mkdir -p "$O/lower" "$O/upper" "$O/work" "$O/merged"
cp "$WL/nofp_wl" "$O/lower/"
if mount -t overlay overlay -o "lowerdir=$O/lower,upperdir=$O/upper,workdir=$O/work" "$O/merged" 2>"$TMP/ovl.err"; then
	CLEANUP+=("umount -l '$O/merged'")
	"$SCRY" -q --folded -c "$O/merged/nofp_wl 2000" \
		'uprobe:libc:malloc /arg0 == 64/ { @[ustack] = count() }' \
		>"$TMP/ovl.out" 2>"$TMP/ovl.err"
	one_row "no frame pointers, from an overlayfs" "$TMP/ovl.out" \
		'_start;__libc_start_main;__libc_start_call_main;main;middle;leaf;malloc' 2000
	umount "$O/merged"
else
	fail "mount an overlayfs for the container case: $(head -1 "$TMP/ovl.err")"
fi

# a library dlopen'ed and called at once, itself without frame pointers
"$SCRY" -q --folded -c "$WL/dl_wl dlopen-now $WL/libdlwl.so" \
	'uprobe:libc:malloc /arg0 == 999/ { @[ustack] = count() }' \
	>"$TMP/dl.out" 2>"$TMP/dl.err"
one_row "dlopen'ed library called at once" "$TMP/dl.out" \
	'_start;__libc_start_main;__libc_start_call_main;main;lib_fn;lib_leaf;malloc' 1

# shell syntax: each form runs, the program in it is traced from its
# first instruction, the shell that runs it never appears
for form in "cd $WL && ./malloc_wl rate 2000" "FOO=1 $MWL rate 2000" \
	    "exec $MWL rate 2000" "ulimit -n 4096; $MWL rate 2000" \
	    "($MWL rate 2000)" "true;$MWL rate 2000" \
	    "if true; then $MWL rate 2000; fi" "$MWL rate 2000 </dev/null"; do
	"$SCRY" -q --folded -c "$form" "$count_expr" >"$TMP/sh.out" 2>"$TMP/sh.err"
	check_status "-c '$form': exit status" $? 0 "$TMP/sh.err"
	one_row "-c '$form'" "$TMP/sh.out" "$FPSTACK" 2000
done

# two processes of the command: one logical stack, one row, both counted
"$SCRY" -q --folded -c "$MWL rate 1000; $MWL rate 1000" "$count_expr" \
	>"$TMP/two.out" 2>"$TMP/two.err"
one_row "two processes, one stack" "$TMP/two.out" "$FPSTACK" 2000

# what is not the command's never appears: scry's pre-exec code, the
# wrapper shell, the time a held exec or mmap waited for scry
"$SCRY" -q --folded -c "sleep 0.2; $MWL rate 10" \
	'offcpu { @[comm, ustack, kstack] = sum(latency) }' >"$TMP/off.out" 2>"$TMP/off.err"
check_eq "offcpu: no row of the wrapper shell or of scry" \
	"$(folded_rows "$TMP/off.out" | grep -cE '^(sh|dash|scry);')" 0 "$TMP/off.out"
check_eq "offcpu: no wait inside seccomp (scry's holds)" \
	"$(grep -c seccomp "$TMP/off.out")" 0
sleep_ms=$(folded_rows "$TMP/off.out" | awk '/^sleep;.*do_nanosleep/ { s += $NF } END { print int(s / 1000000) }')
check_range "offcpu: sleep's nanosleep is 200 ms (at least; the kernel may oversleep)" "$sleep_ms" 200 399
[ "$sleep_ms" -ge 200 ] || sed 's/^/#   /' "$TMP/off.out" "$TMP/off.err" | cut -c1-400
"$SCRY" -q --folded -c "$MWL rate 10" \
	'uprobe:libc:malloc { @[comm] = count() }' >"$TMP/comm.out" 2>&1
check_eq "malloc: every call is the command's (comm malloc_wl only)" \
	"$(folded_rows "$TMP/comm.out" | awk '{ print $1 }' | sort -u | tr '\n' ' ')" "malloc_wl "

# a command that does not exist
expect "simple command not found: usage error" 2 \
	'^scry: -c: no_such_prog_xyz: command not found$' -- \
	"$SCRY" -q malloc -c 'no_such_prog_xyz arg'
"$SCRY" -q malloc -c 'true; no_such_prog_xyz' >/dev/null 2>"$TMP/nf.err"
check_status "not found inside a shell command: scry still answers" $? 0 "$TMP/nf.err"
check "not found inside a shell command: said, with the shell's status" \
	grep -q '^scry: -c: the shell could not run the command (status 127' "$TMP/nf.err"

# read and write count every syscall that moves file bytes
D=$TMP/mv
mkdir -p "$D" && head -c 100000 /dev/zero >"$D/plain.dat"
"$SCRY" read -q -c "$WL/read_wl movers $D" >"$TMP/rd.out" 2>"$TMP/rd.err"
check_status "read movers: exit status" $? 0 "$TMP/rd.err"
check "read: copy_file_range + sendfile + splice from plain.dat (44000 in 6)" \
	grep -Eq "^ +44000 +[0-9.]+ [KMG]?i?B +6 +[0-9.]+% +$D/plain.dat\$" "$TMP/rd.out"
check "read: splice from the pipe (4000 in 1)" \
	grep -Eq '^ +4000 +[0-9.]+ KiB +1 +[0-9.]+% +pipe:\[[0-9]+\]$' "$TMP/rd.out"
"$SCRY" write -q -c "$WL/read_wl movers $D" >"$TMP/wr.out" 2>"$TMP/wr.err"
check_status "write movers: exit status" $? 0 "$TMP/wr.err"
for f in "30000 3 copy.dat" "10000 2 sent.dat" "4000 1 spliced.dat"; do
	set -- $f
	check "write: $3 gets $1 bytes in $2 calls" \
		grep -Eq "^ +$1 +[0-9.]+ KiB +$2 +[0-9.]+% +$D/$3\$" "$TMP/wr.out"
done
check_eq "write: the total is 48000 bytes in 7 calls" \
	"$(awk '$NF == "total" { print $1, $4 }' "$TMP/wr.out")" "48000 7"

# io_uring reads and writes, which pass through neither read(2) nor write(2)
U=$TMP/ur
mkdir -p "$U" && head -c 12000 /dev/zero >"$U/in.dat"
"$SCRY" read -q -c "$WL/uring_wl $U" >"$TMP/ur.out" 2>"$TMP/ur.err"
check_status "read io_uring: exit status" $? 0 "$TMP/ur.err"
check "read: IORING_OP_READ 3 x 4000 from in.dat" \
	grep -Eq "^ +12000 +[0-9.]+ KiB +3 +[0-9.]+% +$U/in.dat\$" "$TMP/ur.out"
"$SCRY" write -q -c "$WL/uring_wl $U" >"$TMP/uw.out" 2>"$TMP/uw.err"
check_status "write io_uring: exit status" $? 0 "$TMP/uw.err"
check_eq "write: IORING_OP_WRITE 2 x 3000 to out.dat, and nothing else" \
	"$(awk '$NF != "total" && /%/ { print $1, $4, $NF }' "$TMP/uw.out")" "6000 2 $U/out.dat"

# stopping: the command and everything it started end with scry
ended() {	# PID...: true once none of them runs
	local p
	for p; do
		[ -e "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && return 1
	done
	return 0
}
# (scry_kids: the sleeps, once they run; tables load first. A copy of
# sleep under this test's own name: no other sleep is mistaken for them)
SL=$TMP/cmd_sleep
cp "$(command -v sleep)" "$SL"
scry_kids() {
	local i
	for i in $(seq 200); do
		kids=$(pgrep -f "^$SL 300\$" | tr '\n' ' ')
		[ "$(echo $kids | wc -w)" -ge "$1" ] && return
		sleep 0.05
	done
}
"$SCRY" -q offcpu -d 3 -c "$SL 300 & $SL 300; wait" >/dev/null 2>"$TMP/d.err" &
sp=$!
CLEANUP+=("kill -9 $sp")
scry_kids 2
wait $sp
check_status "-d: scry exits 0" $? 0 "$TMP/d.err"
check_eq "-d: both sleeps had started" "$(echo $kids | wc -w)" 2
check "-d: the command and its background child are gone" ended $kids
check "-d: no 'still running' message" bash -c "! grep -q 'still running' '$TMP/d.err'"

# SIGTERM to scry: the same, and a command that ignores SIGTERM is killed
"$SCRY" -q offcpu -c "trap '' TERM; $SL 300" >/dev/null 2>"$TMP/t.err" &
sp=$!
CLEANUP+=("kill -9 $sp")
scry_kids 1
kill -TERM $sp
wait $sp
check_status "SIGTERM: scry exits 0" $? 0 "$TMP/t.err"
check "SIGTERM: a command ignoring SIGTERM is still ended (SIGKILL)" ended $kids

# scry killed before it released the command (kill -9 while it loads):
# the command, waiting for the release, sees scry's end and exits unrun
# (it held the release pipe's other end itself, and waited forever,
# holding scry's stdout and stderr). scry is stopped first: a child that
# has not exec'ed by then never will (released or not, its exec waits
# for scry's answer, cmd.c), and then scry is killed.
"$SCRY" -q offcpu -c "$SL 300" >/dev/null 2>"$TMP/kb.err" &
sp=$!
CLEANUP+=("kill -9 $sp")
# (read, a builtin: the loop forks nothing, and sees the child within
# microseconds of its fork, the load's ~10 ms before the release)
held=
for ((i = 0; i < 100000; i++)); do
	read -r held _ <"/proc/$sp/task/$sp/children" 2>/dev/null
	[ -n "$held" ] && break
done
kill -STOP $sp
if [ -z "$held" ]; then
	fail "kill -9 before the release: no child of scry seen"
elif [ "$(cat "/proc/$held/comm" 2>/dev/null)" != "$(basename "$SCRY")" ]; then
	fail "kill -9 before the release: the command had exec'ed" \
		"before scry was stopped"
	kill -9 "$held"
else
	{ kill -9 $sp; wait $sp; } 2>/dev/null
	for i in $(seq 100); do ended "$held" && break; sleep 0.05; done
	check "kill -9 before the release: the held command exits" \
		ended "$held"
	check "kill -9 before the release: the command never ran" \
		bash -c "! pgrep -f '^$SL 300\$'"
	kill -9 "$held" 2>/dev/null
fi

# --keep-running: left running, and it can still exec after scry is gone
rm -f "$TMP/kept"
"$SCRY" malloc -d 0.3 --keep-running -c "sleep 1; /bin/true && touch $TMP/kept" \
	>/dev/null 2>"$TMP/k.err"
check_status "--keep-running: exit status" $? 0 "$TMP/k.err"
check "--keep-running: says it left the command running" \
	grep -q '^scry: -c: command (pid [0-9]*) left running$' "$TMP/k.err"
for i in $(seq 60); do [ -e "$TMP/kept" ] && break; sleep 0.05; done
check "--keep-running: the command ran on and exec'ed after scry exited" test -e "$TMP/kept"
expect "--keep-running without -c" 2 'needs -c' -- "$SCRY" -q malloc --keep-running

# -u USER: the command runs as the user, with its groups and HOME
mkdir -m 777 "$TMP/u"
chmod 711 "$TMP"	# nobody may pass through, not list
"$SCRY" -q read -u nobody -c "sh -c 'id -u; id -g; echo \$HOME' >$TMP/u/u.txt" \
	>/dev/null 2>"$TMP/u.err"
check_status "-u nobody: exit status" $? 0 "$TMP/u.err"
check_eq "-u nobody: uid, gid, HOME" "$(tr '\n' ' ' <"$TMP/u/u.txt")" \
	"$(id -u nobody) $(id -g nobody) $(getent passwd nobody | cut -d: -f6) "
expect "-u: unknown user" 2 "^scry: -u: no such user 'no_such_user_xyz'\$" -- \
	"$SCRY" -q malloc -u no_such_user_xyz -c true

# --lines in folded stacks: the line each frame was at, as perf's srcline
line=$(grep -n 'sink = malloc(555);' tests/workloads/inline_wl.c | cut -d: -f1)
"$SCRY" -q --folded --lines -c "$WL/inline_wl" \
	'uprobe:libc:malloc /arg0 == 555/ { @[ustack] = count() }' >"$TMP/lf.out" 2>&1
check "--lines --folded: take_555 (inline_wl.c:$line)_[i]" \
	grep -q ";take_555 (inline_wl\.c:$line)_\[i\];" "$TMP/lf.out"

# a frame without a symbol: its module and offset, the same every run
cp "$MWL" "$TMP/mwl_stripped" && strip "$TMP/mwl_stripped"
for run in 1 2; do
	"$SCRY" -q -c "$TMP/mwl_stripped rate 10" \
		'uprobe:libc:malloc /arg0 == 16/ { @[ustack] = count() }' >"$TMP/strip$run.out" 2>&1
done
check_eq "stripped binary: frames as module\`+0xOFFSET, the entry point as _start" \
	"$(grep -o 'mwl_stripped`.*' "$TMP/strip1.out" | sed 's/0x[0-9a-f]*$/0xOFF/' | paste -sd' ')" \
	"mwl_stripped\`+0xOFF mwl_stripped\`+0xOFF mwl_stripped\`_start+0xOFF" "$TMP/strip1.out"
check_eq "stripped binary: the same offsets in two runs (ASLR does not show)" \
	"$(grep 'mwl_stripped`' "$TMP/strip1.out")" "$(grep 'mwl_stripped`' "$TMP/strip2.out")"
