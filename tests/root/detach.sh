# SPDX-License-Identifier: GPL-2.0
# Detaching after the answer (src/detach.c): at the stop every probe goes
# inert, the answer is printed with the probes still attached, and the
# slow closes (a uprobe's waits for the kernel's grace periods) are left
# to a child, "scry-detach", that lets go of stdout at once. Proved here:
# the answer is whole and exact, the run's links and programs are gone
# soon after scry exits, also when that child is killed with -9, and
# $(scry ...) and scry | head return with the whole answer. (That they
# return before the links go is not asserted: it depends on the kernel's
# speed.)
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl
# burst_wl: malloc(4001) x 3+1, malloc(4002) x 2+4, malloc(4003) x 1+5
BURST='uprobe:libc:malloc /arg0 > 4000 && arg0 < 4004/ { @[arg0] = count() }'
# six uprobe links: their closes take a while, the child lives that long
SLOW="$BURST
uprobe:libc:free, uprobe:libc:calloc { @f = count() }
uretprobe:libc:malloc /retval == 0/ { @z = count() }"

# the pid of a scry-detach process that holds one of the links LINKS...
# (other scry runs on the machine have children of the same name)
detach_child() {
	local p id
	for p in $(pgrep -x scry-detach); do
		for id in $(owned_ids link "$p"); do
			case " $* " in *" $id "*) echo "$p"; return 0 ;; esac
		done
	done
	return 1
}

# run_burst NAME LABEL PROGRAM: scry -c burst_wl, its links and programs
# read while it runs (LINKS, PROGS), both bursts released; OUT, ERR its
# output
run_burst() {
	local name=$1 label=$2 prog=$3
	mkfifo "$TMP/$name.1" "$TMP/$name.2"
	OUT=$TMP/$name.out ERR=$TMP/$name.err
	scry_bg "$OUT" "$ERR" -c "$WL/burst_wl $TMP/$name.1 $TMP/$name.2" \
		"$prog" || { fail "$label: scry did not start"; return 1; }
	PROGS=$(owned_ids prog $SCRY_PID)
	LINKS=$(owned_ids link $SCRY_PID)
	check "$label: links attached while running" test -n "$LINKS"
	open_gate "$TMP/$name.1" && open_gate "$TMP/$name.2"
}

# -c: the answer is exact, printed while the probes were attached but
# inert; then every link and program goes
run_burst c -c "$BURST"
wait_exit $SCRY_PID
check_status "-c: exit status" $? 0 "$ERR"
check_eq "-c: both bursts counted exactly" \
	"$(awk 'NF == 2 { print $1 ":" $2 }' "$OUT" | sort | paste -sd' ')" \
	"4001:4 4002:6 4003:6" "$OUT"
check "-c: its links are gone" gone_ids link $LINKS
check "-c: its programs are gone" gone_ids prog $PROGS

# kill -9 of the detach child: the kernel closes what it held
run_burst kill "kill -9" "$SLOW"
child=
for ((i = 0; i < 400; i++)); do
	child=$(detach_child $LINKS) && break
	gone_now link $LINKS && break
	sleep 0.025
done
wait_exit $SCRY_PID
check_status "kill -9: exit status" $? 0 "$ERR"
check_eq "kill -9: both bursts counted exactly" \
	"$(awk 'NF == 2 && $1 ~ /^400/ { print $1 ":" $2 }' "$OUT" | sort | paste -sd' ')" \
	"4001:4 4002:6 4003:6" "$OUT"
if [ -n "$child" ]; then
	ok "kill -9: a scry-detach child held the links"
	kill -9 "$child" 2>/dev/null
else
	# (a kernel that detaches uprobes fast: the child was done first)
	echo "# kill -9: the detach child had closed the links before it was seen"
fi
check "kill -9: its links are gone" gone_ids link $LINKS
check "kill -9: its programs are gone" gone_ids prog $PROGS

# $(scry ...) and | head: the child closed stdout at once, and the answer
# came whole (malloc_wl sizes: 100000 calls of 48 bytes)
COUNT48='uprobe:libc:malloc /arg0 == 48/ { @ = count() }'
x=$("$SCRY" -q -c "$MWL sizes" "$COUNT48" 2>"$TMP/x.err")
check_status "\$(scry): exit status" $? 0 "$TMP/x.err"
check_eq "\$(scry): the count is whole" "$(echo "$x" | awk 'NF == 1 && /^ +[0-9]+$/ { print $1 }')" 100000
# (the answer's last line is the count: | tail -1 reads to the end of file)
last=$("$SCRY" -q -c "$MWL sizes" "$COUNT48" 2>"$TMP/t.err" | tail -1)
check_eq "scry | tail -1: the count" "$(echo $last)" 100000
"$SCRY" -q -c "$MWL sizes" "$COUNT48" 2>"$TMP/h.err" | head -1 >"$TMP/h.out"
check_status "scry | head -1: exit status (a closed pipe is no error)" \
	"${PIPESTATUS[0]}" 0 "$TMP/h.err"
check_eq "scry | head -1: the command's first line" \
	"$(cut -d= -f1 "$TMP/h.out")" cmp_calls

# under valgrind (the plain frontend only: ASan's cannot run there), the
# detach child too: no memory errors, and no leaks in its copy of the
# heap. Each process logs to its own file (%p), read once all have exited.
if [ "$SCRY" != "$PWD/$BUILD/scry" ]; then
	:
elif ! command -v valgrind >/dev/null; then
	skip "valgrind: the detach child" "no valgrind (make deps installs it)"
else
	valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=99 --suppressions=tests/valgrind.supp -q \
		--log-file="$TMP/vg.%p" "$SCRY" -q -c "$MWL sizes" "$COUNT48" \
		>"$TMP/vg.out" 2>"$TMP/vg.err"
	check_status "valgrind: exit status" $? 0 "$TMP/vg.err"
	for ((i = 0; i < 600; i++)); do
		alive=
		for f in "$TMP"/vg.[0-9]*; do
			kill -0 "${f##*.}" 2>/dev/null && alive=1
		done
		[ -z "$alive" ] && break
		sleep 0.1
	done
	check_eq "valgrind: the processes it logged (scry, the command's fork, the detach child) have exited" "${alive:-}" ""
	check_eq "valgrind: no errors or leaks in scry or its detach child" \
		"$(cat "$TMP"/vg.[0-9]* | grep -E '^==[0-9]+==' | head -5)" ""
fi
