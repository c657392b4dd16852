# SPDX-License-Identifier: GPL-2.0
# Kept walks (bpf/uwin.bpf.h: scry_memo) give each event its own stack:
# memo_wl calls target() on four paths whose registers at target() are
# the same and whose stacks differ only in return addresses. Every mode
# of unwinding, with and without frame pointers, must give each path its
# N calls and nothing else, and each path's aggregation its exact values:
# a walk taken from another path's memo would move calls between rows.
. "$(dirname "$0")/../lib.sh"

N=5000
declare -A VAL=([path_a]=1 [path_b]=100 [path_c]=10000 [path_d]=1000000)

# rows FILE: one line per JSON row, "PATHS COUNT SUM MIN MAX BUCKETS" where
# PATHS are the path_* frames of its stack (comma-separated) and BUCKETS
# the non-empty buckets as low:high:count
json_rows() {
	python3 - "$1" <<'EOF'
import json, sys
doc = json.loads(open(sys.argv[1]).read().splitlines()[-1])
for r in doc["rows"]:
    st = [f.get("symbol") or "?" for f in r["keys"]["ustack"]]
    paths = ",".join(s for s in st if s.startswith("path_")) or "-"
    frames = "<".join(s for s in st if s in ("target", "run", "main") or s.startswith("path_"))
    b = " ".join("%s:%s:%d" % (x["low"], x["high"], x["count"]) for x in r.get("buckets", []))
    print(paths, frames, r["count"], r.get("sum", "-"), r.get("min", "-"), r.get("max", "-"), b)
EOF
}

# quantize's bucket of v: [2^k, 2^(k+1)) as low:high
qbucket() { python3 -c "v=$1; k=v.bit_length()-1; print('%d:%d' % (1<<k, 2<<k))"; }

run_case() {	# LABEL WORKLOAD UNWIND
	local label=$1 wl=$2 unwind=$3 out p v want got
	# count: four rows, one per path, N calls each, the whole stack
	out=$TMP/$label.count
	"$SCRY" -q --json --unwind="$unwind" -c "$wl $N" \
		"uprobe:$wl:target { @[ustack] = count() }" >"$out" 2>"$out.err"
	check_status "$label: count: exit status" $? 0 "$out.err"
	json_rows "$out" | sort >"$out.rows"
	got=$(awk '{ print $1, $2, $3 }' "$out.rows")
	want=$(for p in path_a path_b path_c path_d; do
		echo "$p target<$p<run<main $N"; done)
	check_eq "$label: count: each path its own row, its $N calls" \
		"$got" "$want" "$out.err"
	[ "$got" = "$want" ] || sed 's/^/#   /' "$out.rows"
	# quantize: each path's row holds only its own argument
	out=$TMP/$label.q
	"$SCRY" -q --json --unwind="$unwind" -c "$wl $N" \
		"uprobe:$wl:target { @[ustack] = quantize(arg0) }" >"$out" 2>"$out.err"
	check_status "$label: quantize: exit status" $? 0 "$out.err"
	json_rows "$out" | sort >"$out.rows"
	got=$(awk '{ $2 = ""; print }' "$out.rows" | tr -s ' ')
	want=$(for p in path_a path_b path_c path_d; do
		v=${VAL[$p]}
		echo "$p $N $((N * v)) $v $v $(qbucket "$v"):$N"; done)
	check_eq "$label: quantize: count, sum, min, max and bucket per path" \
		"$got" "$want" "$out.err"
	[ "$got" = "$want" ] || sed 's/^/#   /' "$out.rows"
	# lquantize: 1 and 100 in [0, 2000), 10000 in [10000, 12000), 10^6 past 12000
	out=$TMP/$label.lq
	"$SCRY" -q --json --unwind="$unwind" -c "$wl $N" \
		"uprobe:$wl:target { @[ustack] = lquantize(arg0, 0, 12000, 2000) }" \
		>"$out" 2>"$out.err"
	check_status "$label: lquantize: exit status" $? 0 "$out.err"
	json_rows "$out" | sort >"$out.rows"
	got=$(awk '{ $2 = ""; print }' "$out.rows" | tr -s ' ')
	want="path_a $N $N 1 1 0:2000:$N
path_b $N $((N * 100)) 100 100 0:2000:$N
path_c $N $((N * 10000)) 10000 10000 10000:12000:$N
path_d $N $((N * 1000000)) 1000000 1000000 12000:None:$N"
	check_eq "$label: lquantize: count, sum, min, max and bucket per path" \
		"$got" "$want" "$out.err"
	[ "$got" = "$want" ] || sed 's/^/#   /' "$out.rows"
}

run_case "frame pointers, --unwind=dwarf" "$WL/memo_wl" dwarf
run_case "frame pointers, --unwind=auto" "$WL/memo_wl" auto
run_case "frame pointers, --unwind=fp" "$WL/memo_wl" fp
run_case "no frame pointers, --unwind=dwarf" "$WL/memo_nofp_wl" dwarf
run_case "no frame pointers, --unwind=auto" "$WL/memo_nofp_wl" auto
