# SPDX-License-Identifier: GPL-2.0
# scry profile against cpu_wl: hot_a() burns 3x the CPU of hot_b(). The
# number of samples is F x the CPU time the kernel charged the process
# (samples_expected in lib.sh derives the tolerance); a wrong frequency,
# lost samples or samples of other processes fail it.
. "$(dirname "$0")/../lib.sh"

# share_ok A B: hot_a's share of A + B samples is 3/4 within 5 standard
# deviations of a binomial with N = A + B (periodic sampling of an
# alternating 3:1 pattern errs less than that): prints "yes" or the share
share_ok() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = a + b; d = n ? a / n - 0.75 : 1
		print (n > 0 && (d < 0 ? -d : d) <= 5 * sqrt(0.1875 / n)) ? "yes" : a "/" n
	}'
}

# (WL_REPORT reaches the workload through scry's environment: a -c with
# an "=" in it would run through sh)
WL_REPORT=$TMP/p.wl "$SCRY" profile -q -F 999 --folded -c "$WL/cpu_wl 3" >"$TMP/p.folded" 2>"$TMP/p.err"
check_status "profile -c: exit status" $? 0 "$TMP/p.err"
a=$(awk '/;hot_a / { s += $NF } END { printf "%.0f\n", s }' "$TMP/p.folded")
b=$(awk '/;hot_b / { s += $NF } END { printf "%.0f\n", s }' "$TMP/p.folded")
check_samples "profile -F 999: the process's samples are F x its CPU time" \
	"$(awk '{ s += $NF } END { printf "%.0f\n", s }' "$TMP/p.folded")" 999 "$TMP/p.wl"
check_eq "profile: hot_a has 3/4 of hot_a + hot_b's samples ($a, $b)" "$(share_ok "$a" "$b")" yes
check "profile: stacks read cpu_wl;...;main;hot_a (comm root, caller kept)" \
	grep -q '^cpu_wl;.*;main;hot_a [0-9]*$' "$TMP/p.folded"
# (the command's process is traced from its exec: scry's own fork before
# it, under scry's name, is never sampled)
check_eq "profile: every sample is of cpu_wl's process" \
	"$(grep -Evc '^cpu_wl;' "$TMP/p.folded")" 0 "$TMP/p.folded"

# the expression form, with the process filter in the kernel
WL_REPORT=$TMP/e.wl "$SCRY" -q -c "$WL/cpu_wl 1" 'profile:499 { @[comm] = count() }' >"$TMP/e.out" 2>"$TMP/e.err"
check_status "profile:499 expression: exit status" $? 0 "$TMP/e.err"
check_eq "profile:499 expression: only the traced command is counted" \
	"$(awk 'NF == 2 { print $1 }' "$TMP/e.out" | grep -Evc '^cpu_wl$')" 0 "$TMP/e.out"
check_samples "profile:499 expression: samples are 499 x the CPU time" \
	"$(awk 'NF == 2 { s += $2 } END { printf "%.0f\n", s }' "$TMP/e.out")" 499 "$TMP/e.wl"

# -d with profile: system-wide for a fixed time, a busy cpu_wl among
# the rest; JSON says how long it traced
"$WL/cpu_wl" 3 &
wl=$!
CLEANUP+=("kill -9 $wl")
"$SCRY" profile -q --json -F 99 -d 1 >"$TMP/d.json" 2>"$TMP/d.err"
check_status "profile -d 1: exit status" $? 0 "$TMP/d.err"
check_eq "profile -d 1: traced at least 1 s, cpu_wl among the sampled" \
	"$(python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print(d["duration_s"] >= 1.0, any(r["keys"]["comm"] == "cpu_wl" for r in d["rows"]))' "$TMP/d.json")" "True True"
wait_exit $wl >/dev/null

# a flame graph scry draws itself: valid XML, both functions, 3:1 widths
"$SCRY" profile -q -F 999 -o "$TMP/cpu.svg" -c "$WL/cpu_wl 3" 2>"$TMP/s.err"
check_status "profile -o cpu.svg: exit status" $? 0 "$TMP/s.err"
check "svg: parses as XML (xmllint)" xmllint --noout "$TMP/cpu.svg"
check "svg: has a frame for hot_a" grep -q '<title>hot_a ' "$TMP/cpu.svg"
check "svg: has a frame for hot_b" grep -q '<title>hot_b ' "$TMP/cpu.svg"
# the titles carry the sample counts: the widths must be in their ratio
ca=$(grep -o '<title>hot_a ([0-9]*' "$TMP/cpu.svg" | grep -o '[0-9]*$' | awk '{ s += $1 } END { printf "%.0f\n", s }')
cb=$(grep -o '<title>hot_b ([0-9]*' "$TMP/cpu.svg" | grep -o '[0-9]*$' | awk '{ s += $1 } END { printf "%.0f\n", s }')
wa=$(svg_width "$TMP/cpu.svg" hot_a)
wb=$(svg_width "$TMP/cpu.svg" hot_b)
check_eq "svg: hot_a has 3/4 of the two's samples ($ca, $cb)" "$(share_ok "$ca" "$cb")" yes
check_eq "svg: widths are proportional to samples (hot_a/hot_b within 1%)" \
	"$(awk -v wa="$wa" -v wb="$wb" -v ca="$ca" -v cb="$cb" 'BEGIN { r = (wa / wb) / (ca / cb); print (r > 0.99 && r < 1.01) ? "yes" : r }')" yes
