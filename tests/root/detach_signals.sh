# SPDX-License-Identifier: GPL-2.0
# scry-detach (src/detach.c) outlives the signals a terminal or a script
# sends to its process group: INT, TERM and HUP are blocked and QUIT is
# ignored, because a signal that ended it inside a uprobe's close would
# fail the kernel's unregister ("failed to unregister, leaking uprobe").
# Proved here: scry runs in a session of its own under a harness that is
# its child subreaper; once its scry-detach child is seen (holding the
# links), INT, TERM, QUIT and HUP go to the whole group while the child
# closes. The child must end by its own _exit(0), not by a signal; its
# links and programs must go; and the kernel log must name no uprobe the
# child leaked. (kill -9 ending it, links gone all the same: detach.sh.)
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl
# eight uprobes: each one's close takes a while (~110 ms here, its perf
# event's; its link's goes with it), so the child is seen and signalled
# while it closes, even by a harness slowed by a loaded machine (with
# four, an ASan run under load saw the child with only the last left)
Q='uprobe:libc:malloc /arg0 == 48/ { @ = count() }
uprobe:libc:free, uprobe:libc:calloc { @f = count() }
uretprobe:libc:malloc /retval == 0/ { @z = count() }
uprobe:libc:realloc, uprobe:libc:getenv, uprobe:libc:sysconf, uprobe:libc:getpid { @o = count() }'

# the harness: subreaper of scry's session, so it reaps scry-detach and
# sees how it ended. reap.py MODE OUT ERR SCRY...: signals the group as
# soon as the child is seen (MODE "seen": it may still wait for scry's
# go) or once it has closed its first link or perf event ("closing":
# inside the next one's close). Prints "child PID", "ids link|prog IDS...", "signalled
# WHEN", "child exited N" or "child signal N" (or "child not seen"),
# "scry exited|signal N".
cat >"$TMP/reap.py" <<'PYEOF'
import ctypes, os, signal, subprocess, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # CHILD_SUBREAPER
mode = sys.argv[1]
out, err = open(sys.argv[2], "w"), open(sys.argv[3], "w")
scry = subprocess.Popen(sys.argv[4:], stdout=out, stderr=err,
                        start_new_session=True)
group = scry.pid

def detach_child():
    for p in os.listdir("/proc"):
        try:
            st = open("/proc/%s/stat" % p).read()
        except OSError:
            continue
        if not p.isdigit() or "(scry-detach)" not in st:
            continue
        f = st.rsplit(")", 1)[1].split()
        if int(f[2]) == group and f[0] != "Z":  # its pgrp: scry's session
            return int(p)
    return None

def slow(pid):
    """the fds whose close the child waits in (detach.c slow_fds): links
    and perf events. A uprobe attached through a perf event is both: its
    link's close is quick, the perf event's waits for the unregister"""
    n = 0
    d = "/proc/%d/fd" % pid
    for fd in os.listdir(d):
        try:
            t = os.readlink(os.path.join(d, fd))
        except OSError:
            continue
        n += t in ("anon_inode:bpf_link", "anon_inode:[perf_event]")
    return n

def ids(pid):
    """(link ids, program ids) of pid's fds, in one pass: a link's fdinfo
    names its program too, so every link found brings its program even
    when pid closes its own program fds meanwhile (two passes, one per
    kind, once read links before and programs after scry's teardown)"""
    found = {"link": set(), "prog": set()}
    d = "/proc/%d/fdinfo" % pid
    for fd in os.listdir(d):
        try:
            for line in open(os.path.join(d, fd)).read().splitlines():
                kind = line.split("_id:")[0]
                if kind in found and line.startswith(kind + "_id:"):
                    found[kind].add(int(line.split()[1]))
        except OSError:
            pass
    return sorted(found["link"]), sorted(found["prog"])

# The ids the child will hold, read from scry while it traces: the child
# holds every link scry had (detach.c slow_fds), and on a loaded machine
# its closes can all be over before its own fds are read (grace periods
# end sooner when every CPU is busy)
held = ([], [])
child = None
deadline = time.time() + 120
polls = 0
while child is None and time.time() < deadline:
    gone = scry.poll() is not None
    child = detach_child()
    if gone:
        break  # and its child, if there was one, is gone or seen now
    if child is None and polls % 10 == 0:
        try:
            now = ids(scry.pid)
            if now[0]:
                held = now
        except OSError:
            pass
    polls += 1
    time.sleep(0.002)
if child:
    print("child", child)
    print("ids link", *held[0])
    print("ids prog", *held[1])
    try:
        # "closing": once its first slow fd is gone, inside the next's
        # close (the links alone: a perf event's link goes at once, its
        # perf event's close is the slow one)
        first = slow(child)
        while mode == "closing" and first and slow(child) == first:
            time.sleep(0.0005)
        print("signalled", "as soon as seen" if mode == "seen" else
              "while closing" if slow(child) else
              "after its last close")
    except OSError:
        print("signalled after it ended")
    # a terminal's Ctrl-C, a script's kill 0, a hang-up, a Ctrl-\
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT, signal.SIGHUP):
        os.killpg(group, sig)
else:
    print("child not seen")
sys.stdout.flush()
status = {}
while True:
    try:
        pid, st = os.waitpid(-1, 0)
    except ChildProcessError:
        break
    status[pid] = st
for who, pid in (("child", child), ("scry", scry.pid)):
    st = status.get(pid)
    if st is None:
        continue
    if os.WIFSIGNALED(st):
        print(who, "signal", os.WTERMSIG(st))
    else:
        print(who, "exited", os.WEXITSTATUS(st))
PYEOF

# "closing" until one run signals the child while it closes, 5 runs at
# most: how long its closes take is the kernel's grace periods' (~110 ms
# each on a quiet machine, a few ms when every CPU is busy), so a run may
# see it only after its last. Every run's checks count, whenever its
# signals came.
n=0
for run in seen closing closing2 closing3 closing4 closing5; do
	[ "$run" != seen ] && [ "$run" != closing ] && [ "$n" -gt 0 ] && break
	timeout 180 python3 "$TMP/reap.py" ${run%[0-9]} "$TMP/$run.out" "$TMP/$run.err" \
		"$SCRY" -q -c "$MWL sizes" "$Q" >"$TMP/$run.log" 2>&1
	res=$TMP/$run.log
	# scry itself is stopped by INT or TERM, if still there: its answer
	# was written before the child was forked
	check_eq "run $run: the answer is whole (malloc_wl: 100000 calls of 48 bytes)" \
		"$(awk '/^@:$/ { getline; print $1; exit }' "$TMP/$run.out")" \
		100000 "$TMP/$run.out"
	child=$(awk '$1 == "child" && $2 ~ /^[0-9]+$/ { print $2 }' "$res")
	if [ -z "$child" ]; then
		echo "# run $run: no scry-detach seen (it was done first)"
		sed 's/^/#   /' "$res"
		continue
	fi
	when=$(awk '$1 == "signalled" { $1 = ""; print substr($0, 2) }' "$res")
	echo "# run $run: scry-detach $child signalled $when"
	[ "$when" = "while closing" ] && n=$((n + 1))
	check_eq "run $run: scry-detach, signalled INT, TERM, QUIT, HUP ($when), ended by its own exit 0" \
		"$(awk '$1 == "child" && $2 != '"$child"' { print $2, $3 }' "$res")" "exited 0"
	links=$(awk '$1 == "ids" && $2 == "link" { $1 = $2 = ""; print }' "$res")
	progs=$(awk '$1 == "ids" && $2 == "prog" { $1 = $2 = ""; print }' "$res")
	check "run $run: the links it held are gone" gone_ids link $links
	check "run $run: their programs are gone" gone_ids prog $progs
	if ! log=$(dmesg 2>&1); then
		skip "run $run: no uprobe leaked" "dmesg cannot be read here: $log"
	else
		check_eq "run $run: the kernel log names no uprobe scry-detach:$child leaked" \
			"$(echo "$log" | grep -F "scry-detach:$child " | grep -c 'leaking uprobe')" 0
	fi
done
check_range "a scry-detach was signalled while closing its links in one of 5 runs" $n 1 1
