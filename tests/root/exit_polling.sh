# SPDX-License-Identifier: GPL-2.0
# Issue 14: a system-wide question on a host where processes come and go
# polls nothing per exited process. The kernel tells scry each exit; the
# drain names every row of every process from what was kept, so no
# stat() or kill() may name a process after it is gone. scry profile
# runs while N short cpu_wl processes start and end one after another,
# a second scry counts the first one's newfstatat and kill calls (by
# path and by target) to its end, drain included: none of them names a
# churned process, and 250 processes cost no more calls about processes
# (/proc/PID/..., /tmp/perf-PID.map, kill) than 50. The other calls are
# fstat()s of files new to scry, a constant a file, which the rest of
# the host (other tests running) varies: shown, not compared.
. "$(dirname "$0")/../lib.sh"

COUNT='syscall:newfstatat { @s[str(arg1)] = count() }
syscall:kill { @k[arg0] = count() }'

# churn TAG N: the run; leaves TAG.pids (the churned processes),
# TAG.calls (the counter's answer) and TAG.out (the profile)
churn() {
	local tag=$1 n=$2 i sp cp
	scry_bg "$TMP/$tag.out" "$TMP/$tag.err" profile -F 999 --folded ||
		return 1
	sp=$SCRY_PID
	: >"$TMP/$tag.cerr"
	"$SCRY" -p "$sp" "$COUNT" >"$TMP/$tag.calls" 2>>"$TMP/$tag.cerr" &
	cp=$!
	CLEANUP+=("kill -9 $cp")
	wait_for "$TMP/$tag.cerr" tracing 30 "$cp" || {
		fail "$tag: the counting scry did not start"
		return 1
	}
	: >"$TMP/$tag.pids"
	for ((i = 0; i < n; i++)); do
		"$WL/cpu_wl" 0.02 >/dev/null &
		echo $! >>"$TMP/$tag.pids"
		wait $!
	done
	# past the exit notices and the eviction age (session.c EVICT_AGE_S)
	sleep 2
	kill -INT "$sp"
	wait "$sp"
	check_status "$tag: scry profile exits 0" $? 0 "$TMP/$tag.err"
	wait "$cp"
	check_status "$tag: the counting scry exits 0 with its target" $? 0 \
		"$TMP/$tag.cerr"
}

# calls TAG: "TOTAL PROCS NAMED": all counted calls, those about a
# process (/proc/PID/..., /tmp/perf-PID.map, kill(PID, ...)), and those
# naming a churned process
calls() {
	awk 'FNR == NR { churned[$1] = 1; next }
	     /^@s:/ { m = "s"; next } /^@k:/ { m = "k"; next }
	     NF == 0 || !m { next }
	     { n = $NF; total += n; key = $1
	       if (m == "k") { procs += n; if (key in churned) named += n; next }
	       if (match(key, /^\/proc\/[0-9]+\//) || match(key, /perf-[0-9]+\.map$/)) {
		       procs += n
		       p = key; gsub(/[^0-9]/, "", p); if (p in churned) named += n } }
	     END { printf "%d %d %d\n", total, procs, named }' "$TMP/$1.pids" "$TMP/$1.calls"
}

churn n50 50
churn n250 250
read -r t50 p50 named50 <<<"$(calls n50)"
read -r t250 p250 named250 <<<"$(calls n250)"
echo "# stat()/kill() calls of scry profile: 50 processes $t50 ($p50 about a process, $named50 naming one of them), 250 processes $t250 ($p250, $named250)"
check_eq "50 processes: no stat() or kill() names one of them" "$named50" 0 "$TMP/n50.calls"
check_eq "250 processes: no stat() or kill() names one of them" "$named250" 0 "$TMP/n250.calls"
check "200 more processes cost fewer than 100 more stat()/kill() calls about processes ($p50 -> $p250)" \
	test $((p250 - p50)) -lt 100
# and they were named: the churned processes' stacks, from what was kept
check "250 processes: cpu_wl's samples are named (main;hot_a)" \
	grep -q '^cpu_wl;.*main;hot_a' "$TMP/n250.out"
