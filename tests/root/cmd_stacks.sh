# SPDX-License-Identifier: GPL-2.0
# Stacks of commands run the way users type them: scry -c CMD, the
# workload ungated, traced from its first instruction. The truth is the
# same as with a gate: exactly one row per logical stack, every stack
# complete to _start, exact counts, and no degradation counter on stderr
# (every test runs with -q, so stderr must be empty).
. "$(dirname "$0")/../lib.sh"

UWL=$WL/unwind_wl
MWL=$WL/malloc_wl
START='libc.so.6`__libc_start_call_main;libc.so.6`__libc_start_main;'

# quiet LABEL ERRFILE: nothing on stderr (no loss, no degraded stack)
quiet() {
	check_eq "$1: no loss or degradation counter on stderr" "$(cat "$2")" "" "$2"
	[ -s "$2" ] && sed 's/^/#   /' "$2"
	return 0
}

# uprobe on malloc(777) from unwind_wl's qsort comparator: one event, its
# stack equal to backtrace()'s frame for frame, to _start
"$SCRY" -q --json -c "$UWL qsort $TMP/bt" \
	'uprobe:libc:malloc /arg0 == 777/ { @[ustack] = count() }' >"$TMP/q.json" 2>"$TMP/q.err"
read -r rows events matched frames last <<<"$(compare_bt "$TMP/q.json" "$TMP/bt")"
check_eq "-c qsort: one row, one event, equal to backtrace(), ends at _start" \
	"$rows $events $matched $last" "1 1 1 _start"
quiet "-c qsort" "$TMP/q.err"

# through a signal frame, and 300 deep (127 frames, flagged truncated)
"$SCRY" -q --json -c "$UWL signal $TMP/bts" \
	'uprobe:libc:malloc /arg0 == 777/ { @[ustack] = count() }' >"$TMP/s.json" 2>"$TMP/s.err"
read -r rows events matched frames last <<<"$(compare_bt "$TMP/s.json" "$TMP/bts")"
check_eq "-c signal: one row, equal to backtrace(), ends at _start" "$rows $events $matched $last" "1 1 1 _start"
quiet "-c signal" "$TMP/s.err"

# malloc_wl sizes: each function's calls in one row, stacks whole
"$SCRY" -q -c "$MWL sizes" 'uprobe:libc:malloc { @[ustack] = count() }' >"$TMP/m.out" 2>"$TMP/m.err"
cmp_calls=$(grep -o 'cmp_calls=[0-9]*' "$TMP/m.out" | cut -d= -f2)
check_eq "-c malloc_wl: small_allocs is one row of 100000, whole stack" \
	"$(vals "$TMP/m.out" | awk -F'\t' '/small_allocs/ { print $1 "=" $2 }')" \
	"libc.so.6\`malloc;malloc_wl\`small_allocs;malloc_wl\`main;${START}malloc_wl\`_start=100000" "$TMP/m.out"
check_eq "-c malloc_wl: big_allocs is one row of 200, whole stack" \
	"$(vals "$TMP/m.out" | awk -F'\t' '/big_allocs/ { print $1 "=" $2 }')" \
	"libc.so.6\`malloc;malloc_wl\`big_allocs;malloc_wl\`main;${START}malloc_wl\`_start=200"
check_eq "-c malloc_wl: cmp_alloc's $cmp_calls calls, every stack to _start" \
	"$(vals "$TMP/m.out" | awk -F'\t' '/cmp_alloc/ { n += $2; if ($1 !~ /;malloc_wl`_start$/) bad++ } END { print n + 0, bad + 0 }')" \
	"$cmp_calls 0"
quiet "-c malloc_wl" "$TMP/m.err"

# a million calls: one row
"$SCRY" -q -c "$MWL rate 1000000" 'uprobe:libc:malloc /arg0 == 16/ { @[ustack] = count() }' >"$TMP/r.out" 2>"$TMP/r.err"
check_eq "-c rate: 1000000 calls in one row, whole stack" \
	"$(vals "$TMP/r.out" | awk -F'\t' '{ print $1 "=" $2 }')" \
	"libc.so.6\`malloc;malloc_wl\`hot_loop;malloc_wl\`main;${START}malloc_wl\`_start=1000000"
quiet "-c rate" "$TMP/r.err"

# offcpu: one row per logical stack, the DWARF stack
"$SCRY" -q -c "$WL/offcpu_wl 20 4" offcpu >"$TMP/o.out" 2>"$TMP/o.err"
for fn in sleep_short sleep_long; do
	check_eq "-c offcpu: $fn's sleeps in one row, whole stack" \
		"$(rows "$TMP/o.out" | awk -F'\t' -v fn="$fn" '$1 ~ "do_nanosleep" && index($1, "`" fn ";") { print $1 }' | sort -u | sed 's/.*entry_SYSCALL_64_after_hwframe;//')" \
		"libc.so.6\`clock_nanosleep;libc.so.6\`__nanosleep;offcpu_wl\`nap;offcpu_wl\`$fn;offcpu_wl\`main;${START}offcpu_wl\`_start;offcpu_wl" "$TMP/o.out"
done
quiet "-c offcpu" "$TMP/o.err"

# profile: every sample of the command, from its exec on, reaches _start
# (with no user stack, only in the exit path); scry's fork before the
# exec is not the command and never sampled
"$SCRY" -q --json profile -F 499 -c "$UWL spin 2" >"$TMP/p.json" 2>"$TMP/p.err"
# Two gaps at a process's very start remain, each counted on stderr: ld.so's
# lazy-binding trampoline (_dl_runtime_resolve) defines its CFA by rbx,
# which the walker does not follow ("ended at an unsupported CFI rule"),
# and a sample inside ld.so's own mmap of a library finds the mmap lock
# taken ("could not map"). So: every sample reaches _start or is counted,
# and stderr holds nothing but such counts.
read -r bad total <<<"$(python3 - "$TMP/p.json" <<'PYEOF'
import json, sys
total = bad = 0
for row in json.loads(open(sys.argv[1]).readline())["rows"]:
    st = [f for f in row["keys"]["ustack"] if not f["inlined"]]
    ks = [f["symbol"] for f in row["keys"]["kstack"]]
    total += row["count"]
    if not (st and st[-1]["symbol"] == "_start") and \
       not (not st and ("do_exit" in ks or "do_group_exit" in ks)):
        bad += row["count"]
        print("# not to _start: %s | %s" % (";".join(f["symbol"] or "%s+%s" % (f["module"], f.get("offset")) for f in st),
              ";".join(ks[:8])), file=sys.stderr)
print(bad, total)
PYEOF
)"
counted=$(sed -nE 's/^(scry: )?([0-9]+) (user stacks ended|unwind steps) .*/\2/p' "$TMP/p.err" | awk '{ s += $1 } END { print s + 0 }')
check "-c profile: every sample reaches _start, or is counted on stderr ($bad of $total not, $counted counted)" \
	test "${bad:-1}" -le "$counted" -a "${total:-0}" -gt 0
check_eq "-c profile: stderr holds no loss, only those counts" \
	"$(grep -Ev '^(scry: )?[0-9]+ (user stacks ended|unwind steps) ' "$TMP/p.err")" "" "$TMP/p.err"

# 16 threads from the first millisecond, no gate, no barrier: each
# thread's stack maps and its first malloc maps an arena while the others
# are walked, so a walk that asked the kernel for a mapping found its lock
# taken (frame pointers: libc's start_thread and clone3 lost). The walker
# has the process's list, libc's text in it, before libc's code can run
# (session.c: list_the_mapping_to_come). With frame pointers, and with
# none (only .eh_frame unwinds the program either way)
for w in threads_wl threads_nofp_wl; do
	"$SCRY" -q -c "$WL/$w 16 200" \
		'uprobe:libc:malloc /arg0 == 333/ { @[ustack] = count() }' >"$TMP/$w.out" 2>"$TMP/$w.err"
	check_eq "-c $w (16 threads at once): two rows, 16 x 200 and 200 calls, whole stacks" \
		"$(vals "$TMP/$w.out" | awk -F'\t' '{ print $1 "=" $2 }' | sort)" \
		"libc.so.6\`malloc;$w\`main_alloc;$w\`main;${START}$w\`_start=200
libc.so.6\`malloc;$w\`thread_alloc;$w\`thread_main;libc.so.6\`start_thread;libc.so.6\`clone3=3200" "$TMP/$w.out"
	quiet "-c $w" "$TMP/$w.err"
done

# a library dlopen'ed and called at once
"$SCRY" -q --folded -c "$WL/dl_wl dlopen-now $WL/libdlwl.so" \
	'uprobe:libc:malloc /arg0 == 999/ { @[ustack] = count() }' >"$TMP/dl.folded" 2>"$TMP/dl.err"
check_eq "-c dlopen, called at once: _start;...;main;lib_fn;lib_leaf;malloc 1" \
	"$(cat "$TMP/dl.folded")" "_start;__libc_start_main;__libc_start_call_main;main;lib_fn;lib_leaf;malloc 1"
quiet "-c dlopen-now" "$TMP/dl.err"

# forked children (-c follows them): each stopped child's stack is whole
# (stop_self() -> raise(); libc's __pthread_kill_internal, inlined, shows
# only with libc's debug info: not asserted)
"$SCRY" -q -c "$WL/state_wl stop 3 100" \
	'offcpu /state == 4/ { @[ustack] = count() }' >"$TMP/t.out" 2>"$TMP/t.err"
check_eq "-c children: the 3 stopped children in one row, whole stack" \
	"$(vals "$TMP/t.out" | awk -F'\t' '{ print $1 "=" $2 }')" \
	"libc.so.6\`__pthread_kill_implementation;libc.so.6\`raise;state_wl\`stop_self;state_wl\`stop_once;state_wl\`main;${START}state_wl\`_start=3" "$TMP/t.out"
quiet "-c children" "$TMP/t.err"

# -p on a process that has not exec'ed yet (a shell about to exec the
# workload): after the exec, every stack is the new image's, whole. A
# process scry did not start cannot be held at its exec as -c's are: its
# first moments after the exec may run before the new image's tables are
# in (those steps use frame pointers, and stderr counts them), and a
# switch-out inside execve after the old image is gone has only the old
# image's registers (a user stack that ends at unreadable memory,
# counted). So the
# exec'ed workload waits at a gate (the -p scenario: attached to a
# running process), opened once scry has had a second for the new image.
mkfifo "$TMP/xgate"
bash -c "sleep 0.5; exec $WL/offcpu_wl 5 1 $TMP/xgate" &
wl=$!
CLEANUP+=("kill -9 $wl")
scry_bg "$TMP/x.out" "$TMP/x.err" offcpu -p $wl
wait_for /proc/$wl/cmdline offcpu_wl 10
sleep 1
open_gate "$TMP/xgate"
wait_exit $wl
wait_exit $SCRY_PID
check_eq "-p before exec: sleep_short's sleeps in one row, whole stack" \
	"$(rows "$TMP/x.out" | awk -F'\t' '$1 ~ "do_nanosleep" && /sleep_short/ { print $1 }' | sort -u | sed 's/.*entry_SYSCALL_64_after_hwframe;//')" \
	"libc.so.6\`clock_nanosleep;libc.so.6\`__nanosleep;offcpu_wl\`nap;offcpu_wl\`sleep_short;offcpu_wl\`main;${START}offcpu_wl\`_start;offcpu_wl" "$TMP/x.out"
check_eq "-p before exec: sleep_short's 5 sleeps, named from the new image" \
	"$(rows "$TMP/x.out" | awk -F'\t' '$1 ~ "do_nanosleep" && /offcpu_wl`sleep_short/ { n += $3 } END { print n + 0 }')" 5
check_eq "-p before exec: stderr is the banner, and at most the frame-pointer notes of the exec's first moments" \
	"$(grep -v '^scry: tracing' "$TMP/x.err" | grep -Ev '^(scry: )?[0-9]+ (unwind steps (through a file whose unwind table was not loaded yet \(|the kernel could not map \(mmap lock busy; )frame pointers used\)|user stacks ended at unreadable memory)$')" ""
