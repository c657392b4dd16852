# SPDX-License-Identifier: GPL-2.0
# What a traced user controls, turned against root's scry, each input
# built here: file names, a thread name, symbol names and USDT notes that
# carry newlines and escape sequences must come out escaped exactly as
# docs/ESCAPING.md says (never a raw control byte, never a forged row).
. "$(dirname "$0")/../lib.sh"

HWL=$WL/hostile_wl
D=$(cd "$TMP" && pwd -P)/names

# raw_controls FILE...: bytes that could drive a terminal or break a line
# inside a field: C0 controls but tab and newline, DEL, C1 (c2 80..c2 9f)
raw_controls() {
	local c0 c1
	c0=$(cat "$@" | LC_ALL=C tr -dc '\000-\010\013-\037\177' | wc -c)
	c1=$(cat "$@" | LC_ALL=C grep -c $'\xc2[\x80-\x9f]')
	echo $((c0 + c1))
}

# file_rows FILE: the read table's rows under $D, the share column masked
file_rows() {
	grep -F "  $D/" "$1" |
		sed -nE 's/^( *[0-9]+ +[0-9.]+ [A-Za-z]+ +[0-9]+) +[0-9.]+%  /\1 SHARE  /p'
}

# row BYTES HUMAN CALLS PATH: a row of the read table as scry prints it
row() {
	printf '%11s %11s %8s SHARE  %s\n' "$1" "$2" "$3" "$4"
}

# ---- file names, through scry read ----
mkdir -p "$D" || { fail "mkdir $D"; exit 1; }
head -c 100 /dev/zero >"$D"/$'nl\nFAKE 999999 line'
head -c 200 /dev/zero >"$D"/$'\e]2;PWN\a'
head -c 300 /dev/zero >"$D"/$'c1\xc2\x9b31m'
head -c 400 /dev/zero >"$D"/$'bad\xff\xfe'
head -c 500 /dev/zero >"$D"/'lit\x1b'
head -c 600 /dev/zero >"$D"/$'ok caf\xc3\xa9'
mkdir "$D"/$'dir\n\e[31mX'

"$SCRY" -q read -c "$HWL read $D" >"$TMP/r.out" 2>"$TMP/r.err"
check_status "read: runs" $? 0 "$TMP/r.err"
want=$( {
	row 100 "100 B" 1 "$D/nl\\nFAKE 999999 line"
	row 200 "200 B" 2 "$D/\\x1b]2;PWN\\x07"
	row 300 "300 B" 3 "$D/c1\\xc2\\x9b31m"
	row 400 "400 B" 4 "$D/bad\\xff\\xfe"
	row 500 "500 B" 5 "$D/lit\\\\x1b"
	row 600 "600 B" 6 "$D/ok caf"$'\xc3\xa9'
} )
check_eq "read: each hostile file name is one row, escaped exactly" \
	"$(file_rows "$TMP/r.out")" "$want"
check_eq "read: the EISDIR failure names the directory escaped" \
	"$(grep -F "$D/" "$TMP/r.out" | grep EISDIR)" \
	"          1  EISDIR   $D/dir\\n\\x1b[31mX"
check_eq "read: no forged row" "$(grep -c '^FAKE' "$TMP/r.out")" 0
check_eq "read: no raw control byte in the output" "$(raw_controls "$TMP/r.out")" 0
# the escapes are reversible: printf %b gives back every real name
back=0
while IFS= read -r p; do
	p=${p#*SHARE  }
	[ -e "$(printf '%b' "$p")" ] && back=$((back + 1))
done < <(file_rows "$TMP/r.out")
check_eq "read: printf %b of each escaped path is the real file" $back 6

# ---- a thread name (comm) ----
"$SCRY" -q -c "$HWL comm" 'syscall:getpid { @[comm] = count() }' \
	>"$TMP/c.out" 2>"$TMP/c.err"
check_status "comm: runs" $? 0 "$TMP/c.err"
check_eq "comm: text row escaped and padded to its column" \
	"$(grep -v '^$' "$TMP/c.out")" \
	"$(printf '  %-50s %16s' 'x\x1b]2;PWN\x07\nFAKE' 7)"
"$SCRY" -q --folded -c "$HWL comm" 'syscall:getpid { @[comm] = count() }' \
	>"$TMP/cf.out" 2>"$TMP/cf.err"
check_eq "comm: folded line escaped" "$(cat "$TMP/cf.out")" \
	'x\x1b]2:PWN\x07\nFAKE 7'
check_eq "comm: no raw control byte" \
	"$(raw_controls "$TMP/c.out" "$TMP/cf.out")" 0

# ---- symbol names and USDT notes of a binary ----
# gas cannot put a newline in a label: objcopy renames that one
H=$(cd "$TMP" && pwd -P)/hw
if ! objcopy --redefine-sym $'nl_sym\rFAKE=nl_sym\nFAKE 999 x' "$HWL" "$H"; then
	fail "objcopy a symbol name with a newline"
	exit 1
fi
"$SCRY" -l "uprobe:$H:*" >"$TMP/l.out" 2>"$TMP/l.err"
check_status "-l uprobe: runs" $? 0 "$TMP/l.err"
check_eq "-l uprobe: hostile symbol names escaped, one per line" \
	"$(grep -F -e PWN -e c1 -e FAKE "$TMP/l.out")" \
	"$(printf 'uprobe:%s:%s\n' "$H" 'c1\xc2\x9b31m\xff' "$H" \
		'evil\x1b]2;PWN\x07sym' "$H" 'nl_sym\nFAKE 999 x')"
check_eq "-l uprobe: every line is a probe" \
	"$(grep -vc "^uprobe:$H:" "$TMP/l.out")" 0
"$SCRY" -l "usdt:$H" >"$TMP/u.out" 2>"$TMP/u.err"
check_status "-l usdt: runs" $? 0 "$TMP/u.err"
check_eq "-l usdt: provider, name and argument notes escaped" \
	"$(cat "$TMP/u.out")" \
	"usdt:$H:"'prov\x1b]2;PWN\x07:tick\nFAKE  # args: -4@%edi \x1b[31mred'
check_eq "-l: no raw control byte" \
	"$(raw_controls "$TMP/l.out" "$TMP/u.out")" 0

# stacks through the hostile frames: text (frames without offsets, the
# three innermost) and folded (the line's leaf end)
frames3() {
	awk '
	/^              [^ ]/ { f = substr($0, 15); sub(/\+0x[0-9a-f]+$/, "", f)
		if (n++ < 3) key = key (key == "" ? "" : ";") f; next }
	/^ +[0-9]+$/ { print key "\t" $1; key = ""; n = 0 }' "$1" | sort
}
gated_c "$TMP/s.out" "$TMP/s.err" "$H syms" "uprobe:$H:leaf { @[ustack] = count() }"
check_status "stacks: runs" $? 0 "$TMP/s.err"
check_eq "stacks: hostile frames escaped in text, exact counts" \
	"$(frames3 "$TMP/s.out")" \
	"$(printf 'hw`leaf;hw`%s;hw`syms\t%s\n' 'c1\xc2\x9b31m\xff' 6 \
		'evil\x1b]2;PWN\x07sym' 5 'nl_sym\nFAKE 999 x' 7)"
gated_c "$TMP/f.out" "$TMP/f.err" "$H syms" --folded "uprobe:$H:leaf { @[ustack] = count() }"
check_status "folded stacks: runs" $? 0 "$TMP/f.err"
check_eq "folded stacks: hostile frames escaped, ';' of a name as ':'" \
	"$(sed -E 's/.*;(syms;[^;]*;leaf [0-9]+)$/\1/' "$TMP/f.out" | sort)" \
	"$(printf 'syms;%s;leaf %s\n' 'c1\xc2\x9b31m\xff' 6 \
		'evil\x1b]2:PWN\x07sym' 5 'nl_sym\nFAKE 999 x' 7)"
check_eq "stacks: no raw control byte" \
	"$(raw_controls "$TMP/s.out" "$TMP/f.out")" 0

# ---- error messages that quote a path ----
expect "-l of a missing binary with escapes in its name" 2 \
	'^scry: cannot open '\''/tmp/no\\x1b\]2;PWN\\x07such'\'': No such file or directory$' \
	-- "$SCRY" -l $'uprobe:/tmp/no\e]2;PWN\asuch:*'
check_eq "error message: one line, no raw control byte" \
	"$(wc -l <"$TMP/e.err") $(raw_controls "$TMP/e.err")" "1 0"
