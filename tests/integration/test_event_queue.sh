# Events that meet a busy agent or a busy lock leave something behind
# that acts when it frees, and no tick fails or waits for them (wakes on,
# DISINTO_WAKE=true, as in a factory):
# - a tick turned away by the Claude session lock records itself as a
#   waiter; the holder (a session's wrapper, here review-poll's) wakes its
#   tool when it lets go, whose tick finds the lock free and wakes the
#   waiter: dev-poll launches with no tick run by the test;
# - a verdict routed while the dev agent is at work (no turn of its ended
#   since the last message) is queued, nothing typed: review-poll exits 0,
#   and the session's wrapper types it once, when the turn is over;
# - an agent idle at its prompt is ended when its grace is over: its
#   wrapper wakes dev-poll again then, with no scheduled tick.
# Nothing here asserts a duration: conditions are polled with generous
# bounds.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
export DISINTO_WAKE=true WOODPECKER_REPO_ID=0 CLAUDE_SESSION_LOCK_WAIT=1
LOCK=$CLAUDE_SESSION_LOCK
A=$T/agentlog
S=dev-$PROJ-1
REVLOG=$FACTORY_ROOT/review/review.log
WAITER=$RUN/lock-waiter-dev-poll-$PROJ
# The woken ticks run with the agent's environment (no secrets): theirs
# come from the factory's .env, as in a factory.
printf 'FORGE_TOKEN=dev-token\nFORGE_REVIEW_TOKEN=review-token\nFORGE_AGENT_TOKEN=agent-token\nWOODPECKER_REPO_ID=0\n' \
    >"$FACTORY_ROOT/.env"
mkdir -p "$FACTORY_ROOT/review"
: >"$FACTORY_ROOT/state/.reviewer-active"
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
echo '[]' >"$T/script.json"
phase() {
	cat "$RUN/sessions/active/$S/dev-session-$PROJ-$1.phase" 2>/dev/null
}
logged() {
	grep -q -- "$2" "$1" 2>/dev/null
}
# reset: no session, no run file, no agent log (kept in $T/agentlog-NAME).
reset() {
	t_tmux kill-server 2>/dev/null
	rm -rf "$RUN"/*
	mv "$A" "$T/agentlog-$1"
	mkdir -p "$A"
	git -C "$T/repo" worktree prune
}

# --- a tick turned away by the lock is woken when it is let go -----------
# The holder: a session's wrapper (review-poll's), its agent at work
# until the test lets it end.
"$O/review-poll/review-poll" --agent-exec --state "$T/h.state" \
    --lock "$LOCK" --wait 5 --request "$T/h.req" --session hold-1 \
    --run-dir "$RUN" --log "$T/holder.log" --wake "$P" \
    -- sh -c 'while [ ! -e "$0" ]; do sleep 0.1; done' "$T/go" \
    >"$T/holder.out" 2>&1 &
HOLDER=$!
check "the holder holds the lock" wait_for "grep -q '^held' '$T/h.state'" 10
dp
rc_is "turned away by the lock" 0
lhas "turned away: not launched" "not launching #1 this tick"
lhas "turned away: woken when the lock is let go" \
    "the Claude session lock turned this tick away"
check "turned away: a waiter recorded" test -f "$WAITER"
check_eq "the waiter names dev-poll" "$(head -1 "$WAITER")" \
    "$(cd "$O/dev-poll" && pwd -P)/dev-poll"
check "the waiter is the tools' alone" test "$(stat -c %a "$WAITER")" = 600
check "nothing launched" test ! -e "$A/prompt-1.txt"
: >"$T/go"
wait "$HOLDER"
check_eq "the holder ends with its agent" "$?" 0
check "the holder woke its tool as it let go" \
    grep -q "session hold-1: the Claude session lock let go with ticks waiting for it" "$T/holder.log"
if wait_for "logged '$DEVLOG' 'woken: Claude session lock let go'" 60; then
	ok "the waiter is woken"
else
	fail "the waiter is woken" "$(tail -5 "$REVLOG" | tr '\n' '|')"
fi
check "review-poll's tick woke it" \
    grep -q "the Claude session lock is free: woke .*dev-poll $P" "$REVLOG"
check "the woken tick launches" \
    wait_for "logged '$DEVLOG' 'initial prompt sent to session $S'" 60
check "the woken tick's session runs" t_tmux has-session -t "=$S"
check "the waiter is gone" test ! -e "$WAITER"

# --- a verdict while the dev agent is at work ----------------------------
# The launch's turn pushes; "CI passed" gets awaiting_review; a note
# (typed as a tick types, agent-tool) sets it at work a while, and the
# verdict must wait; then it reads the verdict.  The ticks are the
# test's: a message typed while a turn runs would blur which turn ended.
reset lock
export DISINTO_WAKE=false
S=dev-$PROJ-2
scen '[{"number": 2, "title": "Add a lexer", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
cat >"$T/script.json" <<'JSON'
[[{"commit": {"file": "l.c", "text": "int lex;\n"}}, {"push": true},
  {"phase": "PHASE:awaiting_ci"}],
 [{"phase": "PHASE:awaiting_review"}],
 [{"sleep": 25}],
 [{"say": "verdict read"}]]
JSON
dp
rc_is "the launch" 0
IDLE=$RUN/sessions/active/$S/claude-idle-$S.ts
check "its first turn ended" wait_for "[ -e '$IDLE' ]" 30
dp
rc_is "CI passed" 0
check "CI passed: its turn ended" wait_for "[ -e '$IDLE' ]" 30
check_eq "CI passed: awaiting_review" "$(phase 2)" PHASE:awaiting_review
# The next second: the turn's end and the next message are told apart.
wait_for '[ "$(date +%s)" -gt "$(stat -c %Y "$IDLE")" ]' 5
printf 'Read the notes before the review.\n' >"$T/note"
"$O/tests/tools/agent-tool" -R "$RUN" -L "$DISINTO_TMUX_SOCKET" -l "$LOCK" \
    deliver "$S" "note 1" "$T/note"
_rc=$?
# Typed (0), or queued (4) for the wrapper to type: either way it comes.
check "the note is sent (exit $_rc)" test "$_rc" -eq 0 -o "$_rc" -eq 4
check "the note arrived: the agent is at work" \
    wait_for "[ -f '$A/prompt-3.txt' ]" 20
PR=$(curl -sf -H "Authorization: token dev-token" \
    "$SIM_URL/api/v1/repos/johba/harb/pulls?state=open" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["number"])')
SHA=$(git -C "$T/origin.git" rev-parse fix/issue-2)
printf '{"body": "## AI Review\\n<!-- reviewed: %s -->\\n\\nfix the bound\\n\\n### Verdict\\n**REQUEST_CHANGES** — off by one\\n"}' \
    "$SHA" >"$T/review.json"
curl -sf -X POST -H "Authorization: token review-token" \
    -H 'Content-Type: application/json' -d @"$T/review.json" \
    "$SIM_URL/api/v1/repos/johba/harb/issues/$PR/comments" >/dev/null
check_eq "the review comment is posted" "$?" 0
"$O/review-poll/review-poll" "$P" >"$T/rp.out" 2>&1
check_eq "busy agent: the review tick exits 0" "$?" 0
check_eq "busy agent: it says nothing" "$(cat "$T/rp.out")" ""
check "busy agent: the verdict is queued, nothing typed" \
    grep -q "queued for $S (agent at work): 'review $SHA'" "$REVLOG"
check "busy agent: no failed write" sh -c "! grep -q 'cannot inject' '$REVLOG'"
check_eq "busy agent: recorded as routed" \
    "$(cat "$RUN/review-injected-$PROJ-$PR" 2>/dev/null)" "$SHA"
verdicts() {
	grep -l "REQUEST_CHANGES" "$A"/prompt-*.txt 2>/dev/null | wc -l
}
check "the agent reads the verdict" wait_for '[ "$(verdicts)" -ge 1 ]' 90
check "the mailbox emptied" wait_for "[ ! -e '$RUN/agent-$S.mailbox' ]" 30
check "delivered through the mailbox" \
    grep -q "agent: session $S: 'review $SHA' delivered from its mailbox" "$DEVLOG"
"$O/review-poll/review-poll" "$P" >>"$T/rp.out" 2>&1
check_eq "the next review tick exits 0" "$?" 0
check "the agent's turn on the verdict ended" \
    wait_for "[ \$(grep -c 'hook Stop' '$A/events.log') -ge 4 ]" 30
check_eq "the verdict typed once" "$(verdicts)" 1
check_eq "the verdict queued once" \
    "$(grep -c "queued for $S (.*): 'review $SHA'" "$REVLOG")" 1

# --- an idle agent ends when its grace is over ---------------------------
reset verdict
export DISINTO_WAKE=true AGENT_IDLE_SECONDS=3
echo AGENT_IDLE_SECONDS=3 >>"$FACTORY_ROOT/.env"
scen '[{"number": 3, "title": "Stops", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
echo '[]' >"$T/script.json"
mv "$DEVLOG" "$T/devlog-verdict"
dp
rc_is "idle: the launch" 0
if wait_for "logged '$DEVLOG' '#3: idle at the prompt with no phase'" 60
then
	ok "idle: ended when its grace is over, with no tick of the test"
else
	fail "idle: ended when its grace is over, with no tick of the test" \
	    "$(tail -5 "$DEVLOG" | tr '\n' '|')"
fi
check "idle: the stop woke dev-poll first" \
    grep -q "woken: stop hook dev-$PROJ-3" "$DEVLOG"
check "idle: the grace's end woke it again" \
    grep -q "woken: idle hook dev-$PROJ-3" "$DEVLOG"
check "idle: the wrapper said why" \
    grep -q "agent: session dev-$PROJ-3: idle for 3 s since its stop mark" "$DEVLOG"
