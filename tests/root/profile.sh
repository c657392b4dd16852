# SPDX-License-Identifier: GPL-2.0
# scry profile against cpu_wl: hot_a() burns 3x the CPU of hot_b().
. "$(dirname "$0")/../lib.sh"

"$SCRY" profile -q -F 999 --folded -c "$WL/cpu_wl 3" >"$TMP/p.folded" 2>"$TMP/p.err"
check_status "profile -c: exit status" $? 0 "$TMP/p.err"
a=$(awk '/;hot_a / { s += $NF } END { print s + 0 }' "$TMP/p.folded")
b=$(awk '/;hot_b / { s += $NF } END { print s + 0 }' "$TMP/p.folded")
check "profile: samples in hot_a and hot_b ($a, $b)" test "$a" -gt 500 -a "$b" -gt 100
check_range "profile: hot_a's share of the two is 75% within 5 points (%)" \
	$((100 * a / (a + b))) 70 80
check "profile: stacks read cpu_wl;...;main;hot_a (comm root, caller kept)" \
	grep -q '^cpu_wl;.*;main;hot_a [0-9]*$' "$TMP/p.folded"

# the expression form, with the process filter in the kernel
"$SCRY" -q -c "$WL/cpu_wl 1" 'profile:499 { @[comm] = count() }' >"$TMP/e.out" 2>&1
check "profile:499 expression: only the traced command is counted" \
	bash -c "awk 'NF == 2' '$TMP/e.out' | grep -vq '^ *cpu_wl ' && exit 1 || exit 0"
check "profile:499 expression: cpu_wl has samples" grep -Eq '^  cpu_wl +[0-9]+$' "$TMP/e.out"

# a flame graph scry draws itself: valid XML, both functions, 3:1 widths
"$SCRY" profile -q -F 999 -o "$TMP/cpu.svg" -c "$WL/cpu_wl 3" 2>"$TMP/s.err"
check_status "profile -o cpu.svg: exit status" $? 0 "$TMP/s.err"
check "svg: parses as XML (xmllint)" xmllint --noout "$TMP/cpu.svg"
check "svg: has a frame for hot_a" grep -q '<title>hot_a ' "$TMP/cpu.svg"
check "svg: has a frame for hot_b" grep -q '<title>hot_b ' "$TMP/cpu.svg"
wa=$(svg_width "$TMP/cpu.svg" hot_a)
wb=$(svg_width "$TMP/cpu.svg" hot_b)
check_range "svg: hot_a's width is 75% of the two within 5 points (%)" \
	"$(awk -v a="$wa" -v b="$wb" 'BEGIN { printf "%d", 100 * a / (a + b) }')" 70 80
