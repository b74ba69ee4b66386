# A person's reply to an escalation is typed into the session once, even
# when supervisor-poll is killed after typing it and before recording it
# (DISINTO_TEST_CRASH=typed, which ends it as kill -9 would): the next
# tick finds the reply in the session and types nothing.  (The messages'
# record of intent: test_exactly_once.sh.)
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-escalate.json"
RUN=$DISINTO_RUN_DIR
A=$T/agent-dev-harb-5

sup_agent dev-harb-5
sup_phase 5 'PHASE:escalate\nReason: which database, postgres or sqlite?\n'
sup_run
check_eq "the escalation is noticed" \
    "$(sim_log_count POST '/issues/5/comments$')" 1
sim_post /_admin/comment '{"issue": 5, "user": "alice",
    "body": "Use sqlite."}' >/dev/null
DISINTO_TEST_CRASH=typed "$SUP" >"$T/sup.out" 2>&1
check_eq "supervisor-poll killed after typing the reply" "$?" 137
check "the reply arrived" wait_for '[ -f "$A/prompt-1.txt" ]' 10
check "it is the reply" grep -qF 'Use sqlite.' "$A/prompt-1.txt"
check "not recorded as answered" \
    test ! -e "$RUN/dev-escalation-injected-harb-5"
sup_run
check_eq "the next tick" "$SUP_RC" 0
check "it finds the reply in the session" sup_log_has \
    "(recorded, typed 1 time): the session has it, not typed again"
check "recorded as answered now" \
    test -s "$RUN/dev-escalation-injected-harb-5"
sup_run
sleep 0.5
check_eq "the reply typed once" "$(prompts "$A")" 1
