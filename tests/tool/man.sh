# SPDX-License-Identifier: GPL-2.0
# scry(1), built from docs/scry.1.scd: groff finds nothing to warn about,
# it has the sections a man page needs, and it names exactly the
# questions and options `scry --help` names (so neither drifts).
. "$(dirname "$0")/../lib.sh"

MAN=$BUILD/scry.1
make --no-print-directory -s "$MAN" || fail "make $MAN"
check "build/scry.1 is built from docs/scry.1.scd" test -s "$MAN"
check_eq "groff -man -ww -z: no warning" "$(groff -man -ww -z "$MAN" 2>&1)" ""
# as man shows it, without the terminal's bold and underline
groff -man -Tutf8 -P-cbu "$MAN" 2>/dev/null | sed 's/\xe2\x80\x90/-/g' >"$TMP/man.txt"
check_eq "the NAME line" "$(sed -n '/^NAME/{n;p;q}' "$TMP/man.txt" | sed 's/^ *//')" \
	"scry - ask a running Linux system a question through eBPF"
for sec in SYNOPSIS DESCRIPTION QUESTIONS OPTIONS "THE LANGUAGE" "EXIT STATUS" FILES EXAMPLES; do
	check "section $sec" grep -q "^$sec\$" "$TMP/man.txt"
done
check "THE LANGUAGE points to docs/LANGUAGE.md" \
	bash -c "sed -n '/^THE LANGUAGE/,/^EXIT STATUS/p' '$TMP/man.txt' | grep -q 'docs/LANGUAGE.md'"
check_eq "EXIT STATUS: 0, 1 and 2" \
	"$(sed -n '/^EXIT STATUS/,/^FILES/p' "$TMP/man.txt" | grep -E '^       [0-9]$' | tr -d ' ' | tr '\n' ' ')" "0 1 2 "
check "FILES names what scry reads and writes" \
	bash -c "sed -n '/^FILES/,/^EXAMPLES/p' '$TMP/man.txt' | grep -q /sys/kernel/btf/vmlinux &&
		sed -n '/^FILES/,/^EXAMPLES/p' '$TMP/man.txt' | grep -q 'Written:'"

# questions: the first word of --help's Questions lines; the man page's
# definitions under QUESTIONS
help_q=$("$SCRY" --help | awk '/^Questions:/ { q = 1; next } q && !NF { exit } q { print $1 }' | sort | tr '\n' ' ')
man_q=$(sed -n '/^QUESTIONS/,/^OPTIONS/p' "$TMP/man.txt" | grep -E '^       [a-z]+$' | tr -d ' ' | sort | tr '\n' ' ')
check_eq "every question of --help is in the man page, and no other" "$man_q" "$help_q"

# options: "-p, --pid" or "--json" at the start of a definition
# (at most 7 spaces in: deeper lines continue a description)
opts() { grep -oE '^ {1,7}(-[a-zA-Z], )?--[a-z][a-z-]*' | sed 's/^ *//' | sort | tr '\n' ' '; }
help_o=$("$SCRY" --help | opts)
man_o=$(sed -n '/^OPTIONS/,/^THE LANGUAGE/p' "$TMP/man.txt" | grep -E '^       -' | opts)
check "--help lists options (at least 25)" test "$(wc -w <<<"$help_o")" -ge 25
check_eq "every option of --help is in the man page, and no other" "$man_o" "$help_o"
