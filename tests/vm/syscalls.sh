# SPDX-License-Identifier: GPL-2.0
# scry read / scry write and syscall probes on this kernel: raw_syscalls
# entry and exit, and fd -> full path walked through this kernel's
# dentries and mounts (bpf/path.bpf.h). read_wl's known calls (see
# tests/workloads/read_wl.c) across a tmpfs mounted in a subdirectory, a
# bind mount, a file deleted while open, a pipe.
. "$(dirname "$0")/../lib.sh"

D=$(cd "$TMP" && pwd -P)/d
mkdir -p "$D/tmpfs" "$D/src" "$D/bind" "$D/sub" &&
mount -t tmpfs scry-vm "$D/tmpfs" && CLEANUP+=("umount -l '$D/tmpfs'") &&
mount --bind "$D/src" "$D/bind" && CLEANUP+=("umount -l '$D/bind'") ||
	{ fail "cannot mount a tmpfs and a bind mount under $D"; exit 1; }

prepare() {	# the inputs, fresh for each run (read_wl unlinks gone.dat)
	head -c 100000 /dev/zero >"$D/plain.dat" &&
	head -c 40960 /dev/zero >"$D/tmpfs/t.dat" &&
	head -c 1536 /dev/zero >"$D/src/b.dat" &&
	head -c 1500 /dev/zero >"$D/gone.dat" &&
	head -c 700 /dev/zero >"$D/sub/rel.dat" || { fail "cannot prepare $D"; exit 1; }
}

# row FILE PATH: "BYTES CALLS" of PATH's row in the read/write file table
# (BYTES HUMAN-SIZE CALLS SHARE PATH; a path may hold blanks)
row() {
	awk -v p="$2" 'match($0, /^ *[0-9]+ +[0-9.]+ +[A-Za-z]+ +[0-9]+ +[0-9.]+% +/) &&
		substr($0, RLENGTH + 1) == p { print $1, $4 }' "$1"
}

prepare
"$SCRY" read -q -c "$WL/read_wl files $D" >"$TMP/r.out" 2>"$TMP/r.err"
check_status "read -c: exit status (and the workload's own checks)" $? 0 "$TMP/r.err"
check_eq "read: 100 x 1000 from plain.dat" "$(row "$TMP/r.out" "$D/plain.dat")" "100000 100" "$TMP/r.out"
check_eq "read: pread64 10 x 4096 from the tmpfs in a subdirectory, full path" "$(row "$TMP/r.out" "$D/tmpfs/t.dat")" "40960 10"
check_eq "read: readv 3 x 512 through the bind mount, full path" "$(row "$TMP/r.out" "$D/bind/b.dat")" "1536 3"
check_eq "read: 5 x 300 from a file deleted while open" "$(row "$TMP/r.out" "$D/gone.dat (deleted)")" "1500 5"
check_eq "read: 7 x 100 from openat(dirfd, \"rel.dat\"), full path" "$(row "$TMP/r.out" "$D/sub/rel.dat")" "700 7"
check_eq "read: preadv2 2 x 8192 from /dev/zero" "$(row "$TMP/r.out" /dev/zero)" "16384 2"
check_eq "read: 4 x 64 from a pipe, named pipe:[INODE]" \
	"$(awk '$NF ~ /^pipe:\[[0-9]+\]$/ && $1 == 256 && $4 == 4' "$TMP/r.out" | wc -l)" 1

prepare
"$SCRY" write -q -c "$WL/read_wl files $D" >"$TMP/w.out" 2>"$TMP/w.err"
check_status "write -c: exit status" $? 0 "$TMP/w.err"
check_eq "write: 6 x 200 + pwrite64 2 x 100 to out.dat" "$(row "$TMP/w.out" "$D/out.dat")" "1400 8" "$TMP/w.out"

# syscall:read as an expression: fd.path as a key, latency (a floor: an
# emulated CPU may wake the reader late), retval
"$SCRY" -q -c "$WL/read_wl pipe_delay 25" \
	'syscall:read /arg2 == 4242/ { @[fd.path, retval] = quantize(latency) }' >"$TMP/l.out" 2>"$TMP/l.err"
check_status "syscall:read: exit status" $? 0 "$TMP/l.err"
check_eq "syscall:read: one read of 10 bytes from a pipe:[INODE]" \
	"$(grep -E '^  pipe:\[[0-9]+\] +10 *$' "$TMP/l.out" | wc -l) $(rows "$TMP/l.out" | awk -F'\t' '{ s += $3 } END { print s + 0 }')" "1 1" "$TMP/l.out"
check_eq "syscall:read: its latency is at least 25 ms (>= 16.7 ms bucket)" \
	"$(rows "$TMP/l.out" | awk -F'\t' '$2 >= 16777216 { s += $3 } END { print s + 0 }')" 1
