# SPDX-License-Identifier: GPL-2.0
# The CO-RE target BTF cache (src/corebtf.c) end to end: the same exact
# answer cold (no cache), warm, with the cached file corrupt, and with a
# file that parses but does not fit the engine (the load falls back to
# all of vmlinux BTF and the file goes); the directory and the file are
# root's alone. tests/unit/test_corebtf.c checks the cut relocates every
# program as vmlinux BTF does, and links and other owners' files.
. "$(dirname "$0")/../lib.sh"

DIR=/var/cache/scry
MWL=$WL/malloc_wl
FPSTACK='_start;__libc_start_main;__libc_start_call_main;main;hot_loop;malloc'
EXPR='uprobe:libc:malloc /arg0 == 16/ { @[ustack] = count() }'

# the newest cut: the one the run before wrote (other scry builds' cuts
# for this kernel are kept beside it)
cut_file() { ls -t "$DIR"/core-*.btf 2>/dev/null | head -1; }

# answer LABEL: the exact count and the whole stack, and scry quiet
answer() {
	"$SCRY" -q --folded -c "$MWL rate 2000" "$EXPR" \
		>"$TMP/$1.out" 2>"$TMP/$1.err"
	check_status "$1: exit status" $? 0 "$TMP/$1.err"
	check_eq "$1: the whole stack and the exact count" \
		"$(grep -E ' [0-9]+$' "$TMP/$1.out")" "$FPSTACK 2000" "$TMP/$1.out"
	check_eq "$1: nothing on stderr" "$(cat "$TMP/$1.err")" ""
}

rm -f "$DIR"/core-*.btf
answer cold
f=$(cut_file)
check "cold: the cut kept" test -n "$f"
check_eq "cold: the directory 0700, root's" "$(stat -c '%a %u' "$DIR")" "700 0"
check_eq "cold: the file 0600, root's" "$(stat -c '%a %u' "$f")" "600 0"
check_eq "cold: no temporary left" "$(ls "$DIR" | grep -c tmp)" 0

ino=$(stat -c %i "$f")
answer warm
check_eq "warm: the same file, not written again" "$(stat -c %i "$f" 2>/dev/null)" "$ino"

head -c 4096 /dev/urandom >"$f"
answer corrupt
check_eq "corrupt: replaced by a BTF file" \
	"$(od -An -tx2 -N2 "$f" | tr -d ' ')" "eb9f"

# a BTF of one type, "int": it parses, and fits nothing
printf '\237\353\001\000\030\000\000\000\000\000\000\000\020\000\000\000\020\000\000\000\005\000\000\000\001\000\000\000\000\000\000\001\004\000\000\000\040\000\000\000\000int\000' >"$f"
answer unfit
check "unfit: the file dropped for the next run to cut again" \
	test ! -e "$f"
answer recut
check "recut: kept again" test -e "$f"

# offcpu and a syscall question load warm, and answer
"$SCRY" -q -c "$WL/malloc_wl rate 10" 'syscall:write /pid == cpid/ { @ = count() } offcpu { @o = count() }' \
	>"$TMP/sys.out" 2>"$TMP/sys.err"
check_status "warm: a syscall and an offcpu clause load" $? 0 "$TMP/sys.err"
