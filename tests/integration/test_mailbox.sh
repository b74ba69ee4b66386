# No tick waits on an agent: while another process holds the Claude
# session lock (flock(1) on the lock file, as upstream's gardener holds
# it; the lock's wait left at its default of 300 s), a dev-poll tick with
# a CI result to deliver queues it in the session's mailbox and returns
# (it has exited while the lock is still held), a second tick queues
# nothing twice, and once the lock frees the session's wrapper types the
# result, with no tick, exactly once: the wrapper's typing child is
# killed after typing (DISINTO_TEST_CRASH=mailbox-typed), and the next
# one sees the message in the session and types nothing.  Two messages
# queued are delivered in order, each once; a review verdict routed by
# review-poll is queued and delivered the same way.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
unset CLAUDE_SESSION_LOCK_WAIT
export WOODPECKER_REPO_ID=0
LOCK=$CLAUDE_SESSION_LOCK
A=$T/agentlog
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
cat >"$T/script.json" <<'JSON'
[[{"commit": {"file": "p.c", "text": "int parse;\n"}}, {"push": true},
  {"phase": "PHASE:awaiting_ci"}],
 [{"phase": "PHASE:awaiting_review"}],
 [{"say": "first read"}],
 [{"say": "second read"}],
 [{"say": "verdict read"}]]
JSON
S=dev-$PROJ-1
MBOX=$RUN/agent-$S.mailbox

# hold: another process holds the lock (until unhold).
hold() {
	rm -f "$T/sleeper"
	flock -o "$LOCK" sh -c 'echo $$ >"$0"; exec sleep 120' "$T/sleeper" &
	HOLDER=$!
	wait_for "[ -s '$T/sleeper' ]" 5
}
unhold() {
	kill "$HOLDER" "$(cat "$T/sleeper")" 2>/dev/null
	wait "$HOLDER" 2>/dev/null
	return 0
}
held() {
	kill -0 "$HOLDER" 2>/dev/null && ! flock -n "$LOCK" true
}
free() {
	flock -n "$LOCK" true
}
queued() {
	if [ -e "$MBOX" ]; then grep -c '^MSG ' "$MBOX"; else echo 0; fi
}

# The launch, with the wrapper's typing child set to be killed after it
# typed a message of the mailbox, before it recorded the delivery.
DISINTO_TEST_CRASH=mailbox-typed dp
rc_is "the launch" 0
check "the session started" t_tmux has-session -t "=$S"
check "awaiting_ci" wait_for "grep -q awaiting_ci '$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase'" 10
check "awaiting_ci: the session let go of the lock" wait_for free 5

# --- a CI result while the lock is held elsewhere -----------------------
hold
dp
rc_is "busy lock: the CI tick" 0
check "busy lock: the tick returned while the lock is still held" held
lhas "busy lock: queued, one line" "queued for $S \\(Claude lock busy\\)"
check_eq "busy lock: one message in the mailbox" "$(queued)" 1
check "the mailbox is private" test "$(stat -c %a "$MBOX")" = 600
check "busy lock: recorded as on its way" test -e "$RUN/ci-result-$PROJ-1.txt"
"$O/dev-poll/dev-poll" --status "$P" >"$T/status.txt" 2>&1
check "--status: the session's queued message" grep -q "$S .*  queued: 1\$" "$T/status.txt"
"$O/dev-poll/dev-poll" --status --json "$P" >"$T/status.json" 2>&1
check_eq "--status --json: queued" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([s.get("queued") for p in d["projects"] for s in p["sessions"]])' "$T/status.json")" "[1]"
dp
rc_is "busy lock: the next tick" 0
check "the next tick returned while the lock is still held" held
check_eq "the next tick queued nothing twice" "$(queued)" 1
check_eq "the next tick logged no second queueing" \
    "$(grep -c "queued for $S" "$DEVLOG")" 1
check_eq "nothing typed while the lock is held" "$(prompts "$A")" 1
unhold
check "free lock: the wrapper delivers CI passed" wait_for '[ -f "$A/prompt-2.txt" ]' 15
check "it says CI passed" grep -q "CI passed on PR #" "$A/prompt-2.txt"
check "the mailbox emptied" wait_for '! [ -e "$MBOX" ]' 15
check "the typing child was killed after typing, then settled by a look" \
    grep -q "agent: session $S: 'ci [0-9a-f]* success 0' (recorded, typed 1 time): the session has it, not typed again" "$DEVLOG"
check "delivered from the mailbox" grep -q "agent: session $S: 'ci [0-9a-f]* success 0' delivered from its mailbox" "$DEVLOG"
check "awaiting_review" wait_for "grep -q awaiting_review '$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase'" 10
check "awaiting_review: the lock is free again" wait_for free 10
dp
rc_is "a tick after the delivery" 0
sleep 1
check_eq "CI passed typed once" "$(grep -l "CI passed on PR #" "$A"/prompt-*.txt | wc -l)" 1
check_eq "no other prompt" "$(prompts "$A")" 2

# --- two messages queued: delivered in order, once each -----------------
AT="$O/tests/tools/agent-tool -R $RUN -L $DISINTO_TMUX_SOCKET -l $LOCK"
printf 'First message, read it first.\n' >"$T/m1"
printf 'Second message, read it after the first.\n' >"$T/m2"
hold
$AT deliver "$S" "note 1" "$T/m1"
check_eq "first: queued" "$?" 4
$AT deliver "$S" "note 2" "$T/m2"
check_eq "second: queued behind it" "$?" 4
$AT deliver "$S" "note 1" "$T/m1"
check_eq "first again: queued, not twice" "$?" 4
check_eq "two in the mailbox" "$($AT queued "$S")" 2
check "held still" held
unhold
check "both delivered" wait_for '[ -f "$A/prompt-4.txt" ]' 40
check "the first first" grep -q "First message" "$A/prompt-3.txt"
check "the second second" grep -q "Second message" "$A/prompt-4.txt"
check "the mailbox emptied" wait_for '! [ -e "$MBOX" ]' 30
$AT deliver "$S" "note 1" "$T/m1"
check_eq "first again: delivered already" "$?" 0
sleep 1
check_eq "each once" "$(prompts "$A")" 4

# --- a review verdict while the lock is held elsewhere ------------------
# The lock is the session's while it works on the notes; it lets go when
# the agent writes its phase again.
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo PHASE:awaiting_review >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
check "the session lets go of the lock" wait_for free 10
mkdir -p "$FACTORY_ROOT/review"
: >"$FACTORY_ROOT/state/.reviewer-active"
PR=$(curl -sf -H "Authorization: token dev-token" \
    "$SIM_URL/api/v1/repos/johba/harb/pulls?state=open" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["number"])')
SHA=$(git -C "$T/origin.git" rev-parse fix/issue-1)
printf '{"body": "## AI Review\\n<!-- reviewed: %s -->\\n\\nfix the bound\\n\\n### Verdict\\n**REQUEST_CHANGES** — off by one\\n"}' \
    "$SHA" >"$T/review.json"
curl -sf -X POST -H "Authorization: token review-token" \
    -H 'Content-Type: application/json' -d @"$T/review.json" \
    "$SIM_URL/api/v1/repos/johba/harb/issues/$PR/comments" >/dev/null
check_eq "the review comment is posted" "$?" 0
hold
"$O/review-poll/review-poll" "$P" >"$T/rp.out" 2>&1
check_eq "busy lock: the review tick" "$?" 0
check "busy lock: the review tick returned while the lock is still held" held
check "busy lock: the verdict is queued" grep -q "queued for $S (Claude lock busy): 'review $SHA'" "$FACTORY_ROOT/review/review.log"
check_eq "busy lock: recorded as routed" "$(cat "$RUN/review-injected-$PROJ-$PR" 2>/dev/null)" "$SHA"
"$O/review-poll/review-poll" "$P" >>"$T/rp.out" 2>&1
check_eq "the next review tick queued nothing twice" "$(queued)" 1
unhold
check "free lock: the verdict is delivered" wait_for '[ -f "$A/prompt-5.txt" ]' 15
check "it is the verdict" grep -q "REQUEST_CHANGES" "$A/prompt-5.txt"
"$O/review-poll/review-poll" "$P" >>"$T/rp.out" 2>&1
sleep 1
check_eq "the verdict typed once" "$(prompts "$A")" 5
