# SPDX-License-Identifier: GPL-2.0
# What a traced user controls, turned against root's scry, each input
# built here: file names, a thread name, symbol names and USDT notes that
# carry newlines and escape sequences must come out escaped exactly as
# docs/ESCAPING.md says (never a raw control byte, never a forged row);
# -o into a directory another user (nobody) writes, onto devices, FIFOs
# and /proc links, a full file system; errors found before tracing; -p
# of a zombie.
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
run_c "$TMP/s.out" "$TMP/s.err" "$H syms" "uprobe:$H:leaf { @[ustack] = count() }"
check_status "stacks: runs" $? 0 "$TMP/s.err"
check_eq "stacks: hostile frames escaped in text, exact counts" \
	"$(frames3 "$TMP/s.out")" \
	"$(printf 'hw`leaf;hw`%s;hw`syms\t%s\n' 'c1\xc2\x9b31m\xff' 6 \
		'evil\x1b]2;PWN\x07sym' 5 'nl_sym\nFAKE 999 x' 7)"
run_c "$TMP/f.out" "$TMP/f.err" "$H syms" --folded "uprobe:$H:leaf { @[ustack] = count() }"
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

# ---- -o as root where another user writes ----
# nobody's home for the test: a directory they own, and /tmp's kind of
# directory (sticky, world-writable); root's secret must survive
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
chmod 711 "$TMP"
O=$(cd "$TMP" && pwd -P)/o
mkdir -p "$O/home" "$O/sticky" "$O/target" && chown nobody "$O/home" &&
	chmod 1777 "$O/sticky" || { fail "prepare $O"; exit 1; }
printf 'SECRET\n' >"$O/secret" && chmod 600 "$O/secret"
TRACE=(-q -c "$HWL comm" 'syscall:getpid { @[comm] = count() }')

as_nobody ln -s "$O/secret" "$O/home/r.txt"
expect "-o: nobody's link to root's file, in nobody's directory" 2 \
	"^scry: -o $O/home/r.txt: 'r.txt' is a symbolic link owned by uid 65534: not following a link another user controls \(give the path it points to\)$" \
	-- "$SCRY" "${TRACE[@]}" -o "$O/home/r.txt"
as_nobody ln -s "$O/secret" "$O/sticky/r.txt"
expect "-o: nobody's link in a sticky world-writable directory" 2 \
	"^scry: -o $O/sticky/r.txt: 'r.txt' is a symbolic link owned by uid 65534: not following" \
	-- "$SCRY" "${TRACE[@]}" -o "$O/sticky/r.txt"
as_nobody ln -s "$O/target" "$O/home/dir"
expect "-o: nobody's link on the way to the file" 2 \
	"^scry: -o $O/home/dir/x: 'dir' is a symbolic link owned by uid 65534: not following" \
	-- "$SCRY" "${TRACE[@]}" -o "$O/home/dir/x"
check_eq "-o: root's secret untouched, nothing where the links point" \
	"$(cat "$O/secret") $(ls -A "$O/target" | wc -l)" "SECRET 0"
check_eq "-o: nobody's links left as they were" \
	"$(find "$O/home" "$O/sticky" -type l -user nobody | wc -l)" 3

"$SCRY" "${TRACE[@]}" -o "$O/home/ok.txt" 2>"$TMP/ok.err"
check_status "-o: a new file in nobody's directory" $? 0 "$TMP/ok.err"
check_eq "-o: the report is there, owned by root, nothing else left" \
	"$(grep -c 'x\\x1b' "$O/home/ok.txt") $(stat -c %U "$O/home/ok.txt") $(ls -A "$O/home" | wc -l)" \
	"1 root 3"

# ---- -o onto what is not a regular file: written in place ----
# a null device of our own: a scry that replaced it must not break the
# machine's /dev/null
mknod -m 666 "$O/null" c 1 3
"$SCRY" "${TRACE[@]}" -o "$O/null" 2>"$TMP/n.err"
check_status "-o a null device: runs" $? 0 "$TMP/n.err"
check_eq "-o a null device: still the device" "$(stat -c '%F %t:%T' "$O/null")" \
	"character special file 1:3"
# what /dev/stdout is, made here for the same reason
ln -s /proc/self/fd/1 "$O/to-stdout"
"$SCRY" "${TRACE[@]}" -o "$O/to-stdout" >"$TMP/ln.out" 2>"$TMP/ln.err"
check_status "-o LINK to /proc/self/fd/1: runs" $? 0 "$TMP/ln.err"
check_eq "-o LINK to /proc/self/fd/1: report on stdout, the link stays" \
	"$(grep -c 'x\\x1b' "$TMP/ln.out") $(stat -c %F "$O/to-stdout")" \
	"1 symbolic link"
mkfifo "$O/fifo"
timeout 60 cat "$O/fifo" >"$TMP/fifo.out" &
reader=$!
"$SCRY" "${TRACE[@]}" -o "$O/fifo" 2>"$TMP/f.err"
check_status "-o FIFO: runs" $? 0 "$TMP/f.err"
wait $reader
check_eq "-o FIFO: the reader got the report, the FIFO stays" \
	"$(grep -c 'x\\x1b' "$TMP/fifo.out") $(stat -c %F "$O/fifo")" "1 fifo"

# ---- failures named before tracing, or with their own errno ----
t0=$(date +%s%N)
expect "-o /nonexistent/x: refused before tracing" 2 \
	"^scry: -o /nonexistent/x: 'nonexistent': No such file or directory$" \
	-- "$SCRY" offcpu -d 3 -o /nonexistent/x
ms=$((($(date +%s%N) - t0) / 1000000))
check_eq "-o /nonexistent/x: one line, no tracing banner" \
	"$(wc -l <"$TMP/e.err") $(grep -c tracing "$TMP/e.err")" "1 0"
check "-o /nonexistent/x: fails at once, not after -d 3 (${ms} ms)" test "$ms" -lt 2500
mkdir "$O/small"
if mount -t tmpfs -o size=64k scry-test "$O/small"; then
	CLEANUP+=("umount -l '$O/small'")
	head -c 64k /dev/zero >"$O/small/fill" 2>/dev/null
	expect "-o on a full file system: ENOSPC, not EIO" 1 \
		"^scry: writing $O/small/out: No space left on device$" \
		-- "$SCRY" "${TRACE[@]}" -o "$O/small/out"
	check_eq "-o on a full file system: no temporary file left" \
		"$(ls -A "$O/small")" fill
else
	fail "mount a 64k tmpfs on $O/small"
fi
mknod -m 666 "$O/full" c 1 7
expect "stdout on a full device: ENOSPC" 1 \
	"^scry: writing standard output: No space left on device$" \
	-- sh -c "exec \"\$0\" \"\$@\" >'$O/full'" "$SCRY" "${TRACE[@]}"

# ---- -p of a zombie ----
( sleep 0.01 & echo $! >"$TMP/zpid"; exec sleep 30 ) &
parent=$!
CLEANUP+=("kill $parent")
for ((i = 0; i < 100; i++)); do
	[ -s "$TMP/zpid" ] && [ "$(awk '/^State:/ { print $2 }' "/proc/$(cat "$TMP/zpid")/status" 2>/dev/null)" = Z ] && break
	sleep 0.05
done
z=$(cat "$TMP/zpid")
expect "-p of a zombie: says it has exited" 2 \
	"^scry: -p: pid $z has exited \(a zombie its parent has not reaped yet\): nothing to trace$" \
	-- "$SCRY" offcpu -p "$z" -d 1
kill "$parent" 2>/dev/null

# ---- map sizes the memory cgroup cannot hold: refused before loading ----
# a child of this test's own memory cgroup, limited to 1.5 GiB (the
# issue's case); scry runs inside it with the largest sizes
cg_dir() {	# the memory cgroup directory of this shell, v1 or v2
	local v1 v2
	v1=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
	v2=$(awk -F: '$1 == 0 && $2 == "" { print $3 }' /proc/self/cgroup)
	if [ -n "$v1" ] && [ -d "/sys/fs/cgroup/memory$v1" ]; then
		echo "/sys/fs/cgroup/memory${v1%/}"
	elif [ -n "$v2" ] && [ -f "/sys/fs/cgroup${v2%/}/memory.max" ]; then
		echo "/sys/fs/cgroup${v2%/}"
	fi
}
CG=$(cg_dir)
CG=${CG:+$CG/scry-test-$$}
if [ -n "$CG" ] && mkdir "$CG" 2>/dev/null; then
	CLEANUP+=("rmdir '$CG'")
	if [ -f "$CG/memory.limit_in_bytes" ]; then
		echo $((1536 << 20)) >"$CG/memory.limit_in_bytes"
	else
		echo $((1536 << 20)) >"$CG/memory.max"
	fi
	t0=$(date +%s%N)
	expect "--max-keys/--max-stacks maxima in a 1.5 GiB cgroup: refused, naming them" 2 \
		'^scry: BPF maps would take [0-9.]+ GiB of kernel memory, more than the 1\.[0-9] GiB available \(memory cgroup limit\): lower --max-stacks \([0-9.]+ GiB at 16777216\) or --max-keys \([0-9.]+ GiB at 16777216\)$' \
		-- sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "$CG" \
		"$SCRY" offcpu -d 3 --max-keys 16777216 --max-stacks 16777216
	ms=$((($(date +%s%N) - t0) / 1000000))
	check_eq "maxima: one line, nothing traced" \
		"$(wc -l <"$TMP/e.err") $(grep -c tracing "$TMP/e.err")" "1 0"
	check "maxima: refused before loading, not after -d 3 (${ms} ms)" test "$ms" -lt 2500
	expect "--max-keys 4194304 in a 1.5 GiB cgroup: names --max-keys alone" 2 \
		'^scry: BPF maps would take [0-9.]+ GiB of kernel memory, more than the 1\.[0-9] GiB available \(memory cgroup limit\): lower --max-keys \([0-9.]+ GiB at 4194304\)$' \
		-- sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "$CG" \
		"$SCRY" offcpu -d 3 --max-keys 4194304
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "$CG" \
		"$SCRY" "${TRACE[@]}" --max-keys 262144 >"$TMP/mk.out" 2>"$TMP/mk.err"
	check_status "--max-keys 262144 in the 1.5 GiB cgroup: fits, runs" $? 0 "$TMP/mk.err"
	check_eq "--max-keys 262144: the exact answer" "$(grep -c 'x\\x1b.* 7$' "$TMP/mk.out")" 1
else
	skip "map sizes in a limited memory cgroup" "cannot create a child of this shell's memory cgroup ($(cg_dir))"
fi
