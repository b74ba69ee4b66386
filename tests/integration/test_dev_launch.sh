# dev-poll's launch of a session for a ready backlog issue, against the
# simulator, a bare origin and the fake agent in real tmux: the claim
# (labels flip), the worktree, the hooks merged into the repository's own
# .claude/settings.json, the session, and the exact prompt received
# (human comments only, the phase protocol with the real paths, the
# refusal options, the other backlog issues, prior art from a closed PR).
# Then recovery mode: the issue's PR gets review changes, the session is
# gone, and a new session continues the PR in the same worktree.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
# The repository has its own agent settings, which must survive.
(cd "$T/repo" && mkdir .claude &&
 printf '{"model": "x", "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "echo mine"}]}]}}\n' \
     >.claude/settings.json &&
 git add .claude && git commit -qm settings && git push -q origin master)

dev_sim - <<'JSON'
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true},
           {"login": "alice", "token": "alice-token"}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"}],
 "issues": [
  {"number": 1, "title": "Add a parser", "labels": ["backlog"],
   "body": "Parse the input.\n\nIt must not run `$(rm -rf /)` or 'quotes'.",
   "comments": [
     {"user": "alice", "body": "Use a table-driven parser.",
      "created_at": "2024-02-03T10:00:00Z"},
     {"user": "dev-bot", "body": "BOT NOTE 1", "created_at": "2024-02-03T11:00:00Z"},
     {"user": "review-bot", "body": "BOT NOTE 2", "created_at": "2024-02-03T12:00:00Z"}]},
  {"number": 2, "title": "Second thing", "labels": ["backlog"]}],
 "pulls": [
  {"number": 9, "title": "fix: Add a parser (#1)", "body": "Fixes #1",
   "state": "closed", "merged": false, "head": {"ref": "fix/issue-1-old"},
   "diff": "diff --git a/p.c b/p.c\n+int parse(void);\n"},
  {"number": 8, "title": "fix: Add a parser (#1) again", "state": "closed",
   "merged": true, "head": {"ref": "merged-one"}, "diff": "MERGED DIFF\n"}]}
JSON

# A dry run reads everything a launch needs and changes nothing.
dp --dry-run
rc_is "dry run" 0
lhas "dry run: the claim is logged" "dry-run: would add label 'in-progress' to #1"
lhas "dry run: the missing priority label is logged" "dry-run: would create label 'priority'"
lhas "dry run: the worktree is logged" "dry-run: would run 'git -C $T/repo worktree add -B fix/issue-1 $RUN/$PROJ-worktree-1 origin/master'"
lhas "dry run: the session is logged" "dry-run: would start session dev-$PROJ-1 in '$RUN/$PROJ-worktree-1'"
lhas "dry run: the prompt is logged" "dry-run: would inject [0-9]+ bytes into dev-$PROJ-1"
check_eq "dry run: no forge write" "$(writes)" 0
check "dry run: no session" sh -c "! tmux -L $(tmux_sock) has-session -t dev-$PROJ-1 2>/dev/null"
check "dry run: no worktree" test ! -e "$RUN/$PROJ-worktree-1"
check "dry run: no status file" test ! -e "$RUN/dev-agent-status-$PROJ"
check_eq "dry run: repo_root untouched" "$(git -C "$T/repo" worktree list | wc -l)" 1
sim_post /_admin/log/reset '{}' >/dev/null

dp
rc_is "launch" 0
lhas "launch logged" "initial prompt sent to session dev-$PROJ-1"
check "session dev-$PROJ-1 lives" t_tmux has-session -t "dev-$PROJ-1"
check_eq "issue 1 claimed: in-progress, off the backlog" "$(labels 1)" in-progress
# The backlog scan made the priority label dev-poll.sh made (its color),
# from the label list the claim then used: one read for both.
check_eq "priority label created, then the claim by label ID" \
    "$(sim_get /_admin/log | pyjson '[(e["method"], e["path"].split("/repos/johba/harb")[1], e["body"]) for e in d if e["method"] != "GET"]')" \
    '[["POST", "/labels", {"name": "priority", "color": "#f59e0b"}], ["POST", "/issues/1/labels", {"labels": [2]}], ["DELETE", "/issues/1/labels/1", null]]'
check_eq "label IDs read once, across the writes" "$(requests '/labels[?]')" 1
check_eq "the label's note for later scans" \
    "$(cat "$RUN/dev-poll-priority-label-$PROJ")" 3
WT=$RUN/$PROJ-worktree-1
check_eq "worktree on fix/issue-1" \
    "$(git -C "$WT" rev-parse --abbrev-ref HEAD 2>&1)" fix/issue-1
check_eq "worktree from the primary branch" \
    "$(git -C "$WT" rev-parse HEAD 2>&1)" "$(git --git-dir="$T/origin.git" rev-parse master)"

wait_for '[ -f "$T/agentlog/prompt-1.txt" ]' 10
sed -e "s|@RUN@|$RUN|g" "$TOP/tests/fixtures/dev-prompt-initial.txt" \
    >"$T/want-prompt.txt"
if cmp -s "$T/want-prompt.txt" "$T/agentlog/prompt-1.txt"; then
	ok "the agent received the exact prompt"
else
	fail "the agent received the exact prompt" \
	    "$(diff "$T/want-prompt.txt" "$T/agentlog/prompt-1.txt" | head -20 | tr '\n' '|')"
fi
check "no bot comment in the prompt" sh -c "! grep -q 'BOT NOTE' '$T/agentlog/prompt-1.txt'"
check "no merged PR as prior art" sh -c "! grep -q 'MERGED DIFF' '$T/agentlog/prompt-1.txt'"

# The hooks: merged into the repository's settings, each working.
S=$WT/.claude/settings.json
# The repository's own settings file holds the factory's hooks now: the
# worktree's index ignores that copy, so the agent never commits it.
git -C "$WT" add -A
check_eq "git add -A leaves the merged settings out" \
    "$(git -C "$WT" status --porcelain -- .claude)" ""
check_eq "the repository's settings marked skip-worktree there" \
    "$(git -C "$WT" ls-files -v -- .claude/settings.json)" \
    "S .claude/settings.json"
check_eq "the repository's own settings kept" \
    "$(pyjson '[d["model"], d["hooks"]["Stop"][0]["hooks"][0]["command"]]' <"$S")" \
    '["x", "echo mine"]'
hookcmd() {
	pyjson "[h['command'] for e in d['hooks']['$1'] for h in e['hooks']][-1]" <"$S"
}
check_eq "PostToolUse matches Bash and Write" \
    "$(pyjson "d['hooks']['PostToolUse'][0]['matcher']" <"$S")" 'Bash|Write'
sh -c "$(hookcmd Stop)" </dev/null
check "Stop hook writes the idle marker" test -s "$RUN/sessions/active/dev-$PROJ-1/claude-idle-dev-$PROJ-1.ts"
sh -c "$(hookcmd SessionEnd)" </dev/null
check "SessionEnd hook writes the exited marker" test -s "$RUN/sessions/active/dev-$PROJ-1/claude-exited-dev-$PROJ-1.ts"
echo '{"tool_name": "Bash", "tool_input": {"command": "ls"}}' | sh -c "$(hookcmd PostToolUse)"
check "PostToolUse ignores other tools' input" test ! -e "$RUN/sessions/active/dev-$PROJ-1/phase-changed-dev-$PROJ-1.marker"
printf '{"tool_name": "Bash", "tool_input": {"command": "echo PHASE:awaiting_ci > %s"}}\n' \
    "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase" | sh -c "$(hookcmd PostToolUse)"
check "PostToolUse marks a phase write" test -s "$RUN/sessions/active/dev-$PROJ-1/phase-changed-dev-$PROJ-1.marker"
check_eq "status line for operators" \
    "$(sed 's/^\[[^]]*\] //' "$RUN/dev-agent-status-$PROJ")" \
    "dev-poll: #1: session running (backlog)"

tick_twice "session running"
lhas "second tick: the slot is busy" "agent running \(session dev-$PROJ-1\)"
check "no second session" test ! -e "$T/agentlog/prompt-2.txt"

# Recovery mode: the session died, its work is on a PR with changes
# requested; the issue is in progress.
t_tmux kill-session -t "dev-$PROJ-1"
(cd "$WT" && echo "int parse(void) { return 0; }" >p.c && git add p.c &&
 git commit -qm "parser" && git push -q origin fix/issue-1)
SIM_TOKEN=dev-token sim_post /api/v1/repos/johba/harb/pulls \
    '{"title": "fix: Add a parser (#1)", "body": "Fixes #1", "head": "fix/issue-1", "base": "master"}' >/dev/null
PR=$(sim_state_get '[p["number"] for p in d["pulls"] if p["state"] == "open"][0]')
SIM_TOKEN=review-token sim_post "/api/v1/repos/johba/harb/pulls/$PR/reviews" \
    '{"event": "REQUEST_CHANGES", "body": "Handle empty input."}' >/dev/null
SIM_TOKEN=review-token sim_post "/api/v1/repos/johba/harb/issues/$PR/comments" \
    '{"body": "Please handle empty input."}' >/dev/null
printf 'SHA: x\nSTATE: failure\n' >"$RUN/ci-result-$PROJ-1.txt"
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo "PHASE:escalate" >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
# The agent left an uncommitted file behind: the worktree is kept.
echo scratch >"$WT/scratch.txt"
mkdir -p "$T/agentlog2"
export AGENT_CMD="env FAKE_AGENT_LOG=$T/agentlog2 $FAKE_AGENT"
# The escalated phase would hold the slot; a finished one does not.
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo "PHASE:done" >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
sim_post /_admin/log/reset '{}' >/dev/null
dp
rc_is "recovery launch" 0
lhas "recovery: the PR is adopted" "RECOVERY MODE: adopting PR #$PR on branch fix/issue-1"
lhas "recovery: the worktree is reused" 'reusing existing worktree'
check "recovery: uncommitted work kept" test -f "$WT/scratch.txt"
wait_for '[ -f "$T/agentlog2/prompt-1.txt" ]' 10
P2=$T/agentlog2/prompt-1.txt
check "recovery prompt: do not open another PR" grep -q "PR #$PR already exists. Do not open another one" "$P2"
check "recovery prompt: the review comment" grep -q "\[review-bot\] Please handle empty input." "$P2"
check "recovery prompt: the diff so far" grep -q "p.c | 1 +" "$P2"
check "recovery prompt: the last phase" grep -q "Last phase it reported: PHASE:done" "$P2"
check "recovery prompt: the last CI result" grep -q "STATE: failure" "$P2"
check "recovery prompt: the real phase file" grep -q "Phase file: \`$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase\`" "$P2"
check_eq "recovery: no label change (already claimed)" "$(writes)" 0
check_eq "hooks not added twice" \
    "$(pyjson '[len(x) for x in [d["hooks"]["Stop"], d["hooks"]["SessionEnd"], d["hooks"]["PostToolUse"]]]' <"$S")" \
    '[2, 1, 1]'
check_eq "recovery: the old phase is gone (the new session starts empty)" \
    "$(wc -c <"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase")" 0
tick_twice "recovery session running"
