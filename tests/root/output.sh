# SPDX-License-Identifier: GPL-2.0
# Output for runbooks: JSON against the documented schema, --interval
# snapshots (with --top, with -o), -o written atomically, a closed pipe.
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
schema() { $PY tests/schema_check.py docs/scry.schema.json "$@" >"$TMP/schema.log" 2>&1; }
BURST='uprobe:libc:malloc /arg0 > 4000 && arg0 < 4004/ { @[arg0] = count() }'

"$SCRY" offcpu -q --json -c "$WL/offcpu_wl 5 1" >"$TMP/offcpu.json" 2>/dev/null
check "json offcpu: valid against docs/scry.schema.json" schema "$TMP/offcpu.json"
"$SCRY" malloc -q --json -c "$WL/malloc_wl sizes" 2>/dev/null | grep '^{' >"$TMP/malloc.json"
check "json malloc: valid" schema "$TMP/malloc.json"
"$SCRY" profile -q --json -F 499 -c "$WL/cpu_wl 1" >"$TMP/profile.json" 2>/dev/null
check "json profile: valid" schema "$TMP/profile.json"
"$SCRY" read -q --json -c "cat /etc/os-release" 2>/dev/null | grep '^{' >"$TMP/read.json"
check "json read: valid" schema "$TMP/read.json"
echo '{"version": "one"}' >"$TMP/bad.json"
check "json: the schema check rejects a bad document" bash -c "! $PY tests/schema_check.py docs/scry.schema.json '$TMP/bad.json' >/dev/null 2>&1"

# exact values through JSON: malloc calls and bytes under small_allocs
got=$($PY - "$TMP/malloc.json" <<'PYEOF'
import json, sys
doc = json.loads(open(sys.argv[1]).readline())
c = b = 0
for row in doc["rows"]:
    names = [f["symbol"] for f in row["keys"]["ustack"]]
    if "small_allocs" in names:
        c += row["count"]; b += row["sum"]
print(c, b, doc["question"], doc["unit"], doc["aggregation"])
PYEOF
)
check_eq "json malloc: small_allocs has 100000 calls, 4800000 bytes" "$got" "100000 4800000 malloc bytes quantize"

# snapshots JSON-FILE: each document's number and its rows as KEY:COUNT,
# one line per document: "1 4001:3 4002:2"
snapshots() {
	$PY - "$1" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    rows = sorted((r["keys"]["arg0"], r["count"]) for r in d["rows"])
    print(d["snapshot"], *["%d:%d" % kv for kv in rows])
PYEOF
}

# --interval with --top: burst_wl mallocs 4001 x3, 4002 x2, 4003 x1, then
# (second gate, opened once the first snapshot is out) 4001 x1, 4002 x4,
# 4003 x5. Each snapshot starts afresh and keeps its own top 2. A tick
# may fall between the gate and the burst: empty snapshots are allowed,
# the non-empty ones are exact.
mkfifo "$TMP/b1" "$TMP/b2"
start_gated wl "$WL/burst_wl" "$TMP/b1" "$TMP/b2"
scry_bg "$TMP/iv.json" "$TMP/iv.err" --json --top 2 --interval 1 -p $wl "$BURST"
open_gate "$TMP/b1"
wait_for "$TMP/iv.json" '"snapshot":1' 20 || fail "--interval: no first snapshot in 20 s"
open_gate "$TMP/b2"
wait_exit $SCRY_PID
check_status "--interval --top 2 -p: exit status" $? 0 "$TMP/iv.err"
check "--interval: every snapshot valid" schema "$TMP/iv.json"
check_eq "--interval: snapshots numbered 1..N in order" \
	"$(snapshots "$TMP/iv.json" | cut -d' ' -f1 | paste -sd' ')" "$(seq -s' ' 1 "$(wc -l <"$TMP/iv.json")")"
check_eq "--interval --top 2: each burst in its own snapshot, its 2 largest keys" \
	"$(snapshots "$TMP/iv.json" | awk 'NF > 1 { $1 = ""; print substr($0, 2) }' | paste -sd'|')" \
	"4001:3 4002:2|4002:4 4003:5"

# --interval -d: the ticks fall at 1 s and 2 s, the deadline at 3 s
sleep 30 &
sl=$!
CLEANUP+=("kill -9 $sl")
"$SCRY" offcpu -q --json --interval 1 -d 3 -p $sl >"$TMP/iv3.json" 2>"$TMP/iv3.err"
check_status "--interval 1 -d 3: exit status" $? 0 "$TMP/iv3.err"
check_eq "--interval 1 -d 3: three snapshots, numbered 1 2 3" \
	"$($PY -c 'import json,sys; print(*[json.loads(l)["snapshot"] for l in open(sys.argv[1])])' "$TMP/iv3.json")" "1 2 3"

# --top N keeps the N largest keys, printed smallest first (printa
# order): of malloc_wl's sizes, 24 B (cmp_alloc, cmp_calls times) and
# 48 B (small_allocs, 100000 times)
"$SCRY" -q --top 2 -c "$WL/malloc_wl sizes" 'uprobe:libc:malloc { @[arg0] = count() }' >"$TMP/top.out" 2>"$TMP/top.err"
check_status "--top 2: exit status" $? 0 "$TMP/top.err"
cmp_calls=$(grep -o 'cmp_calls=[0-9]*' "$TMP/top.out" | cut -d= -f2)
check_eq "--top 2: two rows, 24 ($cmp_calls calls) then 48 (100000)" \
	"$(awk 'NF == 2 && /^ +[0-9]+ +[0-9]+$/ { print $1, $2 }' "$TMP/top.out" | paste -sd' ')" \
	"24 $cmp_calls 48 100000" "$TMP/top.out"

# -o FILE.json replaces FILE atomically: while scry traces, a reader sees
# the old file whole (same inode, same bytes: not opened for writing
# yet); after, a new inode with the new document, and nothing else in
# the directory (no temporary file left).
mkdir "$TMP/o"
echo old >"$TMP/o/out.json"
ino=$(stat -c %i "$TMP/o/out.json")
mkfifo "$TMP/ogate"
start_gated wl -o /dev/null "$WL/malloc_wl" sizes "$TMP/ogate"
scry_bg /dev/null "$TMP/o.err" malloc -o "$TMP/o/out.json" -p $wl
check_eq "-o: while tracing, the old file is untouched" \
	"$(stat -c %i "$TMP/o/out.json") $(cat "$TMP/o/out.json")" "$ino old"
open_gate "$TMP/ogate"
wait_exit $wl
wait_exit $SCRY_PID
check_status "-o out.json: exit status" $? 0 "$TMP/o.err"
check "-o out.json: a valid JSON document (FILE.json is JSON)" schema "$TMP/o/out.json"
check "-o: the file was replaced (a new inode), not rewritten" \
	test "$(stat -c %i "$TMP/o/out.json")" != "$ino"
check_eq "-o: nothing else left in its directory" "$(ls -A "$TMP/o")" out.json

# -o with --interval: every snapshot replaces the file whole. A reader
# polling it throughout never sees a partial document, and the inode
# changes once per snapshot.
mkfifo "$TMP/c1" "$TMP/c2"
start_gated wl "$WL/burst_wl" "$TMP/c1" "$TMP/c2"
mkdir "$TMP/oi"
$PY - "$TMP/oi/x.json" "$TMP/poll.log" <<'PYEOF' &
# read the file as fast as possible until told to stop (the log's
# "stop" line), recording every distinct (inode, document) seen
import json, os, sys, time
path, log = sys.argv[1], sys.argv[2]
seen, bad = [], 0
while True:
    try:
        fd = os.open(path, os.O_RDONLY)
        ino, data = os.fstat(fd).st_ino, b""
        while chunk := os.read(fd, 65536):
            data += chunk
        os.close(fd)
        try:
            snap = json.loads(data)["snapshot"]
        except ValueError:
            bad += 1
            snap = None
        if (ino, snap) not in seen:
            seen.append((ino, snap))
    except FileNotFoundError:
        pass
    if os.path.exists(log + ".stop"):
        break
    time.sleep(0.001)
with open(log, "w") as f:
    f.write("%d %s\n" % (bad, " ".join("%s" % s for _, s in seen)))
    f.write("%d\n" % len({i for i, _ in seen}))
PYEOF
poller=$!
CLEANUP+=("kill -9 $poller")
scry_bg /dev/null "$TMP/oi.err" --interval 1 -o "$TMP/oi/x.json" -p $wl "$BURST"
open_gate "$TMP/c1"
wait_for "$TMP/oi/x.json" '"snapshot":1' 20 || fail "-o --interval: no first snapshot in 20 s"
open_gate "$TMP/c2"
wait_exit $SCRY_PID
check_status "-o --interval: exit status" $? 0 "$TMP/oi.err"
touch "$TMP/poll.log.stop"
wait_exit $poller
read -r bad snaps <<<"$(head -1 "$TMP/poll.log")"
check_eq "-o --interval: a reader never saw a partial document" "$bad" 0
check_eq "-o --interval: it saw the snapshots in order, each once" \
	"$snaps" "$(seq -s' ' 1 "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["snapshot"])' "$TMP/oi/x.json")")"
check_eq "-o --interval: one inode per snapshot seen" \
	"$(sed -n 2p "$TMP/poll.log")" "$(echo "$snaps" | wc -w)"
check_eq "-o --interval: the file holds the last snapshot, with burst_b's 3 keys" \
	"$(snapshots "$TMP/oi/x.json" | cut -d' ' -f2-)" "4001:1 4002:4 4003:5"

# -o FILE.folded: folded stacks, the same lines --folded prints
"$SCRY" -q -o "$TMP/m.folded" -c "$WL/malloc_wl sizes" 'uprobe:libc:malloc { @[ustack] = sum(arg0) }' >"$TMP/mf.out" 2>"$TMP/mf.err"
check_status "-o x.folded: exit status" $? 0 "$TMP/mf.err"
check_eq "-o x.folded: nothing on stdout but the workload's line" "$(cat "$TMP/mf.out")" "$(grep cmp_calls "$TMP/mf.out")"
check_eq "-o x.folded: main;small_allocs;malloc 4800000 and main;big_allocs;malloc 209715200" \
	"$(grep -E ';main;small_allocs;malloc ' "$TMP/m.folded" | awk '{ s += $NF } END { printf "%.0f\n", s }') $(grep -E ';main;big_allocs;malloc ' "$TMP/m.folded" | awk '{ s += $NF } END { printf "%.0f\n", s }')" \
	"4800000 209715200"
check_eq "-o x.folded: every line is FRAMES VALUE" \
	"$(grep -Evc '^[^ ;][^;]*(;[^;]+)* [0-9]+$' "$TMP/m.folded")" 0

# a closed pipe: the reader is gone before scry writes a byte (true exits
# at once), so the write fails with EPIPE whatever the output's size;
# scry ends quietly with status 0
"$SCRY" offcpu -d 1 2>"$TMP/pipe.err" | true
check_eq "| true (EPIPE): scry's exit status" "${PIPESTATUS[0]}" 0
check_eq "| true (EPIPE): nothing but the banner and loss counters on stderr" \
	"$(grep -Evc '^scry: tracing|^[0-9]+ |^scry: unwind tables not (loaded|given)' "$TMP/pipe.err")" 0 "$TMP/pipe.err"

# a pipe closed while printf's stream runs (| head): the run ends there,
# quietly, and takes the command with it (it would run for minutes)
timeout 60 "$SCRY" -q -c "$WL/malloc_wl rate 1000000000" \
	'uprobe:libc:malloc /arg0 == 16/ { printf("malloc %d\n", arg0) }' \
	2>"$TMP/head.err" | head -2 >"$TMP/head.out"
check_eq "printf | head -2: scry ends with status 0 once head is gone" \
	"${PIPESTATUS[0]}" 0 "$TMP/head.err"
check_eq "printf | head -2: the two lines head read" \
	"$(cat "$TMP/head.out")" "malloc 16
malloc 16"
"$SCRY" -q -d 30 'BEGIN { printf("begin\n") } uprobe:libc:malloc { printf("m\n") }' \
	>/dev/full 2>"$TMP/full.err"
check_status "printf to a full disk: status 1" $? 1 "$TMP/full.err"
check_eq "printf to a full disk: one line saying so" \
	"$(grep -v '^[0-9]' "$TMP/full.err")" "scry: writing the output: No space left on device"

# a non-blocking stdout (its parent set O_NONBLOCK on the pipe) whose
# reader comes late: the full pipe is waited for, every line arrives
cat >"$TMP/nb.py" <<'EOF'
import fcntl, os, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
p = subprocess.Popen(sys.argv[1:], stdout=w, stderr=subprocess.DEVNULL)
os.close(w)
time.sleep(1)		# the pipe fills (64 KiB) before anyone reads
out = b""
while True:
    b = os.read(r, 65536)
    if not b:
        break
    out += b
print(p.wait(), out.count(b"malloc 16\n"))
EOF
check_eq "printf to a non-blocking pipe read late: status 0, all 20000 lines" \
	"$($PY "$TMP/nb.py" "$SCRY" -q -c "$WL/malloc_wl rate 20000" 'uprobe:libc:malloc /arg0 == 16/ { printf("malloc %d\n", arg0) }')" "0 20000"

# a flame graph of a question without stacks is its keys' (the read
# question's paths), as flamegraph.pl draws its --folded lines
head -c 3000 /dev/zero >"$TMP/f3000"
"$SCRY" -q read -o "$TMP/r.svg" -c "cat $TMP/f3000" >/dev/null 2>"$TMP/rsvg.err"
check_status "read -o r.svg: exit status" $? 0 "$TMP/rsvg.err"
check "read -o r.svg: the file read is a frame" grep -q "<title>$TMP/f3000 (2.9 KiB" "$TMP/r.svg"

# --lines: source file and line of frames, in text and in JSON
line=$(grep -n 'sink = malloc(555);' tests/workloads/inline_wl.c | cut -d: -f1)
"$SCRY" -q --json --lines -c "$WL/inline_wl" 'uprobe:libc:malloc /arg0 == 555/ { @[ustack] = count() }' >"$TMP/lines.json" 2>/dev/null
check "--lines json: valid" schema "$TMP/lines.json"
check_eq "--lines json: the inlined take_555 frame is at inline_wl.c:$line" \
	"$($PY -c 'import json,sys; fs=json.loads(open(sys.argv[1]).readline())["rows"][0]["keys"]["ustack"]; print(*[(f.get("file"), f.get("line")) for f in fs if f["symbol"] == "take_555"][0])' "$TMP/lines.json")" "inline_wl.c $line"
"$SCRY" -q --lines -c "$WL/inline_wl" 'uprobe:libc:malloc /arg0 == 555/ { @[ustack] = count() }' >"$TMP/lines.txt" 2>/dev/null
check "--lines text: take_555 [inlined] (inline_wl.c:$line)" grep -q "inline_wl\`take_555 \[inlined\] (inline_wl.c:$line)" "$TMP/lines.txt"
