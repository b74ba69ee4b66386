# One rule for "CI passed" (common/world/pulls.h, pulls_ci_says): a PR
# that changes only non-code files does not need CI.  The scheduler
# merges such a PR once approved whatever CI says; the awaiting_ci
# reaction tells its agent the same ("CI passed ... CI is not needed"),
# never "CI failed" for a PR the scheduler would merge.  A PR that changes
# code is still told its CI failed.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
unset WOODPECKER_REPO_ID
S3=3333333333333333333333333333333333333333
S4=4444444444444444444444444444444444444444
scen '[{"number": 1, "title": "One", "labels": ["in-progress"]},
       {"number": 2, "title": "Two", "labels": ["in-progress"]}]' \
    "[{\"number\": 3, \"title\": \"fix: One (#1)\", \"files\": [\"docs/guide.md\"],
       \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"$S3\"},
       \"reviews\": [{\"user\": \"review-bot\", \"state\": \"APPROVED\", \"commit_id\": \"$S3\"}]},
      {\"number\": 4, \"title\": \"fix: Two (#2)\", \"files\": [\"README.md\"],
       \"head\": {\"ref\": \"fix/issue-2\", \"sha\": \"$S4\"}}]" \
    "\"statuses\": {\"$S3\": {\"state\": \"failure\"}, \"$S4\": {\"state\": \"failure\"}}" \
    >"$T/case.json"
case_start
mkdir -p "$T/al-2"
t_tmux new-session -d -s "dev-$PROJ-2" -x 200 -y 50 \
    "env FAKE_AGENT_LOG=$T/al-2 $FAKE_AGENT"
wait_for "t_tmux capture-pane -p -t dev-$PROJ-2 | grep -q '❯'" 10
mkdir -p "$RUN/sessions/active/dev-$PROJ-2"
echo PHASE:awaiting_ci >"$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase"
merged3() {
	sim_state_get '[p["merged"] for p in d["pulls"] if p["number"] == 3][0]'
}

dp
rc_is "docs-only, CI failed" 0
check_eq "the approved docs-only PR is merged" "$(merged3)" true
dp
wait_for '[ -f "$T/al-2/prompt-1.txt" ]' 10
check "its agent is told CI passed" grep -q 'CI passed on PR #4' "$T/al-2/prompt-1.txt"
check "and why" grep -q 'only non-code files changed' "$T/al-2/prompt-1.txt"
check "not that CI failed" sh -c "! grep -qi 'CI failed' '$T/al-2/prompt-1.txt'"

# The same with code changed: the failure is told, nothing is merged.
t_tmux kill-server 2>/dev/null
sed 's/docs\/guide.md/a.c/; s/README.md/b.c/' "$T/case.json" >"$T/case-code.json"
rm -rf "$T/al-2"
mkdir -p "$T/al-2"
case_start "$T/case-code.json"
t_tmux new-session -d -s "dev-$PROJ-2" -x 200 -y 50 \
    "env FAKE_AGENT_LOG=$T/al-2 $FAKE_AGENT"
wait_for "t_tmux capture-pane -p -t dev-$PROJ-2 | grep -q '❯'" 10
mkdir -p "$RUN/sessions/active/dev-$PROJ-2"
echo PHASE:awaiting_ci >"$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase"
dp
rc_is "code, CI failed" 0
check_eq "the approved code PR is not merged" "$(merged3)" false
dp
wait_for '[ -f "$T/al-2/prompt-1.txt" ]' 10
check "its agent is told CI failed" grep -qi 'CI failed' "$T/al-2/prompt-1.txt"
check "not that CI passed" sh -c "! grep -q 'CI passed' '$T/al-2/prompt-1.txt'"
