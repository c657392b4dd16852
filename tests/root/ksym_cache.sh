# SPDX-License-Identifier: GPL-2.0
# The per-boot cache of the core kernel's symbols (/run/scry/kallsyms,
# src/ksym_cache.c): kernel frames are exactly the live /proc/kallsyms's
# whether the cache is cold (read kallsyms, write the cache) or warm
# (read the cache, not kallsyms); the cache is root's alone (0700 dir,
# 0600 file); a planted symlink or a file or directory someone else owns
# is never followed or used, and what is in the way is replaced safely.
. "$(dirname "$0")/../lib.sh"

DIR=/run/scry
FILE=$DIR/kallsyms
# The test owns /run/scry while it runs: whatever was there comes back.
if [ -e "$DIR" ] || [ -L "$DIR" ]; then
	mv "$DIR" "$TMP/saved"
	CLEANUP+=("rm -rf '$DIR'; mv '$TMP/saved' '$DIR'")
else
	CLEANUP+=("rm -rf '$DIR'")
fi

# offcpu_wl 2 1: two 10 ms naps and one 50 ms nap, each a voluntary
# sleep with this kernel stack (the top of the row, callee first)
SLEEP_K='vmlinux`__schedule;vmlinux`schedule;vmlinux`do_nanosleep;'
KERN_END='vmlinux`entry_SYSCALL_64_after_hwframe;'

# run LABEL: offcpu -c offcpu_wl into $TMP/LABEL.out
run() {
	run_c "$TMP/$1.out" "$TMP/$1.err" "$WL/offcpu_wl 2 1" -q offcpu
	check_status "$1: exit status" $? 0 "$TMP/$1.err"
}

# kframes FILE: the kernel frames printed (with offsets), one a line
kframes() { grep -E '^ +vmlinux`' "$1" | sed 's/^ *//' | sort -u; }
# sleeps FILE: the kernel frames (with offsets) of the nanosleep rows,
# the same in every run (preemptions, elsewhere, are not)
sleeps() {
	awk '/^ +vmlinux`/ { f = f $1 ";"; next }
	     f != "" { if (f ~ /do_nanosleep/) print f; f = "" }' "$1" | sort -u
}

# exact LABEL: every kernel frame NAME+0xOFF names the function the live
# /proc/kallsyms puts at or below NAME's address + OFF, and the sleeps'
# stack is there whole
exact() {
	local bad
	check "$1: the sleeps' kernel stack, whole" \
		grep -q "^$SLEEP_K.*$KERN_END" <(rows "$TMP/$1.out")
	bad=$(kframes "$TMP/$1.out" | python3 -c '
import bisect, sys
addrs, names = [], {}
for line in open("/proc/kallsyms"):
    f = line.split()
    if len(f) != 3 or f[1] not in "TtWw":
        continue
    a = int(f[0], 16)
    addrs.append(a)
    names.setdefault(f[2], []).append(a)
addrs = sorted(set(addrs))
n = bad = 0
for fr in sys.stdin:
    name, off = fr.strip().split("`", 1)[1].rsplit("+", 1)
    off = int(off, 16)
    n += 1
    # exact: NAME (one of its addresses) is the last function at or
    # below NAME + OFF
    if not any(addrs[bisect.bisect_right(addrs, a + off) - 1] == a
               for a in names.get(name, [])):
        bad += 1
        print("#   not exact:", fr.strip(), file=sys.stderr)
print(bad if n else "none")
')
	check_eq "$1: every kernel frame is the live kallsyms's function and offset" "$bad" 0 "$TMP/$1.out"
}

# reads_kallsyms LABEL: how many times a run read /proc/kallsyms through
# (strace: opens followed by more than 8 reads; every run reads its first
# lines, to see whether the kernel shows this process addresses at all)
reads_kallsyms() {
	strace -f -qq -e trace=openat,read,close -o "$TMP/$1.strace" \
		"$SCRY" -q offcpu -c "$WL/offcpu_wl 2 1" >"$TMP/$1.out" 2>"$TMP/$1.err"
	awk '/openat\(.*"\/proc\/kallsyms"/ { n = $NF; cur[n] = ++k; next }
	     $2 ~ /^read\(/ { f = $2; sub(/^read\(/, "", f); sub(/,$/, "", f)
			     if (f in cur) reads[cur[f]]++ }
	     $2 ~ /^close\(/ { f = $2; sub(/^close\(/, "", f); sub(/\).*/, "", f)
			      delete cur[f] }
	     END { for (i = 1; i <= k; i++) w += reads[i] > 8; print w + 0 }' \
		"$TMP/$1.strace"
}

# mode PATH: "owner mode type" as stat sees it (no symlink followed)
mode() { stat -c '%u %a %F' "$1" 2>/dev/null; }

# 1. cold: no cache. The live kallsyms names the frames; the cache is
# written, root's alone.
rm -rf "$DIR"
run cold
exact cold
check_eq "cold: the cache directory is root's, 0700" "$(mode "$DIR")" "0 700 directory"
check_eq "cold: the cache file is root's, 0600" "$(mode "$FILE")" "0 600 regular file"

# 2. warm: the same frames, from the cache
run warm
exact warm
check_eq "warm: the sleeps' kernel frames and offsets are cold's" \
	"$(sleeps "$TMP/warm.out")" "$(sleeps "$TMP/cold.out")"
check "warm: there are sleep rows" [ -n "$(sleeps "$TMP/warm.out")" ]
if command -v strace >/dev/null; then
	check_eq "warm: /proc/kallsyms not read" "$(reads_kallsyms warm2)" 0 "$TMP/warm2.strace"
	exact warm2
else
	skip "warm: /proc/kallsyms not read" "no strace: apt-get install strace"
fi
# a corrupt cache (one byte of the names changed): not used, replaced
# (whether kallsyms was read is not asked: another root scry may mend
# the file first; test_ksym_cache checks the refusal)
cp "$FILE" "$TMP/good"
size=$(stat -c %s "$FILE")
[ "$(tail -c 2 "$FILE" | head -c 1)" = X ] && byte=Y || byte=X
printf '%s' "$byte" | dd of="$FILE" bs=1 seek=$((size - 2)) conv=notrunc status=none
check_eq "corrupt: the file changed" "$(cmp -s "$FILE" "$TMP/good"; echo $?)" 1
run corrupt
exact corrupt
check "corrupt: the cache rewritten whole" cmp -s "$FILE" "$TMP/good"

# 3. a symlink in the file's place: not followed, replaced by the cache
echo keep >"$TMP/victim"
rm -f "$FILE"
ln -s "$TMP/victim" "$FILE"
run symlink
exact symlink
check_eq "symlink: its target untouched" "$(cat "$TMP/victim")" keep
check_eq "symlink: replaced by root's 0600 file" "$(mode "$FILE")" "0 600 regular file"

# 4. a cache file someone else owns: not used, replaced
chown 65534 "$FILE"
run foreign_file
exact foreign_file
check_eq "foreign file: replaced by root's 0600 file" "$(mode "$FILE")" "0 600 regular file"
cp "$FILE" "$TMP/good4"

# 5. /run/scry a symlink to another directory: not followed, nothing
# written there or through it
rm -rf "$DIR"
mkdir -m 0700 "$TMP/elsewhere"
ln -s "$TMP/elsewhere" "$DIR"
run dir_symlink
exact dir_symlink
check_eq "dir symlink: nothing written through it" "$(ls -A "$TMP/elsewhere" | wc -l)" 0
check_eq "dir symlink: left as it was" "$(mode "$DIR")" "0 777 symbolic link"

# 6. /run/scry owned by someone else, a valid cache in it: neither used
# nor written
rm -f "$DIR"
mkdir -m 0700 "$DIR"
cp "$TMP/good4" "$FILE"
chown 65534 "$DIR"
if command -v strace >/dev/null; then
	check_eq "foreign dir: /proc/kallsyms read instead" "$(reads_kallsyms foreign_dir)" 1 "$TMP/foreign_dir.strace"
else
	run foreign_dir
fi
exact foreign_dir
check "foreign dir: its cache left as it was" cmp -s "$FILE" "$TMP/good4"
check_eq "foreign dir: nothing else written in it" "$(ls -A "$DIR" | wc -l)" 1
rm -rf "$DIR"
