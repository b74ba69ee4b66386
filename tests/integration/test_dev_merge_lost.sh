# After-merge steps driven by state (issue 10, defect 5): a merge the
# forge applied but whose answer was lost (a timeout, a cut-off answer),
# and a close or label removal that failed after a good merge, are
# finished by the next tick, which exits 1 until they are; a PR merged by
# a person is finished the same way; neither the orphan scan nor crash
# recovery ever starts a session on merged work.  Launches are seen
# through a stand-in legacy agent (DEV_AGENT_CMD), except crash recovery,
# which only an in-process session has.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
legacy_agent
S=3333333333333333333333333333333333333333
ISSUE1='{"number": 1, "title": "One", "labels": ["in-progress"]}'
APPROVED="[{\"number\": 3, \"title\": \"fix: One (#1)\", \"files\": [\"a.c\"],
  \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"$S\"},
  \"reviews\": [{\"user\": \"review-bot\", \"state\": \"APPROVED\", \"commit_id\": \"$S\"}]}]"
GREEN="\"statuses\": {\"$S\": {\"state\": \"success\"}}"

state1() {
	sim_state_get "[i['state'] for i in d['issues'] if i['number'] == 1][0]"
}
merged3() {
	sim_state_get "[p['merged'] for p in d['pulls'] if p['number'] == 3][0]"
}

# lost NAME MODE [DELAY]: the merge is applied, its answer lost.
lost() {
	scen "[$ISSUE1]" "$APPROVED" "$GREEN" >"$T/case.json"
	case_start
	fault "{\"method\": \"POST\", \"path\": \"/pulls/3/merge\", \"mode\": \"$2\", \"count\": 1, \"delay\": ${3:-0}}"
	dp
	rc_is "$1: the merge tick" 1
	lhas "$1: the lost answer is said" 'PR #3: no answer to the merge'
	if wait_for '[ "$(merged3)" = true ]' 10; then
		ok "$1: the forge merged it"
	else
		fail "$1: the forge merged it"
	fi
	check_eq "$1: the issue still open" "$(state1)" open
	check "$1: the merge remembered" \
	    grep -q "^MERGE: $S" "$RUN/dev-state-$PROJ-1"
	# The stall on the code before: the next tick took the issue for
	# an orphan and started a session on merged work.
	dp
	rc_is "$1: the next tick" 0
	lhas "$1: found merged" 'PR #3 was merged — finishing its after-merge steps'
	check_eq "$1: no session on merged work" "$(launched)" ""
	check_eq "$1: issue closed" "$(state1)" closed
	check_eq "$1: not in progress" "$(labels 1)" ""
	check "$1: the state is gone" test ! -e "$RUN/dev-state-$PROJ-1"
	tick_twice "$1: finished"
	check_eq "$1: still no session" "$(launched)" ""
}
lost "timeout after the forge applied it" delay 3
lost "truncated answer" truncate

# after_fault NAME METHOD PATH_REGEX WANT_STATE WANT_LABELS: the merge
# succeeds, one after-merge step fails; the next tick finishes it.
after_fault() {
	scen "[$ISSUE1]" "$APPROVED" "$GREEN" >"$T/case.json"
	case_start
	fault "$2" "$3" 500
	dp
	rc_is "$1: the failed step makes the tick fail" 1
	check_eq "$1: merged" "$(merged3)" true
	check_eq "$1: state after the fault" "$(state1) [$(labels 1)]" "$4"
	faults_clear
	dp
	rc_is "$1: the next tick" 0
	lhas "$1: retried" 'PR #3 was merged — finishing its after-merge steps'
	check_eq "$1: finished" "$(state1) [$(labels 1)]" "closed []"
	check_eq "$1: no session on merged work" "$(launched)" ""
	tick_twice "$1: finished"
}
after_fault "close failed" PATCH '/issues/1$' "open []"
after_fault "label removal failed" DELETE '/issues/1/labels/' \
    "closed [in-progress]"

# A PR a person merged while the issue stayed in progress: the orphan
# scan finishes the merge instead of starting a recovery session.
scen "[$ISSUE1]" "[{\"number\": 3, \"title\": \"fix: One (#1)\",
  \"state\": \"closed\", \"merged\": true,
  \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"$S\"}}]" >"$T/case.json"
case_start
dp
rc_is "merged by hand: orphan scan" 0
lhas "merged by hand: found" 'issue #1: PR #3 was merged — finishing its after-merge steps, no new session'
check_eq "merged by hand: no session on merged work" "$(launched)" ""
check_eq "merged by hand: issue closed" "$(state1)" closed
check_eq "merged by hand: not in progress" "$(labels 1)" ""
tick_twice "merged by hand"

# Crash recovery: the session is gone, its PR was merged meanwhile.
legacy_stop
unset DEV_AGENT_CMD AGENT_SANDBOX
case_start
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo "PHASE:awaiting_review" >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
dp
lhas "crash, merged: found" 'PR #3 was merged — no new session'
check_eq "crash, merged: no session started" "$(sessions)" ""
check "crash, merged: phase file removed" \
    test ! -e "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
check_eq "crash, merged: issue closed" "$(state1)" closed
check_eq "crash, merged: not in progress" "$(labels 1)" ""
tick_twice "crash, merged"
check_eq "crash, merged: still no session" "$(sessions)" ""
