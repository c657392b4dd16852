# SPDX-License-Identifier: GPL-2.0
# uid and gid are fetched only for clauses that read them (SCRY_CL_UGID):
# every way a clause reads them still sees the task's own, never the
# zeroes of an event that skipped the fetch. Ground truth: the command
# runs as 65534:65534 (setpriv), its setpriv parent as root before.
. "$(dirname "$0")/../lib.sh"

AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"

# as key columns (the key reads the event's fields in place)
"$SCRY" -q -c "$AS_NOBODY $WL/malloc_wl rate 1000" \
	'uretprobe:libc:malloc { @[uid, gid] = count() }' >"$TMP/k.out" 2>"$TMP/k.err"
check_status "uid, gid keys: exit status" $? 0 "$TMP/k.err"
check_eq "uid, gid keys: malloc_wl's 1000 calls under 65534 65534" \
	"$(awk '$1 == 65534 && $2 == 65534 { print $3 }' "$TMP/k.out")" 1000 "$TMP/k.out"

# in a predicate, at the end half of a probe with an end (the fields are
# taken at its begin)
"$SCRY" -q -c "$AS_NOBODY $WL/malloc_wl rate 1000" \
	'uretprobe:libc:malloc /uid == 65534 && gid == 65534/ { @ = count() }' \
	>"$TMP/p.out" 2>"$TMP/p.err"
check_status "uid predicate: exit status" $? 0 "$TMP/p.err"
check_eq "uid predicate: exactly malloc_wl's calls" \
	"$(awk 'NF == 1 && $1 ~ /^[0-9]+$/ { print $1 }' "$TMP/p.out")" 1000 "$TMP/p.out"

# as values printed
"$SCRY" -q -c "$AS_NOBODY /bin/true" \
	'tracepoint:syscalls:sys_enter_exit_group { printf("ids %d %d\n", uid, gid) }' \
	>"$TMP/f.out" 2>"$TMP/f.err"
check_status "printf uid, gid: exit status" $? 0 "$TMP/f.err"
check_eq "printf uid, gid: the command's own" "$(grep '^ids' "$TMP/f.out")" \
	"ids 65534 65534" "$TMP/f.out"
