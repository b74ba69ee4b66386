# WOODPECKER_REPO_ID unset (issue 11, item 5) means what bash's
# ${WOODPECKER_REPO_ID:-2} meant: CI is required, and read from the
# forge's commit status (Woodpecker is not asked).  An approved PR waits
# for a green status and "CI passed" waits for it too; only an explicit 0
# means no CI.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
unset WOODPECKER_REPO_ID
S3=3333333333333333333333333333333333333333
S4=4444444444444444444444444444444444444444
scen '[{"number": 1, "title": "One", "labels": ["in-progress"]},
       {"number": 2, "title": "Two", "labels": ["in-progress"]}]' \
    "[{\"number\": 3, \"title\": \"fix: One (#1)\", \"files\": [\"a.c\"],
       \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"$S3\"},
       \"reviews\": [{\"user\": \"review-bot\", \"state\": \"APPROVED\", \"commit_id\": \"$S3\"}]},
      {\"number\": 4, \"title\": \"fix: Two (#2)\", \"files\": [\"b.c\"],
       \"head\": {\"ref\": \"fix/issue-2\", \"sha\": \"$S4\"}}]" \
    "\"statuses\": {\"$S3\": {\"state\": \"pending\"}, \"$S4\": {\"state\": \"pending\"}}" \
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

# The defect on the code before: unset meant "no CI", so the approved PR
# was merged and "CI passed" injected while CI still ran.
dp
rc_is "CI pending" 0
check_eq "CI pending: the approved PR is not merged" "$(merged3)" false
check_eq "CI pending: no merge asked" "$(requests '/merge$')" 0
sleep 0.5
check_eq "CI pending: no CI passed injected" "$(prompts "$T/al-2")" 0
check_eq "Woodpecker not asked" "$(requests '/api/repos/')" 0

sim_post /_admin/status "{\"sha\": \"$S4\", \"state\": \"success\"}" >/dev/null
sim_post /_admin/status "{\"sha\": \"$S3\", \"state\": \"success\"}" >/dev/null
dp
rc_is "CI green" 0
check_eq "CI green: merged" "$(merged3)" true
dp
wait_for '[ -f "$T/al-2/prompt-1.txt" ]' 10
check "CI green: CI passed injected" grep -q 'CI passed on PR #4' "$T/al-2/prompt-1.txt"
check "CI green: not as no CI" sh -c "! grep -q 'no CI is configured' '$T/al-2/prompt-1.txt'"

# An explicit 0: no CI; an approved PR without any status is merged.
t_tmux kill-server 2>/dev/null
case_start "$T/case.json" '[ci]' 'woodpecker_repo_id = 0'
dp
rc_is "explicit 0" 0
check_eq "explicit 0: merged without CI" "$(merged3)" true
