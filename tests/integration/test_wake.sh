# Ticks started by events (common/tick/wake.h): `dev-poll --wake` starts a
# detached tick, or leaves a wake that the running tick answers with one
# more pass; many wakes during one pass cost one pass; a wake that comes
# as a tick lets go of its lock is not lost; a wake whose tick never ran
# is consumed by the next scheduled tick; an inactive factory only logs.
# The agent hooks wake dev-poll: an agent that stops without a phase is
# ended as idle, and a CI-less PHASE:awaiting_ci is answered, with no
# tick run by the test.  Nothing here asserts a duration: conditions are
# polled with generous bounds.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
dev_sim - <<JSON
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "blocked"}, {"id": 4, "name": "underspecified"}],
 "issues": []}
JSON
DP=$O/dev-poll/dev-poll
WAKE=$RUN/dev-poll-$PROJ.wake
PROM=$FACTORY_ROOT/metrics/dev-poll-$PROJ.prom

# passes: the disinto_tick_passes of the last tick.
passes() {
	sed -n 's/^disinto_tick_passes{[^}]*} \([0-9]*\)$/\1/p' "$PROM"
}
# no_tick: no dev-poll tick of the project holds the lock.
no_tick() {
	! flock -n "$RUN/dev-poll-$PROJ.lock" true 2>/dev/null && return 1
	! pgrep -f "dev-poll/dev-poll --run-dir [^ ]* -- $P" >/dev/null
}

# --- usage ---
"$DP" --wake --status "$P" >/dev/null 2>&1
check_eq "--wake with --status is refused" "$?" 2
"$DP" "$P" "why" >/dev/null 2>&1
check_eq "a reason without --wake is refused" "$?" 2

# --- a wake with no tick running starts one, detached ---
"$DP" --wake "$P" "first wake" >"$T/w.out" 2>&1
check_eq "--wake exits 0" "$?" 0
check_eq "--wake prints nothing" "$(cat "$T/w.out")" ""
if wait_for "grep -q 'woken: first wake (pass 1)' '$DEVLOG'" 60; then
	ok "the started tick logs why it was woken"
else
	fail "the started tick logs why it was woken" "$(tail -5 "$DEVLOG")"
fi
wait_for no_tick 60
check "the wake was consumed" test ! -e "$WAKE"
check_eq "the woken tick ran one pass" "$(passes)" 1

# --- 100 wakes during a pass: exactly one more pass ---
: >"$DEVLOG"
DISINTO_TEST_WAKE_HOLD=pass:$T/go1 "$DP" "$P" >/dev/null 2>&1 &
TICK=$!
wait_for "test -e '$T/go1.at'" 60
i=0
while [ $i -lt 100 ]; do
	"$DP" --wake "$P" "storm $i" >/dev/null 2>&1 || break
	i=$((i + 1))
done
check_eq "100 wakes during a pass all exit 0" "$i" 100
check_eq "none of them started a tick" \
    "$(grep -c 'no tick runs' "$DEVLOG")" 0
: >"$T/go1"
wait "$TICK"
check_eq "the tick exits 0" "$?" 0
check_eq "100 wakes during a pass: exactly one more pass" "$(passes)" 2
check_eq "the second pass logs the last wake's reason" \
    "$(grep -c 'woken: storm 99 (pass 2)' "$DEVLOG")" 1
check "no wake is left" test ! -e "$WAKE"
wait_for no_tick 30

# --- a wake as the tick lets go of its lock is not lost ---
: >"$DEVLOG"
DISINTO_TEST_WAKE_HOLD=release:$T/go2 "$DP" "$P" >/dev/null 2>&1 &
TICK=$!
wait_for "test -e '$T/go2.at'" 60
"$DP" --wake "$P" "late wake" >/dev/null 2>&1
check_eq "a wake at the release finds the tick running" \
    "$(grep -c 'late wake.*a tick runs' "$DEVLOG")" 1
: >"$T/go2"
wait "$TICK"
check_eq "the wake at the release: one more pass" "$(passes)" 2
check_eq "...that says why" "$(grep -c 'woken: late wake (pass 2)' "$DEVLOG")" 1
check "...and leaves no wake" test ! -e "$WAKE"

# --- a wake whose tick never ran: the next scheduled tick takes it ---
: >"$DEVLOG"
exec 9>"$RUN/dev-poll-$PROJ.lock"
flock -n 9
"$DP" --wake "$P" "orphan wake" >/dev/null 2>&1
exec 9>&-
check "a wake whose tick died stays" test -e "$WAKE"
dp
check_eq "the scheduled tick exits 0" "$DP_RC" 0
lhas "the scheduled tick consumes the wake" 'woken: orphan wake \(pass 1\)'
check "...and no wake is left" test ! -e "$WAKE"
check_eq "...in one pass" "$(passes)" 1

# --- inactive: a wake only logs ---
rm -f "$FACTORY_ROOT/state/.dev-active"
"$DP" --wake "$P" "paused wake" >/dev/null 2>&1
check_eq "an inactive wake exits 0" "$?" 0
check "an inactive wake leaves nothing" test ! -e "$WAKE"
check_eq "an inactive wake says so" \
    "$(grep -c 'wake (paused wake): dev not active' "$DEVLOG")" 1
: >"$FACTORY_ROOT/state/.dev-active"

# --- the agents' hooks start the ticks: no tick run by the test below ---
# The woken ticks run with the settings the scheduled ticks recorded
# (the test's environment, DISINTO_WAKE=false), and the factory's .env
# over them, as in a factory: the wakes are turned on there.
printf 'FORGE_TOKEN=dev-token\nFORGE_REVIEW_TOKEN=review-token\n' \
    >"$FACTORY_ROOT/.env"
export AGENT_IDLE_SECONDS=0 WOODPECKER_REPO_ID=0
printf 'AGENT_IDLE_SECONDS=0\nWOODPECKER_REPO_ID=0\nDISINTO_WAKE=true\n' \
    >>"$FACTORY_ROOT/.env"
# labelled N LABEL: issue N has LABEL.
labelled() {
	labels "$1" | tr ',' '\n' | grep -qx "$2"
}

# An agent that stops without a phase: ended as idle by woken ticks.
scen '[{"number": 1, "title": "Stops", "labels": ["backlog"], "body": "x"}]' \
    '[]' >"$T/case.json"
case_start
echo '[]' >"$T/script.json"
: >"$DEVLOG"
"$DP" --wake "$P" "test start" >/dev/null 2>&1
if wait_for "grep -q '#1: session failed: idle_prompt' '$DEVLOG'" 120; then
	ok "a stop without a phase: ended as idle by the woken ticks"
else
	fail "a stop without a phase: ended as idle by the woken ticks" \
	    "$(tail -8 "$DEVLOG" | tr '\n' '|')"
fi
check "the Stop hook woke dev-poll" \
    grep -q 'woken: stop hook dev-proj-1' "$DEVLOG"
wait_for "labelled 1 blocked" 30
check "idle: blocked" labelled 1 blocked
wait_for "! t_tmux has-session -t dev-$PROJ-1" 30
check "idle: the session ended" sh -c "! tmux -L $(tmux_sock) has-session -t =dev-$PROJ-1 2>/dev/null"
wait_for no_tick 60

# An agent that pushes and writes PHASE:awaiting_ci with no CI: its hook
# wakes dev-poll, which opens the PR and tells the agent, untouched.
git_branch fix/issue-2 two.c >/dev/null
scen '[{"number": 2, "title": "Pushes", "labels": ["backlog"], "body": "y"}]' \
    '[]' >"$T/case.json"
case_start
cat >"$T/script.json" <<'JSON'
[[{"commit": {"file": "two.c", "text": "two\n", "message": "two"}},
  {"push": true},
  {"phase": "PHASE:awaiting_ci"}],
 [{"say": "thanks", "stop": false}]]
JSON
: >"$DEVLOG"
"$DP" --wake "$P" "test start" >/dev/null 2>&1
if wait_for "grep -q 'no CI is configured' '$T/agentlog/prompt-2.txt'" 120
then
	ok "awaiting_ci without CI: answered with no tick run by the test"
else
	fail "awaiting_ci without CI: answered with no tick run by the test" \
	    "$(tail -8 "$DEVLOG" | tr '\n' '|')"
fi
check "the phase write woke dev-poll" \
    grep -q 'wake (phase-change hook dev-proj-2)' "$DEVLOG"
check_eq "one PR opened" "$(sim_log_count POST '/pulls$' 201)" 1
wait_for no_tick 60
# The hooks run in the agent's sandbox and only write their marks; the
# session's wrapper, outside, wakes the tool (the phase write above).
SET=$RUN/$PROJ-worktree-2/.claude/settings.json
for ev in Stop SessionEnd PostToolUse StopFailure; do
	cmd=$(pyjson "[h['command'] for e in d['hooks']['$ev'] for h in e['hooks']][-1]" <"$SET")
	case $cmd in
	*"--hook"*--wake*) fail "$ev hook writes its mark and wakes nothing" "$cmd" ;;
	*"--hook"*) ok "$ev hook writes its mark and wakes nothing" ;;
	*) fail "$ev hook writes its mark and wakes nothing" "$cmd" ;;
	esac
done
cmd=$(pyjson "[h['command'] for e in d['hooks']['PreToolUse'] for h in e['hooks']][-1]" <"$SET")
case $cmd in
*--wake*) fail "the guard wakes nothing" "$cmd" ;;
*) ok "the guard wakes nothing" ;;
esac
