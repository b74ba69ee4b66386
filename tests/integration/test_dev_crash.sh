# dev-poll's crash recovery and bad input in the phase loop: a session
# that disappears is started again in its worktree with the recovery
# prompt, twice, then given up as failed; a session stuck past
# CLAUDE_TIMEOUT is recovered too; no CI configured; two ticks racing;
# junk, CRLF and symlinked phase files; forge faults leave everything for
# the next tick.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
dev_sim - <<'JSON'
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "blocked"}],
 "issues": [
  {"number": 1, "title": "Crashy", "labels": ["backlog"], "body": "Do it."},
  {"number": 2, "title": "Other", "labels": []},
  {"number": 3, "title": "Third", "labels": []}]}
JSON
export WOODPECKER_REPO_ID=0
S=dev-$PROJ-1

dp
rc_is "launch" 0
wait_for '[ -f "$T/agentlog/prompt-1.txt" ]' 10
check "session started" t_tmux has-session -t "$S"
check_eq "the launch leaves an empty phase file" \
    "$(wc -c <"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase")" 0
WT=$RUN/$PROJ-worktree-1
(cd "$WT" && echo work >w.txt && git add w.txt && git commit -qm "unpushed work")
WORK=$(git -C "$WT" rev-parse HEAD)

# The session dies before any phase: recovered in the same worktree.
t_tmux kill-session -t "$S"
dp
rc_is "recovery tick" 0
lhas "crash logged" "#1: the session is gone"
# A new fake agent numbers its prompts from 1 again.
wait_for 'grep -q "before it reported any" "$T/agentlog/prompt-1.txt"' 10
check "a new session" t_tmux has-session -t "$S"
check "the crash prompt" grep -q "stopped before it reported any" "$T/agentlog/prompt-1.txt"
check "the diff so far in the prompt" grep -q "w.txt" "$T/agentlog/prompt-1.txt"
check_eq "the worktree and its unpushed commit are kept" \
    "$(git -C "$WT" rev-parse HEAD)" "$WORK"
check_eq "one recovery counted" "$(cat "$RUN/dev-recoveries-$PROJ-1")" 1
dp
lnot "a live session is not recovered again" "recovery 2/2"

# Stuck in PHASE:awaiting_ci past CLAUDE_TIMEOUT: killed and recovered.
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo "PHASE:awaiting_ci" >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
touch -d '-10 minutes' "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
CLAUDE_TIMEOUT=60 dp
lhas "timeout logged" "#1: the phase did not change within CLAUDE_TIMEOUT"
check_eq "second recovery counted" "$(cat "$RUN/dev-recoveries-$PROJ-1")" 2

# A third crash: given up as failed, "crashed".
t_tmux kill-session -t "$S"
dp
check_eq "crashed: one diagnostic" "$(comments_with 1 'crashed')" 1
check "crashed: no new session" sh -c "! t_tmux has-session -t $S 2>/dev/null"
check "crashed: phase file removed" test ! -e "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
check_eq "crashed: blocked" \
    "$(sim_state_get "'blocked' in str([i['labels'] for i in d['issues'] if i['number'] == 1])")" true
tick_twice "given up"

# No CI configured: "CI passed" straight away; two ticks racing inject
# once and open one PR.
git_branch fix/issue-2 two.c >/dev/null
mkdir -p "$T/al2"
t_tmux new-session -d -s "dev-$PROJ-2" -x 200 -y 50 \
    "env FAKE_AGENT_LOG=$T/al2 $FAKE_AGENT"
wait_for "t_tmux capture-pane -p -t dev-$PROJ-2 | grep -q '❯'" 10
mkdir -p "$RUN/sessions/active/dev-$PROJ-2"
echo "PHASE:awaiting_ci" >"$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase"
"$O/dev-poll/dev-poll" "$P" & R1=$!
"$O/dev-poll/dev-poll" "$P" & R2=$!
wait $R1 $R2
dp
wait_for '[ -f "$T/al2/prompt-1.txt" ]' 10
sleep 0.5
check "no CI: CI passed injected" grep -q "no CI is configured" "$T/al2/prompt-1.txt"
check_eq "racing ticks: one injection" "$(ls "$T/al2" | grep -c '^prompt-')" 1
check_eq "racing ticks: one PR" "$(sim_log_count POST '/pulls$' 201)" 1

# Junk and CRLF phase files; a symlinked one is never written through.
# An unknown phase of a live session is no phase yet: logged once, left
# alone while the session works.
t_tmux new-session -d -s "dev-$PROJ-3" sleep 60
mkdir -p "$RUN/sessions/active/dev-$PROJ-3"
echo "PHASE:bogus" >"$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
dp
lhas "an unknown phase is logged" "#3: unknown phase 'PHASE:bogus'"
check "and left alone" grep -q bogus "$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
dp
lnot "an unknown phase is logged once" "unknown phase"
mkdir -p "$RUN/sessions/active/dev-$PROJ-3"
printf 'PHASE:failed  \r\nReason: broken build\r\n' >"$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
echo "keep me" >"$T/target"
ln -sf "$T/target" "$RUN/sessions/active/dev-$PROJ-3/dev-impl-summary-$PROJ-3.txt"
dp
check_eq "CRLF phase read: the failure handled" "$(comments_with 3 'broken build')" 1
check_eq "a symlinked run file's target is untouched" "$(cat "$T/target")" "keep me"

# Forge faults while reading CI leave everything for the next tick.
git_branch fix/issue-3 three.c >/dev/null
mkdir -p "$T/al3"
t_tmux kill-session -t "dev-$PROJ-2" 2>/dev/null
rm -f "$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase"
t_tmux new-session -d -s "dev-$PROJ-3" -x 200 -y 50 \
    "env FAKE_AGENT_LOG=$T/al3 $FAKE_AGENT"
wait_for "t_tmux capture-pane -p -t dev-$PROJ-3 | grep -q '❯'" 10
rm -f "$RUN/sessions/active/dev-$PROJ-3/dev-impl-summary-$PROJ-3.txt"
mkdir -p "$RUN/sessions/active/dev-$PROJ-3"
echo "PHASE:awaiting_ci" >"$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
sim_post /_admin/item '{"number": 3, "labels": ["in-progress"]}' >/dev/null
for mode in 500 badjson delay; do
	sim_post /_admin/fault "{\"method\": \"GET\", \"path\": \"/pulls\\\\?\", \"mode\": \"$mode\", \"count\": 0, \"delay\": 3}" >/dev/null
	dp
	check "$mode on the PR list: phase unchanged" grep -q awaiting_ci "$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
	check "$mode on the PR list: no ci-result" test ! -e "$RUN/ci-result-$PROJ-3.txt"
	check_eq "$mode on the PR list: nothing injected" "$(ls "$T/al3" | grep -c '^prompt-')" 0
	sim_post /_admin/faults/clear '{}' >/dev/null
done
check_eq "no PR opened on missing data" "$(sim_log_count POST '/pulls$' 201)" 1
dp
wait_for '[ -f "$T/al3/prompt-1.txt" ]' 10
if grep -q "CI passed" "$T/al3/prompt-1.txt"; then
	ok "after the faults the next tick reacts"
else
	fail "after the faults the next tick reacts" \
	    "prompt: $(head -c 300 "$T/al3/prompt-1.txt" | tr '\n' '|'); log: $(tail -5 "$T/tick.log" | tr '\n' '|')"
fi
