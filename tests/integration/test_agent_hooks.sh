# The hooks an agent session gets (dev and review alike), run as the
# agent CLI runs them: the installed command through sh -c, the JSON of
# the event on stdin.  The fake agent uses them as the real one does: a
# force push to the primary branch and an approval of a PR with the dev
# agent's own token are refused before they run (PreToolUse, exit 2, the
# reason on stdout and stderr) while other commands run, and
# an API error of the issue's own ends the turn (StopFailure): the phase
# says failed with the reason, the phase-changed marker is touched, and
# the next tick handles the failure at once (an error of the project's
# pauses it instead: test_dev_api_pause.sh).  Then each hook mode with the inputs that
# matter: the guard's refusals (cwd from the input), StopFailure leaving
# a finished phase alone, PostToolUse telling writes from reads, the
# idle and exit markers.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
cat >"$T/script.json" <<'JSON'
[[{"tool": {"name": "Bash", "input": {"command": "git push --force origin master"}}},
  {"tool": {"name": "Bash", "input": {"command": "echo ran > {workdir}/allowed.txt"}}},
  {"tool": {"name": "Bash", "input": {"command": "rm -rf /etc/x"}}},
  {"tool": {"name": "Bash", "input": {"command": "curl -sf -X POST -H \"Authorization: token $FORGE_TOKEN\" -H 'Content-Type: application/json' -d '{\"event\": \"APPROVED\"}' \"$FORGE_API/pulls/1/reviews\""}}},
  {"api_error": "max_output_tokens"}]]
JSON
S=dev-$PROJ-1
PHASE=$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase
WT=$RUN/$PROJ-worktree-1
dp
rc_is "launch" 0
wait_for 'grep -q "hook StopFailure" "$T/agentlog/events.log"' 10
EV=$(cat "$T/agentlog/events.log")
check "the force push was refused" grep -q \
    "tool Bash refused: BLOCKED: force-pushing to the primary branch 'master'" \
    "$T/agentlog/events.log"
check_eq "the force push never ran" \
    "$(git --git-dir="$T/origin.git" rev-parse master)" \
    "$(git -C "$T/repo" rev-parse master)"
check "other commands ran" test -f "$WT/allowed.txt"
# The hooks' settings are the tools', never the agent's to commit:
# "git add -A" there stages the agent's file and leaves .claude/ out.
git -C "$WT" add -A
check_eq "git add -A: the agent's file staged, .claude/ left out" \
    "$(git -C "$WT" status --porcelain | tr '\n' ' ')" "A  allowed.txt "
check "the pattern is in the clone's info/exclude" \
    grep -qx '/.claude/settings.json' "$T/repo/.git/info/exclude"
check "rm -rf outside the worktree refused" grep -q \
    "tool Bash refused: BLOCKED: 'rm -r /etc/x'" "$T/agentlog/events.log"
check "an approval with the dev token refused" grep -q \
    "tool Bash refused: BLOCKED: reviewing, approving or dismissing" \
    "$T/agentlog/events.log"
check_eq "the approval never reached the forge" \
    "$(sim_log_count POST '/reviews')" 0
check_eq "an API error: the phase says failed" "$(cat "$PHASE")" \
    "PHASE:failed
Reason: api_error: max_output_tokens"
check "an API error: the phase-changed marker" test -s \
    "$RUN/sessions/active/$S/phase-changed-$S.marker"
# The failure's handling removes the worktree: its hooks are kept here.
cp "$WT/.claude/settings.json" "$T/settings.json"
dp
lhas "the next tick handles the failure" \
    "#1: session failed: api_error: max_output_tokens"
check "the failed session is ended" sh -c "! tmux -L $(tmux_sock) has-session -t =$S 2>/dev/null"

check "the ended session's directory is gone" test ! -e "$RUN/sessions/active/$S"
SET=$T/settings.json
hookcmd() {
	pyjson "[h['command'] for e in d['hooks']['$1'] for h in e['hooks']][-1]" <"$SET"
}
# A CLI that ends after the clean-up (its SessionEnd and Stop hooks fire
# once it is killed) leaves nothing: the hooks write only into a session
# directory that exists, and make none.
for ev in SessionEnd Stop; do
	printf '{"hook_event_name": "%s", "session_id": "0b18-late", "reason": "other"}' "$ev" |
	    sh -c "$(hookcmd $ev)" >/dev/null 2>&1
done
check "late hooks: no session directory made again" test ! -e "$RUN/sessions/active/$S"
check_eq "late hooks: no claude-exited, claude-idle or claude-id anywhere" \
    "$(find "$RUN" -name 'claude-*' | wc -l)" 0
# The installed commands, one by one, in a session directory again.
mkdir -p "$RUN/sessions/active/$S"
check_eq "StopFailure matches every API error (the hook judges them)" \
    "$(pyjson "d['hooks']['StopFailure'][0]['matcher']" <"$SET")" '*'
check_eq "PreToolUse matches Bash and the file tools" \
    "$(pyjson "d['hooks']['PreToolUse'][0]['matcher']" <"$SET")" \
    'Bash|Write|Edit|MultiEdit|NotebookEdit'
GUARD=$(hookcmd PreToolUse)
# pre JSON: run the guard; its exit status in $PRE_RC, output in files.
pre() {
	printf '%s' "$1" | sh -c "$GUARD" >"$T/pre.out" 2>"$T/pre.err"
	PRE_RC=$?
}
pre '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git status"}}'
check_eq "guard: allowed, exit 0" "$PRE_RC" 0
check_eq "guard: allowed, silent" "$(cat "$T/pre.out" "$T/pre.err")" ""
pre '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git checkout master"}}'
check_eq "guard: refused, exit 2" "$PRE_RC" 2
check "guard: the reason on stdout" grep -q "^BLOCKED: switching to the primary branch 'master'" "$T/pre.out"
check "guard: the reason on stderr" grep -q "^BLOCKED: switching to the primary branch 'master'" "$T/pre.err"
pre "{\"tool_name\": \"Bash\", \"cwd\": \"$WT/src\", \"tool_input\": {\"command\": \"rm -rf ../../$PROJ-worktree-2\"}}"
check_eq "guard: a relative path from the input's cwd" "$PRE_RC" 2
pre "{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"cat $FACTORY_ROOT/.env\"}}"
check_eq "guard: the factory's files" "$PRE_RC" 2
check "guard: names the factory" grep -q "factory's own directory '$FACTORY_ROOT'" "$T/pre.out"
pre "{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"curl -X POST \$FORGE_API/pulls/3/merge\"}}"
check_eq "guard: merges through the API" "$PRE_RC" 2
pre '{"tool_name": "Bash", "tool_input": {"command": "curl -X POST $FORGE_API/pulls/3/reviews/7/dismissals"}}'
check_eq "guard: review dismissals" "$PRE_RC" 2
pre '{"tool_name": "Bash", "tool_input": {"command": "curl -s $FORGE_API/pulls/3/reviews"}}'
check_eq "guard: reading the reviews passes" "$PRE_RC" 0
pre '{"tool_name": "Bash", "tool_input": {"command": "tmux kill-server"}}'
check_eq "guard: the orchestrator's tmux" "$PRE_RC" 2
pre '{"tool_name": "Write", "tool_input": {"file_path": "/etc/x"}}'
check_eq "guard: other files pass the file tools" "$PRE_RC" 0
pre "{\"tool_name\": \"Write\", \"tool_input\": {\"file_path\": \"$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase\"}}"
check_eq "guard: another session's phase, by the Write tool" "$PRE_RC" 2
check "guard: says whose" grep -q "is not this session's" "$T/pre.out"
pre "{\"tool_name\": \"Edit\", \"tool_input\": {\"file_path\": \"$PHASE\"}}"
check_eq "guard: its own phase, by the Edit tool" "$PRE_RC" 0
pre "{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"echo '{}' > $RUN/sessions/active/review-$PROJ-1/$PROJ-review-output-1.json\"}}"
check_eq "guard: a review's output, from the shell" "$PRE_RC" 2
pre "{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"echo PHASE:awaiting_ci > $PHASE\"}}"
check_eq "guard: its own phase, from the shell" "$PRE_RC" 0
pre "{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"curl -X PATCH -d '{\\\"state\\\":\\\"closed\\\"}' \\\"\$FORGE_API/issues/1\\\"\"}}"
check_eq "guard: a close with its body first" "$PRE_RC" 2
pre "{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"cd / && rm -rf ${WT#/}/../x\"}}"
check_eq "guard: cd / then a relative rm" "$PRE_RC" 2
# Input the guard cannot read is refused, with the reason.
pre 'not json'
check_eq "guard: input it cannot read is refused" "$PRE_RC" 2
check "guard: says it cannot read it" \
    grep -q "^BLOCKED: the guard cannot read the tool's input" "$T/pre.out"
pre '{"tool_name": "WebFetch", "tool_input": {"url": "http://x/"}}'
check_eq "guard: a tool it does not know is refused" "$PRE_RC" 2
pre '{"tool_name": "Bash", "tool_input": {}}'
check_eq "guard: a Bash input without a command is refused" "$PRE_RC" 2
# A command past the 1 MiB the hook reads: the part read would pass.
python3 -c 'import json, sys
sys.stdout.write(json.dumps({"tool_name": "Bash", "tool_input":
    {"command": "ls" + " " * (1 << 20) + "; git checkout master"}}))' \
    >"$T/big.json"
sh -c "$GUARD" <"$T/big.json" >"$T/pre.out" 2>"$T/pre.err"
check_eq "guard: an input over 1 MiB is refused" "$?" 2
check "guard: says it is too long" \
    grep -q "longer than the guard reads" "$T/pre.out"

FAIL=$(hookcmd StopFailure)
MARK=$RUN/sessions/active/$S/phase-changed-$S.marker
for done in PHASE:done PHASE:merged PHASE:escalate; do
	printf '%s\nReason: x\n' "$done" >"$PHASE"
	rm -f "$MARK"
	echo '{"hook_event_name": "StopFailure", "error_type": "server_error"}' |
	    sh -c "$FAIL"
	check_eq "StopFailure leaves $done alone" "$(head -1 "$PHASE")" "$done"
	check "StopFailure: no marker after $done" test ! -e "$MARK"
done
echo PHASE:awaiting_ci >"$PHASE"
printf '%s' '{"hook_event_name": "StopFailure", "error": "invalid_request"}' |
    sh -c "$FAIL"
check_eq "StopFailure: the issue's own error fails the phase" "$(cat "$PHASE")" \
    "PHASE:failed
Reason: api_error: invalid_request"
check "StopFailure: the marker" test -s "$MARK"
REC=$RUN/sessions/active/$S/api-error-$S
echo PHASE:awaiting_ci >"$PHASE"
rm -f "$MARK" "$REC"
printf '%s' '{"hook_event_name": "StopFailure", "error": "billing_error;\nrm -rf /", "error_details": "x"}' |
    sh -c "$FAIL"
check_eq "StopFailure: an error the table lacks is the project's: the phase kept" \
    "$(cat "$PHASE")" PHASE:awaiting_ci
check_eq "StopFailure: the session's record, its name made safe" \
    "$(sed -n 's/^ERROR: //p' "$REC")" billing_errorrmrf
check "StopFailure: the marker for the project's error" test -s "$MARK"
rm -f "$REC"
printf '%s' '{"hook_event_name": "StopFailure", "error": "rate_limit", "error_details": "Claude AI usage limit reached|4102444800"}' |
    sh -c "$FAIL"
check_eq "StopFailure: a reset further than 8 days ahead is not believed" \
    "$(sed -n 's/^RESET: //p' "$REC")" 0
check_eq "StopFailure: rate_limit recorded" "$(sed -n 's/^ERROR: //p' "$REC")" rate_limit

CHANGE=$(hookcmd PostToolUse)
rm -f "$MARK"
printf '{"tool_name": "Bash", "tool_input": {"command": "cat %s"}}' "$PHASE" |
    sh -c "$CHANGE"
check "PostToolUse: a read is no change" test ! -e "$MARK"
printf '{"tool_name": "Write", "tool_input": {"file_path": "%s"}}' "$PHASE" |
    sh -c "$CHANGE"
check "PostToolUse: the Write tool's change" test -s "$MARK"

rm -f "$RUN/sessions/active/$S/claude-idle-$S.ts" "$RUN/sessions/active/$S/claude-exited-$S.ts"
echo '{"hook_event_name": "Stop"}' | sh -c "$(hookcmd Stop)"
check "Stop: the idle marker holds the time" \
    grep -qE '^[0-9]{10}$' "$RUN/sessions/active/$S/claude-idle-$S.ts"
echo '{"hook_event_name": "SessionEnd", "reason": "logout"}' |
    sh -c "$(hookcmd SessionEnd)"
check "SessionEnd: the time and the reason" \
    grep -qE '^[0-9]{10} logout$' "$RUN/sessions/active/$S/claude-exited-$S.ts"
"$O/dev-poll/dev-poll" --hook nonsense </dev/null >/dev/null 2>"$T/err"
check_eq "an unknown hook: exit 1" "$?" 1
check "an unknown hook: says so" grep -q "unknown hook 'nonsense'" "$T/err"
