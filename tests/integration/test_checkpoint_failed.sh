# Protocol "checkpoint": FAILED.  Recoverable: one resume run with the
# error, whose DONE goes on as usual; FAILED again after it: failed.  Not
# recoverable: failed at once, with the diagnostic (the redacted error;
# the output's tail goes to the log only) and the blocked label.  DONE
# without any PR: the next tick looks for it again, then one notice (the
# PR could not be opened); the same after the next DONE, then failed.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/lib/checkpoint.sh"

# --- recoverable, then DONE.
ck_setup '[{"number": 1, "title": "Flaky push", "labels": ["backlog"]}]' git
ck_script '[
 {"checkpoint": {"status": "FAILED", "error": "git push failed: remote hung up"}},
 [{"commit": {"file": "a.c", "text": "a\n", "message": "a"}, "push": "fix/issue-1"},
  {"checkpoint": {"status": "DONE", "summary": "Pushed."}}]
]'
dp
ck_wait_run 1 || fail "run 1 ended"
dp
ck_wait_run 2 || fail "run 2 (the resume) ended"
check "the resume run continued the session" \
    grep -q '^[0-9:]* run 2 resume ' "$T/agentlog/events.log"
check "its prompt has the error" \
    grep -q 'FAILED: git push failed: remote hung up' "$T/agentlog/prompt-2.txt"
check "and the recovery context" grep -q "worktree .* is as you left it" \
    "$T/agentlog/prompt-2.txt"
dp
check_eq "its DONE: awaiting_ci" "$(ck_phase 1)" "PHASE:awaiting_ci"
check_eq "one resume only" "$(ck_runs)" 2
sim_stop
t_cleanup

# --- recoverable twice: failed.
ck_setup '[{"number": 1, "title": "Hopeless", "labels": ["backlog"]}]' git
ck_script '[
 {"checkpoint": {"status": "FAILED", "error": "first failure"}},
 {"checkpoint": {"status": "FAILED", "error": "second failure"}}
]'
dp
ck_wait_run 1 || fail "run 1 ended"
dp
ck_wait_run 2 || fail "run 2 ended"
dp
check "failed again: the session fails" grep -q '#1.*failed\|PHASE:failed' "$T/tick.log"
check_eq "two runs, no third" "$(ck_runs)" 2
check_eq "labelled blocked" \
    "$(sim_state_get "'blocked' in [l if isinstance(l, str) else l['name'] for i in d['issues'] if i['number'] == 1 for l in i['labels']]")" true
check_eq "the diagnostic names the error" "$(comments_with 1 'second failure')" 1
sim_stop
t_cleanup

# --- not recoverable: failed at once, error redacted, output's tail logged.
ck_setup '[{"number": 1, "title": "Forbidden", "labels": ["backlog"]}]' git
ck_script '[
 [{"say": "trying to push with the deploy key"},
  {"checkpoint": {"status": "FAILED", "recoverable": false, "error": "push refused: API_KEY=abcdefghijklmnopqrstuvwxyz123456 lacks rights"}}]
]'
dp
ck_wait_run 1 || fail "run 1 ended"
dp
check_eq "one run, no resume" "$(ck_runs)" 1
check_eq "labelled blocked" \
    "$(sim_state_get "'blocked' in [l if isinstance(l, str) else l['name'] for i in d['issues'] if i['number'] == 1 for l in i['labels']]")" true
check_eq "the diagnostic has the error" "$(comments_with 1 'push refused')" 1
check_eq "redacted" "$(comments_with 1 'abcdefghijklmnopqrstuvwxyz123456')" 0
check_eq "without the output's tail" "$(comments_with 1 'trying to push with the deploy key')" 0
check "the output's tail is logged" \
    grep -q 'output (tail):.*trying to push with the deploy key' "$DEVLOG"
check_eq "no agent process" "$(ck_agents)" 0
sim_stop
t_cleanup

# --- DONE without any PR (nothing pushed): looked for again, one notice,
# then failed.  (A
# phase write is known by its mtime in seconds: run 2 takes one.)
ck_setup '[{"number": 1, "title": "Lazy", "labels": ["backlog"]}]' git
ck_script '[
 {"checkpoint": {"status": "DONE", "summary": "did nothing"}},
 [{"sleep": 1.1}, {"checkpoint": {"status": "DONE", "summary": "still nothing"}}]
]'
dp
ck_wait_run 1 || fail "run 1 ended"
dp
check "no PR: the next tick looks again first" \
    grep -q 'the PR could not be opened.*the next tick looks again' "$T/tick.log"
check_eq "no PR: no notice yet" "$(ck_runs)" 1
dp
ck_wait_run 2 || fail "run 2 (the notice) ended"
check "the notice: the PR could not be created" \
    grep -q 'could not be created' "$T/agentlog/prompt-2.txt"
dp
check "DONE again without a PR: looked for once more" \
    grep -q 'the next tick looks again' "$T/tick.log"
dp
check "DONE again without a PR: failed" grep -q 'still no PR after the notice' "$T/tick.log"
check_eq "no third run" "$(ck_runs)" 2
check_eq "labelled blocked" \
    "$(sim_state_get "'blocked' in [l if isinstance(l, str) else l['name'] for i in d['issues'] if i['number'] == 1 for l in i['labels']]")" true
