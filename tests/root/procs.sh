# SPDX-License-Identifier: GPL-2.0
# Which processes scry traces and how it finds them: repeated -p, -c
# following children, a -c command that fails, a binary deleted before
# attaching, -l and -l -p, tracefs mounted when missing, C++ names.
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl
RATE16='uprobe:libc:malloc /arg0 == 16/ { @[pid] = count() }'

# -p twice: both processes traced, each exactly (malloc_wl rate N mallocs
# 16 B N times), a third one running alongside not at all, and scry stops
# when both have exited
mkfifo "$TMP/a" "$TMP/b"
start_gated pa "$MWL" rate 3000 "$TMP/a"
start_gated pb "$MWL" rate 5000 "$TMP/b"
scry_bg "$TMP/pp.out" "$TMP/pp.err" -p $pa -p $pb "$RATE16"
"$MWL" rate 7000
open_gate "$TMP/a"
open_gate "$TMP/b"
wait_exit $pa
wait_exit $pb
wait_exit $SCRY_PID
check_status "-p twice: scry exits 0 once both have exited" $? 0 "$TMP/pp.err"
check_eq "-p twice: 3000 calls of one, 5000 of the other, none of a third" \
	"$(awk 'NF == 2 { print $1 ":" $2 }' "$TMP/pp.out" | sort -t: -k2n | paste -sd' ')" "$pa:3000 $pb:5000" "$TMP/pp.out"
check "-p twice: the banner says 2 processes" grep -q '^scry: tracing uprobe of 2 processes' "$TMP/pp.err"

# -c follows the command's children: a shell running two malloc_wl, each
# a child of the traced shell (uprobes), keyed by comm (the shell's own
# 16-byte mallocs are its own row)
"$SCRY" -q -c "$MWL rate 3000; $MWL rate 5000" \
	'uprobe:libc:malloc /arg0 == 16/ { @[comm] = count() }' >"$TMP/ch.out" 2>"$TMP/ch.err"
check_status "-c children (uprobe): exit status" $? 0 "$TMP/ch.err"
check_eq "-c children (uprobe): both malloc_wl children counted, 3000 + 5000" \
	"$(awk '$1 == "malloc_wl" { print $2 }' "$TMP/ch.out")" 8000 "$TMP/ch.out"

# a -c command that fails: scry reports how, and still prints what it saw
"$SCRY" -q -c "$MWL nosuchmode" 'uprobe:libc:malloc { @ = count() }' >"$TMP/f.out" 2>"$TMP/f.err"
check_status "-c failing: scry's own exit status is 0 (tracing worked)" $? 0 "$TMP/f.err"
check_eq "-c failing: the command's status, and its usage message, on stderr" \
	"$(cat "$TMP/f.err")" "usage: malloc_wl sizes|rate N|slow K|usdt K
scry: -c: command exited with status 2"
mkfifo "$TMP/kgate"
scry_bg "$TMP/k.out" "$TMP/k.err" -c "$WL/offcpu_wl 1 0 $TMP/kgate" 'offcpu { @ = count() }'
child=$(sed -n 's/^scry: tracing offcpu of the command (pid \([0-9]*\)).*/\1/p' "$TMP/k.err")
kill -9 "$child"
wait_exit $SCRY_PID
check_status "-c killed: scry's exit status" $? 0 "$TMP/k.err"
check_eq "-c killed: the signal is reported" \
	"$(grep -v '^scry: tracing' "$TMP/k.err")" "scry: -c: command killed by signal 9 (Killed)"

# a binary deleted before scry attaches: its frames still have names
cp "$WL/offcpu_wl" "$TMP/doomed_wl"
mkfifo "$TMP/dgate"
start_gated wl "$TMP/doomed_wl" 3 1 "$TMP/dgate"
rm "$TMP/doomed_wl"
scry_bg "$TMP/d.out" "$TMP/d.err" offcpu -p $wl
open_gate "$TMP/dgate"
wait_exit $wl
wait_exit $SCRY_PID
check_status "deleted before attach: exit status" $? 0 "$TMP/d.err"
check_eq "deleted before attach: the 3 sleeps under doomed_wl\`sleep_short, symbolized" \
	"$(rows "$TMP/d.out" | awk -F'\t' 'index($1, "doomed_wl`nap;doomed_wl`sleep_short;doomed_wl`main;") { s += $3 } END { printf "%.0f\n", s }')" 3 "$TMP/d.out"

# -l: exit 0 with matches, 1 with none, 2 for an unknown library
"$SCRY" -l 'uprobe:libc:malloc_*' >"$TMP/l.out" 2>"$TMP/l.err"
check_eq "-l: matches, exit 0" "$? $(grep -c ':malloc_' "$TMP/l.out")" "0 $(wc -l <"$TMP/l.out")"
"$SCRY" -l 'uprobe:libc:nosuchfn*' >"$TMP/l1.out" 2>"$TMP/l1.err"
check_eq "-l: nothing matches: exit 1, the message, no output" \
	"$? $(cat "$TMP/l1.err")|$(cat "$TMP/l1.out")" "1 scry: -l: nothing matches 'uprobe:libc:nosuchfn*'|"
"$SCRY" -l 'uprobe:libnosuch:x*' >/dev/null 2>"$TMP/l2.err"
check_eq "-l: unknown library: exit 2" "$? $(grep -c "^scry: library 'libnosuch' not found" "$TMP/l2.err")" "2 1"
# -l -p: LIB as the process maps it; libdlwl.so is in no library
# directory, so only a process that loaded it knows where it is
mkfifo "$TMP/lgate"
LD_PRELOAD=$WL/libdlwl.so start_gated wl "$WL/offcpu_wl" 1 0 "$TMP/lgate"
"$SCRY" -l -p $wl 'uprobe:libdlwl:lib_*' >"$TMP/lp.out" 2>"$TMP/lp.err"
check_eq "-l -p: the library as pid $wl maps it, exit 0" \
	"$? $(sort "$TMP/lp.out" | paste -sd' ')" \
	"0 uprobe:$(readlink -f "$WL/libdlwl.so"):lib_fn uprobe:$(readlink -f "$WL/libdlwl.so"):lib_leaf"
"$SCRY" -l 'uprobe:libdlwl:lib_*' >/dev/null 2>&1
check_eq "-l without -p: libdlwl is not found (exit 2)" $? 2
open_gate "$TMP/lgate"
wait_exit $wl

# tracefs: in a private mount namespace without it, scry mounts it, says
# so, and the tracepoint works. (/sys made private, not /: in a chroot, as
# fresh-machine runs the tests, / is no mount point)
unshare -m --propagation unchanged sh -c "mount --make-rprivate /sys && umount /sys/kernel/tracing &&
	! mountpoint -q /sys/kernel/tracing &&
	exec '$SCRY' -c /bin/true 'tracepoint:sched:sched_process_exec { @[comm] = count() }'" >"$TMP/t.out" 2>"$TMP/t.err"
check_status "tracefs unmounted: exit status" $? 0 "$TMP/t.err"
check "tracefs unmounted: scry says it mounted it" \
	grep -qx 'scry: mounted tracefs at /sys/kernel/tracing (tracepoints need it)' "$TMP/t.err"
check_eq "tracefs unmounted: the exec of true counted once" "$(awk '$1 == "true" { print $2 }' "$TMP/t.out")" 1
check "tracefs: still mounted outside the namespace" mountpoint -q /sys/kernel/tracing

# C++: shop::Basket<int>::add(int) demangled in stacks, and kept raw
# (_ZN4shop6BasketIiE3addEi) with --no-demangle
for d in "" --no-demangle; do
	mkfifo "$TMP/cx$d"
	start_gated wl "$WL/cxx_wl" "$TMP/cx$d"
	scry_bg "$TMP/cx$d.out" "$TMP/cx$d.err" $d --folded -p $wl 'uprobe:libc:malloc /arg0 == 4321/ { @[ustack] = count() }'
	open_gate "$TMP/cx$d"
	wait_exit $wl
	wait_exit $SCRY_PID
done
check_eq "C++: demangled, whole stack, 3 calls" "$(cat "$TMP/cx.out")" \
	"_start;__libc_start_main;__libc_start_call_main;main;shop::Basket<int>::add(int);malloc 3"
check_eq "C++ --no-demangle: the symbol table's name" "$(cat "$TMP/cx--no-demangle.out")" \
	"_start;__libc_start_main;__libc_start_call_main;main;_ZN4shop6BasketIiE3addEi;malloc 3"
