# The factory's Claude session lock (flock on CLAUDE_SESSION_LOCK, here a
# private file and a 2 s wait), against another holder of it (flock(1),
# as upstream's bash agents hold it): a launch that cannot get it is
# skipped with one log line and nothing claimed; a session holds it while
# its agent works (its wrapper, not the tick, which has exited), lets go
# of it in awaiting_ci and awaiting_review, and takes it again before a
# message is typed into it; while another holds it the message is queued
# in the session's mailbox, which the wrapper delivers once the lock is
# free.  A review launch is skipped the same way.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
export CLAUDE_SESSION_LOCK_WAIT=2 WOODPECKER_REPO_ID=0
LOCK=$CLAUDE_SESSION_LOCK
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
cat >"$T/script.json" <<'JSON'
[[{"commit": {"file": "p.c", "text": "int parse;\n"}}, {"push": true},
  {"phase": "PHASE:awaiting_ci"}],
 [{"phase": "PHASE:awaiting_review"}]]
JSON
S=dev-$PROJ-1

# hold: another process holds the lock (until unhold): flock(1) itself,
# whose command (-o) does not.
hold() {
	rm -f "$T/sleeper"
	flock -o "$LOCK" sh -c 'echo $$ >"$0"; exec sleep 60' "$T/sleeper" &
	HOLDER=$!
	wait_for "[ -s '$T/sleeper' ]" 5
}
unhold() {
	kill "$HOLDER" "$(cat "$T/sleeper")" 2>/dev/null
	wait "$HOLDER" 2>/dev/null
	return 0
}
# free: the lock can be taken now.
free() {
	flock -n "$LOCK" true
}

hold
dp
rc_is "busy lock: the tick" 0
check_eq "busy lock: one line" \
    "$(grep -c "the Claude session lock '$LOCK' stayed busy for 2 s — not launching #1 this tick" "$T/tick.log")" 1
check_eq "busy lock: nothing claimed" "$(labels 1)" backlog
check_eq "busy lock: no forge write" "$(writes)" 0
check "busy lock: no session" sh -c "! tmux -L $(tmux_sock) has-session -t =$S 2>/dev/null"
check "busy lock: no worktree" test ! -e "$RUN/$PROJ-worktree-1"
unhold

dp
rc_is "free lock: the launch" 0
check_eq "free lock: claimed" "$(labels 1)" in-progress
check "the session started" t_tmux has-session -t "=$S"
wait_for '[ -f "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase" ] && grep -q awaiting_ci "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"' 10
check "awaiting_ci: the session let go of the lock" wait_for free 5
check_eq "awaiting_ci: its state" "$(cut -d" " -f1 "$RUN/agent-$S.state")" free

# CI passed is to be typed into the session, but the lock is busy: it
# goes to the session's mailbox, which its wrapper delivers once the lock
# frees, with no tick.
hold
dp
rc_is "busy lock: the CI tick" 0
lhas "busy lock: queued, one line" "queued for $S \\(Claude lock busy\\)"
check "busy lock: the agent got no second prompt" test ! -e "$T/agentlog/prompt-2.txt"
check "busy lock: in the mailbox" test -s "$RUN/agent-$S.mailbox"
unhold
check "free lock: CI passed delivered by the wrapper" wait_for '[ -f "$T/agentlog/prompt-2.txt" ]' 10
check "free lock: the mailbox emptied" wait_for '! [ -e "$RUN/agent-$S.mailbox" ]' 10
dp
rc_is "free lock: the CI tick" 0
check "free lock: the prompt says CI passed" grep -q "CI passed" "$T/agentlog/prompt-2.txt"
check "awaiting_review: let go again" wait_for free 5

# While the agent works, the lock is the session's, not a tick's.
dp
rc_is "a tick with nothing to type" 0
PANE=$(t_tmux display-message -p -t "=$S:" '#{pane_pid}')
echo '{}' >"$RUN/agent-$S.lock-request"
check "a request: the wrapper takes the lock" wait_for '! [ -e "$RUN/agent-$S.lock-request" ]' 5
check_eq "a request: its state" "$(cut -d" " -f1 "$RUN/agent-$S.state")" held
check "a request: held by the session's wrapper" sh -c "! flock -n '$LOCK' true"
check "the holder is the pane's process" grep -q "^$PANE\$" "$LOCK"
t_tmux kill-session -t "=$S"
check "a killed session lets go" wait_for free 5
check "a killed session: its state file removed" wait_for '! [ -e "$RUN/agent-$S.state" ]' 5

# A review launch waits for the lock the same way.
git_branch fix/issue-2 f2.c >/dev/null
cat >"$T/case.json" <<'JSON'
{"repo": "johba/harb", "default_branch": "master",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "issues": [], "pulls": [{"number": 5, "title": "fix: other (#2)",
  "body": "Fixes #2", "head": {"ref": "fix/issue-2"}, "user": "dev-bot",
  "state": "open"}]}
JSON
case_start
mkdir -p "$FACTORY_ROOT/review"
: >"$FACTORY_ROOT/state/.reviewer-active"
hold
FORGE_REVIEW_TOKEN=review-token "$O/review-poll/review-poll" "$P" >"$T/rv.out" 2>&1
check_eq "review, busy lock: the tick" "$?" 0
check_eq "review, busy lock: one line" \
    "$(grep -c "skip: the Claude session lock '$LOCK' stayed busy for 2 s" "$FACTORY_ROOT/review/review.log")" 1
check "review, busy lock: no session" sh -c "! tmux -L $(tmux_sock) has-session -t =review-$PROJ-5 2>/dev/null"
check "review, busy lock: no worktree" test ! -e "$RUN/$PROJ-review-5"
unhold
