# Protocol "checkpoint", the whole loop over the simulator: a backlog
# issue launched as one-shot runs of the fake agent, DONE read into
# PHASE:awaiting_ci, the PR opened, a CI failure passed to a resume run
# (one, by two racing ticks), green CI moving the session on without a
# run, the review by a one-shot review agent, the merge and the clean-up.
# No agent process exists while the session waits.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/lib/checkpoint.sh"
ck_setup '[{"number": 1, "title": "Add a greeting", "labels": ["backlog"], "body": "Add hello.txt."}]' git
ck_script '[
 [{"commit": {"file": "hello.txt", "text": "helo\n", "message": "add hello"},
   "push": "fix/issue-1"},
  {"checkpoint": {"status": "DONE", "summary": "Adds hello.txt."}}],
 [{"commit": {"file": "hello.txt", "text": "hello\n", "message": "fix typo"},
   "push": "fix/issue-1"},
  {"checkpoint": {"status": "DONE", "summary": "Fixed the typo.", "outputs": {"pr_number": 2}}}]
]'

# --- launch: one run, with the prompt, the checkpoint instructions and
# the variables.
dp
rc_is "launch" 0
ck_wait_run 1 || fail "run 1 ended" "$(cat "$T/agentlog/events.log" 2>&1)"
check "the run's prompt is the issue's" grep -q "Add a greeting" "$T/agentlog/prompt-1.txt"
check "the first prompt ends with the checkpoint instructions" \
    grep -q 'CTRLRELAY_STATE_FILE' "$T/agentlog/prompt-1.txt"
check "CTRLRELAY_SESSION_ID set" grep -q "env CTRLRELAY_SESSION_ID=dev-$PROJ-1\$" "$T/agentlog/events.log"
check "CTRLRELAY_STATE_FILE set" grep -q "env CTRLRELAY_STATE_FILE=$RUN/sessions/active/dev-$PROJ-1/checkpoint.json\$" "$T/agentlog/events.log"
check "DISINTO_SESSION_ID set" grep -q "env DISINTO_SESSION_ID=dev-$PROJ-1\$" "$T/agentlog/events.log"
check "DISINTO_STATE_FILE set" grep -q "env DISINTO_STATE_FILE=" "$T/agentlog/events.log"
check "a new agent session" grep -q '^[0-9:]* run 1 new ' "$T/agentlog/events.log"
PGID=$(sed -n 's/^[0-9:]* pid \([0-9]*\) pgid \([0-9]*\)$/\1 \2/p' "$T/agentlog/events.log" | head -1)
# The run is confined in its own pid namespace: the sandbox's init (pid 1
# there) leads the run's own process group, the agent under it.
check_eq "the run's own process group, led by its sandbox" "${PGID#* }" 1
check "the agent is not that leader" test "${PGID% *}" -gt 1
check_eq "no agent process after the run" "$(ck_agents)" 0
check "the spec is private" sh -c "[ \"\$(stat -c %a '$(ck_dir 1)/spec.json')\" = 600 ]"

# --- --dry-run reads, and changes nothing: the run's end stays unread.
dp --dry-run
check_eq "dry-run: the phase file is untouched" "$(ck_phase 1)" ""
check "dry-run: the checkpoint is still unread" \
    grep -q '"read":0' "$(ck_dir 1)/state.json"

# --- DONE: PHASE:awaiting_ci, the PR opened.
dp
rc_is "DONE read" 0
check_eq "DONE is awaiting_ci" "$(ck_phase 1)" "PHASE:awaiting_ci"
check_eq "the PR was opened" "$(sim_log_count POST '/pulls$' 201)" 1
PR=$(sim_state_get "[p['number'] for p in d['pulls']][0]")
check_eq "one run so far" "$(ck_runs)" 1
tick_twice "DONE read once"

# --- CI fails: a resume run with the failure.
SHA1=$(git --git-dir="$T/origin.git" rev-parse fix/issue-1)
sim_post /_admin/pipeline "{\"commit\": \"$SHA1\", \"status\": \"failure\", \"branch\": \"fix/issue-1\", \"steps\": [{\"name\": \"test\", \"state\": \"failure\", \"exit_code\": 1, \"log\": [\"expected hello\"]}]}" >/dev/null
# Two ticks racing (cron and a by-hand run): one resume run.
"$O/dev-poll/dev-poll" "$P" >/dev/null 2>&1 & R1=$!
dp
wait $R1
ck_wait_run 2 || fail "run 2 ended"
check_eq "racing ticks: one resume run" "$(ck_runs)" 2
check "run 2 resumed the agent's session" grep -q '^[0-9:]* run 2 resume ' "$T/agentlog/events.log"
check "its prompt is the CI failure" grep -q "CI failed on PR #$PR" "$T/agentlog/prompt-2.txt"
check "no checkpoint instructions on a resume" sh -c "! grep -q CTRLRELAY_STATE_FILE '$T/agentlog/prompt-2.txt'"
dp
check_eq "DONE again: awaiting_ci" "$(ck_phase 1)" "PHASE:awaiting_ci"
check_eq "two runs" "$(ck_runs)" 2

# --- CI passes: awaiting_review written, no run.
SHA2=$(git --git-dir="$T/origin.git" rev-parse fix/issue-1)
sim_post /_admin/pipeline "{\"commit\": \"$SHA2\", \"status\": \"success\", \"branch\": \"fix/issue-1\", \"steps\": []}" >/dev/null
dp
check_eq "CI passed: awaiting_review" "$(ck_phase 1)" "PHASE:awaiting_review"
sleep 0.5
check_eq "no run for CI passing" "$(ck_runs)" 2
check_eq "no agent process while waiting for the review" "$(ck_agents)" 0
tick_twice "awaiting_review"

# --- the review: a one-shot review agent approves.
mkdir -p "$T/reviewlog"
: >"$FACTORY_ROOT/state/.reviewer-active"
cat >"$T/review.json" <<'JSON'
[ [{"capture": "REVIEW_OUTPUT_FILE=(?P<out>[^\\s]+)"},
   {"capture": "(?P<ph>/[^\\s'\"`]*review-session[^\\s'\"`]*\\.phase)"},
   {"write": "{out}", "text": "{\"verdict\": \"APPROVE\", \"verdict_reason\": \"fine\", \"review_markdown\": \"### Summary\\nGood.\"}"},
   {"write": "{ph}", "text": "PHASE:done\n"},
   {"checkpoint": {"status": "DONE", "summary": "reviewed"}}] ]
JSON
export FORGE_REVIEW_TOKEN=review-token
RA="env FAKE_AGENT_SCRIPT=$T/review.json FAKE_AGENT_LOG=$T/reviewlog $FAKE_AGENT"
AGENT_CMD=$RA "$O/review-poll/review-poll" "$P" >"$T/rp.out" 2>&1
check_eq "review-poll started the review" "$?" 0
wait_for "grep -q 'run 1 end' '$T/reviewlog/events.log'" 15 ||
    fail "the review run ended" "$(cat "$T/rp.out" "$FACTORY_ROOT"/review/*.log 2>&1 | tail -5)"
wait_for '[ "$(ck_agents)" = 0 ]' 5
AGENT_CMD=$RA "$O/review-poll/review-poll" "$P" >>"$T/rp.out" 2>&1
check_eq "the review was posted" \
    "$(sim_state_get "[r['state'] for p in d['pulls'] for r in p['reviews']]")" '["APPROVED"]'
check_eq "the approval ran no dev run" "$(ck_runs)" 2
check_eq "still awaiting_review" "$(ck_phase 1)" "PHASE:awaiting_review"

# --- merge and clean-up.
dp
dp
check_eq "the PR was merged" "$(sim_state_get "[p['merged'] for p in d['pulls']][0]")" true
check_eq "the issue was closed" "$(sim_state_get "[i['state'] for i in d['issues'] if i['number'] == 1][0]")" closed
dp
check "the session directory is gone" sh -c "[ ! -e '$(ck_dir 1)' ]"
check_eq "no agent process at the end" "$(ck_agents)" 0
