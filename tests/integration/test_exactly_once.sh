# Exactly once, across crashes.  Each message typed into a session is
# recorded before it is typed and marked delivered after; a tool killed
# in between (DISINTO_TEST_CRASH, which ends it as kill -9 would, at the
# point named) leaves the next tick to settle it by looking at the
# session, never by typing it again blindly:
# - dev-poll killed between the session's start and its prompt: the
#   next tick sees the live session at its prompt and delivers the
#   prompt, once;
# - dev-poll killed after typing "CI passed", before recording it: the
#   next tick sees the message in the pane and types nothing;
# - review-poll killed after recording a verdict, before typing it: the
#   next tick types it, once;
# - review-poll killed after typing a verdict: the next tick types
#   nothing;
# - review-poll that cannot record its messages (a file size limit):
#   nothing is typed, the tick fails, and the next tick types them once.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
export WOODPECKER_REPO_ID=0
S=dev-$PROJ-1
A=$T/agentlog
INTENT=$RUN/agent-$S.intent
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
cat >"$T/script.json" <<'JSON'
[[{"commit": {"file": "p.c", "text": "int parse;\n"}}, {"push": "fix/issue-1"},
  {"phase": "PHASE:awaiting_ci"}]]
JSON

# --- a launch killed between the session's start and its prompt --------
DISINTO_TEST_CRASH=session-started dp
check_eq "the tick was killed at the point" "$DP_RC" 137
check "the session lives" t_tmux has-session -t "=$S"
sleep 1
check_eq "no prompt reached it" "$(prompts "$A")" 0
check_eq "its prompt is recorded, not typed" \
    "$(sed -n 's/^TRIES: //p' "$INTENT")" 0
check "the record is private" test "$(stat -c %a "$INTENT")" = 600
dp
rc_is "the next tick" 0
lhas "it finishes the launch" \
    "#1: the launch of $S was cut off before its prompt was delivered — delivering it"
check "the prompt arrives" wait_for '[ -f "$A/prompt-1.txt" ]' 10
check "it is the first prompt" grep -q "You are a developer working on issue #1" \
    "$A/prompt-1.txt"
check "the agent works on it" \
    wait_for "grep -q awaiting_ci '$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase'" 10
check_eq "once" "$(prompts "$A")" 1

# --- killed after typing "CI passed", before recording it ---------------
DISINTO_TEST_CRASH=typed dp
check_eq "the CI tick was killed after typing" "$DP_RC" 137
check "CI passed reached the agent" wait_for '[ -f "$A/prompt-2.txt" ]' 10
check "it says CI passed" grep -q "CI passed on PR #" "$A/prompt-2.txt"
check "the CI result is not recorded" test ! -e "$RUN/ci-result-$PROJ-1.txt"
dp
rc_is "the next CI tick" 0
lhas "it sees the message in the session" \
    "session $S: 'ci [0-9a-f]+ success 0' \\(recorded, typed 1 time\\): the session has it, not typed again"
check "the CI result is recorded now" grep -q "^STATE: success" \
    "$RUN/ci-result-$PROJ-1.txt"
sleep 1
check_eq "CI passed typed once" "$(prompts "$A")" 2
dp
sleep 1
check_eq "and no more" "$(prompts "$A")" 2

# --- review-poll: verdicts routed into waiting dev sessions --------------
. "$TOP/tests/integration/lib/review.sh"
export FORGE_REVIEW_TOKEN=review-token
mkdir -p "$FACTORY_ROOT/review"
: >"$FACTORY_ROOT/state/.reviewer-active"
RLOG=$FACTORY_ROOT/review/review.log
TT="$O/tests/tools/tmux-tool -L $(tmux_sock) -T $T"
for n in 2 3 4; do
	git_branch "fix/issue-$n" "f$n.c" >"$T/sha$n"
done
S2=$(cat "$T/sha2") S3=$(cat "$T/sha3") S4=$(cat "$T/sha4")
review_comment() {	# SHA: a review comment of review-poll's, changes asked
	printf '%s' "{\"user\": \"review-bot\", \"body\": \"## AI Review\\n<!-- reviewed: $1 -->\\n\\nfix the bound\\n\\n### Verdict\\n**REQUEST_CHANGES** — off by one\\n\"}"
}
scen '[{"number": 2, "title": "Two", "labels": ["in-progress"]},
       {"number": 3, "title": "Three", "labels": ["in-progress"]},
       {"number": 4, "title": "Four", "labels": ["in-progress"]}]' \
    "[{\"number\": 12, \"title\": \"fix: Two (#2)\", \"body\": \"Fixes #2\",
       \"head\": {\"ref\": \"fix/issue-2\"}, \"comments\": [$(review_comment "$S2")]},
      {\"number\": 13, \"title\": \"fix: Three (#3)\", \"body\": \"Fixes #3\",
       \"head\": {\"ref\": \"fix/issue-3\"}, \"comments\": [$(review_comment "$S3")]},
      {\"number\": 14, \"title\": \"fix: Four (#4)\", \"body\": \"Fixes #4\",
       \"head\": {\"ref\": \"fix/issue-4\"}, \"comments\": [$(review_comment "$S4")]}]" \
    "\"statuses\": {\"$S2\": {\"state\": \"pending\"}, \"$S3\": {\"state\": \"pending\"}, \"$S4\": {\"state\": \"pending\"}}" \
    >"$T/case.json"
case_start
for n in 2 3 4; do
	mkdir -p "$T/dev$n" "$T/wt$n"
	$TT -e FAKE_AGENT_LOG="$T/dev$n" new "dev-$PROJ-$n" "$T/wt$n" \
	    "$FAKE_AGENT" >/dev/null
	$TT wait-ready "dev-$PROJ-$n" "❯" 10 >/dev/null
	mkdir -p "$RUN/sessions/active/dev-$PROJ-$n"
	echo PHASE:awaiting_review >"$RUN/sessions/active/dev-$PROJ-$n/dev-session-$PROJ-$n.phase"
done
# #4 waits for its turn below.
mkdir -p "$RUN/sessions/active/dev-$PROJ-4"
echo PHASE:awaiting_ci >"$RUN/sessions/active/dev-$PROJ-4/dev-session-$PROJ-4.phase"
rp() {	# [VAR=value...]: one review-poll tick of the project
	env "$@" "$O/review-poll/review-poll" "$P" >>"$T/rp.out" 2>&1
	RP_RC=$?
}

# #2: killed after recording the verdict, before typing it.
rp DISINTO_TEST_CRASH=recorded
check_eq "review-poll killed after recording" "$RP_RC" 137
sleep 1
check_eq "#2: nothing typed" "$(prompts "$T/dev2")" 0
check_eq "#2: the verdict is recorded" \
    "$(sed -n 's/^KEY: //p' "$RUN/agent-dev-$PROJ-2.intent")" "review $S2"

# A tick that cannot record a message (a file size limit its record,
# with the text, does not fit): nothing is typed, and the tick fails.
(trap '' XFSZ; ulimit -f 1; rp; exit "$RP_RC")
RP_RC=$?
check_eq "no record: the tick fails" "$RP_RC" 1
sleep 1
check_eq "no record: nothing typed into #2" "$(prompts "$T/dev2")" 0
check_eq "no record: nothing typed into #3" "$(prompts "$T/dev3")" 0

# The next tick types both, once.
rp
check_eq "then the tick" "$RP_RC" 0
check "#2: the next tick types it" wait_for '[ -f "$T/dev2/prompt-1.txt" ]' 10
check "#2: the verdict" grep -q "Review of PR #12 (round 1): REQUEST_CHANGES" \
    "$T/dev2/prompt-1.txt"
check "#3: typed too" wait_for '[ -f "$T/dev3/prompt-1.txt" ]' 10
check_eq "#2: recorded as routed" \
    "$(cat "$RUN/review-injected-$PROJ-12")" "$S2"
check_eq "#3: recorded as routed" \
    "$(cat "$RUN/review-injected-$PROJ-13")" "$S3"
rp
sleep 1
check_eq "#2: typed once" "$(prompts "$T/dev2")" 1
check_eq "#3: typed once" "$(prompts "$T/dev3")" 1

# #4: killed after typing the verdict, before recording it.
mkdir -p "$RUN/sessions/active/dev-$PROJ-4"
echo PHASE:awaiting_review >"$RUN/sessions/active/dev-$PROJ-4/dev-session-$PROJ-4.phase"
rp DISINTO_TEST_CRASH=typed
check_eq "review-poll killed after typing" "$RP_RC" 137
check "#4: the verdict arrived" wait_for '[ -f "$T/dev4/prompt-1.txt" ]' 10
check "#4: not recorded as routed" test ! -e "$RUN/review-injected-$PROJ-14"
rp
check_eq "#4: the next tick" "$RP_RC" 0
check "#4: it sees the verdict in the session" grep -q \
    "session dev-$PROJ-4: 'review $S4' (recorded, typed 1 time): the session has it, not typed again" \
    "$RLOG"
check_eq "#4: recorded as routed" \
    "$(cat "$RUN/review-injected-$PROJ-14")" "$S4"
rp
sleep 1
check_eq "#4: typed once" "$(prompts "$T/dev4")" 1
