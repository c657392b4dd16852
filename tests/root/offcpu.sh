# SPDX-License-Identifier: GPL-2.0
# scry offcpu against a workload with known sleeps: 10 ms x N from
# sleep_short(), 50 ms x M from sleep_long(), one off-CPU period each.
. "$(dirname "$0")/../lib.sh"

N=20 M=4
SHORT_BUCKET=8388608	# [2^23, 2^24) ns holds 10 ms
LONG_BUCKET=33554432	# [2^25, 2^26) ns holds 50 ms

check_ground_truth() {	# LABEL FILE
	local f=$2
	check_eq "$1: $N sleeps of 10 ms in bucket $SHORT_BUCKET under sleep_short" \
		"$(sum_rows "$f" 'nanosleep.*sleep_short' $SHORT_BUCKET)" $N "$f"
	check_eq "$1: $M sleeps of 50 ms in bucket $LONG_BUCKET under sleep_long" \
		"$(sum_rows "$f" 'nanosleep.*sleep_long' $LONG_BUCKET)" $M
	# (short involuntary preemptions inside nanosleep are real off-CPU
	# periods too: the neighbouring buckets must hold none of the sleeps)
	check_eq "$1: no 10 ms sleep in a neighbouring bucket (4 ms - 33 ms)" \
		"$(rows "$f" | awk -F'\t' '$1 ~ /nanosleep.*sleep_short/ && $2 >= 4194304 && $2 <= 16777216 { s += $3 } END { print s + 0 }')" $N
	# on a miss, show every row with a sleep in it and scry's stderr
	if [ "$(sum_rows "$f" 'nanosleep.*sleep_short' $SHORT_BUCKET)" != $N ] ||
	   [ "$(sum_rows "$f" 'nanosleep.*sleep_long' $LONG_BUCKET)" != $M ]; then
		rows "$f" | awk -F'\t' '$3 > 0 && ($2 == '$SHORT_BUCKET' || $2 == '$LONG_BUCKET')' |
			sed 's/^/#   row: /'
		sed 's/^/#   stderr: /' "${f%.out}.err" 2>/dev/null
	fi
	check_eq "$1: no 50 ms sleep in a neighbouring bucket (16 ms - 134 ms)" \
		"$(rows "$f" | awk -F'\t' '$1 ~ /nanosleep.*sleep_long/ && $2 >= 16777216 && $2 <= 67108864 { s += $3 } END { print s + 0 }')" $M
	check "$1: kernel frames name the sleep (vmlinux\`do_nanosleep)" \
		grep -q 'vmlinux`do_nanosleep' "$f"
	check "$1: user frames are symbolized (offcpu_wl\`main)" \
		grep -q 'offcpu_wl`main+0x' "$f"
	check "$1: comm is a key" grep -q '^  offcpu_wl ' "$f"
	check "$1: no BPF trampoline frames" \
		bash -c "! grep -Eq 'bpf_prog_|bpf_trace_run|__bpf_trace' '$f'"
}

# -c: run the command, stop when it exits
gated_c "$TMP/c.out" "$TMP/c.err" "$WL/offcpu_wl $N $M" offcpu
check_status "-c: exit status" $? 0 "$TMP/c.err"
check_ground_truth "-c" "$TMP/c.out"
check "-c: header names the unit" grep -q '^off-CPU time (ns)' "$TMP/c.out"

# -p: attach to a running process, stop when it exits; it exits before
# scry prints, so symbols must come from the mappings captured earlier
mkfifo "$TMP/gate"
"$WL/offcpu_wl" $N $M "$TMP/gate" &
wl=$!
CLEANUP+=("kill -9 $wl")
scry_bg "$TMP/p.out" "$TMP/p.err" offcpu -p $wl
echo go >"$TMP/gate"
wait $wl
wait $SCRY_PID
check_status "-p: scry exits 0 when the traced process exits" $? 0 "$TMP/p.err"
check_ground_truth "-p (process exited first)" "$TMP/p.out"

# --folded: comm;user frames;kernel frames_[k] MICROSECONDS
gated_c "$TMP/f.out" "$TMP/f.err" "$WL/offcpu_wl $N $M" offcpu --folded
short_us=$(awk '/sleep_short/ && /do_nanosleep_\[k\]/ { s += $NF } END { print s + 0 }' "$TMP/f.out")
long_us=$(awk '/sleep_long/ && /do_nanosleep_\[k\]/ { s += $NF } END { print s + 0 }' "$TMP/f.out")
check_range "--folded: sleep_short total within 10% of $((N * 10)) ms (us)" "$short_us" $((N * 10000)) $((N * 11000))
check_range "--folded: sleep_long total within 10% of $((M * 50)) ms (us)" "$long_us" $((M * 50000)) $((M * 55000))
check "--folded: root frame is comm, kernel frames end in _[k]" \
	grep -Eq '^offcpu_wl;.*main;.*sleep_short;.*;do_nanosleep_\[k\];.* [0-9]+$' "$TMP/f.out"
check "--folded: every line is FRAMES COUNT with no empty frame" \
	bash -c "! grep -Ev '^[^ ;][^;]*(;[^;]+)* [0-9]+\$' '$TMP/f.out' | grep -q ."

# --state / --min-block filter in the kernel
gated_c "$TMP/m.out" "$TMP/m.err" "$WL/offcpu_wl $N $M" offcpu --min-block 30000
check_eq "--min-block 30000: the 10 ms sleeps are filtered out" \
	"$(sum_rows "$TMP/m.out" 'nanosleep.*sleep_short' $SHORT_BUCKET)" 0
check_eq "--min-block 30000: the 50 ms sleeps stay" \
	"$(sum_rows "$TMP/m.out" 'nanosleep.*sleep_long' $LONG_BUCKET)" $M
"$SCRY" offcpu -q --state D -c "$WL/offcpu_wl $N $M" >"$TMP/d.out" 2>&1
check_eq "--state D: nanosleep (state S) is filtered out" \
	"$(rows "$TMP/d.out" | grep -c 'sleep_short')" 0
"$SCRY" -v offcpu --state S --min-block 5 -d 0.1 >"$TMP/v.out" 2>"$TMP/v.err"
check "-v prints the expansion" grep -qF \
	'offcpu expands to: offcpu /state == 1 && latency >= 5000/ { @[kstack, ustack, comm] = quantize(latency) }' "$TMP/v.err"

# -d: system-wide for a fixed time
start=$(date +%s%N)
"$SCRY" offcpu -q -d 1 >"$TMP/sys.out" 2>"$TMP/sys.err"
rc=$?
el=$((($(date +%s%N) - start) / 1000000))
check_status "-d 1: exit status" $rc 0 "$TMP/sys.err"
check_range "-d 1: stops after about a second (ms)" "$el" 900 5000
check "-d 1: system-wide output has histograms" grep -q 'Distribution' "$TMP/sys.out"
