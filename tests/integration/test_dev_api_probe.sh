# The probe after an API error: the session's first turn ends on a 429
# (StopFailure, no reset text); the next tick makes one small request to
# the model API (the scripted server, with the agent's API key) whose
# retry-after (3600) holds the pause until about an hour from now, where
# the fixed first wait was 5 minutes.  The probe is made once, not once
# per tick, and recorded in the pause.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
cat >"$T/script.json" <<'JSON'
[{"api_error": "rate_limit",
  "details": "429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Number of requests has exceeded your rate limit\"}}"},
 {"stop": true}]
JSON
cp "$T/script.json" "$T/script.json.first"
# The API's answer to the probe: a 429 with retry-after.
echo '[{"error": 429, "retry_after": 3600}]' >"$T/api.json"
python3 "$TOP/tests/tools/anthropic-sim.py" --every --script "$T/api.json" \
    --log "$T/api.log" --port-file "$T/api.port" 2>/dev/null &
SIMPID=$!

wait_for '[ -s "$T/api.port" ]' 10
export ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$T/api.port")"
export ANTHROPIC_API_KEY=sk-ant-test-secret
S=dev-$PROJ-1
PAUSE=$RUN/api-pause-$PROJ
field() {
	sed -n "s/^$1: //p" "$PAUSE"
}

dp
rc_is "launch" 0
wait_for 'grep -q "hook StopFailure rate_limit" "$T/agentlog/events.log"' 10
BEFORE=$(date +%s)
dp
AFTER=$(date +%s)
rc_is "paused tick" 0
lhas "the probe's answer is logged" "#1: the API probe answered 429 \(retry-after 3600\)"
check_eq "pause: the probe's status" "$(field PROBE)" 429
check_eq "pause: the probe's retry-after" "$(field RETRY_AFTER)" 3600
check "pause: until now + retry-after, not 5 minutes" \
    test "$(field UNTIL)" -ge "$((BEFORE + 3600))" -a \
    "$(field UNTIL)" -le "$((AFTER + 3600))"
check_eq "one probe request" "$(wc -l <"$T/api.log")" 1
check_eq "the probe: one token, the key, the API version" \
    "$(pyjson "str(d['max_tokens']) + ' ' + str(d['key']) + ' ' + d['version']" <"$T/api.log")" \
    "1 True 2023-06-01"
# The scheduled tick's settings record (0600, for its wakes) holds the
# environment's key as the crontab gave it; no log and no other run file.
check "the key is never logged" sh -c "! grep -rq --exclude='*.settings' sk-ant-test-secret '$DEVLOG' '$RUN'"
check_eq "the settings record that holds it is private" \
    "$(stat -c %a "$RUN/dev-poll-$PROJ.settings" 2>/dev/null)" 600
dp
lhas "still paused" "paused: rate_limit"
check_eq "no second probe on the next tick" "$(wc -l <"$T/api.log")" 1

# run_case NAME SCRIPT: a fresh world with issue #1 and the agent's script.
run_case() {
	t_tmux kill-server 2>/dev/null
	rm -rf "$RUN"/* "$T/agentlog" "$RUN/../$PROJ-worktree-1"
	mkdir -p "$T/agentlog"
	git -C "$T/repo" worktree prune
	echo "$2" >"$T/script.json"
	scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' \
	    '[]' >"$T/case.json"
	case_start
	dp
	rc_is "$1: launch" 0
	wait_for 'grep -q "hook StopFailure" "$T/agentlog/events.log"' 10
}

# An error of either's, and the API answers the probe (200): the issue's.
run_case "either's" '[{"api_error": "unknown", "details": "API Error: 400 scripted error"}]'
dp
lhas "either's: the probe answered" "#1: the API probe answered 200"
lhas "either's: the issue's by the probe" "#1: stopped by an API error \(unknown, from its hook\) that is the issue's: a request to the API succeeded after it — it fails, the project is not paused"
check "either's: no pause" test ! -e "$PAUSE"
check_eq "either's: one more probe" "$(wc -l <"$T/api.log")" 2
dp
check_eq "either's: blocked" "$(labels 1)" blocked

# AGENT_API_PROBE=false: no probe, the fixed first wait.
run_case "no probe" "$(cat "$T/script.json.first")"
AGENT_API_PROBE=false dp
lhas "no probe: paused" "paused: rate_limit"
check_eq "no probe: no request" "$(wc -l <"$T/api.log")" 2
check_eq "no probe: not probed" "$(field PROBED)" 0
check_eq "no probe: the first wait" "$(($(field UNTIL) - $(field SINCE)))" 300
kill "$SIMPID" 2>/dev/null
wait "$SIMPID" 2>/dev/null || :
