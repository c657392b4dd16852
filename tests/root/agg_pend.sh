# SPDX-License-Identifier: GPL-2.0
# Keys that repeat on a CPU add up there until another key comes or the
# stop (abi.h: struct scry_pend): every event must still be in its row, to
# the exact count and value, whatever the runs, threads and CPUs; a map
# too small for the keys still keeps the first ones and counts the rest
# as drops; and what perf events (NMIs) add up on the same CPUs as the
# probes goes in too.
#
# memo_wl N RUN THREADS calls path_a .. path_d RUN times each in a row,
# N rounds, in each thread, with the arguments 1, 100, 10000, 1000000.
. "$(dirname "$0")/../lib.sh"

WLB=$WL/memo_wl
declare -A VAL=([path_a]=1 [path_b]=100 [path_c]=10000 [path_d]=1000000)

# json_rows FILE [MAP]: "PATH COUNT SUM MIN MAX" per row of MAP (@ by
# default), PATH the row's path_* frame
json_rows() {
	python3 - "$1" "${2:-@}" <<'EOF'
import json, sys
doc = json.loads(open(sys.argv[1]).read().splitlines()[-1])
maps = [dict(doc, name=doc["map"])] + doc.get("maps", [])
for m in maps:
    if m.get("name") != sys.argv[2]:
        continue
    for r in m["rows"]:
        st = [f.get("symbol") or "?" for f in r["keys"]["ustack"]]
        p = ",".join(s for s in st if s.startswith("path_")) or "-"
        print(p, r["count"], r.get("sum", "-"), r.get("min", "-"), r.get("max", "-"))
    break
EOF
}

# want_rows CALLS PATH...: the rows of a quantize over arg0, sorted (the
# threads start at once, while the process maps their stacks: every walk
# is whole all the same)
want_rows() {
	local calls=$1 p
	shift
	for p in "$@"; do
		echo "$p $calls $((calls * VAL[$p])) ${VAL[$p]} ${VAL[$p]}"
	done | sort
}

run_case() {	# LABEL N RUN THREADS
	local label=$1 n=$2 run=$3 th=$4 out=$TMP/$1
	"$SCRY" -q --json -c "$WLB $n $run $th" \
		"uprobe:$WLB:target { @[ustack] = quantize(arg0) }" >"$out" 2>"$out.err"
	check_status "$label: exit status" $? 0 "$out.err"
	check_eq "$label: each path's calls, sum, min and max, exactly" \
		"$(json_rows "$out" | sort)" \
		"$(want_rows $((n * run * th)) path_a path_b path_c path_d)" "$out.err"
	check_eq "$label: nothing lost" "$(grep -v '^scry: tracing' "$out.err")" ""
}

run_case "runs of 50, one thread" 2000 50 1
run_case "runs of 20, four threads" 1000 20 4
run_case "no runs (every call another key), two threads" 5000 1 2
run_case "runs of 3, two threads" 3000 3 2

# --max-keys 2: path_a and path_b came first and keep every call; each
# call of the other two is a drop, counted
out=$TMP/keys
"$SCRY" -q --json --max-keys 2 -c "$WLB 1000 30 1" \
	"uprobe:$WLB:target { @[ustack] = quantize(arg0) }" >"$out" 2>"$out.err"
check_status "--max-keys 2: exit status" $? 0 "$out.err"
check_eq "--max-keys 2: path_a and path_b, each 30000 calls" \
	"$(json_rows "$out" | sort)" "$(want_rows 30000 path_a path_b)" "$out.err"
check_eq "--max-keys 2: the 60000 calls of path_c and path_d are drops" \
	"$(grep -v '^scry: tracing' "$out.err")" "60000 aggregation drops: raise --max-keys"

# a profile's samples (NMIs) add up on the same CPUs as the uprobe's
# events, each in its own scratch slot: both maps whole
out=$TMP/nmi
"$SCRY" -q --json -c "$WLB 4000 25 2" \
	"uprobe:$WLB:target { @[ustack] = quantize(arg0) } profile:hz:999 { @p[ustack] = count() }" \
	>"$out" 2>"$out.err"
check_status "uprobe and profile: exit status" $? 0 "$out.err"
check_eq "uprobe and profile: the uprobe's rows exact" \
	"$(json_rows "$out" | sort)" "$(want_rows 200000 path_a path_b path_c path_d)" "$out.err"
check "uprobe and profile: the profile sampled the workload" \
	[ "$(json_rows "$out" @p | awk '{ n += $2 } END { print n + 0 }')" -gt 0 ]

# clear() from a clause reads the map while tracing: no adding up there,
# and the answer is what the clauses say
out=$TMP/clear
"$SCRY" -q --json -c "$WLB 1000 10 1" \
	"uprobe:$WLB:target /arg0 == 1/ { @[ustack] = quantize(arg0) } uprobe:$WLB:target /arg0 == 100/ { @[ustack] = quantize(arg0) } END { clear(@); }" \
	>"$out" 2>"$out.err"
check_status "clear() in END: exit status" $? 0 "$out.err"
check_eq "clear() in END: no rows left" "$(json_rows "$out" | wc -l)" 0
