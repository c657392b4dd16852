# SPDX-License-Identifier: GPL-2.0
# Bad input: one clear line naming the problem and the fix; exit 2 for
# usage errors, 1 for runtime failures.
. "$(dirname "$0")/../lib.sh"


expect "no such pid" 2 '^scry: -p: pid 999999999: no such process$' -- "$SCRY" offcpu -p 999999999
expect "bad pid" 2 "^scry: -p: invalid value 'abc'" -- "$SCRY" offcpu -p abc
expect "-c not found" 2 '^scry: -c: no-such-cmd-xyz: command not found$' -- "$SCRY" offcpu -c 'no-such-cmd-xyz --flag'
expect "bad duration" 2 "^scry: -d: invalid duration 'soon'" -- "$SCRY" offcpu -d soon
expect "unknown option" 2 "^scry: unknown option '--frobnicate' \(try 'scry --help'\)$" -- "$SCRY" offcpu --frobnicate
expect "unknown option in a group" 2 "^scry: unknown option '-x' \(try 'scry --help'\)$" -- "$SCRY" -qx offcpu
expect "unknown option first in a group" 2 "^scry: unknown option '-x' \(try 'scry --help'\)$" -- "$SCRY" -p 1 -xq offcpu
expect "option without its value" 2 "^scry: option '--max-keys' needs a value \(try 'scry --help'\)$" -- "$SCRY" offcpu --max-keys
expect "misspelt question" 2 "^scry: unknown question 'mallocs'; did you mean: malloc\? \(questions: offcpu malloc read write profile; " -- "$SCRY" mallocs -p 1
expect "misspelt tracepoint" 2 "^scry: tracepoint:sched:sched_switchh: no such tracepoint; did you mean: sched:sched_switch\?$" -- "$SCRY" 'tracepoint:sched:sched_switchh { @ = count() }'
expect "guessed question" 2 "^scry: unknown question 'help' \(questions: " -- "$SCRY" help
expect "no question" 2 '^scry: no question or expression given' -- "$SCRY"
expect "unknown state" 2 "^scry: --state: unknown state 'X' \(all, S, D\)$" -- "$SCRY" offcpu --state X
expect "unknown probe kind" 2 "^scry: unknown probe kind 'offcup'" -- "$SCRY" 'offcup { @ = count() }'
# a syntax error: the message with its column, the expression, a caret
# under column 16 (the '/' where an operand should be)
"$SCRY" 'offcpu /pid == / { @ = count() }' >"$TMP/syn.out" 2>"$TMP/syn.err"
check_eq "syntax error: exit status" $? 2
check_eq "syntax error: message, column, the expression, a caret under the column" \
	"$(cat "$TMP/syn.err")" "scry: expected an operand after '==' at column 16
    offcpu /pid == / { @ = count() }
                   ^"
expect "not root" 1 '^scry: permission denied: tracing needs root \(CAP_BPF and CAP_PERFMON\); run with sudo$' \
	-- setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRY" offcpu -d 1
# an empty tmpfs over /sys/kernel/btf, in a private mount namespace
expect "no BTF" 1 '^scry: this kernel has no BTF .*CONFIG_DEBUG_INFO_BTF=y$' \
	-- unshare -m --propagation unchanged sh -c "mount --make-rprivate /sys && mount -t tmpfs none /sys/kernel/btf && exec '$SCRY' offcpu -d 1"

"$SCRY" --help >"$TMP/h.out"
check_eq "--help: exit status" $? 0
check "--help: ends with EXAMPLES" grep -q '^EXAMPLES:' "$TMP/h.out"
check "--version" bash -c "'$SCRY' --version | grep -Eq '^scry [0-9]+\.[0-9]+'"
