# SPDX-License-Identifier: GPL-2.0
# pprof output read back by Go's own pprof (go tool pprof, Debian's
# golang-go): sample types per question, the ground-truth split of
# cpu_wl, malloc_wl's exact calls and bytes, off-CPU nanoseconds, read
# bytes by path, mappings with build-ids, inlined frames as lines.
. "$(dirname "$0")/../lib.sh"

export HOME=$TMP		# go keeps a cache and config there
PPROF=(go tool pprof)

# raw FILE: the profile as `go tool pprof -raw` prints it
raw() { "${PPROF[@]}" -raw "$1" 2>"$TMP/pprof.err"; }

# psum FILE REGEX COLUMN: sum of value COLUMN (1-based) over the samples
# whose stack has a function matching REGEX, read from -raw: samples
# "V1 V2: LOC LOC ...", locations "ID: ADDR M=N func :line s=0" plus one
# line per inlined function
psum() {
	raw "$1" | awk -v re="$2" -v col="$3" '
	/^Samples:/ { sec = "s"; next }
	/^Locations/ { sec = "l"; next }
	/^Mappings/ { sec = "m"; next }
	sec == "s" && /:/ { n++; split($0, a, ":"); vals[n] = a[1]; locs[n] = a[2]; next }
	sec == "l" && /^ *[0-9]+: / { id = $1 + 0; f = $0; sub(/^ *[0-9]+: +0x[0-9a-f]+ (M=[0-9]+ )?/, "", f)
		sub(/ :[0-9]+ s=[0-9]+$/, "", f); names[id] = names[id] "\n" f; next }
	sec == "l" && /^ +[^ ]/ { f = $0; sub(/^ +/, "", f); sub(/ :[0-9]+ s=[0-9]+$/, "", f)
		names[id] = names[id] "\n" f; next }
	END {
		for (i = 1; i <= n; i++) {
			k = split(locs[i], ids, " "); hit = 0
			for (j = 1; j <= k; j++) {
				m = split(names[ids[j] + 0], fs, "\n")
				for (x = 1; x <= m; x++) if (fs[x] ~ re) hit = 1
			}
			if (hit) { split(vals[i], v, " "); s += v[col] }
		}
		printf "%.0f\n", s
	}'
}

# sample_types FILE: "type/unit ..." as -raw's sample header prints them
sample_types() { raw "$1" | awk '/^Samples:/ { getline; print; exit }'; }

check "go tool pprof is installed (make deps)" go version >/dev/null

# ---- profile: samples and CPU time, hot_a 3x hot_b ----
"$SCRY" profile -q -F 999 -o "$TMP/cpu.pb.gz" -c "$WL/cpu_wl 3" 2>"$TMP/p.err"
check_status "profile -o FILE.pb.gz: exit status" $? 0 "$TMP/p.err"
check_eq "profile: the file is gzip" "$(head -c2 "$TMP/cpu.pb.gz" | od -An -tx1 | tr -d ' ')" 1f8b
check_eq "profile: sample types samples/count, cpu/nanoseconds (the default)" \
	"$(sample_types "$TMP/cpu.pb.gz")" "samples/count cpu/nanoseconds[dflt]"
check_eq "profile: period is 1 s / 999 in cpu nanoseconds" \
	"$(raw "$TMP/cpu.pb.gz" | sed -n 's/^Period: //p')" 1001001
a=$(psum "$TMP/cpu.pb.gz" '^hot_a$' 1)
b=$(psum "$TMP/cpu.pb.gz" '^hot_b$' 1)
check "profile: samples in hot_a and hot_b ($a, $b)" test "$a" -gt 150 -a "$b" -gt 50
check_range "profile: hot_a's share of the two is 75% within 5 points (%)" \
	$((100 * a / (a + b))) 70 80
check_eq "profile: cpu time of hot_a is its samples x the period" \
	"$(psum "$TMP/cpu.pb.gz" '^hot_a$' 2)" $((a * 1001001))
# -top ranks by flat time: hot_a first, hot_b second
check_eq "go tool pprof -top: hot_a then hot_b" \
	"$("${PPROF[@]}" -top "$TMP/cpu.pb.gz" 2>/dev/null | awk '$NF ~ /^hot_/ { print $NF }' | head -2 | tr '\n' ' ')" "hot_a hot_b "
check_eq "profile: the first mapping is the main binary (pprof's File:)" \
	"$("${PPROF[@]}" -top "$TMP/cpu.pb.gz" 2>/dev/null | sed -n 's/^File: //p')" cpu_wl
bid=$(readelf -n "$WL/cpu_wl" | sed -n 's/.*Build ID: //p')
check_eq "profile: cpu_wl's mapping carries its build-id" \
	"$(raw "$TMP/cpu.pb.gz" | awk -v f="$WL/cpu_wl" '/^Mappings/ { m = 1; next } m && $3 == f { print $4 }')" "$bid"

# ---- malloc: exact calls and bytes per caller ----
"$SCRY" malloc -q -o "$TMP/m.pb.gz" -c "$WL/malloc_wl sizes" >"$TMP/m.out" 2>"$TMP/m.err"
check_status "malloc -o FILE.pb.gz: exit status" $? 0 "$TMP/m.err"
cmp_calls=$(grep -o 'cmp_calls=[0-9]*' "$TMP/m.out" | cut -d= -f2)
check_eq "malloc: sample types calls/count, bytes/bytes" \
	"$(sample_types "$TMP/m.pb.gz")" "calls/count bytes/bytes[dflt]"
check_eq "malloc: small_allocs: 100000 calls, 4800000 bytes" \
	"$(psum "$TMP/m.pb.gz" '^small_allocs$' 1) $(psum "$TMP/m.pb.gz" '^small_allocs$' 2)" "100000 4800000"
check_eq "malloc: big_allocs: 200 calls, 200 MiB" \
	"$(psum "$TMP/m.pb.gz" '^big_allocs$' 1) $(psum "$TMP/m.pb.gz" '^big_allocs$' 2)" "200 209715200"
check_eq "malloc: cmp_alloc: $cmp_calls calls of 24 B" \
	"$(psum "$TMP/m.pb.gz" '^cmp_alloc$' 1) $(psum "$TMP/m.pb.gz" '^cmp_alloc$' 2)" "$cmp_calls $((cmp_calls * 24))"

# many hosts' files merge: go tool pprof sums equal stacks
"${PPROF[@]}" -proto "$TMP/m.pb.gz" "$TMP/m.pb.gz" >"$TMP/merged.pb.gz" 2>/dev/null
check_eq "two malloc profiles merged by go tool pprof: 2 x 100000 calls, 2 x 4800000 bytes" \
	"$(psum "$TMP/merged.pb.gz" '^small_allocs$' 1) $(psum "$TMP/merged.pb.gz" '^small_allocs$' 2)" "200000 9600000"

# ---- offcpu: nanoseconds off CPU ----
N=10
# --min-block 5000: a spurious wakeup in the middle of a nap (the kernel
# sleeps again in do_nanosleep) would add a short period of its own
"$SCRY" offcpu -q --min-block 5000 --pprof -c "$WL/offcpu_wl $N 0" >"$TMP/o.pb.gz" 2>"$TMP/o.err"
check_status "offcpu --pprof >FILE: exit status" $? 0 "$TMP/o.err"
check_eq "offcpu: sample types count/count, off_cpu_time/nanoseconds" \
	"$(sample_types "$TMP/o.pb.gz")" "count/count off_cpu_time/nanoseconds[dflt]"
# each 10 ms nanosleep is one period off CPU, in do_nanosleep
ev=$(psum "$TMP/o.pb.gz" '^do_nanosleep$' 1)
ns=$(psum "$TMP/o.pb.gz" '^do_nanosleep$' 2)
check_eq "offcpu: $N sleeps in do_nanosleep" "$ev" $N
# (every off-CPU stack has kernel frames; a CPU profile of a spinning
# workload may have none)
check "offcpu: kernel frames sit in [kernel.kallsyms]" \
	bash -c "go tool pprof -raw '$TMP/o.pb.gz' 2>/dev/null | grep -q ' \[kernel.kallsyms\] '"
check_range "offcpu: $N x 10 ms off CPU in them, within 5 ms below and 20 ms above each (ns)" \
	"$ns" $((N * 5000000)) $((N * 30000000))

# ---- read: bytes by full path ----
head -c 100000 /dev/zero >"$TMP/in.dat"
"$SCRY" read -q -o "$TMP/r.pb.gz" -c "dd if=$TMP/in.dat of=/dev/null bs=1000 count=100" 2>"$TMP/r.err"
check_status "read -o FILE.pb.gz: exit status" $? 0 "$TMP/r.err"
check_eq "read: sample types calls/count, bytes/bytes" \
	"$(sample_types "$TMP/r.pb.gz")" "calls/count bytes/bytes[dflt]"
check_eq "read: 100 calls, 100000 bytes from in.dat, by its full path" \
	"$(psum "$TMP/r.pb.gz" "^$TMP/in.dat\$" 1) $(psum "$TMP/r.pb.gz" "^$TMP/in.dat\$" 2)" "100 100000"

# ---- inlined frames: one location, several lines; file:line with --lines ----
line=$(grep -n 'sink = malloc(555);' tests/workloads/inline_wl.c | cut -d: -f1)
"$SCRY" -q --lines -o "$TMP/i.pb.gz" -c "$WL/inline_wl" \
	'uprobe:libc:malloc /arg0 == 555/ { @[ustack] = count() }' 2>"$TMP/i.err"
check_status "--lines -o FILE.pb.gz: exit status" $? 0 "$TMP/i.err"
# -raw prints a location's first line after "ID: ADDR M=N", its other
# lines (the functions it is inlined into) indented below it
check_eq "inlined take_555 and outer_fn share one location, innermost first" \
	"$(raw "$TMP/i.pb.gz" | awk 'prev && /^ +outer_fn / { n++ }
		{ prev = $0 ~ /^ *[0-9]+: 0x[0-9a-f]+ M=[0-9]+ take_555 / } END { print n + 0 }')" 1
check "--lines: take_555 is at inline_wl.c:$line" \
	bash -c "go tool pprof -raw '$TMP/i.pb.gz' 2>/dev/null | grep -q ' take_555 inline_wl.c:$line s=0'"

# ---- a binary format never goes to a terminal ----
script -qec "$SCRY --pprof profile -d 1" /dev/null >"$TMP/tty.out" 2>&1
check_eq "--pprof to a terminal: usage error" $? 2
check "--pprof to a terminal: says to redirect or use -o" \
	grep -q 'scry: --pprof writes binary data: redirect it (> FILE.pb.gz) or use -o FILE.pb.gz' "$TMP/tty.out"

# ---- the encoder and the mappings it needs, under valgrind ----
# (the ASan run of this script has ASan instead: they cannot share a process)
if [[ $SCRY != *build-asan* ]]; then
	valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=99 --suppressions=tests/valgrind.supp -q \
		"$SCRY" malloc -q -o "$TMP/vg.pb.gz" -c "$WL/malloc_wl sizes" >/dev/null 2>"$TMP/vg.err"
	check_status "valgrind: malloc -o FILE.pb.gz: no memory errors or leaks" $? 0 "$TMP/vg.err"
	check_eq "valgrind: that profile still has small_allocs' 100000 calls" \
		"$(psum "$TMP/vg.pb.gz" '^small_allocs$' 1)" 100000
fi

# profiles back to back on stdout would read as one garbled profile
"$SCRY" --pprof --interval 1 profile -d 2 >/dev/null 2>"$TMP/iv.err"
check_eq "--pprof --interval to stdout: usage error" $? 2
check "--pprof --interval: says to use -o" \
	grep -q 'scry: --pprof with --interval needs -o FILE.pb.gz (each snapshot replaces the file)' "$TMP/iv.err"
