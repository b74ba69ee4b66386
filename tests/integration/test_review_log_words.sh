# review.log in review-poll.sh's words, run the way cron runs it (env -i,
# the settings in the factory's .env, the project file on the command
# line): each tick opens with "--- Poll start ---" and ends with
# "--- Poll done: N reviewed, M skipped ---", as upstream's readers of
# the log (the supervisor's preflight, the operator's tail) know it; N
# counts the reviews started, M the PRs passed over (CI not passed, or
# already reviewed at their head); between them "Found N open PRs".
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
rv_setup
LOG=$FACTORY_ROOT/review/review.log

S1=$(rv_branch fix/issue-1 one.c "one")
S2=$(rv_branch fix/issue-2 two.c "two")
cat >"$T/pulls.json" <<'JSON'
[
 {"number": 11, "title": "fix: one (#1)", "head": {"ref": "fix/issue-1"},
  "files": ["one.c"],
  "body": "OUTPUT<<{\"verdict\": \"APPROVE\", \"verdict_reason\": \"fine\", \"review_markdown\": \"ok\"}>>OUTPUT"},
 {"number": 12, "title": "fix: two (#2)", "head": {"ref": "fix/issue-2"},
  "files": ["two.c"], "body": "OUTPUT<<{\"verdict\": \"APPROVE\"}>>OUTPUT"}
]
JSON
cat >"$T/statuses.json" <<JSON
{"$S1": {"state": "success"}, "$S2": {"state": "pending"}}
JSON
rv_scenario "$T/scenario.json"
sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
    { fail "simulator starts"; exit 1; }

mkdir -p "$FACTORY_ROOT/projects"
cat >"$FACTORY_ROOT/projects/$P.toml" <<TOML
name = "$P"
repo = "johba/harb"
forge_url = "$SIM_URL"
repo_root = "$T/repo"
primary_branch = "master"
TOML
cat >"$FACTORY_ROOT/.env" <<ENV
FORGE_TOKEN=dev-token
FORGE_REVIEW_TOKEN=review-token
WOODPECKER_TOKEN=wp-token
WOODPECKER_REPO_ID=1
WOODPECKER_SERVER=$WOODPECKER_SERVER
AGENT_CMD="$AGENT_CMD"
DISINTO_TMUX_SOCKET=$DISINTO_TMUX_SOCKET
DISINTO_MEMINFO=$DISINTO_MEMINFO
DISINTO_FORMULAS_DIR=$DISINTO_FORMULAS_DIR
CLAUDE_SESSION_LOCK=$CLAUDE_SESSION_LOCK
AGENT_SANDBOX_RW=$T
DISINTO_WAKE=false
ENV

# cron_tick: one tick with cron's environment; its exit status in $RC.
cron_tick() {
	env -i PATH=/usr/bin:/bin HOME="$T" FACTORY_ROOT="$FACTORY_ROOT" \
	    DISINTO_RUN_DIR="$DISINTO_RUN_DIR" \
	    "$RP" "$FACTORY_ROOT/projects/$P.toml" >>"$T/cron.out" 2>&1
	RC=$?
}

# done_line N: the log's Nth "--- Poll done" line, without its time
# stamp.  (A tick the agent's hooks wake runs a second pass, with its own
# pair of lines.)
done_line() {
	grep -e '--- Poll done' "$LOG" | sed -n "$1s/^\[[^]]*\] //p"
}

cron_tick
check_eq "the tick exits 0" "$RC" 0
check_eq "the tick's first line is review-poll.sh's" \
    "$(sed -n '1s/^\[[^]]*\] //p' "$LOG")" "--- Poll start ---"
check_eq "its pass ends counting one review started, one PR skipped" \
    "$(done_line 1)" "--- Poll done: 1 reviewed, 1 skipped ---"
check "the lines carry upstream's time stamp" grep -qE \
    '^\[[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC\] --- Poll start ---$' \
    "$LOG"
check_eq "the old wording is gone" "$(grep -c -e '--- poll ' "$LOG")" 0
rv_wait_done 11

# The second tick posts PR 11's review; then a tick with nothing to start
# skips both (12: CI pending, 11: reviewed at its head).
cron_tick
cron_tick
N=$(grep -c -e '--- Poll done' "$LOG")
check_eq "a tick with nothing to start: 0 reviewed, 2 skipped" \
    "$(done_line "$N")" "--- Poll done: 0 reviewed, 2 skipped ---"
check_eq "every pass has its start and its done line" \
    "$(grep -c -e '--- Poll start ---$' "$LOG")" "$N"
check "PRs are counted as review-poll.sh did" grep -q 'Found 2 open PRs$' "$LOG"
check_eq "the review was posted once" \
    "$(sim_log_count POST '/pulls/11/reviews$' 200)" 1
