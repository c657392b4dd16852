# SPDX-License-Identifier: GPL-2.0
# --top N shows the N largest rows; totals and shares still count every
# row: the total of a --top run is the total of the same run without it.
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl

head -c 40960 /dev/zero >"$TMP/a.bin"
head -c 4096 /dev/zero >"$TMP/b.bin"
CMD="dd if=$TMP/a.bin of=/dev/null bs=512; dd if=$TMP/b.bin of=/dev/null bs=512"

"$SCRY" -q read -c "$CMD" >"$TMP/all.out" 2>"$TMP/all.err"
check_status "read: exit status" $? 0 "$TMP/all.err"
"$SCRY" -q read --top 1 -c "$CMD" >"$TMP/top.out" 2>"$TMP/top.err"
check_status "read --top 1: exit status" $? 0 "$TMP/top.err"
total() { awk '$NF == "total" { print $1, $3, $4 }' "$1"; }
all=$(total "$TMP/all.out")
check "read: the total counts both files" \
	test "${all%% *}" -ge $((40960 + 4096))
check_eq "read --top 1: the total is every file's" \
	"$(total "$TMP/top.out")" "$all" "$TMP/top.out"
check_eq "read --top 1: one file shown, its share of every file's bytes" \
	"$(awk '$NF ~ /a\.bin$/ { print $1, $3, $4 }' "$TMP/top.out")" \
	"$(awk '$NF ~ /a\.bin$/ { print $1, $3, $4 }' "$TMP/all.out")" "$TMP/top.out"
check_eq "read --top 1: b.bin is left out" \
	"$(grep -c 'b\.bin' "$TMP/top.out")" 0 "$TMP/top.out"

# malloc: 100000 + 200 + one per qsort comparison + libc's own
"$SCRY" -q malloc -c "$MWL sizes" >"$TMP/m.out" 2>"$TMP/m.err"
check_status "malloc: exit status" $? 0 "$TMP/m.err"
"$SCRY" -q malloc --top 1 -c "$MWL sizes" >"$TMP/mt.out" 2>"$TMP/mt.err"
check_status "malloc --top 1: exit status" $? 0 "$TMP/mt.err"
cmp_calls=$(sed -n 's/^cmp_calls=//p' "$TMP/m.out")
mtotal() { sed -n 's/^total calls: \([0-9]*\), bytes: \([0-9]*\).*/\1 \2/p' "$1"; }
m=$(mtotal "$TMP/m.out")
check "malloc: the total counts every row" \
	test "${m%% *}" -ge $((100000 + 200 + cmp_calls))
check_eq "malloc --top 1: the total is every row's" \
	"$(mtotal "$TMP/mt.out")" "$m" "$TMP/mt.out"
check_eq "malloc --top 1: one row shown, the most bytes: big_allocs' 200 calls" \
	"$(grep -c '^  calls: ' "$TMP/mt.out") $(grep '^  calls: ' "$TMP/mt.out" | sed 's/,.*//')" \
	"1   calls: 200" "$TMP/mt.out"
