# A PR merged or closed by hand while its session waits (issue 11, item
# 2), in any phase (awaiting_review, escalate): merged → the issue is
# closed and the session cleaned up as done; closed without a merge →
# in-progress off, the session and its worktree gone, the issue left
# open, one comment saying the PR was closed unmerged (phase-handler.sh's
# behaviour).  Against the simulator and fake agents in real tmux.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
SHA1=$(git_branch fix/issue-1 a.c)
SHA2=$(git_branch fix/issue-2 b.c)
dev_sim - '[ci]' 'woodpecker_repo_id = 0' <<JSON
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"}],
 "issues": [{"number": 1, "title": "One", "labels": ["in-progress"]},
            {"number": 2, "title": "Two", "labels": ["in-progress"]}],
 "pulls": [{"number": 11, "title": "fix: One (#1)", "body": "Fixes #1",
            "head": {"ref": "fix/issue-1", "sha": "$SHA1"}},
           {"number": 12, "title": "fix: Two (#2)", "body": "Fixes #2",
            "head": {"ref": "fix/issue-2", "sha": "$SHA2"}}]}
JSON

# agent N PHASE: a fake agent in session dev-proj-N waiting in PHASE,
# with a worktree.
agent() {
	mkdir -p "$T/al-$1" "$RUN/$PROJ-worktree-$1"
	t_tmux new-session -d -s "dev-$PROJ-$1" -x 200 -y 50 \
	    "env FAKE_AGENT_LOG=$T/al-$1 $FAKE_AGENT"
	wait_for "t_tmux capture-pane -p -t dev-$PROJ-$1 | grep -q '❯'" 10
	mkdir -p "$RUN/sessions/active/dev-$PROJ-$1"
	echo "$2" >"$RUN/sessions/active/dev-$PROJ-$1/dev-session-$PROJ-$1.phase"
}
alive() {
	t_tmux has-session -t "dev-$PROJ-$1" 2>/dev/null && echo yes || echo no
}
state() {
	sim_state_get "[i['state'] for i in d['issues'] if i['number'] == $1][0]"
}
agent 1 PHASE:awaiting_review
agent 2 PHASE:escalate

# The sessions wait on open PRs: their PRs are noted, and the escalation
# is noticed on its issue (dev-poll's escalation pass; no Claude session
# id was kept, so it is not parked).
dp
rc_is "waiting" 0
check_eq "waiting: both sessions live" "$(alive 1) $(alive 2)" "yes yes"
check_eq "waiting: the escalation's notice" \
    "$(comments_with 2 "<!-- escalation: $PROJ-2 -->")" 1
check "waiting: PR 11 noted" grep -q '^PR: 11$' "$RUN/dev-state-$PROJ-1"

# A person closes PR 11 and merges PR 12.  The stall on the code before:
# both sessions went on waiting and held the slot for good.
sim_post /_admin/item '{"number": 11, "state": "closed"}' >/dev/null
sim_post /_admin/item '{"number": 12, "state": "closed", "merged": true}' >/dev/null
dp
rc_is "closed and merged by hand" 0
lhas "closed: said" '#1: PR #11 was closed without a merge'
lhas "merged: said" '#2: PR #12 was merged'

check_eq "closed: one comment saying so" \
    "$(comments_with 1 'PR #11 was closed without being merged')" 1
check_eq "closed: in-progress removed" "$(labels 1)" ""
check_eq "closed: the issue stays open" "$(state 1)" open
check_eq "closed: the session ended" "$(alive 1)" no
check "closed: the worktree removed" test ! -e "$RUN/$PROJ-worktree-1"
check "closed: the phase file removed" \
    test ! -e "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
check "closed: the state forgotten" test ! -e "$RUN/dev-state-$PROJ-1"

check_eq "merged: the issue closed" "$(state 2)" closed
check_eq "merged: in-progress removed" "$(labels 2)" ""
check_eq "merged: the session ended" "$(alive 2)" no
check "merged: the worktree removed" test ! -e "$RUN/$PROJ-worktree-2"
check "merged: the phase file removed" \
    test ! -e "$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase"
check_eq "merged: no comment but the escalation's notice" "$(comments 2)" 1

tick_twice "after the PRs closed"
check_eq "still one comment" "$(comments 1)" 1
check_eq "no session started again" "$(sessions)" ""
