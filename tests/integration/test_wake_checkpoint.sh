# A checkpoint run's end starts the tick that reads it (common/tick/
# wake.h): the run's Stop hook, as `claude -p` runs it after the run's
# checkpoint, wakes dev-poll, whose tick waits the few seconds the run
# takes to exit, reads its DONE as PHASE:awaiting_ci and opens the PR.
# No tick is run by the test after the first wake; nothing asserts a
# duration.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/lib/checkpoint.sh"
export DISINTO_WAKE=true
ck_setup '[{"number": 1, "title": "Add a greeting", "labels": ["backlog"], "body": "Add hello.txt."}]' git
# The woken ticks run with the agent's environment: the secrets are the
# factory's .env's, as in a factory.
printf 'FORGE_TOKEN=dev-token\nFORGE_REVIEW_TOKEN=review-token\nWOODPECKER_TOKEN=wp-token\nWOODPECKER_REPO_ID=1\n' \
    >"$FACTORY_ROOT/.env"
ck_script '[
 [{"commit": {"file": "hello.txt", "text": "hello\n", "message": "add hello"},
   "push": "fix/issue-1"},
  {"checkpoint": {"status": "DONE", "summary": "Adds hello.txt."}}]
]'
"$O/dev-poll/dev-poll" --wake "$P" "test start" >/dev/null 2>&1
check_eq "--wake exits 0" "$?" 0
ck_wait_run 1 60 || fail "run 1 ended" "$(cat "$T/agentlog/events.log" 2>&1)"
if wait_for '[ "$(ck_phase 1)" = PHASE:awaiting_ci ]' 60; then
	ok "the run's end was read with no tick run by the test"
else
	fail "the run's end was read with no tick run by the test" \
	    "$(tail -8 "$DEVLOG" | tr '\n' '|')"
fi
check "the run's Stop hook woke dev-poll" \
    grep -q 'wake (stop hook dev-proj-1)' "$DEVLOG"
if wait_for '[ "$(sim_log_count POST "/pulls$" 201)" = 1 ]' 60; then
	ok "the woken tick opened the PR"
else
	fail "the woken tick opened the PR" "$(tail -8 "$DEVLOG" | tr '\n' '|')"
fi
wait_for "! pgrep -f 'dev-poll/dev-poll -- $P' >/dev/null" 60
