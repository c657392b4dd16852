# SPDX-License-Identifier: GPL-2.0
# bash completion for scry(1): questions, options and their values, probe
# kinds, and the parts of a probe (uprobe:LIB:FUNC, usdt:BIN:PROVIDER:NAME,
# syscall:NAME, tracepoint:CAT:NAME) as `scry -l` lists them.
# Installed as share/bash-completion/completions/scry; needs nothing from
# the bash-completion package.
#
# Questions and options come from `scry --help` itself, so they never
# drift from the binary; --unwind's and --state's values are the ones it
# accepts (tests/tool/completion.sh checks them against scry).

# The word being completed, from the line itself: readline splits words
# at ':' (COMP_WORDBREAKS), and probes are full of colons. A leading quote
# (an expression being typed) is dropped: "quoted" is how it was opened.
_scry_cur()
{
	local line=${COMP_LINE:0:COMP_POINT}

	_scry_word=${line##*[[:space:]]}
	_scry_quote=
	case $_scry_word in
	\'* | \"*)
		_scry_quote=${_scry_word:0:1}
		_scry_word=${_scry_word:1}
		;;
	esac
}

# Offer whole words (probes with their colons) for the current word:
# readline replaces only what follows the last break character, so each
# candidate loses the part of the word up to its last ':' or '='.
_scry_reply()	# CANDIDATE...
{
	local c pre=${_scry_word%"${_scry_word##*[:=]}"}

	COMPREPLY=()
	for c in "$@"; do
		[[ $c == "$_scry_word"* ]] || continue
		if [[ $COMP_WORDBREAKS == *:* ]]; then
			COMPREPLY+=("${c#"$pre"}")
		else
			COMPREPLY+=("$c")
		fi
	done
	# a probe part ending in ':' (or a directory) goes on: no space
	if [[ ${#COMPREPLY[@]} -ge 1 && ${COMPREPLY[0]} == *[:/] ]]; then
		compopt -o nospace 2>/dev/null
	fi
}

# scry itself: the one being completed if it can be found, else PATH's
_scry_bin()
{
	local b=${COMP_WORDS[0]}

	if [[ $b == */* && -x $b ]] || type -P "$b" >/dev/null 2>&1; then
		printf '%s\n' "$b"
	else
		printf 'scry\n'
	fi
}

# -p PID from the line, so library names mean what that process maps
_scry_pid_args()
{
	local i

	for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
		case ${COMP_WORDS[i]} in
		-p | --pid)
			printf -- '-p\n%s\n' "${COMP_WORDS[i + 1]}"
			return
			;;
		esac
	done
}

# Probes and their parts, through scry -l.
_scry_probe()
{
	local scry w=$_scry_word kind rest lib out
	local -a pid cands

	scry=$(_scry_bin)
	mapfile -t pid < <(_scry_pid_args)
	kind=${w%%:*}
	rest=${w#*:}
	case $w in
	uprobe:*:* | uretprobe:*:*)
		# LIB:FUNC: scry -l prints uprobe:/path/to/lib:FUNC
		lib=${rest%%:*}
		mapfile -t cands < <("$scry" "${pid[@]}" -l "uprobe:$lib:${rest#*:}*" \
			2>/dev/null | sed -n "s|^uprobe:.*:\\([^:]*\\)\$|$kind:$lib:\\1|p")
		_scry_reply "${cands[@]}"
		;;
	usdt:*:*)
		# BIN:PROVIDER:NAME: scry -l prints usdt:/path:PROVIDER:NAME  # args
		lib=${rest%%:*}
		mapfile -t cands < <("$scry" "${pid[@]}" -l "usdt:$lib" 2>/dev/null |
			sed 's/ *#.*//' | awk -F: -v p="usdt:$lib:" \
			'NF >= 4 { print p $(NF - 1) ":" $NF }')
		_scry_reply "${cands[@]}"
		;;
	uprobe:* | uretprobe:* | usdt:*)
		# LIB or BIN: libc, or a file (directories go on with '/')
		for lib in $(compgen -f -- "$rest"); do
			[[ -d $lib ]] && cands+=("$kind:$lib/") || cands+=("$kind:$lib:")
		done
		[[ $kind == usdt ]] || cands+=("$kind:libc:")
		_scry_reply "${cands[@]}"
		;;
	syscall:* | tracepoint:*)
		mapfile -t cands < <("$scry" -l "$w*" 2>/dev/null)
		_scry_reply "${cands[@]}"
		;;
	esac
}

_scry()
{
	local prev=${COMP_WORDS[COMP_CWORD - 1]} scry
	local kinds="uprobe: uretprobe: usdt: syscall: tracepoint: profile: offcpu"

	_scry_cur
	COMPREPLY=()
	case $prev in
	--unwind)
		_scry_reply auto dwarf fp
		return
		;;
	--state)
		_scry_reply all S D
		return
		;;
	-o | --output | -f | --file)
		mapfile -t COMPREPLY < <(compgen -f -- "$_scry_word")
		return
		;;
	-c | --cmd)
		mapfile -t COMPREPLY < <(compgen -c -- "$_scry_word")
		return
		;;
	-p | --pid)
		mapfile -t COMPREPLY < <(cd /proc 2>/dev/null &&
			compgen -G "${_scry_word}*" | grep -E '^[0-9]+$')
		return
		;;
	-F | --frequency)
		_scry_reply 49 99 499 999
		return
		;;
	-d | --duration | --interval | --top | --min-block | \
	--max-keys | --max-stacks | --max-unwind-rows | --buffer-size)
		return		# a number
		;;
	-e | --program | --map)
		return		# a program, a map's name: nothing to offer
		;;
	-l | --list)
		_scry_probe
		[[ ${#COMPREPLY[@]} -gt 0 ]] || _scry_reply $kinds
		return
		;;
	esac
	case $_scry_word in
	-*)
		scry=$(_scry_bin)
		# every option --help lists, long and short (deeper indented
		# lines continue a description)
		_scry_reply $("$scry" --help 2>/dev/null |
			grep -oE '^ {1,6}(-[a-zA-Z], )?--[a-z][a-z-]*' |
			grep -oE -- '-[a-zA-Z]|--[a-z][a-z-]*')
		;;
	*:*)
		_scry_probe
		;;
	*)
		# the questions --help lists, and probe kinds for expressions
		scry=$(_scry_bin)
		_scry_reply $("$scry" --help 2>/dev/null | awk '
			/^Questions:/ { q = 1; next } q && !NF { exit } q { print $1 }') \
			$kinds
		;;
	esac
}

complete -F _scry scry
