# SPDX-License-Identifier: GPL-2.0
# Stopping scry: whatever ends a run prints what was gathered, and no
# program or link of scry's stays loaded, not even after kill -9.
. "$(dirname "$0")/../lib.sh"

for sig in INT TERM; do
	scry_bg "$TMP/$sig.out" "$TMP/$sig.err" offcpu -d 60
	sleep 0.5
	check "SIG$sig: probes attached while running" bash -c "bpftool prog list | grep -q offcpu_switch"
	kill -$sig $SCRY_PID
	wait $SCRY_PID
	check_status "SIG$sig: exit status" $? 0 "$TMP/$sig.err"
	check "SIG$sig: prints what was gathered" grep -q 'Distribution' "$TMP/$sig.out"
	check "SIG$sig: nothing left attached" no_scry_bpf
done

scry_bg "$TMP/k.out" "$TMP/k.err" offcpu -d 60
kill -9 $SCRY_PID
wait $SCRY_PID 2>/dev/null
for i in $(seq 50); do no_scry_bpf && break; sleep 0.1; done
check "SIGKILL: nothing left attached (links are fds)" no_scry_bpf
check "SIGKILL: no scry link in bpftool link list" \
	bash -c "! bpftool link list | grep -Eq 'offcpu_switch|task_exit'"
