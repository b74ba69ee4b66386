# Protocol "checkpoint": at most 5 BLOCKED_NEEDS_INPUT rounds per
# session; the sixth ends the session as failed (reason blocked_rounds),
# with the diagnostic and the blocked label, and no sixth question.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/lib/checkpoint.sh"
ck_setup '[{"number": 1, "title": "Ask forever", "labels": ["backlog"]}]' git
ck_sup_setup
rounds='['
i=1
while [ $i -le 6 ]; do
	rounds="$rounds{\"checkpoint\": {\"status\": \"BLOCKED_NEEDS_INPUT\", \"question\": \"Question $i?\"}},"
	i=$((i + 1))
done
ck_script "${rounds%,}]"

dp
i=1
while [ $i -le 5 ]; do
	ck_wait_run $i || fail "run $i ended"
	dp
	check_eq "round $i: escalate" "$(ck_phase 1)" "PHASE:escalate"
	ck_sup
	check_eq "round $i: question $i posted" \
	    "$(comments_with 1 "Question $i?")" 1
	# The escalation clock counts in seconds: each round its own.
	sleep 1
	ck_reply 1 "answer $i"
	ck_sup
	i=$((i + 1))
done
ck_wait_run 6 || fail "run 6 ended"
check_eq "six runs" "$(ck_runs)" 6
check "each answer resumed the session" \
    sh -c "[ \"\$(grep -c '^[0-9:]* run [0-9]* resume ' '$T/agentlog/events.log')\" = 5 ]"
dp
check "the sixth round is failed, blocked_rounds" \
    grep -q 'blocked_rounds' "$T/tick.log"
check_eq "no sixth question" "$(comments_with 1 'Question 6?')" 0
check_eq "the issue is labelled blocked" \
    "$(sim_state_get "'blocked' in [l if isinstance(l, str) else l['name'] for i in d['issues'] if i['number'] == 1 for l in i['labels']]")" true
check_eq "no agent process" "$(ck_agents)" 0
