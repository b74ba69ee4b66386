# The approval path across the two pollers, both reading one project
# file: review-poll reviews the PR of a dev session waiting in
# awaiting_review, posts the approval and tells the session to stop and
# wait; dev-poll's pre-lock merge then merges the PR at the approved SHA
# and closes the issue.  Nothing is injected twice, nothing merged twice.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
rv_setup
TT="$O/tests/tools/tmux-tool -L $(tmux_sock) -T $T"
DP=$O/dev-poll/dev-poll
mkdir -p "$FACTORY_ROOT/dev"
: >"$FACTORY_ROOT/state/.dev-active"
export FORGE_BOT_USERNAMES=review-bot
unset FORGE_REPO PROJECT_NAME PROJECT_REPO_ROOT PRIMARY_BRANCH

S1=$(rv_branch fix/issue-1 parser.c "int parse(void);")
cat >"$T/pulls.json" <<'JSON'
[{"number": 3, "title": "fix: Add a parser (#1)", "head": {"ref": "fix/issue-1"},
  "files": ["parser.c"],
  "body": "Fixes #1\n\nOUTPUT<<{\"verdict\": \"APPROVE\", \"verdict_reason\": \"clean\", \"review_markdown\": \"### Summary\\nGood.\"}>>OUTPUT"}]
JSON
echo "{\"$S1\": {\"state\": \"success\"}}" >"$T/statuses.json"
rv_scenario "$T/scenario.json"
sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
    { fail "simulator starts"; exit 1; }
sim_post /_admin/item '{"number": 1, "title": "Add a parser", "labels": ["in-progress"]}' >/dev/null
cat >"$T/$P.toml" <<TOML
name = "$P"
repo = "johba/harb"
forge_url = "$SIM_URL"
repo_root = "$T/repo"
primary_branch = "master"

[ci]
woodpecker_repo_id = 1
TOML

# The dev session of issue 1 waits for its review.
mkdir -p "$T/dev1" "$T/wt1"
$TT -e FAKE_AGENT_LOG="$T/dev1" new "dev-$P-1" "$T/wt1" "$FAKE_AGENT" >/dev/null
$TT wait-ready "dev-$P-1" "❯" 10 >/dev/null
mkdir -p "$DISINTO_RUN_DIR/sessions/active/dev-$P-1"
echo PHASE:awaiting_review >"$DISINTO_RUN_DIR/sessions/active/dev-$P-1/dev-session-$P-1.phase"

rv_tick "$T/$P.toml"
check_eq "review-poll with a project file: review started" "$RV_RC" 0
rv_wait_done 3
rv_tick "$T/$P.toml"
check_eq "review posted" "$(rv_reviews 3)" "review-bot APPROVED $S1 False"
wait_for '[ -f "$T/dev1/prompt-1.txt" ]' 10
check_has "the dev session was told to stop and wait" \
    "$(cat "$T/dev1/prompt-1.txt" 2>/dev/null)" "stop here and wait"

"$DP" "$T/$P.toml" >"$T/dp.out" 2>&1
check_eq "dev-poll tick exits 0" "$?" 0
check_eq "dev-poll merged the approved PR" \
    "$(sim_state_get '[p["merged"] for p in d["pulls"] if p["number"] == 3][0]')" \
    true
check_eq "merged at the approved sha" \
    "$(sim_get /_admin/log | pyjson "[e['body'].get('head_commit_id') for e in d if e['method'] == 'POST' and e['path'].endswith('/pulls/3/merge')]")" \
    "[\"$S1\"]"
check_eq "the issue is closed" \
    "$(sim_state_get '[i["state"] for i in d["issues"] if i["number"] == 1][0]')" \
    closed

"$DP" "$T/$P.toml" >>"$T/dp.out" 2>&1
rv_tick "$T/$P.toml"
rv_tick "$T/$P.toml"
sleep 0.3
check_eq "quiet review ticks exit 0" "$RV_RC" 0
check_eq "one merge request in all" "$(sim_log_count POST '/pulls/3/merge$')" 1
check_eq "one injection in all" "$(ls "$T/dev1" | grep -c '^prompt-')" 1
check_eq "one review comment in all" "$(rv_comments 3 | pyjson 'len(d)')" 1
