# Two approved PRs on one base: merging the first puts the second into
# checking (services/pull/merge.go Merge, AddTestPullRequestTask), and the
# forge answers its merge 405 "Please try again later" until the check
# ends (routers/api/v1/repo/pull.go MergePullRequest, ErrNotMergeableState),
# the same answer as for a conflict.  The second is tried again by the
# next tick and merged, with no human: no escalation, no session, no
# refusal remembered.  A 409 "head out of date" is tried again too; a 409
# of a push the forge's hooks refused escalates.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
pr() {	# pr N ISSUE: an approved PR of ISSUE
	printf '{"number": %s, "title": "fix: %s (#%s)", "user": "dev-bot",
	  "body": "Fixes #%s", "head": {"ref": "fix/issue-%s", "sha": "%040d"},
	  "reviews": [{"user": "review-bot", "state": "APPROVED",
	               "commit_id": "%040d"}]}' "$1" "$2" "$2" "$2" "$2" "$1" "$1"
}
issues='[{"number": 1, "title": "one", "labels": ["in-progress"]},
         {"number": 2, "title": "two", "labels": ["in-progress"]}]'
state() {
	sim_state_get "[i['state'] for i in d['issues'] if i['number'] == $1][0]"
}
merged() {
	sim_state_get '" ".join(str(p["merged"]) for p in sorted(d["pulls"], key=lambda p: p["number"]))'
}
answers() {	# the merge answers so far, in order
	sim_get /_admin/log | pyjson '" ".join(str(e["status"]) for e in d if e["method"] == "POST" and e["path"].endswith("/merge"))'
}
no_human() {	# NAME
	check_eq "$1: no escalation, no session" \
	    "$(sessions)$(cat "$RUN"/*.phase 2>/dev/null)" ""
	check "$1: no refusal remembered" \
	    test -z "$(grep -l '^REFUSED' "$RUN"/dev-state-* 2>/dev/null)"
	lnot "$1: no fall back to an agent" 'falling back to dev-agent|escalat'
}

scen "$issues" "[$(pr 21 1), $(pr 22 2)]" '"check_reads": 1' >"$T/case.json"
dev_sim "$T/case.json" '[ci]' 'woodpecker_repo_id = 0'
dp
rc_is "one tick" 0
check_eq "one tick: one merged, the other checked still (405)" "$(answers)" "200 405"
lhas "one tick: said" 'PR #21: not mergeable now \(the forge may be checking it after a merge to master; HTTP 405: Please try again later\) — a later tick looks again'
no_human "one tick"
dp
rc_is "the next tick" 0
check_eq "the next tick: the second merged" "$(answers)" "200 405 200"
check_eq "both merged" "$(merged)" "True True"
check_eq "both issues closed" "$(state 1) $(state 2)" "closed closed"
no_human "the next tick"
check_eq "no state left" "$(ls "$RUN"/dev-state-* 2>/dev/null)" ""

# A longer check: the second tick still finds the PR not mergeable (its
# "mergeable" false: not asked), the third merges it.
scen "$issues" "[$(pr 21 1), $(pr 22 2)]" '"check_reads": 2' >"$T/case.json"
case_start "$T/case.json" '[ci]' 'woodpecker_repo_id = 0'
dp
dp
rc_is "a longer check, the second tick" 0
check_eq "a longer check: not asked while not mergeable" "$(answers)" "200 405"
lhas "a longer check: said" 'PR #21: not mergeable now .* a later tick looks again'
no_human "a longer check"
dp
check_eq "a longer check: then merged" "$(merged)" "True True"
no_human "a longer check, merged"

# The head moved between the read and the merge (head_commit_id): no
# refusal, a later tick reads the new head.
scen "$issues" "[$(pr 21 1)]" >"$T/case.json"
case_start "$T/case.json" '[ci]' 'woodpecker_repo_id = 0'
fault '{"method": "POST", "path": "/pulls/21/merge", "mode": "409", "count": 1, "message": "head out of date"}'
dp
rc_is "head out of date" 0
lhas "head out of date: said" 'PR #21: the merge found its head or master moved \(HTTP 409: head out of date\) — a later tick asks again'
no_human "head out of date"
dp
check_eq "head out of date: then merged" "$(merged)" "True"

# A push the forge's hooks refused (409 PushRejected): a human's, the live
# session escalates.
scen "$issues" "[$(pr 21 1 | sed 's/}$/, "push_rejected": "denied by policy"}/')]" >"$T/case.json"
case_start "$T/case.json" '[ci]' 'woodpecker_repo_id = 0'
mkdir -p "$T/al-1"
t_tmux new-session -d -s "dev-$PROJ-1" -x 200 -y 50 \
    "env FAKE_AGENT_LOG=$T/al-1 $FAKE_AGENT"
wait_for "t_tmux capture-pane -p -t dev-$PROJ-1 | grep -q '❯'" 10
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo PHASE:awaiting_review >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
dp
check_eq "push rejected: escalated" \
    "$(sed -n 1p "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase")" PHASE:escalate
check "push rejected: the hook's words" \
    grep -q 'PushRejected with remote message: denied by policy' "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
check_eq "push rejected: no rebase asked" "$(prompts "$T/al-1")" 0
