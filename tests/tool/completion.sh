# SPDX-License-Identifier: GPL-2.0
# bash completion (completion/scry.bash): sourced in bash and called the
# way readline calls it, with COMP_LINE/COMP_POINT/COMP_WORDS/COMP_CWORD;
# the values it offers are checked against what scry accepts.
. "$(dirname "$0")/../lib.sh"

PATH=$(dirname "$SCRY"):$PATH	# the scry being tested answers -l and --help
. completion/scry.bash

# comp LINE: the candidates for the end of LINE, sorted, space-separated.
# Words are split as readline splits them: at blanks, and around ':' and
# '=' (COMP_WORDBREAKS), so "uprobe:libc:mal" is five words.
comp() {
	local line=$1
	COMP_LINE=$line
	COMP_POINT=${#line}
	read -ra COMP_WORDS <<<"$(sed 's/[:=]/ & /g' <<<"$line")"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_scry 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# has LIST WORD...: every WORD is in the space-separated LIST
has() {
	local list=" $1 " w
	shift
	for w in "$@"; do [[ $list == *" $w "* ]] || return 1; done
}

check_eq "complete -F _scry scry is registered" "$(complete -p scry)" "complete -F _scry scry"

# questions and probe kinds, from scry --help
check_eq "first word: the questions (from --help) and the probe kinds" "$(comp 'scry ')" \
	"malloc offcpu profile profile: read syscall: tracepoint: uprobe: uretprobe: usdt: write"
check_eq "first word: 'of' completes to offcpu" "$(comp 'scry of')" offcpu
check_eq "a question after options" "$(comp 'scry -p 1 mal')" malloc

# options: every one --help lists, and nothing else
want=$("$SCRY" --help | grep -oE '^ {1,6}(-[a-zA-Z], )?--[a-z][a-z-]*' |
	grep -oE -- '-[a-zA-Z]|--[a-z][a-z-]*' | sort -u | tr '\n' ' ' | sed 's/ $//')
check_eq "options: exactly those of scry --help" "$(comp 'scry -')" "$want"
check "options: the format options from the format table are there" \
	has "$(comp 'scry --')" --folded --json --svg --pprof
check_eq "options: '--unw' completes to --unwind" "$(comp 'scry offcpu --unw')" --unwind

# option values are the ones scry accepts: its own error message lists them
accepted() {	# OPTION ARGS...: the "(a, b, c)" list of scry's complaint
	"$SCRY" "$@" 2>&1 | sed -n 's/.*unknown [a-z]* .bogus. (\(.*\))$/\1/p' | tr -d ',' | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//'
}
check_eq "--unwind: the methods scry accepts" "$(comp 'scry --unwind ')" \
	"$(accepted --unwind bogus offcpu)"
check_eq "--state: the states scry accepts" "$(comp 'scry offcpu --state ')" \
	"$(accepted offcpu --state bogus)"
check_eq "--unwind: 'd' completes to dwarf" "$(comp 'scry --unwind d')" dwarf
check "-p: offers this shell's pid" has "$(comp 'scry -p ')" $$
touch "$TMP/cpu.svg" "$TMP/prog.bt"
check_eq "-o: offers files" "$(comp "scry -o $TMP/cp")" "$TMP/cpu.svg"
check_eq "-f: offers files (a script)" "$(comp "scry -f $TMP/pr")" "$TMP/prog.bt"
check_eq "--buffer-size: a number, nothing offered" "$(comp 'scry --buffer-size ')" ""

# probe parts through scry -l: uprobe:LIB:FUNC, syscall:, tracepoint:, usdt:
check_eq "uprobe:libc:mallo -> malloc and friends (colon-trimmed, as readline wants)" \
	"$(comp 'scry uprobe:libc:mallo')" \
	"$("$SCRY" -l 'uprobe:libc:mallo*' | sed 's/.*://' | sort -u | tr '\n' ' ' | sed 's/ $//')"
check "uprobe:libc:mallo offers malloc" has "$(comp 'scry uprobe:libc:mallo')" malloc
check "-l uprobe:libc:mallo offers malloc" has "$(comp 'scry -l uprobe:libc:mallo')" malloc
check "'uprobe:libc:mallo (an open quote) offers malloc" has "$(comp "scry 'uprobe:libc:mallo")" malloc
check "uretprobe:libc:fre offers free" has "$(comp 'scry uretprobe:libc:fre')" free
check "uprobe: offers libc:" has "$(comp 'scry uprobe:')" libc:
check_eq "uprobe:LIB with a path: files, then ':'" \
	"$(comp "scry uprobe:$WL/cpu_w")" "$WL/cpu_wl:"
check_eq "usdt:BIN: -> the binary's PROVIDER:NAME" \
	"$(comp "scry usdt:$WL/malloc_wl:")" "scry_test:tick"
check "syscall:rea -> read, readv, readlink" has "$(comp 'scry syscall:rea')" read readv readlink
check_eq "tracepoint:sched:sched_process_ex -> exec, exit" \
	"$(comp 'scry tracepoint:sched:sched_process_ex')" "sched_process_exec sched_process_exit"
