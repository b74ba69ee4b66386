# supervisor-poll's dev health checks can fire: each is built on a signal
# that moves only when work moves, never on dev-poll's own log (written on
# every tick, so a check on its mtime or its "poll:" lines stays quiet
# however stuck the project is).
#   stall         backlog waiting, nothing in progress, and no dev-poll
#                 tick launched, merged or found an agent at work for 20
#                 min (dev-poll-ticks-P, written by the real dev-poll here)
#   productivity  dev-poll's last 6 ticks in a row found backlog issues
#                 and none it could start
#   status age    a live dev session with no phase and no sign of work
#                 (status line, phase file, hook markers) for 30 min, in
#                 every mode (it used to be checked in legacy mode only)
# Each fires once, and stays quiet when work moves.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
SCEN=$(mktemp)
cat >"$SCEN" <<'JSON'
{
  "repo": "johba/harb",
  "users": [{"login": "dev-bot", "token": "dev-token", "admin": true}],
  "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"}],
  "issues": [
    {"number": 1, "title": "blocked work", "labels": ["backlog"],
     "body": "## Dependencies\n- #2\n"},
    {"number": 2, "title": "the dependency"}
  ],
  "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": []}
}
JSON
sup_setup "$SCEN"
rm -f "$SCEN"
unset WOODPECKER_REPO_ID
: >"$FACTORY_ROOT/state/.dev-active"
DP=$O/dev-poll/dev-poll
DEVLOG=$FACTORY_ROOT/dev/dev-agent-harb.log
TICKS=$DISINTO_RUN_DIR/dev-poll-ticks-harb
dp() {
	"$DP" "$FACTORY_ROOT/projects/harb.toml" >>"$T/dp.out" 2>&1
}
field() {	# field KEY: a value of dev-poll's tick record
	sed -n "s/^$1: //p" "$TICKS"
}
backdate() {	# backdate KEY SECONDS: a record time moved into the past
	_v=$(( $(field "$1") - $2 ))
	sed -i "s/^$1: .*/$1: $_v/" "$TICKS"
}
quiet() {	# quiet TEXT: no alert with TEXT this tick
	[ "$(sup_log_count "$1")" = 0 ]
}

# --- stall --------------------------------------------------------------------
dp
check_eq "dev-poll records its tick: nothing ready" "$(field OUTCOME) $(field STREAK)" \
    "nothing-ready 1"
check "the tick is in dev-poll's log" grep -q "no ready issues" "$DEVLOG"
# Thirty minutes of such ticks: the record keeps when work last moved.
backdate WORKED 1800
backdate SINCE 1800
dp
check_eq "the next tick continues the streak" "$(field STREAK)" 2
check "dev-poll's log is fresh (the old signal)" \
    test -n "$(find "$DEVLOG" -mmin -1)"
sup_run
check_eq "stall: exit 0" "$SUP_RC" 0
check "stall: reported" sup_log_has \
    "P2: harb: Pipeline stalled: 1 backlog issue(s), no agent ran for 30min (last dev-poll tick 0min ago: nothing-ready)"

# An agent at work: dev-poll finds the slot busy; the stall is over.
sup_agent dev-harb-1
mkdir -p "$DISINTO_RUN_DIR/sessions/active/dev-harb-1"
: >"$DISINTO_RUN_DIR/sessions/active/dev-harb-1/dev-session-harb-1.phase"
dp
check_eq "a busy tick is recorded" "$(field OUTCOME)" busy
check_eq "and counts as work" "$(field WORKED)" "$(field TICK)"
: >"$SUP_LOG"
sup_run
check "busy: no stall alert" quiet "Pipeline stalled"
check "busy, fresh launch: no status alert" quiet "status unchanged"

# --- status age (no legacy lock: the check used to be skipped) ----------------
check "no legacy dev-agent lock" test ! -e "$DISINTO_RUN_DIR/dev-agent-harb.lock"
touch -d '45 minutes ago' "$DISINTO_RUN_DIR/sessions/active/dev-harb-1/dev-session-harb-1.phase"
touch -d '50 minutes ago' "$DISINTO_RUN_DIR/dev-agent-status-harb" 2>/dev/null ||
    rm -f "$DISINTO_RUN_DIR/dev-agent-status-harb"
: >"$SUP_LOG"
sup_run
check "no sign of work for 45 min: reported" sup_log_has \
    "P2: harb: Dev-agent: status unchanged for 45min (dev-harb-1, no phase written)"
# The agent finishes a turn (its Stop hook's marker): quiet again.
touch -d '5 minutes ago' "$DISINTO_RUN_DIR/sessions/active/dev-harb-1/claude-idle-dev-harb-1.ts"
: >"$SUP_LOG"
sup_run
check "a turn ended 5 min ago: quiet" quiet "status unchanged"
# Waiting phases have clocks of their own.
rm -f "$DISINTO_RUN_DIR/sessions/active/dev-harb-1/claude-idle-dev-harb-1.ts"
mkdir -p "$DISINTO_RUN_DIR/sessions/active/dev-harb-1"
printf 'PHASE:awaiting_ci\n' >"$DISINTO_RUN_DIR/sessions/active/dev-harb-1/dev-session-harb-1.phase"
touch -d '45 minutes ago' "$DISINTO_RUN_DIR/sessions/active/dev-harb-1/dev-session-harb-1.phase"
: >"$SUP_LOG"
sup_run
check "awaiting_ci: not the status check's" quiet "status unchanged"
t_tmux kill-session -t dev-harb-1
rm -f "$DISINTO_RUN_DIR/sessions/active/dev-harb-1/dev-session-harb-1.phase"

# --- productivity -------------------------------------------------------------
for i in 1 2 3 4 5; do
	dp
done
check_eq "five ticks with nothing ready" "$(field OUTCOME) $(field STREAK)" \
    "nothing-ready 5"
: >"$SUP_LOG"
sup_run
check "five: quiet" quiet "Dev-agent blocked"
check "five: no stall (an agent ran minutes ago)" quiet "Pipeline stalled"
dp
: >"$SUP_LOG"
sup_run
check "six: reported" sup_log_has \
    "P2: harb: Dev-agent blocked: last 6 polls all report 'no ready issues'"
check_eq "dev-poll's log has many poll lines per tick (no signal)" \
    "$(grep -c 'poll: ' "$DEVLOG" | awk '{print ($1 > 12)}')" 1

# The issue is taken in progress (by hand here): the tick ends on
# in-progress work, and the nothing-ready streak is over.
sim_post /_admin/item '{"number": 1, "labels": ["in-progress"]}' >/dev/null
dp
check_eq "in-progress work: the nothing-ready streak ends" \
    "$(field OUTCOME)" waiting
: >"$SUP_LOG"
sup_run
check "after: no productivity alert" quiet "Dev-agent blocked"
check "after: no stall alert (work in progress)" quiet "Pipeline stalled"
