# SPDX-License-Identifier: GPL-2.0
# Stopping scry: whatever ends a run prints what was gathered, and no
# program or link of scry's stays loaded, not even after kill -9. The ids
# are those the scry under test held, so other scry runs do not interfere.
. "$(dirname "$0")/../lib.sh"

held() {	# NAME ERRFILE: record the programs and links SCRY_PID holds
	progs=$(owned_ids prog $SCRY_PID)
	links=$(owned_ids link $SCRY_PID)
	if [ -n "$progs" ] && [ -n "$links" ]; then
		ok "$1: programs and links attached while running"
	else
		fail "$1: programs and links attached while running (scry alive: $(kill -0 $SCRY_PID 2>&1 && echo yes))"
		sed 's/^/#   /' "$2"
	fi
}

for sig in INT TERM; do
	scry_bg "$TMP/$sig.out" "$TMP/$sig.err" offcpu -d 60
	sleep 0.5
	held "SIG$sig" "$TMP/$sig.err"
	kill -$sig $SCRY_PID
	wait_exit $SCRY_PID
	check_status "SIG$sig: exit status" $? 0 "$TMP/$sig.err"
	check "SIG$sig: prints what was gathered" grep -q 'Distribution' "$TMP/$sig.out"
	check "SIG$sig: its programs are gone" gone_ids prog $progs
	check "SIG$sig: its links are gone" gone_ids link $links
done

scry_bg "$TMP/k.out" "$TMP/k.err" offcpu -d 60
held "SIGKILL" "$TMP/k.err"
kill -9 $SCRY_PID
wait_exit $SCRY_PID
check "SIGKILL: its programs are gone (links are fds)" gone_ids prog $progs
check "SIGKILL: its links are gone" gone_ids link $links
