# SPDX-License-Identifier: GPL-2.0
# Output for runbooks: JSON against the documented schema, --interval
# snapshots, --top, -o written atomically, | head.
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
schema() { $PY tests/schema_check.py docs/scry.schema.json "$@" >"$TMP/schema.log" 2>&1; }

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

# --interval: one document per snapshot, numbered
"$SCRY" offcpu -q --json --interval 1 -d 3 >"$TMP/iv.json" 2>/dev/null
check_eq "--interval 1 -d 3: three snapshots" "$(wc -l <"$TMP/iv.json")" 3
check_eq "--interval: snapshots numbered 1 2 3" \
	"$($PY -c 'import json,sys; print(" ".join(str(json.loads(l)["snapshot"]) for l in open(sys.argv[1])))' "$TMP/iv.json")" "1 2 3"
check "--interval: every snapshot valid" schema "$TMP/iv.json"

# --top N keeps the N largest keys
"$SCRY" -q --top 2 --unwind=fp -c "$WL/malloc_wl sizes" 'uprobe:libc:malloc { @[ustack] = count() }' >"$TMP/top.out" 2>/dev/null
check_eq "--top 2: two rows" "$(grep -cE '^ +[0-9]+$' "$TMP/top.out")" 2
check "--top 2: the largest (small_allocs, 100000) is kept, last" \
	bash -c "tail -1 '$TMP/top.out' | grep -q '100000$'"

# -o FILE.json: the file appears whole
"$SCRY" malloc -q -o "$TMP/out.json" -c "$WL/malloc_wl sizes" >/dev/null 2>&1
check "-o out.json: valid JSON document in the file" schema "$TMP/out.json"
check "-o: no temporary file left" bash -c "! ls '$TMP' | grep -q '\.tmp$'"

# | head -1: exits cleanly, no error spew
"$SCRY" offcpu -d 1 2>"$TMP/head.err" | head -1 >/dev/null
check_eq "| head -1: scry's exit status" "${PIPESTATUS[0]}" 0
check "| head -1: nothing but the banner and loss counters on stderr" \
	bash -c "! grep -Ev '^scry: tracing|^[0-9]+ ' '$TMP/head.err' | grep -q ."

# --lines: source file and line of frames, in text and in JSON
line=$(grep -n 'sink = malloc(555);' tests/workloads/inline_wl.c | cut -d: -f1)
"$SCRY" -q --json --lines -c "$WL/inline_wl" 'uprobe:libc:malloc /arg0 == 555/ { @[ustack] = count() }' >"$TMP/lines.json" 2>/dev/null
check "--lines json: valid" schema "$TMP/lines.json"
check_eq "--lines json: the inlined take_555 frame is at inline_wl.c:$line" \
	"$($PY -c 'import json,sys; fs=json.loads(open(sys.argv[1]).readline())["rows"][0]["keys"]["ustack"]; print(*[(f.get("file"), f.get("line")) for f in fs if f["symbol"] == "take_555"][0])' "$TMP/lines.json")" "inline_wl.c $line"
"$SCRY" -q --lines -c "$WL/inline_wl" 'uprobe:libc:malloc /arg0 == 555/ { @[ustack] = count() }' >"$TMP/lines.txt" 2>/dev/null
check "--lines text: take_555 [inlined] (inline_wl.c:$line)" grep -q "inline_wl\`take_555 \[inlined\] (inline_wl.c:$line)" "$TMP/lines.txt"
