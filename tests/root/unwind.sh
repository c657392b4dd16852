# SPDX-License-Identifier: GPL-2.0
# DWARF unwinding in the kernel against libgcc's backtrace() taken in the
# same function, through Debian's libc (no frame pointers) and functions
# built without frame pointers: every event's stack must equal it frame
# for frame and end at _start. --unwind=fp on the same program is the
# negative control.
. "$(dirname "$0")/../lib.sh"

UWL=$WL/unwind_wl
PY=/usr/bin/python3

# under_c MODE OUT JSON ARGS...: scry ARGS -c "unwind_wl MODE OUT", ungated:
# backtrace() is taken from the process's first moments, and scry's stack
# must equal it all the same
under_c() {
	local mode=$1 out=$2 json=$3
	shift 3
	"$SCRY" -c "$UWL $mode $out" "$@" >"$json" 2>"$json.err"
}

# uprobe on malloc(777), called from record() inside qsort's comparator
under_c qsort "$TMP/bt" "$TMP/m.json" --json \
	'uprobe:libc:malloc /arg0 == 777/ { @[ustack] = count() }'
check_status "dwarf uprobe: exit status" $? 0 "$TMP/m.json.err"
read -r rows events matched frames last <<<"$(compare_bt "$TMP/m.json" "$TMP/bt")"
bt_n=$(wc -l <"$TMP/bt")
check_eq "dwarf uprobe: one event" "$events" 1
check_eq "dwarf uprobe: its stack equals backtrace()'s frame for frame" "$matched" 1
check_eq "dwarf uprobe: malloc + record + backtrace()'s $((bt_n - 1)) callers" "$frames" $((bt_n + 1))
check_eq "dwarf uprobe: the stack ends at _start" "$last" _start

under_c qsort "$TMP/bt2" "$TMP/fp.json" --json --unwind=fp \
	'uprobe:libc:malloc /arg0 == 777/ { @[ustack] = count() }'
read -r rows events matched frames last <<<"$(compare_bt "$TMP/fp.json" "$TMP/bt2")"
check "--unwind=fp (negative control): shorter than backtrace() ($frames frames)" test "$frames" -lt "$bt_n"

# -v: the tables of the program, its ld.so and libc were built while the
# engine loaded (unwind_early.c), and the stack is whole all the same
under_c qsort "$TMP/bt5" "$TMP/v.json" --json -v \
	'uprobe:libc:malloc /arg0 == 777/ { @[ustack] = count() }'
read -r rows events matched frames last <<<"$(compare_bt "$TMP/v.json" "$TMP/bt5")"
check_eq "tables built while loading: one row, equal to backtrace(), ends at _start" \
	"$rows $events $matched $last" "1 1 1 _start"
interp=$(readelf -p .interp "$UWL" | sed -n 's/^ *\[ *[0-9]*\] *//p')
for f in "$UWL" "$interp" 'libc\.so\.6'; do
	check "tables built while loading: $f's" \
		grep -Eq "^scry: -c: .*$f: unwind table built while loading\$" "$TMP/v.json.err"
done

# --unwind=dwarf: DWARF tables, named explicitly (auto is the default)
under_c qsort "$TMP/bt4" "$TMP/dw.json" --json --unwind=dwarf \
	'uprobe:libc:malloc /arg0 == 777/ { @[ustack] = count() }'
read -r rows events matched frames last <<<"$(compare_bt "$TMP/dw.json" "$TMP/bt4")"
check_eq "--unwind=dwarf: one row, equal to backtrace(), ends at _start" "$rows $events $matched $last" "1 1 1 _start"
expect "--unwind=bogus" 2 "^scry: --unwind: unknown method 'bogus' \(auto, dwarf, fp\)$" -- "$SCRY" --unwind=bogus offcpu -d 1

# a signal handler's stack crosses the kernel's signal frame (__restore_rt)
under_c signal "$TMP/bts" "$TMP/s.json" --json \
	'uprobe:libc:malloc /arg0 == 777/ { @[ustack] = count() }'
read -r rows events matched frames last <<<"$(compare_bt "$TMP/s.json" "$TMP/bts")"
check_eq "dwarf through a signal frame: equals backtrace()" "$matched/$events" 1/1
check_eq "dwarf through a signal frame: ends at _start" "$last" _start

# 300 deep: truncation is flagged, not garbage
under_c "deep 300" "$TMP/btd" "$TMP/d.json" --json \
	'uprobe:libc:malloc /arg0 == 777/ { @[ustack] = count() }'
# (SCRY_MAX_FRAMES = 127 return addresses; none of dive's frames is
# inlined, so exactly 127 frames)
check_eq "300-deep recursion: exactly 127 frames, flagged truncated" \
	"$($PY -c 'import json,sys; k=json.loads(open(sys.argv[1]).readline())["rows"][0]["keys"]; print(len(k["ustack"]), k.get("ustack_truncated", False))' "$TMP/d.json")" "127 True"

# off-CPU: blocked in read() inside the comparator. Once the workload is
# seen blocked in read(2) (syscall 0 in /proc/PID/syscall), 0.2 s more
# makes that one sleep (state S) longer than 100 ms; SIGTERM ends it, and
# it is the only sleep of the process that long.
mkfifo "$TMP/gate"
start_gated wl "$UWL" block "$TMP/btb" "$TMP/gate"
scry_bg "$TMP/b.json" "$TMP/b.err" --json -p $wl 'offcpu /latency > 100000000 && state == 1/ { @[ustack] = count() }'
open_gate "$TMP/gate"
for ((i = 0; i < 200; i++)); do
	{ read -r sc _ <"/proc/$wl/syscall"; } 2>/dev/null
	[ "${sc:-}" = 0 ] && break
	sleep 0.05
done
check_eq "dwarf offcpu: the workload blocks in read(2)" "${sc:-}" 0
sleep 0.2
kill $wl
wait_exit $SCRY_PID
# the comparator blocks from another call site than record()'s: compare
# the frames above the comparator
read -r rows events matched frames last <<<"$(compare_bt "$TMP/b.json" "$TMP/btb" 2)"
check_eq "dwarf offcpu (read in the comparator): every stack equals backtrace()" "$matched" "$events"
check_eq "dwarf offcpu: exactly one event, in one row" "$rows $events" "1 1"
check_eq "dwarf offcpu: ends at _start" "$last" _start

# profile: every sample of the process reaches _start. -p on a gated
# process: its tables are loaded before it runs, so every sample counts,
# none is left out of the denominator. A sample with no user stack is
# allowed only in the kernel's exit path (the process's memory is gone).
# The count is F x the CPU time (samples_expected).
mkfifo "$TMP/gp"
WL_REPORT=$TMP/p.wl start_gated wl "$UWL" spin 2 "$TMP/gp"
scry_bg "$TMP/p.json" "$TMP/p.err" profile -F 499 --json -p $wl
open_gate "$TMP/gp"
wait_exit $wl
wait_exit $SCRY_PID
read -r total full exiting bad <<<"$($PY - "$TMP/p.json" <<'PYEOF'
import json, sys
total = full = exiting = 0
bad = []
for row in json.loads(open(sys.argv[1]).readline())["rows"]:
    st = [f for f in row["keys"]["ustack"] if not f["inlined"]]
    ks = [f["symbol"] for f in row["keys"]["kstack"]]
    total += row["count"]
    if st and st[-1]["symbol"] == "_start":
        full += row["count"]
    elif not st and ("do_exit" in ks or "do_group_exit" in ks):
        exiting += row["count"]
    else:
        bad.append(";".join(str(f["symbol"]) for f in st))
print(total, full, exiting, "|".join(bad) or "-")
PYEOF
)"
check_samples "dwarf profile: the process's samples are F x its CPU time" "$total" 499 "$TMP/p.wl"
check_eq "dwarf profile: every sample reaches _start (but in the exit path)" "$full $bad" "$((total - exiting)) -"

# inlined code (-O2 -g): its own frame, marked inlined (folded _[i])
"$SCRY" -q --folded -c "$WL/inline_wl" 'uprobe:libc:malloc /arg0 == 555/ { @[ustack] = count() }' >"$TMP/i.folded" 2>&1
check_eq "inlined function is its own frame: main;outer_fn;take_555_[i];malloc" \
	"$(grep -o 'main;outer_fn;take_555_\[i\];malloc [0-9]*' "$TMP/i.folded")" "main;outer_fn;take_555_[i];malloc 1"

# a JIT region named by /tmp/perf-PID.map
"$SCRY" profile -q -F 499 --folded -c "$WL/jit_wl 1 $TMP/jitmap" >"$TMP/j.folded" 2>/dev/null
check "JIT code is named from /tmp/perf-PID.map (jit_spin)" grep -q ';jit_spin [0-9]*$' "$TMP/j.folded"
rm -f "$(cat "$TMP/jitmap")"

# A perf map older than its process is an earlier process's with the same
# pid (JITs leave theirs behind): it names nothing. The same map written
# after the process started names its code.
"$WL/jit_wl" 60 "$TMP/jitline" planted &
jp=$!
CLEANUP+=("kill -9 $jp" "rm -f /tmp/perf-$jp.map")
wait_for "$TMP/jitline" jit_spin 30 $jp
cp "$TMP/jitline" "/tmp/perf-$jp.map"
touch -d '-1 hour' "/tmp/perf-$jp.map"
"$SCRY" profile -q -F 499 --folded -d 1 -p $jp >"$TMP/js.folded" 2>/dev/null
touch "/tmp/perf-$jp.map"
"$SCRY" profile -q -F 499 --folded -d 1 -p $jp >"$TMP/jf.folded" 2>/dev/null
kill -9 $jp
wait $jp 2>/dev/null
rm -f "/tmp/perf-$jp.map"
check_eq "a perf map older than its process: JIT samples, none named from it" \
	"$(awk '/;\[unknown\] [0-9]+$/ { u += $NF } /jit_spin/ { j++ } END { print (u > 0 ? "unnamed" : "none"), j + 0 }' "$TMP/js.folded")" \
	"unnamed 0" "$TMP/js.folded"
check "the same perf map written after its process started names it (jit_spin)" \
	grep -q ';jit_spin [0-9]*$' "$TMP/jf.folded"

# a binary deleted while running still symbolizes
cp "$WL/offcpu_wl" "$TMP/doomed_wl"
mkfifo "$TMP/gate2"
start_gated wl "$TMP/doomed_wl" 3 1 "$TMP/gate2"
scry_bg "$TMP/x.out" "$TMP/x.err" offcpu -p $wl
rm "$TMP/doomed_wl"
open_gate "$TMP/gate2"
wait_exit $wl
wait_exit $SCRY_PID
check "deleted binary: its frames still have names (doomed_wl\`sleep_short)" grep -q 'doomed_wl`sleep_short' "$TMP/x.out"

# --stats reports the table memory
under_c qsort "$TMP/bt3" "$TMP/st.out" --stats 'uprobe:libc:malloc /arg0 == 777/ { @[ustack] = count() }'
check "--stats: table memory reported" grep -Eq '^scry: unwind tables: [0-9]+ files, .* MiB of' "$TMP/st.out.err"

# a library dlopen'ed after tracing started, built without frame pointers
run_c "$TMP/dl.folded" "$TMP/dl.err" "$WL/dl_wl dlopen $WL/libdlwl.so" \
	--folded 'uprobe:libc:malloc /arg0 == 999/ { @[ustack] = count() }'
check_eq "dlopen'ed library: _start;...;main;lib_fn;lib_leaf;malloc, once" \
	"$(grep -c '^_start;.*;main;lib_fn;lib_leaf;malloc 1$' "$TMP/dl.folded")" 1

# a second thread: its stack ends in libc's thread start (start_thread,
# clone3 when libc's debug symbols are installed), not in garbage
run_c "$TMP/th.json" "$TMP/th.err" "$WL/dl_wl thread" \
	--json 'uprobe:libc:malloc /arg0 == 888/ { @[ustack] = count() }'
check_eq "thread: malloc <- thread_fn <- libc's two thread-start frames, nothing after" \
	"$($PY - "$TMP/th.json" <<'PYEOF'
import json, sys
rows = json.loads(open(sys.argv[1]).readline())["rows"]
st = [f for f in rows[0]["keys"]["ustack"] if not f["inlined"]]
names = [f["symbol"] for f in st]
tail = st[names.index("thread_fn") + 1:]
ok = len(rows) == 1 and names[0] == "malloc" and len(tail) == 2 and \
     all(f["module"] == "libc.so.6" for f in tail) and \
     all(f["symbol"] in (None, "start_thread", "clone3", "__clone3") for f in tail)
print("yes" if ok else names)
PYEOF
)" yes
