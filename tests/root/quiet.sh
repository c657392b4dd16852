# SPDX-License-Identifier: GPL-2.0
# -q drops the banners, and nothing that says the answer is incomplete
# (scry(1) -q): with nothing lost, stderr is empty; with unwind tables
# that did not fit, their loss lines are all it holds, as without -q.
. "$(dirname "$0")/../lib.sh"

Q='uprobe:libc:malloc { @[ustack] = count() }'
"$SCRY" -q -c "$WL/malloc_wl rate 10" "$Q" >"$TMP/n.out" 2>"$TMP/n.err"
check_status "-q, nothing lost: exit status" $? 0 "$TMP/n.err"
check_eq "-q, nothing lost: stderr is empty" "$(cat "$TMP/n.err")" ""

# unwind rows too few: the engine's count of the steps that fell back,
# and the unwinder's cause with its option
"$SCRY" -q --max-unwind-rows 1024 -c "$WL/malloc_wl rate 10" "$Q" \
	>"$TMP/u.out" 2>"$TMP/u.err"
check_status "-q, rows full: exit status" $? 0 "$TMP/u.err"
check_eq "-q, rows full: the unwinder's loss line, once" \
	"$(grep -Ec '^scry: unwind tables not loaded: [1-9][0-9]* \(rows full: raise --max-unwind-rows\)$' "$TMP/u.err")" 1 "$TMP/u.err"
check_eq "-q, rows full: no banner, nothing but loss lines" \
	"$(grep -Ev '^scry: unwind tables not loaded: |^[1-9][0-9]* unwind steps through a file whose unwind table was not loaded yet \(frame pointers used\)$' "$TMP/u.err")" "" "$TMP/u.err"
"$SCRY" --max-unwind-rows 1024 -c "$WL/malloc_wl rate 10" "$Q" \
	>"$TMP/v.out" 2>"$TMP/v.err"
check_eq "without -q: the banner, then the same loss line" \
	"$(grep -c '^scry: tracing' "$TMP/v.err") $(grep -Ec '^scry: unwind tables not loaded: [1-9][0-9]* \(rows full: raise --max-unwind-rows\)$' "$TMP/v.err")" \
	"1 1" "$TMP/v.err"
