# SPDX-License-Identifier: GPL-2.0
# A stack printed by printf("%s", ustack) is named as the same stack in a
# map is, never guessed [unknown]: with -c, a library's frames before the
# notice of its mmap was handled (its mappings are read then); with -p and
# a short -d, frames whose names were being read when the deadline asked
# scry to stop (the line is held and printed once the stop is served).
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl
STACK=$(printf '%s\n' 'libc.so.6`malloc' 'malloc_wl`hot_loop' 'malloc_wl`main' \
	'libc.so.6`__libc_start_call_main' 'libc.so.6`__libc_start_main' \
	'malloc_wl`_start')

# the printed stacks, offsets cut, one stack a paragraph
stacks() { sed -n 's/^ *//; s/+0x[0-9a-f]*$//; /./p' "$1"; }

# -c: the race with the mmap notices is one run in a few: ten runs
bad=0 badf=/dev/null
for i in $(seq 10); do
	"$SCRY" -q -c "$MWL rate 3" \
		'uprobe:libc:malloc /arg0 == 16/ { printf("%s\n", ustack) }' \
		>"$TMP/c$i.out" 2>"$TMP/c$i.err"
	if [ $? != 0 ] || [ "$(stacks "$TMP/c$i.out")" != \
	     "$STACK$(printf '\n%s' "$STACK" "$STACK")" ]; then
		bad=$((bad + 1))
		badf=$TMP/c$i.out
	fi
done
check_eq "-c, 10 runs: every run prints the 3 stacks named whole" \
	"$bad" 0 "$badf"

# -p with -d shorter than naming the binary takes: slow_fn sleeps 20 ms
# a call, nanosleep() is its only call into libc
"$MWL" slow 1000 >/dev/null &
wl=$!
CLEANUP+=("kill -9 $wl")
sleep 0.1
for d in 0.05 0.1 0.5; do
	"$SCRY" -q -p $wl -d $d \
		'uprobe:libc:nanosleep { printf("%s\n", ustack) }' \
		>"$TMP/p$d.out" 2>"$TMP/p$d.err"
	check_status "-p -d $d: exit status" $? 0 "$TMP/p$d.err"
	n=$(grep -c 'nanosleep' "$TMP/p$d.out")
	# a loaded machine may not run the workload within 50 ms: only the
	# longest run must have stacks; every stack printed must be named
	[ "$d" = 0.5 ] && check "-p -d $d: stacks printed" test "$n" -ge 1
	check_eq "-p -d $d: each names slow_fn and main, no frame unknown" \
		"$(grep -c 'malloc_wl`slow_fn' "$TMP/p$d.out") $(grep -c 'malloc_wl`main' "$TMP/p$d.out") $(grep -c unknown "$TMP/p$d.out")" \
		"$n $n 0" "$TMP/p$d.out"
done
kill $wl
