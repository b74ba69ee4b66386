# An approved PR the forge will not merge (issue 11, item 3), by what the
# forge's no means (routers/api/v1/repo/pull.go MergePullRequest,
# services/pull/check.go CheckPullMergeable): a 405 of the forge's merge
# rules (here a protected branch short of approvals) escalates the live
# session (PHASE:escalate with the reason and the forge's words); a
# conflict (a 409 of the merge, or a PR the forge keeps calling not
# mergeable) has the live session rebase, told once per head SHA, never
# escalated; without a live session one is started in recovery mode and
# then told.  The merge is not asked again every tick: only once the head
# moves, or, after an escalation, once the phase file changed (someone
# answered the escalation).
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
SHA1=$(git_branch fix/issue-1 a.c)
SHA2=$(git_branch fix/issue-2 b.c)
SHA3=$(git_branch fix/issue-3 c.c)
SHA4=$(git_branch fix/issue-4 d.c)
review() {	# SHA
	echo "[{\"user\": \"review-bot\", \"state\": \"APPROVED\", \"commit_id\": \"$1\"}]"
}
dev_sim - '[ci]' 'woodpecker_repo_id = 0' <<JSON
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"}],
 "branch_protections": [{"rule_name": "master", "required_approvals": 2}],
 "issues": [{"number": 1, "title": "One", "labels": ["in-progress"]},
            {"number": 2, "title": "Two", "labels": ["in-progress"]},
            {"number": 4, "title": "Four", "labels": ["in-progress"]}],
 "pulls": [{"number": 11, "title": "fix: One (#1)", "body": "Fixes #1",
            "head": {"ref": "fix/issue-1", "sha": "$SHA1"},
            "reviews": $(review "$SHA1")},
           {"number": 12, "title": "fix: Two (#2)", "body": "Fixes #2",
            "head": {"ref": "fix/issue-2", "sha": "$SHA2"},
            "reviews": $(review "$SHA2")},
           {"number": 14, "title": "fix: Four (#4)", "body": "Fixes #4",
            "mergeable": false, "head": {"ref": "fix/issue-4", "sha": "$SHA4"},
            "reviews": $(review "$SHA4")}]}
JSON

agent() {	# N PHASE
	mkdir -p "$T/al-$1"
	t_tmux new-session -d -s "dev-$PROJ-$1" -x 200 -y 50 \
	    "env FAKE_AGENT_LOG=$T/al-$1 $FAKE_AGENT"
	wait_for "t_tmux capture-pane -p -t dev-$PROJ-$1 | grep -q '❯'" 10
	mkdir -p "$RUN/sessions/active/dev-$PROJ-$1"
	echo "$2" >"$RUN/sessions/active/dev-$PROJ-$1/dev-session-$PROJ-$1.phase"
}
merges() {	# PR: merge requests so far
	requests "/pulls/$1/merge$"
}
agent 1 PHASE:awaiting_review
agent 2 PHASE:awaiting_review
agent 4 PHASE:awaiting_review
fault POST '/pulls/12/merge' 409

# The stall on the code before: both merges were asked again every tick
# while the sessions, told to stop and wait, waited for good.
dp
lhas "405: said" 'PR #11 blocked — merge requirements not met \(HTTP 405\) — escalating #1'
check_eq "405: the phase is escalate" \
    "$(sed -n 1p "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase")" PHASE:escalate
check_eq "405: the reason, as do_merge wrote it, with the forge's words" \
    "$(sed -n 2p "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase")" \
    "Reason: PR #11 merge blocked — merge requirements not met (HTTP 405): not allowed to merge [reason: Does not have enough approvals]"
wait_for '[ -f "$T/al-2/prompt-1.txt" ]' 10
check "409: the rebase asked" grep -q 'Rebase onto master and push' "$T/al-2/prompt-1.txt"
check "409: with the commands" \
    grep -q 'git push --force-with-lease origin fix/issue-2' "$T/al-2/prompt-1.txt"
check "409: and the way back to CI" \
    grep -q "echo \"PHASE:awaiting_ci\" > \"$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase\"" \
    "$T/al-2/prompt-1.txt"
check "409: the forge's answer quoted" grep -q 'HTTP 409' "$T/al-2/prompt-1.txt"
check_eq "not mergeable: no merge asked" "$(merges 14)" 0
lhas "not mergeable: a later tick looks again" 'PR #14: not mergeable now .* a later tick looks again'
check_eq "not mergeable: not escalated, no rebase yet" \
    "$(sed -n 1p "$RUN/sessions/active/dev-$PROJ-4/dev-session-$PROJ-4.phase") $(prompts "$T/al-4")" \
    "PHASE:awaiting_review 0"
check "not mergeable: noted, no refusal" grep -q "^UNMERGEABLE: $SHA4 " "$RUN/dev-state-$PROJ-4"
check "not mergeable: no refusal remembered" sh -c "! grep -q '^REFUSED' '$RUN/dev-state-$PROJ-4'"
MTIME=$(stat -c %Y "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase")
dp
dp
sleep 0.5
check_eq "405: the merge is not asked again" "$(merges 11)" 1
check_eq "409: the merge is not asked again" "$(merges 12)" 1
check_eq "409: the rebase asked once" "$(prompts "$T/al-2")" 1
check_eq "405: the escalation is not written again" \
    "$(stat -c %Y "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase")" "$MTIME"

# Not mergeable at one head for a minute: a conflict, not a check still
# going on (the note aged instead of waiting it out): the session is asked
# to rebase, once, and nothing is escalated or merged.
sed -i "s/^UNMERGEABLE: \([0-9a-f]*\) [0-9]*/UNMERGEABLE: \1 $(($(date +%s) - 61))/" \
    "$RUN/dev-state-$PROJ-4"
dp
lhas "conflict: said" 'PR #14: not mergeable for 6[0-9]s at .* — a conflict with master'
wait_for '[ -f "$T/al-4/prompt-1.txt" ]' 10
check "conflict: the rebase asked" grep -q 'Rebase onto master and push' "$T/al-4/prompt-1.txt"
check_eq "conflict: not escalated" \
    "$(sed -n 1p "$RUN/sessions/active/dev-$PROJ-4/dev-session-$PROJ-4.phase")" PHASE:awaiting_review
dp
sleep 0.5
check_eq "conflict: the rebase asked once" "$(prompts "$T/al-4")" 1
check_eq "conflict: never a merge asked" "$(merges 14)" 0

# Someone answered the escalation: the session moved on; the merge is
# asked once more.
sleep 1
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo PHASE:awaiting_review >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
dp
check_eq "405: asked again once the phase changed" "$(merges 11)" 2
check_eq "405: escalated again" \
    "$(sed -n 1p "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase")" PHASE:escalate

# A conflict with no live session: one is started in recovery mode for
# the rebase, then told.
t_tmux kill-server 2>/dev/null
faults_clear
scen '[{"number": 3, "title": "Three", "labels": ["in-progress"]}]' \
    "[{\"number\": 13, \"title\": \"fix: Three (#3)\", \"body\": \"Fixes #3\",
       \"head\": {\"ref\": \"fix/issue-3\", \"sha\": \"$SHA3\"},
       \"reviews\": $(review "$SHA3")}]" >"$T/case.json"
case_start "$T/case.json" '[ci]' 'woodpecker_repo_id = 0'
rm -f "$RUN"/dev-state-*
fault POST '/pulls/13/merge' 409
dp
lhas "no session: started for the merge" 'falling back to dev-agent for PR #13 merge'
lhas "no session: in recovery mode" 'RECOVERY MODE: adopting PR #13'
check "no session: it lives" t_tmux has-session -t "dev-$PROJ-3"
check_eq "no session: the merge asked once" "$(merges 13)" 1
dp
wait_for '[ -f "$T/agentlog/prompt-2.txt" ]' 10
check "no session: then the rebase is asked" \
    grep -q 'Rebase onto master and push' "$T/agentlog/prompt-2.txt"
check_eq "no session: the merge not asked again" "$(merges 13)" 1
dp
sleep 0.5
check_eq "no session: the rebase asked once" "$(prompts "$T/agentlog")" 2

# A server error on the merge is no refusal: the tick fails, no rebase is
# asked, the next tick asks for the merge again.
t_tmux kill-server 2>/dev/null
faults_clear
case_start "$T/case.json" '[ci]' 'woodpecker_repo_id = 0'
rm -f "$RUN"/dev-state-*
agent 3 PHASE:awaiting_review
fault '{"method": "POST", "path": "/pulls/13/merge", "mode": "500", "count": 0}'
dp
rc_is "500 on the merge" 1
lhas "500: said" 'PR #13: the merge failed \(HTTP 500\) — a later tick asks again'
lnot "500: no rebase asked" 'falling back to dev-agent'
M1=$(merges 13)
faults_clear
dp
rc_is "500, then" 0
check_eq "500, then: the merge asked again" "$(merges 13)" "$((M1 + 1))"
check_eq "500, then: the issue closed" \
    "$(sim_state_get '[i["state"] for i in d["issues"] if i["number"] == 3][0]')" closed
