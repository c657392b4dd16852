# SPDX-License-Identifier: GPL-2.0
# make install / make uninstall into a DESTDIR: every file where Debian's
# layout puts it, an installed scry that answers a real question from any
# directory without opening anything beside itself or in the source
# tree, and an uninstall that leaves nothing behind.
. "$(dirname "$0")/../lib.sh"

D=$TMP/dest
mk() { make --no-print-directory -s "$@" >"$TMP/make.out" 2>&1; }

mk install DESTDIR="$D" PREFIX=/usr
check_status "make install DESTDIR=... PREFIX=/usr" $? 0 "$TMP/make.out"
for f in bin/scry share/man/man1/scry.1 share/bash-completion/completions/scry \
	 share/doc/scry/README.md share/doc/scry/LANGUAGE.md share/doc/scry/JSON.md \
	 share/doc/scry/PPROF.md share/doc/scry/scry.schema.json share/doc/scry/LICENSE; do
	check "installed: /usr/$f" test -s "$D/usr/$f"
done
check_eq "bin/scry is executable, the man page and completion are not" \
	"$(stat -c %a "$D/usr/bin/scry" "$D/usr/share/man/man1/scry.1" "$D/usr/share/bash-completion/completions/scry" | tr '\n' ' ')" \
	"755 644 644 "
check_eq "the installed binary is the built one" "$(cmp "$D/usr/bin/scry" "$SCRY" && echo same)" same
check_eq "the installed man page reads without groff warnings" \
	"$(groff -man -ww -z "$D/usr/share/man/man1/scry.1" 2>&1)" ""
check_eq "the installed completion registers itself" \
	"$(bash -c ". '$D/usr/share/bash-completion/completions/scry' && complete -p scry")" "complete -F _scry scry"

# a real question from another directory; strace shows every file it opens
S=$D/usr/bin/scry
mkdir -p "$TMP/elsewhere"
(cd "$TMP/elsewhere" && strace -f -qq -e trace=open,openat,execve -o "$TMP/strace.out" \
	"$S" -q -c "$WL/offcpu_wl 3 0" 'syscall:nanosleep,clock_nanosleep { @[comm] = count() }' \
	>"$TMP/q.out" 2>"$TMP/q.err")
check_status "installed scry, run from another directory: exit status" $? 0 "$TMP/q.err"
check_eq "installed scry answers: offcpu_wl's 3 naps" \
	"$(awk '$1 == "offcpu_wl" { print $2 }' "$TMP/q.out")" 3
# scry's own opens (its pid is the first line's), not the workload's, by
# path (an openat relative to a directory scry opened, such as its cache
# files in /var/cache/scry, is that directory's)
src=$PWD
awk 'NR == 1 { pid = $1 } $1 == pid' "$TMP/strace.out" |
	grep -oE '(open\(|openat\(AT_FDCWD, )"[^"]*"' | sed 's/.*"\(.*\)"/\1/' | sort -u >"$TMP/opened"
check "strace saw scry open its kernel's files (the list is scry's)" grep -q '^/sys/kernel/' "$TMP/opened"
opened=$(grep -E "^($D|$src|[^/])" "$TMP/opened" | grep -vx "$S" | tr '\n' ' ')
check_eq "installed scry opens nothing beside itself, in the source tree, or relative" "$opened" ""

mk uninstall DESTDIR="$D" PREFIX=/usr
check_status "make uninstall" $? 0 "$TMP/make.out"
check_eq "uninstall leaves no file" "$(find "$D" -type f | tr '\n' ' ')" ""
check "uninstall removes share/doc/scry" test ! -e "$D/usr/share/doc/scry"

# the default prefix is /usr/local
mk -n install DESTDIR=/x
check "PREFIX defaults to /usr/local" grep -q '/x/usr/local/bin/scry' "$TMP/make.out"
