# SPDX-License-Identifier: GPL-2.0
# Options that conflict, or mean nothing where they are given, are refused
# before anything runs: one line naming both and the fix, exit 2, nothing
# on stdout (each of these once ran something else than asked, exit 0).
# The documented combinations next to them still run.
. "$(dirname "$0")/../lib.sh"

P='BEGIN { exit() }'
printf 'BEGIN { exit() }\n' >"$TMP/p.bt"

# refused ARGS... -- MESSAGE: exit 2, exactly MESSAGE on stderr, no stdout
refused() {
	local args=() msg
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	msg=$2
	timeout 20 "$SCRY" "${args[@]}" >"$TMP/r.out" 2>"$TMP/r.err"
	local rc=$?
	check_eq "${args[*]}: exit 2, one line, no output" \
		"$rc $(wc -c <"$TMP/r.out")" "2 0"
	check_eq "${args[*]}: message" "$(cat "$TMP/r.err")" "scry: $msg"
}

refused malloc -e "$P" -- "'malloc' and -e both give the program: use one"
refused "$P" -e "$P" -- "'$P' and -e both give the program: use one"
refused -e "$P" -f "$TMP/p.bt" -- "-e and -f both given: a run has one program (it holds any number of clauses); use one"
refused -f "$TMP/p.bt" -e "$P" -- "-f and -e both given: a run has one program (it holds any number of clauses); use one"
refused -e "$P" -e "$P" -- "-e given twice: a run has one program (it holds any number of clauses)"
refused --json --folded offcpu -- "--json and --folded both given: a run has one output format; use one"
refused offcpu --svg -o "$TMP/x.svg" --pprof -- "--svg and --pprof both given: a run has one output format; use one"
refused -o "$TMP/a.txt" -o "$TMP/b.txt" offcpu -- "-o given twice: a run has one output file"
refused -c true -c false offcpu -- "-c given twice: a run has one command (one -c runs several: -c 'A; B')"
refused malloc --state S -- "--state and --min-block belong to 'scry offcpu', not 'scry malloc'"
refused read --min-block 0 -- "--state and --min-block belong to 'scry offcpu', not 'scry read'"
refused --state D "$P" -- "--state and --min-block belong to 'scry offcpu'; in an expression write /state == 2 && latency >= NS/"
refused read -F 99 -- "-F belongs to 'scry profile', not 'scry read'"
refused -F 99 -e "$P" -- "-F belongs to 'scry profile'; in an expression write the rate in the probe: profile:HZ"
refused -a offcpu -- "-a needs -c: it traces every process alongside the command (without -c or -p every process is traced)"
for d in nan inf -inf infinity; do
	refused -d $d offcpu -- "-d: invalid duration '$d' (seconds, e.g. 10 or 0.5)"
done
refused --interval inf offcpu -- "--interval: invalid duration 'inf' (seconds, e.g. 10 or 0.5)"

# what stays valid: a format given twice, -F with profile, --state and
# --min-block with offcpu, -a with -c, -e or -f alone with options after
ran() {	# WHAT ARGS...: exit 0
	local what=$1
	shift
	timeout 60 "$SCRY" -q "$@" >"$TMP/v.out" 2>"$TMP/v.err"
	check_status "$what: runs" $? 0 "$TMP/v.err"
}
ran "-e with options after it" -e "$P" -d 5 --json --json
ran "-f" -f "$TMP/p.bt" -d 5
ran "-a with -c" -a -c true "$P"
ran "profile -F" profile -F 49 -d 0.2
ran "offcpu --state --min-block" offcpu --state S --min-block 0 -d 0.2 -o "$TMP/o.svg" --svg
