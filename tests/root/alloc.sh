# SPDX-License-Identifier: GPL-2.0
# The malloc question follows the allocator a process really calls, as
# ld.so binds it: libc's, a DT_NEEDED jemalloc (je_wl, linked like
# redis), an LD_PRELOAD'ed tcmalloc; for -c from the first call, for -p
# as the process stands. Counts are exact; the allocator is named on
# stderr when it is not libc's.
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl
JWL=$WL/je_wl
TC=/usr/lib/$(uname -m)-linux-gnu/libtcmalloc_minimal.so.4
FPSTACK='_start;__libc_start_main;__libc_start_call_main;main;hot_loop;malloc'
EXPR='uprobe:*:malloc /arg0 == 16/ { @[ustack] = count() }'

folded_rows() { grep -E ' [0-9]+$' "$1"; }

# ASK LABEL OUT CMD...: scry with $EXPR, folded, then the exact answer
ask() {
	local label=$1 out=$2
	shift 2
	"$SCRY" --folded "$@" "$EXPR" >"$out" 2>"${out%.out}.err"
	check_status "$label: exit status" $? 0 "${out%.out}.err"
	check_eq "$label: 2000 calls, one stack, to _start" \
		"$(folded_rows "$out")" "$FPSTACK 2000" "$out"
}

ask "libc's malloc (-c)" "$TMP/libc.out" -c "$MWL rate 2000"
check "libc's malloc: no allocator named" \
	bash -c "! grep -q 'binds to' '$TMP/libc.err'"

ask "jemalloc by DT_NEEDED (-c)" "$TMP/je.out" -c "$JWL rate 2000"
check "jemalloc by DT_NEEDED: named on stderr" \
	grep -Eq '^scry: malloc: pid [0-9]+ binds to /.*/libjemalloc\.so\.2.s$' "$TMP/je.err"

ask "tcmalloc by LD_PRELOAD (-c)" "$TMP/tc.out" -c "LD_PRELOAD=$TC $MWL rate 2000"
check "tcmalloc by LD_PRELOAD: named on stderr" \
	grep -q "binds to /.*/libtcmalloc_minimal\.so" "$TMP/tc.err"

# the question itself, as a user types it
"$SCRY" malloc -q --folded -c "$JWL rate 2000" >"$TMP/q.out" 2>&1
check_eq "scry malloc on jemalloc: 2000 x 16 bytes under hot_loop" \
	"$(folded_rows "$TMP/q.out" | grep ';hot_loop;' )" "$FPSTACK 32000" "$TMP/q.out"

# -p: the binding of a process already running, from its mappings
mkfifo "$TMP/gate"
"$JWL" sizes "$TMP/gate" >"$TMP/wl.out" &
wl=$!
CLEANUP+=("kill -9 $wl")
scry_bg "$TMP/p.out" "$TMP/p.err" -p $wl 'uprobe:*:malloc /arg0 == 48/ { @ = count() }'
echo go >"$TMP/gate"
wait $wl
wait $SCRY_PID
check_status "-p jemalloc: exit status" $? 0 "$TMP/p.err"
check_eq "-p jemalloc: 100000 calls of 48 bytes" \
	"$(awk 'NF == 1 && $1 ~ /^[0-9]+$/ { print $1 }' "$TMP/p.out")" 100000 "$TMP/p.out"
check "-p jemalloc: named on stderr" grep -q "binds to /.*/libjemalloc" "$TMP/p.err"
