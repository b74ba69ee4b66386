# Protocol "checkpoint" and exactly-once delivery: a message to a
# checkpoint session starts a run; dev-poll killed after a CI failure's
# message started the resume run and before it was recorded as delivered
# (DISINTO_TEST_CRASH=typed, as kill -9 would): once that run has ended,
# the next ticks find the run was started for that message and start no
# second run for the same failure.  (The record of intent:
# test_exactly_once.sh.)
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/lib/checkpoint.sh"
ck_setup '[{"number": 1, "title": "Add a greeting", "labels": ["backlog"], "body": "Add hello.txt."}]' git
ck_script '[
 [{"commit": {"file": "hello.txt", "text": "helo\n", "message": "add hello"},
   "push": "fix/issue-1"},
  {"checkpoint": {"status": "DONE", "summary": "Adds hello.txt."}}],
 [{"checkpoint": {"status": "DONE", "summary": "Looked at it."}}],
 [{"checkpoint": {"status": "DONE", "summary": "A run too many."}}]
]'
dp
rc_is "launch" 0
ck_wait_run 1 || fail "run 1 ended" "$(cat "$T/agentlog/events.log" 2>&1)"
dp
check_eq "DONE is awaiting_ci" "$(ck_phase 1)" "PHASE:awaiting_ci"
PR=$(sim_state_get "[p['number'] for p in d['pulls']][0]")
SHA1=$(git --git-dir="$T/origin.git" rev-parse fix/issue-1)
sim_post /_admin/pipeline "{\"commit\": \"$SHA1\", \"status\": \"failure\", \"branch\": \"fix/issue-1\", \"steps\": [{\"name\": \"test\", \"state\": \"failure\", \"exit_code\": 1, \"log\": [\"expected hello\"]}]}" >/dev/null
DISINTO_TEST_CRASH=typed dp
check_eq "dev-poll killed after the CI failure started a run" "$DP_RC" 137
ck_wait_run 2 || fail "run 2 ended" "$(cat "$T/agentlog/events.log" 2>&1)"
check "run 2 is the CI failure" grep -q "CI failed on PR #$PR" \
    "$T/agentlog/prompt-2.txt"
check "the CI result is not recorded" test ! -e "$RUN/ci-result-$PROJ-1.txt"
dp
rc_is "the next tick" 0
check "it finds the run was started for the message" grep -q \
    "session dev-$PROJ-1: 'ci $SHA1 failure 1' (recorded, typed 1 time): the session has it, not typed again" \
    "$DEVLOG"
dp
rc_is "and the next" 0
sleep 0.5
check_eq "one run for the CI failure" "$(ck_runs)" 2
check_eq "no agent process" "$(ck_agents)" 0
