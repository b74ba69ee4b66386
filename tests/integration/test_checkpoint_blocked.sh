# Protocol "checkpoint": a run that ends BLOCKED_NEEDS_INPUT is an
# escalation.  supervisor-poll posts the question (and its context) once;
# the first reply of a person resumes the agent's session with exactly
# "User answered: <text>\n\nContinue from where you left off."; the
# resumed run's DONE goes on as usual.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/lib/checkpoint.sh"
ck_setup '[{"number": 1, "title": "Drop the old API", "labels": ["backlog"]}]' git
ck_sup_setup
ck_script '[
 {"checkpoint": {"status": "BLOCKED_NEEDS_INPUT", "question": "Delete /v1 or deprecate it?", "question_context": {"file": "api.c"}}},
 [{"commit": {"file": "api.c", "text": "v2\n", "message": "deprecate v1"},
   "push": "fix/issue-1"},
  {"checkpoint": {"status": "DONE", "summary": "Deprecated /v1."}}]
]'

dp
ck_wait_run 1 || fail "run 1 ended"
dp
check_eq "BLOCKED is an escalation" "$(ck_phase 1)" "PHASE:escalate"
check "the question is its reason, with the context" \
    grep -qF 'Reason: Delete /v1 or deprecate it? (context: {"file":"api.c"})' \
    "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
check_eq "no agent process while waiting for a person" "$(ck_agents)" 0

ck_sup
check_eq "supervisor-poll ran" "$SUP_RC" 0
check_eq "the question was posted once" "$(ck_notices 1)" 1
check_eq "with the question" "$(comments_with 1 'Delete /v1 or deprecate it?')" 1
ck_sup
check_eq "not posted again" "$(ck_notices 1)" 1
check_eq "no run without a reply" "$(ck_runs)" 1

ck_reply 1 "Deprecate it, keep v1 for a release."
ck_sup
ck_wait_run 2 || fail "run 2 ended" "$(tail -5 "$SUP_LOG")"
check "the answer resumed the agent's session" \
    grep -q '^[0-9:]* run 2 resume ' "$T/agentlog/events.log"
printf 'User answered: Deprecate it, keep v1 for a release.\n\nContinue from where you left off.' >"$T/want"
check "the resume prompt is exactly the answer's" cmp "$T/want" "$T/agentlog/prompt-2.txt"
ck_sup
check_eq "the answer was passed once" "$(ck_runs)" 2
dp
check_eq "the resumed run's DONE: awaiting_ci" "$(ck_phase 1)" "PHASE:awaiting_ci"
check_eq "the PR was opened" "$(sim_log_count POST '/pulls$' 201)" 1

