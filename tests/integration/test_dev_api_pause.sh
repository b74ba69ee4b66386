# An API outage pauses the project instead of blocking its backlog.
# Three ready issues; the agent's first turn ends on a rate limit
# (StopFailure): the next tick pauses the project (api-pause-P), keeps the
# session, its issue in progress, and starts nothing while the pause
# holds; --status and the metrics say so.  The pause's end is brought
# forward by rewriting its UNTIL (never slept for): the same session is
# told once to continue; its next turn fails again (server_error), a
# recurrence with twice the wait; after that one, a completed turn (the
# Stop hook) ends the pause.  No issue is ever blocked.  Then
# supervisor-poll's alert once the pause is older than
# API_PAUSE_ALERT_MINUTES.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]},
       {"number": 2, "title": "Add a lexer", "labels": ["backlog"]},
       {"number": 3, "title": "Add docs", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
cat >"$T/script.json" <<'JSON'
[{"api_error": "rate_limit",
  "details": "You've hit your session limit · resets 11:50pm (UTC)"},
 {"api_error": "server_error",
  "details": "500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}"},
 {"stop": true}]
JSON
S=dev-$PROJ-1
PAUSE=$RUN/api-pause-$PROJ
REC=$RUN/sessions/active/$S/api-error-$S
# field KEY: the pause record's value of KEY.
field() {
	sed -n "s/^$1: //p" "$PAUSE"
}
# backdate: the pause's wait is over (UNTIL a second ago).
backdate() {
	sed "s/^UNTIL: .*/UNTIL: $(($(date +%s) - 1))/" "$PAUSE" >"$PAUSE.new" &&
	    mv "$PAUSE.new" "$PAUSE"
}
blocked() {
	sim_state_get "len([i for i in d['issues'] if any((l if isinstance(l, str) else l['name']) == 'blocked' for l in i['labels'])])"
}

dp
rc_is "launch" 0
check "#1 launched" t_tmux has-session -t "=$S"
wait_for 'grep -q "hook StopFailure rate_limit" "$T/agentlog/events.log"' 10
check "the hook recorded the error for the session" grep -qx 'ERROR: rate_limit' "$REC"
check "the hook read the reset time" grep -qE '^RESET: [1-9]' "$REC"
check_eq "the phase is not failed" "$(cat "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase")" ""

dp
rc_is "paused tick" 0
lhas "the error is the project's" \
    "#1: stopped by an API error of the project's \(rate_limit, from its hook\) — the project is paused"
lhas "the tick says it is paused" "paused: rate_limit since .* until .* \(pause 1\)"
lnot "no launch while paused" "launch|agent running"
check "the pause is recorded" test -s "$PAUSE"
check_eq "pause: the reason" "$(field REASON)" rate_limit
check_eq "pause: the first" "$(field COUNT)" 1
NOW=$(date +%s)
check "pause: until the limit's reset (later than 5 min)" \
    test "$(field UNTIL)" -ge "$(($(field SINCE) + 300))"
check_eq "the session is kept" "$(sessions)" "$S "
check_eq "#1 stays in progress" "$(labels 1)" in-progress
check_eq "#2 stays in the backlog" "$(labels 2)" backlog
check_eq "the tick's outcome is paused" \
    "$(sed -n 's/^OUTCOME: //p' "$RUN/dev-poll-ticks-$PROJ")" paused
"$O/dev-poll/dev-poll" --status "$P" >"$T/status.txt" 2>&1
check "--status: paused, why, since, until" \
    grep -qE '^  paused: +rate_limit since [0-9T:-]+Z until [0-9T:-]+Z \(pause 1\)' "$T/status.txt"
"$O/dev-poll/dev-poll" --status --json "$P" >"$T/status.json" 2>&1
check_eq "--status --json: the pause" \
    "$(pyjson "[p['api_pause']['reason'] + ' ' + str(p['api_pause']['active']) for p in d['projects']][0]" <"$T/status.json")" \
    "rate_limit True"
PROMF=$FACTORY_ROOT/metrics/dev-poll-$PROJ.prom
check "metrics: paused, with the reason" \
    grep -qE '^disinto_api_paused\{.*reason="rate_limit".*\} 1$' "$PROMF"
check "metrics: the pause's age" \
    grep -qE '^disinto_api_pause_age_seconds\{.*\} [0-9]' "$PROMF"
dp
lhas "still paused on the next tick" "paused: rate_limit"
check_eq "still no other session" "$(sessions)" "$S "
"$O/dev-poll/dev-poll" --issue 2 "$P" >"$T/oneshot.out" 2>&1
check "--issue 2 is not started while paused" \
    grep -q "not started" "$T/oneshot.out"

backdate
dp
rc_is "the pause is over" 0
lhas "the session is told to continue" "$S: the API error \(rate_limit\) is over — told to continue"
wait_for '[ -s "$T/agentlog/prompt-2.txt" ]' 10
check "the same session has the message" grep -q \
    "The API error that stopped your last turn (rate_limit) is over. Continue where you stopped." \
    "$T/agentlog/prompt-2.txt"
check_eq "one agent started, not two" \
    "$(grep -c ' ready$' "$T/agentlog/events.log")" 1
check_eq "pause: resumed" "$(test "$(field RESUMED)" -gt 0 && echo yes)" yes
wait_for 'grep -q "hook StopFailure server_error" "$T/agentlog/events.log"' 10
dp
lhas "a recurrence" "#1: stopped by an API error of the project's \(server_error, from its hook\) — the project is paused: .*\(pause 2\)"
check_eq "pause: the second" "$(field COUNT)" 2
check "pause: twice the first wait" \
    test "$(field UNTIL)" -ge "$(($(date +%s) + 590))"
check_eq "pause: not resumed yet" "$(field RESUMED)" 0
check_eq "pause: since the first error" \
    "$(test "$(field SINCE)" -le "$NOW" && echo yes)" yes
dp
lnot "told once per error" "told to continue"

backdate
dp
lhas "resumed again" "told to continue"
wait_for 'grep -q "hook Stop " "$T/agentlog/events.log"' 10
check_eq "the message is delivered once" \
    "$(grep -l 'is over. Continue' "$T/agentlog"/prompt-*.txt | wc -l)" 2
dp
# The turn may complete within the tick that resumed it.
check "a completed turn ends the pause" grep -q \
    "the API error (server_error) is over: a turn completed since the resume — the pause ends" \
    "$DEVLOG"
check "the pause is gone" test ! -e "$PAUSE"
check_eq "no issue was blocked" "$(blocked)" 0
check_eq "#1 still in progress" "$(labels 1)" in-progress
check_eq "#3 still in the backlog" "$(labels 3)" backlog
check_eq "no session for #2 or #3" "$(sessions)" "$S "

# supervisor-poll: a pause older than API_PAUSE_ALERT_MINUTES is alerted.
SUPLOG=$FACTORY_ROOT/supervisor/supervisor.log
mkdir -p "$FACTORY_ROOT/projects"
cp "$P" "$FACTORY_ROOT/projects/$PROJ.toml"
printf 'SINCE: %s\nUNTIL: %s\nREASON: overloaded\nCOUNT: 3\nRESUMED: 0\n' \
    "$(($(date +%s) - 1800))" "$(($(date +%s) + 600))" >"$PAUSE"
API_PAUSE_ALERT_MINUTES=60 SUPERVISOR_FIX_CMD= "$O/supervisor-poll/supervisor-poll" >/dev/null 2>&1
check "supervisor: a pause younger than the setting is no alert" \
    sh -c "! grep -q 'API pause: the agent' '$SUPLOG'"
API_PAUSE_ALERT_MINUTES=20 SUPERVISOR_FIX_CMD= "$O/supervisor-poll/supervisor-poll" >/dev/null 2>&1
check "supervisor: the alert after the setting" grep -qE \
    "API pause: the agent CLI's API has failed for 30min \(overloaded since .* \(pause 3\); API_PAUSE_ALERT_MINUTES 20\)" \
    "$SUPLOG"
