# After Claude Code compacts a conversation, its SessionStart hook with
# matcher "compact" gives the agent its task again: the launch prompt
# (the issue, the phase protocol, the file paths), kept by dev-poll in
# the session's own directory at the launch.  The fake agent compacts on
# its first prompt and keeps what the hook printed.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
check_has() {	# NAME TEXT NEEDLE
	case $2 in *"$3"*) ok "$1" ;; *) fail "$1" "'$3' not in '$2'" ;; esac
}
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"], "body": "Parse the input."}]' '[]' >"$T/case.json"
case_start
echo '[{"compact": true}, {"compact": true}]' >"$T/script.json"
S=dev-$PROJ-1
CTX=$RUN/sessions/active/$S/context.md
WT=$RUN/$PROJ-worktree-1
dp
rc_is "launch" 0
wait_for '[ -f "$T/agentlog/compact-1.txt" ]' 10
check "the hook is installed: SessionStart, matcher compact" \
    python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
e = [x for x in s['hooks']['SessionStart'] if x['matcher'] == 'compact']
assert len(e) == 1 and 'compact-context' in e[0]['hooks'][0]['command']
" "$WT/.claude/settings.json"
check "the context is in the session's directory" test -s "$CTX"
check "the hook ran" grep -q "hook SessionStart compact -> 0" "$T/agentlog/events.log"
C=$(cat "$T/agentlog/compact-1.txt")
check_has "given again: said why" "$C" "The conversation was compacted."
check_has "given again: the issue" "$C" "Add a parser"
check_has "given again: its body" "$C" "Parse the input."
check_has "given again: the phase file" "$C" "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
check_has "given again: the protocol" "$C" "PHASE:awaiting_ci"
check_eq "given again: the launch prompt whole" \
    "$(tail -n +3 "$CTX")" "$(cat "$T/agentlog/prompt-1.txt")"
# Without the file (a session the tools did not start so): nothing.
rm -f "$CTX"
"$O/dev-poll/dev-poll" --hook compact-context "$CTX" </dev/null >"$T/out" 2>&1
check_eq "no context file: exit 0" "$?" 0
check_eq "no context file: nothing printed" "$(cat "$T/out")" ""
