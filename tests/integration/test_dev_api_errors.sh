# Every API error of the agent CLI's is seen within a tick, and judged by
# the table (api_error.h).  A 400 (invalid_request) through StopFailure is
# the issue's own failure as before: PHASE:failed, the diagnostic, blocked.
# A 404 (model_not_found) that the CLI shows on its screen without any
# hook (Claude Code 2.1 ends such a turn without StopFailure) is read
# from the screen on the next tick: the project pauses, nothing is
# blocked.  A 400 shown on the screen alone fails the issue on the next
# tick.  An error line the agent went on from is not read as its end.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
ISSUES='[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]'
S=dev-$PROJ-1
PAUSE=$RUN/api-pause-$PROJ

# run_case NAME SCRIPT: a fresh world with issue #1 and the agent's script.
run_case() {
	t_tmux kill-server 2>/dev/null
	rm -rf "$RUN"/* "$T/agentlog" "$RUN/../$PROJ-worktree-1"
	mkdir -p "$T/agentlog"
	git -C "$T/repo" worktree prune
	echo "$2" >"$T/script.json"
	scen "$ISSUES" '[]' >"$T/case.json"
	case_start
	dp
	rc_is "$1: launch" 0
	wait_for 'grep -qE "hook StopFailure|screen error" "$T/agentlog/events.log"' 10
}

run_case "400 by the hook" '[{"api_error": "invalid_request", "details": "400 {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages: text content blocks must be non-empty\"}}"}]'
check_eq "400: the phase says failed" "$(cat "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase")" \
    "PHASE:failed
Reason: api_error: invalid_request"
check "400: no error record" test ! -e "$RUN/sessions/active/$S/api-error-$S"
dp
lhas "400: the issue's failure" "#1: session failed: api_error: invalid_request"
check_eq "400: blocked" "$(labels 1)" blocked
check "400: no pause" test ! -e "$PAUSE"

run_case "404 on the screen" '[{"screen_error": "API Error: 404 {\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"model: claude-nonesuch\"}}"}]'
check "404: no hook fired" sh -c "! grep -q 'hook StopFailure' '$T/agentlog/events.log'"
dp
lhas "404: read from the screen" "#1: its screen shows an API error, no hook said so: API Error: 404"
lhas "404: the project is paused" "#1: stopped by an API error of the project's \(model_not_found, from its screen\) — the project is paused"
check_eq "404: the pause's reason" "$(sed -n 's/^REASON: //p' "$PAUSE")" model_not_found
check_eq "404: not blocked" "$(labels 1)" in-progress
check_eq "404: the session is kept" "$(sessions)" "$S "
dp
lnot "404: read once, not again" "its screen shows"
lhas "404: still paused" "paused: model_not_found"

run_case "400 on the screen" '[{"screen_error": "API Error: 400 {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 212000 tokens > 200000 maximum\"}}"}]'
dp
lhas "400 on the screen: read" "#1: its screen shows an API error of the issue's \(invalid_request\)"
lhas "400 on the screen: the issue's failure" "#1: session failed: api_error: invalid_request"
check_eq "400 on the screen: blocked" "$(labels 1)" blocked
check "400 on the screen: no pause" test ! -e "$PAUSE"

# A plain 400 as Claude Code 2.1 names it ("unknown"): either's, judged
# by evidence.  With none the project pauses; resumed from it, the same
# error again is the issue's: it fails, blocked, and nothing pauses.
U400='{"api_error": "unknown", "details": "API Error: 400 scripted error"}'
run_case "unknown, then again after the resume" "[$U400, $U400]"
check "unknown: the hook kept it for judging" grep -qx 'ERROR: unknown' "$RUN/sessions/active/$S/api-error-$S"
dp
lhas "unknown: no evidence, the project's" "#1: stopped by an API error of the project's \(unknown, from its hook\) — the project is paused"
check_eq "unknown: not blocked yet" "$(labels 1)" in-progress
sed "s/^UNTIL: .*/UNTIL: $(($(date +%s) - 1))/" "$PAUSE" >"$PAUSE.new" && mv "$PAUSE.new" "$PAUSE"
dp
lhas "unknown: resumed" "$S: the API error \(unknown\) is over — told to continue"
wait_for '[ "$(grep -c "hook StopFailure unknown" "$T/agentlog/events.log")" -ge 2 ]' 10
dp
lhas "unknown again: the issue's" "#1: stopped by an API error \(unknown, from its hook\) that is the issue's: the same error again after it was resumed — it fails, the project is not paused"
lhas "unknown again: the issue's failure" "#1: session failed: api_error: unknown, the issue's"
check_eq "unknown again: blocked" "$(labels 1)" blocked
lnot "unknown again: no recurrence" "pause 2"

# Another session's completed turn after the error: the API serves the
# others, the error is the issue's at once; no pause.
run_case "unknown while another session works" "[$U400]"
t_tmux new-session -d -s "review-$PROJ-7" sleep 600
AT=$(sed -n 's/^AT: //p' "$RUN/sessions/active/$S/api-error-$S")
mkdir -p "$RUN/sessions/active/review-$PROJ-7"
touch "$RUN/sessions/active/review-$PROJ-7/claude-idle-review-$PROJ-7.ts"
touch -d "@$((AT + 1))" "$RUN/sessions/active/review-$PROJ-7/claude-idle-review-$PROJ-7.ts"
dp
lhas "another session's turn: the issue's" "#1: stopped by an API error \(unknown, from its hook\) that is the issue's: another session completed a turn since"
lhas "another session's turn: failed" "#1: session failed: api_error: unknown"
check_eq "another session's turn: blocked" "$(labels 1)" blocked
check "another session's turn: no pause" test ! -e "$PAUSE"

# A 529 that Claude Code 2.1 names server_error is overloaded.
run_case "529 as server_error" '[{"api_error": "server_error", "details": "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}]'
check "529: recorded as overloaded" grep -qx 'ERROR: overloaded' "$RUN/sessions/active/$S/api-error-$S"

# An error the agent went on from (more output after it) is no end.
run_case "an error it went on from" '[[{"screen_error": "API Error: 529 Overloaded. This is a server-side issue, usually temporary"}, {"say": "\u23fa Retried: all good"}]]'
dp
lnot "went on: not read as an error" "its screen shows|paused"
check "went on: no pause" test ! -e "$PAUSE"

# An agent that exits before it is ready: the reason from its last
# screen, secrets masked, in the log and the launch failure line.
t_tmux kill-server 2>/dev/null
rm -rf "$RUN"/* "$T/agentlog"
mkdir -p "$T/agentlog"
git -C "$T/repo" worktree prune
cat >"$T/script.json" <<'JSON'
[{"on": "start", "say": "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons (key sk-ant-api03-AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH)", "sleep": 1, "exit": 1}]
JSON
scen "$ISSUES" '[]' >"$T/case.json"
case_start
# The agent's key, as the factory's environment gives it.
ANTHROPIC_API_KEY=sk-ant-api03-AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH dp
lhas "early exit: its last screen in the log" \
    "session $S exited before it was ready; its last screen: .*cannot be used with root/sudo privileges"
lhas "early exit: the launch failure names the reason" \
    "exited before it was ready; its last screen: .*root/sudo.*"
lnot "early exit: the key masked" "AAAABBBBCCCCDDDD"
check_eq "early exit: the issue given back" "$(labels 1)" backlog
