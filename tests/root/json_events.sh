# SPDX-License-Identifier: GPL-2.0
# With --json (or --folded, --svg, --pprof) on stdout, what clauses print
# (printf, print, time) goes to stderr, in order: stdout stays one valid
# JSON document (docs/JSON.md). With text, or -o FILE, it stays on stdout.
. "$(dirname "$0")/../lib.sh"

MWL=$WL/malloc_wl
EXPR='uprobe:libc:malloc /arg0 == 16/ { printf("m %d\n", arg0); @ = count() }'

"$SCRY" -q --json -c "$MWL rate 3" "$EXPR" >"$TMP/j.out" 2>"$TMP/j.err"
check_status "--json with printf: exit status" $? 0 "$TMP/j.err"
check "--json with printf: stdout is one JSON document" \
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/j.out"
check "--json with printf: it validates against the schema" \
	bash -c 'python3 tests/schema_check.py docs/scry.schema.json "$1" >/dev/null' _ "$TMP/j.out"
check_eq "--json with printf: the row counts the 3 calls" \
	"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["rows"][0]["value"])' "$TMP/j.out")" \
	3 "$TMP/j.out"
check_eq "--json with printf: the 3 printf lines are on stderr" \
	"$(grep -c '^m 16$' "$TMP/j.err")" 3 "$TMP/j.err"

"$SCRY" -q --folded -c "$MWL rate 2" \
	'uprobe:libc:malloc /arg0 == 16/ { printf("m %d\n", arg0); @[ustack(1)] = count() }' \
	>"$TMP/f.out" 2>"$TMP/f.err"
check_status "--folded with printf: exit status" $? 0 "$TMP/f.err"
check_eq "--folded with printf: stdout holds the stacks only" \
	"$(cat "$TMP/f.out")" "malloc 2" "$TMP/f.out"

"$SCRY" -q -c "$MWL rate 2" "$EXPR" >"$TMP/t.out" 2>"$TMP/t.err"
check_status "text with printf: exit status" $? 0 "$TMP/t.err"
check_eq "text with printf: the printf lines stay on stdout" \
	"$(grep -c '^m 16$' "$TMP/t.out")" 2 "$TMP/t.out"

"$SCRY" -q -o "$TMP/o.json" -c "$MWL rate 2" "$EXPR" >"$TMP/o.out" 2>"$TMP/o.err"
check_status "-o FILE.json with printf: exit status" $? 0 "$TMP/o.err"
check_eq "-o FILE.json with printf: the printf lines stay on stdout" \
	"$(grep -c '^m 16$' "$TMP/o.out")" 2 "$TMP/o.out"
check "-o FILE.json with printf: the file is one JSON document" \
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/o.json"
