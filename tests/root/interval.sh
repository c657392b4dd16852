# SPDX-License-Identifier: GPL-2.0
# --interval snapshots say when they were taken: text prints a time line
# per snapshot (as bpftrace's and DTrace's time() in interval scripts),
# JSON a "time" field; both against the clock around the run.
. "$(dirname "$0")/../lib.sh"

PY=python3
Q='syscall:nanosleep,clock_nanosleep { @[comm] = count() }'

# ---- text: "YYYY-MM-DD HH:MM:SS (snapshot N, S s)" first in each ----
t0=$(date +%s)
TZ=UTC "$SCRY" -q --interval 0.4 -c "$WL/offcpu_wl 80 0" "$Q" >"$TMP/t.out" 2>"$TMP/t.err"
rc=$?
t1=$(date +%s)
check_status "text --interval: exit status" $rc 0 "$TMP/t.err"
re='^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} \(snapshot [0-9]+, [0-9]+\.[0-9] s\)$'
n=$(grep -Ec "$re" "$TMP/t.out")
check_range "text --interval 0.4 over 80 naps of 10 ms: snapshots with a time line" "$n" 2 20
check_eq "text: snapshots numbered 1..$n in order" \
	"$(grep -E "$re" "$TMP/t.out" | sed 's/.*(snapshot \([0-9]*\),.*/\1/' | tr '\n' ' ')" \
	"$(seq 1 "$n" | tr '\n' ' ')"
check "text: the output starts with a time line" bash -c "head -1 '$TMP/t.out' | grep -Eq '$re'"
check_eq "text: one printa row per snapshot, after its time line" \
	"$(awk '/^[0-9-]+ [0-9:]+ \(snapshot / { t = 1; next } t && $1 == "offcpu_wl" { n++; t = 0 } END { print n + 0 }' "$TMP/t.out")" "$n"
bad=$(grep -E "$re" "$TMP/t.out" | cut -c1-19 | while read -r d; do
	s=$(TZ=UTC date -d "$d" +%s)
	[ "$s" -ge "$t0" ] && [ "$s" -le "$t1" ] || echo "$d"
done)
check_eq "text: every time is local time (TZ=UTC here) between the run's start and end" "$bad" ""
check_eq "text: the traced command's naps are all counted over the snapshots" \
	"$(awk '$1 == "offcpu_wl" { s += $2 } END { printf "%.0f\n", s }' "$TMP/t.out")" 80

# without --interval no time line: DTrace's printa output stays as it was
"$SCRY" -q -c "$WL/offcpu_wl 2 0" "$Q" >"$TMP/w.out" 2>/dev/null
check_eq "text without --interval: no time line" "$(grep -Ec "$re" "$TMP/w.out")" 0

# ---- JSON: "time", RFC 3339 UTC in ms, contiguous snapshots ----
t0=$($PY -c 'import time; print(time.time())')
"$SCRY" -q --json --interval 0.4 -c "$WL/offcpu_wl 80 0" "$Q" >"$TMP/j.out" 2>"$TMP/j.err"
rc=$?
t1=$($PY -c 'import time; print(time.time())')
check_status "json --interval: exit status" $rc 0 "$TMP/j.err"
check "json --interval: every snapshot valid per the schema" \
	$PY tests/schema_check.py docs/scry.schema.json "$TMP/j.out"
check_eq "json: each snapshot's time is within the run, later than the last, and \
its start (time - duration_s) is the last one's time within 0.1 s" \
	"$($PY - "$TMP/j.out" "$t0" "$t1" <<'PYEOF'
import datetime, json, sys
t0, t1 = float(sys.argv[2]), float(sys.argv[3])
prev, bad, n = None, [], 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    n += 1
    t = datetime.datetime.strptime(d["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
    t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
    if not (t0 - 0.001 <= t <= t1):
        bad.append("outside the run: %s" % d["time"])
    if prev is not None and (t <= prev or abs(t - d["duration_s"] - prev) > 0.1):
        bad.append("not contiguous: %s" % d["time"])
    prev = t
print("ok" if n >= 2 and not bad else "%d snapshots: %s" % (n, bad))
PYEOF
)" ok
