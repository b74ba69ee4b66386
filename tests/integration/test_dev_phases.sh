# dev-poll's phase reactions (DESIGN section 6) against the simulator and
# fake agents in real tmux: PHASE:awaiting_ci (PR opened once, CI passed /
# failed / infra retrigger / no CI / timeout, each injected once per head
# SHA), PHASE:done, PHASE:failed (refusals and diagnostics), idle agents,
# crashed sessions recovered in their worktree and then given up, and bad
# phase files.  Every reaction is ticked again to show nothing repeats.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
SHA1=$(git_branch fix/issue-1 a.c)
SHA2=$(git_branch fix/issue-2 b.c)
SHA3=$(git_branch fix/issue-3 c.c)
dev_sim - '[ci]' 'woodpecker_repo_id = 1' <<JSON
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "blocked"}, {"id": 4, "name": "underspecified"}],
 "issues": [
  {"number": 1, "title": "One", "labels": ["in-progress"]},
  {"number": 2, "title": "Two", "labels": ["in-progress"]},
  {"number": 3, "title": "Three", "labels": ["in-progress"]},
  {"number": 4, "title": "Four", "labels": ["in-progress"]},
  {"number": 5, "title": "Five", "labels": ["in-progress"]},
  {"number": 6, "title": "Six", "labels": ["in-progress"]},
  {"number": 7, "title": "Seven", "labels": ["in-progress"]},
  {"number": 8, "title": "Eight", "labels": ["in-progress"]}],
 "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": []}}
JSON
export WOODPECKER_REPO_ID=1 WOODPECKER_TOKEN=wp-token

# agent N [SCRIPT]: a fake agent in session dev-proj-N, its prompts in
# $T/al-N.
agent() {
	mkdir -p "$T/al-$1"
	t_tmux new-session -d -s "dev-$PROJ-$1" -x 200 -y 50 \
	    "env FAKE_AGENT_LOG=$T/al-$1 ${2:+FAKE_AGENT_SCRIPT=$2} $FAKE_AGENT"
	wait_for "t_tmux capture-pane -p -t dev-$PROJ-$1 | grep -q '❯'" 10
}
phase() {	# N TEXT
	mkdir -p "$RUN/sessions/active/dev-$PROJ-$1"
	printf '%b' "$2" >"$RUN/sessions/active/dev-$PROJ-$1/dev-session-$PROJ-$1.phase"
}

# --- awaiting_ci: the PR is opened once, CI pending: nothing injected.
agent 1
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo "Adds the a.c file." >"$RUN/sessions/active/dev-$PROJ-1/dev-impl-summary-$PROJ-1.txt"
phase 1 'PHASE:awaiting_ci\n'
dp
rc_is "awaiting_ci, CI pending" 0
check_eq "the PR was opened" "$(sim_log_count POST '/pulls$' 201)" 1
check_eq "PR title, head and base" \
    "$(sim_state_get "[' '.join([p['title'], p['head']['ref'], p['base']['ref']]) for p in d['pulls']][0]" | tr -d '"')" \
    "fix: One (#1) fix/issue-1 master"
check_eq "PR body: Fixes #1 and the summary" \
    "$(sim_state_get "d['pulls'][0]['body'].startswith('Fixes #1\\n\\n## Changes\\nAdds the a.c file.')")" true
check_eq "nothing injected while CI runs" "$(prompts "$T/al-1")" 0
tick_twice "CI pending"
check_eq "no second PR" "$(sim_log_count POST '/pulls$' 201)" 1

# CI passes: "CI passed" injected once, recorded per SHA.
sim_post /_admin/pipeline "{\"commit\": \"$SHA1\", \"status\": \"success\", \"branch\": \"fix/issue-1\", \"steps\": []}" >/dev/null
dp
wait_for '[ -f "$T/al-1/prompt-1.txt" ]' 10
check "CI passed injected" grep -q "CI passed on PR #9" "$T/al-1/prompt-1.txt"
check "it names the phase file" grep -q "PHASE:awaiting_review" "$T/al-1/prompt-1.txt"
check_eq "ci-result records the SHA" "$(sed -n 1p "$RUN/ci-result-$PROJ-1.txt")" "SHA: $SHA1"
check_eq "ci-result records the state" "$(sed -n 2p "$RUN/ci-result-$PROJ-1.txt")" "STATE: success"
dp
dp
sleep 0.5
check_eq "CI passed injected exactly once over three ticks" "$(prompts "$T/al-1")" 1

# --- CI fails: the step, exit code and redacted log tail, once per SHA.
agent 2
phase 2 'PHASE:awaiting_ci\n'
sim_post /_admin/pipeline "{\"commit\": \"$SHA2\", \"status\": \"failure\", \"branch\": \"fix/issue-2\", \"steps\": [{\"name\": \"test\", \"state\": \"failure\", \"exit_code\": 2, \"log\": [\"running tests\", \"FAIL: parser_test expected 3 got 4\", \"API_KEY=abcdefghijklmnopqrstuvwxyz123456\"]}]}" >/dev/null
dp
wait_for '[ -f "$T/al-2/prompt-1.txt" ]' 10
check "CI failure injected" grep -q "CI failed on PR #10 (attempt 1/3" "$T/al-2/prompt-1.txt"
check "the failed step and exit code" grep -q "Failed step: test (exit code 2" "$T/al-2/prompt-1.txt"
check "the log tail" grep -q "FAIL: parser_test expected 3 got 4" "$T/al-2/prompt-1.txt"
check "secrets in the log are redacted" grep -q "API_KEY=\[REDACTED\]" "$T/al-2/prompt-1.txt"
check "no secret in the prompt" sh -c "! grep -q abcdefghijklmnop '$T/al-2/prompt-1.txt'"
dp
sleep 0.5
check_eq "CI failure injected once" "$(prompts "$T/al-2")" 1

# --- infra failure: retriggered once instead of injected.
agent 3
phase 3 'PHASE:awaiting_ci\n'
sim_post /_admin/pipeline "{\"commit\": \"$SHA3\", \"status\": \"failure\", \"branch\": \"fix/issue-3\", \"steps\": [{\"name\": \"clone\", \"state\": \"failure\", \"exit_code\": 128, \"log\": [\"fatal: unable to access\"]}]}" >/dev/null
# Woodpecker refuses the restart: nothing recorded, nothing injected, the
# next tick restarts it.
fault '{"method": "POST", "path": "/api/repos/1/pipelines/[0-9]+$", "mode": "500", "count": 0}'
dp
faults_clear
check_eq "restart refused: not recorded as retried" \
    "$(sed -n 2p "$RUN/ci-result-$PROJ-3.txt" 2>/dev/null)" ""
check_eq "restart refused: nothing injected" "$(prompts "$T/al-3")" 0
dp
check_eq "infra failure retriggered" "$(sim_log_count POST '/api/repos/1/pipelines/[0-9]+$' 200)" 1
check_eq "nothing injected for an infra failure" "$(prompts "$T/al-3")" 0
check_eq "recorded as retried" "$(sed -n 2p "$RUN/ci-result-$PROJ-3.txt")" "STATE: retried"
dp
check_eq "retriggered once only" "$(sim_log_count POST '/api/repos/1/pipelines/[0-9]+$' 200)" 1

# --- the CI timeout: 30 minutes after the phase was written, once.
sim_post /_admin/faults/clear '{}' >/dev/null
touch -d '-40 minutes' "$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
dp
wait_for '[ -f "$T/al-3/prompt-1.txt" ]' 10
check "CI timeout injected" grep -q "CI TIMEOUT" "$T/al-3/prompt-1.txt"
dp
sleep 0.5
check_eq "CI timeout injected once" "$(prompts "$T/al-3")" 1

# --- done, not merged: said once per phase write.
phase 1 'PHASE:done\n'
dp
wait_for '[ -f "$T/al-1/prompt-2.txt" ]' 10
check "not merged yet injected" grep -q "PR #9 is not merged yet" "$T/al-1/prompt-2.txt"
dp
sleep 0.5
check_eq "not-merged notice once" "$(prompts "$T/al-1")" 2

# done, merged (dev-poll's merge or a human's): everything cleaned up.
sim_post /_admin/item '{"number": 9, "state": "closed", "merged": true}' >/dev/null
sim_post /_admin/item '{"number": 1, "state": "closed"}' >/dev/null
mkdir -p "$RUN/$PROJ-worktree-1"
# The agent's conversations (Claude Code's HOME/.claude/projects/NAME,
# NAME the worktree's real path, every other character than a letter or
# digit made '-'): this worktree's go with it, no other.
echo "HOME=$T/agenthome" >>"$FACTORY_ROOT/.env"
CONV=$T/agenthome/.claude/projects/$(cd "$RUN/$PROJ-worktree-1" && pwd -P | sed 's/[^a-zA-Z0-9]/-/g')
mkdir -p "$CONV" "$T/agenthome/.claude/projects/-srv-other-worktree-1"
echo '{}' >"$CONV/s.jsonl"
dp
rc_is "done after the merge" 0
check "its conversations removed" test ! -e "$CONV"
check "another worktree's kept" test -d "$T/agenthome/.claude/projects/-srv-other-worktree-1"
check "session killed" sh -c "! t_tmux has-session -t dev-$PROJ-1 2>/dev/null"
check "phase file removed" test ! -e "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
check "summary removed" test ! -e "$RUN/sessions/active/dev-$PROJ-1/dev-impl-summary-$PROJ-1.txt"
check "ci-result removed" test ! -e "$RUN/ci-result-$PROJ-1.txt"
check "worktree removed" test ! -e "$RUN/$PROJ-worktree-1"
check_eq "in-progress removed" "$(labels 1)" ""
tick_twice "done cleaned up"

# --- failed: refusals.
agent 4
mkdir -p "$RUN/sessions/active/dev-$PROJ-4"
printf '{"status": "too_large", "reason": "needs three subsystems"}' >"$RUN/sessions/active/dev-$PROJ-4/dev-impl-summary-$PROJ-4.txt"
phase 4 'PHASE:failed\nReason: refused\n'
dp
check_eq "too_large: one comment, in post_refusal_comment's words" \
    "$(comments_with 4 '📏 **Dev-agent: Too large for single session**')" 1
check_eq "too_large: the headings" \
    "$(comments_with 4 '### Why this can')" 1
check "too_large: the reason is quoted" test "$(comments_with 4 'needs three subsystems')" = 1
check_eq "too_large: underspecified, not backlog, not in-progress" "$(labels 4)" underspecified
check "too_large: session killed" sh -c "! t_tmux has-session -t dev-$PROJ-4 2>/dev/null"
check "too_large: phase file removed" test ! -e "$RUN/sessions/active/dev-$PROJ-4/dev-session-$PROJ-4.phase"
tick_twice "refusal handled"

agent 5
mkdir -p "$RUN/sessions/active/dev-$PROJ-5"
printf '{"status": "unmet_dependency", "blocked_by": "the lexer of #4", "suggestion": 4}' >"$RUN/sessions/active/dev-$PROJ-5/dev-impl-summary-$PROJ-5.txt"
phase 5 'PHASE:failed\nReason: refused\n'
dp
check_eq "unmet_dependency: backlog restored" "$(labels 5)" backlog
check_eq "unmet_dependency: the suggestion" "$(comments_with 5 '**Suggestion:** Work on #4 first.')" 1
check_eq "never blocked" "$(sim_state_get "len([i for i in d['issues'] if i['number'] in (4, 5) and 'blocked' in str(i['labels'])])")" 0

mkdir -p "$RUN/sessions/active/dev-$PROJ-6"
printf '{"status": "already_done", "reason": "see src/x.c"}' >"$RUN/sessions/active/dev-$PROJ-6/dev-impl-summary-$PROJ-6.txt"
phase 6 'PHASE:failed\nReason: refused\n'
dp
check_eq "already_done: issue closed" "$(sim_state_get "[i['state'] for i in d['issues'] if i['number'] == 6][0]")" closed

# failed for real (and a malformed refusal counts as that): diagnostic,
# blocked, a record for the supervisor.  The pane shows a token: the
# diagnostic points to the log, which has the pane with it masked.
SECRET=ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12
printf '[{"on": "start", "say": "export FORGE_TOKEN=%s"}]' "$SECRET" \
    >"$T/say-token.json"
agent 7 "$T/say-token.json"
wait_for "t_tmux capture-pane -p -t dev-$PROJ-7 | grep -q FORGE_TOKEN" 10
t_tmux send-keys -t "dev-$PROJ-7" "" >/dev/null 2>&1
mkdir -p "$RUN/sessions/active/dev-$PROJ-7"
printf '{"status": 42' >"$RUN/sessions/active/dev-$PROJ-7/dev-impl-summary-$PROJ-7.txt"
phase 7 'PHASE:failed\nReason: refused\n'
dp
check_eq "failed: one diagnostic comment" "$(comments_with 7 'Session failure diagnostic')" 1
check_eq "failed: the pane is not quoted" "$(comments_with 7 'fake-agent')" 0
check_eq "failed: the comment points to the log" \
    "$(comments_with 7 "dev/dev-agent-$PROJ.log")" 1
check "failed: the pane's lines are logged, the token masked" \
    grep -q "dev-$PROJ-7 pane [0-9]*: export FORGE_TOKEN=\\[REDACTED\\]" \
    "$T/tick.log"
check_eq "failed: the token is in no log line" "$(grep -c "$SECRET" "$DEVLOG")" 0
check_eq "failed: the token itself is not posted" \
    "$(sim_state_get "len([c for i in d['issues'] for c in i.get('comments', []) if '$SECRET' in c['body']])")" 0
check_eq "failed: blocked, not in progress" "$(labels 7)" blocked
check_eq "failed: one escalation record" \
    "$(pyjson '[d["issue"], d["reason"]]' <"$FACTORY_ROOT/supervisor/escalations-$PROJ.jsonl")" \
    '[7, "refused"]'
tick_twice "failure handled"
check_eq "still one diagnostic" "$(comments_with 7 'Session failure diagnostic')" 1

# --- idle at the prompt without a phase: a turn that ended just now is
# left alone; one that ended longer ago than AGENT_IDLE_SECONDS is ended
# by the first tick that looks.
agent 8
phase 8 ''
mkdir -p "$RUN/sessions/active/dev-$PROJ-8"
date +%s >"$RUN/sessions/active/dev-$PROJ-8/claude-idle-dev-$PROJ-8.ts"
dp
lhas "idle just now: the tick waits" '#8: at the prompt with no phase for [0-9]+s — idle after 90s'
check "idle just now: still alive" t_tmux has-session -t "dev-$PROJ-8"
mkdir -p "$RUN/sessions/active/dev-$PROJ-8"
echo $(($(date +%s) - 91)) >"$RUN/sessions/active/dev-$PROJ-8/claude-idle-dev-$PROJ-8.ts"
dp
lhas "idle past the grace: ended" '#8: idle at the prompt with no phase for 9[0-9]s \(90s allowed\)'
check "idle past the grace: killed" sh -c "! t_tmux has-session -t dev-$PROJ-8 2>/dev/null"
check_eq "idle: diagnostic with idle_prompt" "$(comments_with 8 'idle_prompt')" 1
check_eq "idle: blocked" "$(labels 8)" blocked
