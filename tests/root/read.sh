# SPDX-License-Identifier: GPL-2.0
# scry read / scry write against read_wl's known calls: exact bytes and
# calls per full path (plain file, tmpfs mounted in a subdirectory, bind
# mount, deleted while open, openat-relative, pipe, /dev/zero), a failed
# read of a closed fd, -p, syscall latency and fd.path in expressions.
. "$(dirname "$0")/../lib.sh"

RWL=$WL/read_wl
# the physical path: /proc/PID/fd (and scry) show no symlinks
D=$(cd "$TMP" && pwd -P)/d

# table FILE HEADER: the rows of the section under HEADER ("bytes read by
# file:") as PATH<TAB>BYTES<TAB>CALLS<TAB>SHARE, total included as "total".
# PATH is the rest of the line after the share column (it may hold blanks).
table() {
	awk -v hdr="$2" '
	$0 == hdr { in_sec = 1; next }
	in_sec && /^[^ ]/ { in_sec = 0 }
	in_sec && match($0, /^ *[0-9]+ +[0-9.]+ +[A-Za-z]+ +[0-9]+ +[0-9.]+% +/) {
		print substr($0, RLENGTH + 1) "\t" $1 "\t" $4 "\t" $5
	}' "$1"
}

# failures FILE HEADER: the rows under HEADER ("failed reads:") as
# PATH<TAB>ERRNO<TAB>CALLS.
failures() {
	awk -v hdr="$2" '
	$0 == hdr { in_sec = 1; next }
	in_sec && /^[^ ]/ { in_sec = 0 }
	in_sec && match($0, /^ *[0-9]+ +E[A-Z0-9]+ +/) {
		print substr($0, RLENGTH + 1) "\t" $2 "\t" $1
	}' "$1"
}

# bytes_calls FILE HEADER PATH: "BYTES CALLS" of the row for exactly PATH
bytes_calls() {
	table "$1" "$2" | awk -F'\t' -v p="$3" '$1 == p { print $2, $3 }'
}

# The inputs, fresh for every run (gone.dat is unlinked by each run).
prepare() {	# DIR
	mkdir -p "$1/tmpfs" "$1/src" "$1/bind" "$1/sub" &&
	head -c 100000 /dev/zero >"$1/plain.dat" &&
	head -c 40960 /dev/zero >"$1/tmpfs/t.dat" &&
	head -c 1536 /dev/zero >"$1/src/b.dat" &&
	head -c 1500 /dev/zero >"$1/gone.dat" &&
	head -c 700 /dev/zero >"$1/sub/rel.dat" &&
	rm -f "$1/out.dat"
}

# The read question's ground truth, for any way of running read_wl
# (linked statically: no dynamic loader reads anything first). EXTRA is
# what a run adds before the workload starts ("1 1": -p's gate, one byte
# read from its FIFO, a row of its own).
check_reads() {	# LABEL FILE [EXTRA-BYTES EXTRA-CALLS]
	local f=$2 h="bytes read by file:" xb=${3:-0} xc=${4:-0}

	check_eq "$1: read 100 x 1000 from plain.dat" \
		"$(bytes_calls "$f" "$h" "$D/plain.dat")" "100000 100" "$f"
	check_eq "$1: pread64 10 x 4096 from the tmpfs in a subdirectory, full path" \
		"$(bytes_calls "$f" "$h" "$D/tmpfs/t.dat")" "40960 10"
	check_eq "$1: readv 3 x 512 through the bind mount, full path" \
		"$(bytes_calls "$f" "$h" "$D/bind/b.dat")" "1536 3"
	check_eq "$1: read 5 x 300 from the file deleted while open, ' (deleted)'" \
		"$(bytes_calls "$f" "$h" "$D/gone.dat (deleted)")" "1500 5"
	check_eq "$1: read 7 x 100 from openat(dirfd, \"rel.dat\"), full path" \
		"$(bytes_calls "$f" "$h" "$D/sub/rel.dat")" "700 7"
	check_eq "$1: preadv2 2 x 8192 from /dev/zero" \
		"$(bytes_calls "$f" "$h" /dev/zero)" "16384 2"
	check_eq "$1: read 4 x 64 from a pipe, one pipe:[INODE] row" \
		"$(table "$f" "$h" | awk -F'\t' '$1 ~ /^pipe:\[[0-9]+\]$/ && $2 == 256 && $3 == 4' | wc -l)" 1
	check_eq "$1: every pipe is named pipe:[INODE]" \
		"$(table "$f" "$h" | awk -F'\t' '$1 ~ /^pipe/ && $1 !~ /^pipe:\[[0-9]+\]$/' | wc -l)" 0
	check_eq "$1: nothing else under the scratch directory" \
		"$(table "$f" "$h" | awk -F'\t' -v d="$D/" 'index($1, d) == 1' | wc -l)" 5
	check_eq "$1: the read of a closed fd is one EBADF failure" \
		"$(failures "$f" 'failed reads:' | awk -F'\t' '$1 ~ /^\[closed fd [0-9]+\]$/ { print $2, $3 }')" "EBADF 1"
	check_eq "$1: failures are not counted as bytes" \
		"$(table "$f" "$h" | grep -c 'closed fd')" 0
	check_eq "$1: rows sorted by bytes, ascending" \
		"$(table "$f" "$h" | grep -v '^total' | cut -f2 | sort -c -n 2>&1 && echo sorted)" sorted
	check_eq "$1: the total row comes last" \
		"$(table "$f" "$h" | tail -n 1 | cut -f1)" total
	# 100000 + 40960 + 1536 + 1500 + 700 + 16384 + 256 bytes in
	# 100 + 10 + 3 + 5 + 7 + 2 + 4 calls, and nothing else
	check_eq "$1: the total is exactly the workload's reads, share 100.0%" \
		"$(table "$f" "$h" | awk -F'\t' '$1 == "total" { print $2, $3, $4 }')" \
		"$((161336 + xb)) $((131 + xc)) 100.0%"
	check_eq "$1: the rows add up to the total" \
		"$(table "$f" "$h" | awk -F'\t' '$1 != "total" { b += $2; c += $3 } END { print b, c }')" \
		"$((161336 + xb)) $((131 + xc))"
}

# The mounts the paths must cross: a tmpfs in a subdirectory and a bind
# mount, in scry's own mount namespace (it must see the same mounts).
prepare "$D" || { fail "cannot prepare $D"; exit 1; }
if ! mount -t tmpfs scry-test "$D/tmpfs"; then
	fail "mount a tmpfs on $D/tmpfs"
	exit 1
fi
CLEANUP+=("umount -l '$D/tmpfs'")
if ! mount --bind "$D/src" "$D/bind"; then
	fail "bind-mount $D/src on $D/bind"
	exit 1
fi
CLEANUP+=("umount -l '$D/bind'")

# the workload's own checks, untraced: its counts are the ground truth
prepare "$D" && "$RWL" files "$D" >"$TMP/wl.out" 2>&1
check_status "read_wl files runs cleanly without scry" $? 0 "$TMP/wl.out"

# -c
prepare "$D"
"$SCRY" read -q -c "$RWL files $D" >"$TMP/c.out" 2>"$TMP/c.err"
check_status "read -c: exit status" $? 0 "$TMP/c.err"
check "read -c: the workload's checks passed" bash -c "! grep -q '^read_wl:' '$TMP/c.err'"
check "read -c: column header" \
	grep -Eq '^ +BYTES +HUMAN +CALLS +SHARE +PATH$' "$TMP/c.out"
check_reads "read -c" "$TMP/c.out"
check "read -c: human sizes (97.7 KiB for plain.dat)" \
	grep -Eq "^ *100000 +97\.7 KiB +100 +[0-9.]+% +$D/plain.dat\$" "$TMP/c.out"

# write: the same table, for the writes
prepare "$D"
"$SCRY" write -q -c "$RWL files $D" >"$TMP/w.out" 2>"$TMP/w.err"
check_status "write -c: exit status" $? 0 "$TMP/w.err"
check_eq "write -c: write 6 x 200 + pwrite64 2 x 100 to out.dat" \
	"$(bytes_calls "$TMP/w.out" "bytes written by file:" "$D/out.dat")" "1400 8" "$TMP/w.out"
check_eq "write -c: the 256 bytes written to the pipe, one call" \
	"$(table "$TMP/w.out" "bytes written by file:" | awk -F'\t' '$1 ~ /^pipe:\[[0-9]+\]$/ && $2 == 256 && $3 == 1' | wc -l)" 1
check_eq "write -c: no read counted as a write" \
	"$(table "$TMP/w.out" "bytes written by file:" | awk -F'\t' -v d="$D" \
		'$1 == d "/plain.dat" || $1 == d "/tmpfs/t.dat" || $1 == "/dev/zero"' | wc -l)" 0

# -p: attach to a running process; another one reading the same way
# (without the mounts) is not traced
D2=$(cd "$TMP" && pwd -P)/other
prepare "$D" && prepare "$D2" && cp "$D2/src/b.dat" "$D2/bind/b.dat"
mkfifo "$TMP/gate"
start_gated wl -e "$TMP/pwl.err" "$RWL" files "$D" "$TMP/gate"
scry_bg "$TMP/p.out" "$TMP/p.err" read -p $wl
"$RWL" files "$D2" >/dev/null 2>&1
open_gate "$TMP/gate"
wait_exit $wl
check_status "-p: the workload's checks passed" $? 0 "$TMP/pwl.err"
wait_exit $SCRY_PID
check_status "read -p: scry exits 0 when the process exits" $? 0 "$TMP/p.err"
check_reads "read -p" "$TMP/p.out" 1 1
check_eq "read -p: the gate's byte, read from its FIFO" \
	"$(bytes_calls "$TMP/p.out" "bytes read by file:" "$(cd "$TMP" && pwd -P)/gate")" "1 1"
check_eq "read -p: the other process is not traced" \
	"$(grep -cF "$D2" "$TMP/p.out")" 0

# syscall latency: one read blocked 25 ms on a pipe, [2^24, 2^25) ns
"$SCRY" -q -c "$RWL pipe_delay 25" \
	'syscall:read /arg2 == 4242/ { @ = quantize(latency) }' >"$TMP/l.out" 2>"$TMP/l.err"
check_status "latency: exit status" $? 0 "$TMP/l.err"
check_eq "latency: the 25 ms read in the 16777216 row" "$(sum_rows "$TMP/l.out" '' 16777216)" 1 "$TMP/l.out"
check_eq "latency: one read in all" \
	"$(rows "$TMP/l.out" | awk -F'\t' '{ s += $3 } END { printf "%.0f\n", s }')" 1

# fd.path as a key: "  KEY   VALUE" rows
"$SCRY" -q -c "$RWL pipe_delay 25" \
	'syscall:read /arg2 == 4242/ { @[fd.path] = sum(retval) }' >"$TMP/k.out" 2>"$TMP/k.err"
check_status "fd.path key: exit status" $? 0 "$TMP/k.err"
check_eq "fd.path key: one row, pipe:[INODE], 10 bytes" \
	"$(awk '/^  [^ ]/ { n++; k = $1; v = $NF } END { print n + 0, (k ~ /^pipe:\[[0-9]+\]$/ ? "pipe" : k), v }' "$TMP/k.out")" \
	"1 pipe 10"

# paths of fds that are not files: a socket, an eventfd
"$SCRY" read -q -c "$RWL kinds" >"$TMP/kinds.out" 2>"$TMP/kinds.err"
check_status "read kinds: exit status" $? 0 "$TMP/kinds.err"
check_eq "read kinds: 3 x 100 from a socketpair as socket:[INODE], 2 x 8 from an eventfd as anon_inode:[eventfd], nothing else" \
	"$(table "$TMP/kinds.out" "bytes read by file:" | sed -E 's/^socket:\[[0-9]+\]/socket:[N]/' | paste -sd'|')" \
	"anon_inode:[eventfd]	16	2	5.1%|socket:[N]	300	3	94.9%|total	316	5	100.0%" "$TMP/kinds.out"
