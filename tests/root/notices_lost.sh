# SPDX-License-Identifier: GPL-2.0
# When the engine's notice ring loses records (SCRY_STAT_NOTICE_LOST), an
# exec may have gone untold: before naming frames, every process scry
# knows is checked against /proc again (session.c's notices_lost, sym.c's
# syms_notices_lost), so its stacks still name the program it runs now.
#
# Forced here with no knob: scry traces all processes and is stopped
# (SIGSTOP) while one followed process (notice_wl flood) fills the ring
# with executable mmaps, and then a process scry has already read
# (notice_wl exec) execs a copy of notice_wl and calls after_exec() 1000
# times: its exec's notice and its libraries' are lost, and no later
# notice names it. The copy is mapped at other addresses (ASLR), so the
# mappings from before the exec name none of its frames. Once scry runs
# again and stops, its answer must name every frame, exactly.
. "$(dirname "$0")/../lib.sh"

NWL=$WL/notice_wl
mkfifo "$TMP/f1" "$TMP/f2" "$TMP/e1" "$TMP/e2" "$TMP/e3"
cp "$NWL" "$TMP/copy_wl"

# at_gate PID WHAT: PID blocks on a gate again (after an exec, WHAT is in
# its command line)
at_gate() {
	local w c i
	for ((i = 0; i < 600; i++)); do
		{ read -r w <"/proc/$1/wchan"; } 2>/dev/null
		c=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)
		[ "$w" = wait_for_partner ] && [[ "$c" == *"$2"* ]] && return 0
		sleep 0.05
	done
	fail "$2: pid $1 did not reach its gate in 30 s (wchan: ${w:-none})"
	return 1
}

start_gated fl "$NWL" flood 5000 "$TMP/f1" "$TMP/f2" || exit 1
start_gated ex "$NWL" exec "$TMP/copy_wl" 1000 "$TMP/e1" "$TMP/e2" "$TMP/e3" || exit 1
# -v: its log says when it has read a process
scry_bg "$TMP/o" "$TMP/e" -v --folded \
	"uprobe:$NWL:before_exec, uprobe:$TMP/copy_wl:after_exec { @[ustack] = count() }" ||
	exit 1
open_gate "$TMP/e1"
wait_for "$TMP/e" "pid $ex first seen: mappings read" 30 ||
	fail "scry did not read pid $ex (its -v log has no 'first seen')"
kill -STOP $SCRY_PID
CLEANUP+=("kill -CONT $SCRY_PID")
open_gate "$TMP/f1" && at_gate $fl flood
open_gate "$TMP/e2" && at_gate $ex after
kill -CONT $SCRY_PID
kill -INT $SCRY_PID
wait_exit $SCRY_PID
check_status "exit status" $? 0 "$TMP/e"
open_gate "$TMP/f2"
open_gate "$TMP/e3"
wait_exit $fl
wait_exit $ex

check "the ring lost notices (scry says so)" \
	grep -q 'new processes announced late' "$TMP/e"
check_eq "after the untold exec: every call under its whole, named stack" \
	"$(grep 'after_exec ' "$TMP/o")" \
	"_start;__libc_start_main;__libc_start_call_main;main;after_exec 1000" "$TMP/o"
check_eq "before it: both processes' one call each, named" \
	"$(awk '$1 ~ /;main;before_exec$/ { n += $2 } END { print n + 0 }' "$TMP/o")" 2 "$TMP/o"
check_eq "no frame unnamed" "$(grep -c '\[unknown\]' "$TMP/o")" 0 "$TMP/o"
