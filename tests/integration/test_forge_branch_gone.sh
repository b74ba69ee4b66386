# Merged PRs whose branch is gone (issue 19): Gitea and Forgejo then answer
# head.ref "refs/pull/N/head" and keep the branch only in head.label.  A
# PR merged by hand (its branch deleted) and one merged by dev-poll (with
# delete_branch_after_merge): no session is started on either, both
# issues end closed and without in-progress, and supervisor-poll's sweep
# ends the sessions that were working on them.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
SHA1=$(git_branch fix/issue-1 a.c)
SHA2=$(git_branch fix/issue-2 b.c)
# A person merged PR 11 and deleted its branch.
git --git-dir="$GITDIR" update-ref -d refs/heads/fix/issue-1
dev_sim - '[ci]' 'woodpecker_repo_id = 0' <<JSON
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"}],
 "issues": [{"number": 1, "title": "One", "labels": ["in-progress"]},
            {"number": 2, "title": "Two", "labels": ["in-progress"]}],
 "pulls": [{"number": 11, "title": "fix: One (#1)", "body": "Fixes #1",
            "state": "closed", "merged": true,
            "merged_at": "2024-01-02T10:00:00Z",
            "head": {"ref": "fix/issue-1", "sha": "$SHA1"}},
           {"number": 12, "title": "fix: Two (#2)", "body": "Fixes #2",
            "user": "dev-bot",
            "head": {"ref": "fix/issue-2", "sha": "$SHA2"},
            "reviews": [{"user": "review-bot", "state": "APPROVED",
                         "commit_id": "$SHA2"}]}]}
JSON
# The supervisor reads the same project from the factory.
mkdir -p "$FACTORY_ROOT/projects" "$T/proc"
cp "$P" "$FACTORY_ROOT/projects/$PROJ.toml"
printf '100000.00 200000.00\n' >"$T/proc/uptime"
export DISINTO_PROC_DIR=$T/proc DISINTO_DISK_PATH=$T SUPERVISOR_FIX_CMD= \
    DISINTO_REVIEW_POLL=/bin/true
SUPLOG=$FACTORY_ROOT/supervisor/supervisor.log

agent() {	# agent N: a fake agent at work in session dev-proj-N
	mkdir -p "$T/al-$1"
	t_tmux new-session -d -s "dev-$PROJ-$1" -x 200 -y 50 \
	    "env FAKE_AGENT_LOG=$T/al-$1 $FAKE_AGENT"
	wait_for "t_tmux capture-pane -p -t dev-$PROJ-$1 | grep -q '❯'" 10
}
state() {
	sim_state_get "[i['state'] for i in d['issues'] if i['number'] == $1][0]"
}
head_ref() {	# head_ref N: head.ref of PR N as the forge answers it
	SIM_TOKEN=dev-token sim_get "/api/v1/repos/johba/harb/pulls/$1" |
	    pyjson 'd["head"]["ref"] + " " + d["head"]["label"]'
}
agent 1
agent 2

check_eq "merged by hand: head.ref is the pull ref, head.label the branch" \
    "$(head_ref 11)" "refs/pull/11/head fix/issue-1"

# dev-poll merges the approved PR 12, deleting its branch.
dp
rc_is "tick 1: the merge" 0
check_eq "merged by dev-poll" \
    "$(sim_state_get '[p["merged"] for p in d["pulls"] if p["number"] == 12][0]')" \
    true
check "merged by dev-poll: the branch is gone" \
    test -z "$(git --git-dir="$GITDIR" branch --list fix/issue-2)"
check_eq "merged by dev-poll: head.ref is now the pull ref" \
    "$(head_ref 12)" "refs/pull/12/head fix/issue-2"

# The supervisor's sweep: both PRs merged, found by their branch.
"$O/supervisor-poll/supervisor-poll" >"$T/sup.out" 2>&1
check_eq "supervisor-poll exits 0" "$?" 0
check_eq "the sweep ended both sessions" "$(sessions)" ""
check "the sweep found PR #11 merged by its branch" \
    grep -q 'dev-proj-1 (its PR #11 is closed or merged)' "$SUPLOG"

# dev-poll again: the in-progress issue 1 has no open PR; its merged PR is
# found by the branch, so the merge is finished, no recovery session.
dp
rc_is "tick 2" 0
lhas "issue 1: PR #11 found merged" \
    'issue #1: PR #11 was merged — finishing its after-merge steps'
lnot "issue 1: no recovery session" 'recovering orphaned issue'
dp
rc_is "tick 3" 0
lnot "tick 3: nothing launched" 'launching|recovering'
check_eq "no session started on either" "$(sessions)" ""
check_eq "both issues closed" "$(state 1) $(state 2)" "closed closed"
check_eq "both issues without in-progress" "$(labels 1)/$(labels 2)" "/"
check_eq "no agent was prompted" "$(prompts "$T/al-1") $(prompts "$T/al-2")" \
    "0 0"
