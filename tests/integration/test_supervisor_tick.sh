# supervisor-poll's tick as a whole: the overlap lock (a second tick exits
# 0 at once), a bad project file (exit 2 with file:line, nothing done),
# every project file checked and the environment used when there is none,
# the clone put back on its primary branch or out of a stale rebase (an
# alert when that fails), and --dry-run changing nothing on the host.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-escalate.json"
REPO=$T/repo
branch() {
	git -C "$REPO" symbolic-ref --short -q HEAD
}

# --- the lock ----------------------------------------------------------------
flock -n "$DISINTO_RUN_DIR/supervisor-poll.lock" sleep 3 &
lockpid=$!
wait_for '[ -e "$DISINTO_RUN_DIR/supervisor-poll.lock" ]' 2
sleep 0.3
sup_run
check_eq "lock held: exit 0" "$SUP_RC" 0
check_eq "lock held: no request" "$(sim_log_count '*' '.')" 0
check "lock held: no log" test ! -s "$SUP_LOG"
wait "$lockpid"

# --- a bad project file --------------------------------------------------------
printf 'name = "bad"\nrepo = "o/bad"\n[ci]\nwoodpecker_repo_id = "x"\n' \
    >"$FACTORY_ROOT/projects/bad.toml"
sup_run
check_eq "bad project file: exit 2" "$SUP_RC" 2
check "bad project file: file:line named" \
    grep -qF "$FACTORY_ROOT/projects/bad.toml:4: [ci] woodpecker_repo_id: expected a whole number >= 0, got 'x'" "$T/sup.out"
check "bad project file: in supervisor.log" \
    grep -qF "failing: $FACTORY_ROOT/projects/bad.toml:4:" "$SUP_LOG"
check "bad project file: the status file says failing" \
    grep -qF "supervisor-poll: failing: $FACTORY_ROOT/projects/bad.toml:4:" \
    "$DISINTO_RUN_DIR/supervisor-status"
check_eq "bad project file: no request" "$(sim_log_count '*' '.')" 0
rm -f "$FACTORY_ROOT/projects/bad.toml"

# --- two projects, then none ---------------------------------------------------
sed -e 's/^name = "harb"/name = "other"/' \
    "$FACTORY_ROOT/projects/harb.toml" >"$FACTORY_ROOT/projects/other.toml"
sup_run
check_eq "two projects: exit 0" "$SUP_RC" 0
check "both projects checked, in order" sh -c "grep -o 'checking project [a-z]*' \
    '$SUP_LOG' | tr '\n' ' ' | grep -q 'project harb checking project other'"
rm -f "$FACTORY_ROOT/projects/"*.toml
: >"$SUP_LOG"
FORGE_REPO=johba/harb FORGE_URL=$SIM_URL sup_run
check_eq "no project file: exit 0" "$SUP_RC" 0
check "no project file: the environment's project is checked" \
    sup_log_has "checking project harb (johba/harb)"
: >"$SUP_LOG"
sup_run
check_eq "no project at all: exit 0" "$SUP_RC" 0
check "no project at all: said so" \
    sup_log_has "no FORGE_REPO: project checks skipped"
sup_setup_project() {
	cat >"$FACTORY_ROOT/projects/harb.toml" <<TOML
name = "harb"
repo = "johba/harb"
forge_url = "$SIM_URL"
repo_root = "$REPO"
[ci]
woodpecker_repo_id = 1
TOML
}
sup_setup_project

# --- the clone -----------------------------------------------------------------
git -C "$REPO" checkout -q -b feature
sup_run
check_eq "off the primary branch: switched back" "$(branch)" master
check "off the primary branch: logged as fixed" \
    sup_log_has "switched the clone from 'feature' to master"

printf 'a\n' >"$REPO/f" && git -C "$REPO" add f &&
    git -C "$REPO" commit -q -m a
git -C "$REPO" checkout -q -b side HEAD~0
printf 'b\n' >"$REPO/f" && git -C "$REPO" commit -q -am b
git -C "$REPO" checkout -q master
printf 'c\n' >"$REPO/f" && git -C "$REPO" commit -q -am c
git -C "$REPO" checkout -q side
git -C "$REPO" rebase master >/dev/null 2>&1
check "a rebase stopped on a conflict" test -d "$REPO/.git/rebase-merge" -o \
    -d "$REPO/.git/rebase-apply"
sup_run
check "stale rebase aborted" sh -c "test ! -d '$REPO/.git/rebase-merge' &&
    test ! -d '$REPO/.git/rebase-apply'"
check_eq "stale rebase: back on master" "$(branch)" master

git -C "$REPO" checkout -q side
printf 'dirty\n' >"$REPO/f"
sup_run
check "cannot switch (local changes): alert" \
    sup_log_has "P2: harb: git: on 'side' instead of master"
check_eq "cannot switch: the exit is still 0" "$SUP_RC" 0
git -C "$REPO" checkout -q -- f

# --- dry run on the host ---------------------------------------------------------
mkdir -p "$FACTORY_ROOT/review"
head -c 6000000 /dev/zero >"$FACTORY_ROOT/review/review.log"
rm -f "$FACTORY_ROOT/metrics/supervisor-metrics.jsonl" \
    "$DISINTO_RUN_DIR/supervisor-status"
sup_run --dry-run
check "dry run: log not rotated" test ! -e "$FACTORY_ROOT/review/review.log.old"
check "dry run: clone left on its branch" test "$(branch)" = side
check "dry run: no metric written" \
    test ! -e "$FACTORY_ROOT/metrics/supervisor-metrics.jsonl"
check "dry run: no status file" test ! -e "$DISINTO_RUN_DIR/supervisor-status"
check "dry run: the would-be actions are logged" \
    grep -qF "dry-run: would run 'git -C $REPO checkout master'" "$T/sup.out"

# --- the status file, step by step -------------------------------------------
# supervisor-status is replaced at each step, in supervisor-poll.sh's words
# ("[time] supervisor: STEP"); each step is also a log line.
: >"$SUP_LOG"
sup_run
check "status steps in upstream's words and order" sh -c "grep -oE \
    '(P[0-9]e?: (harb: )?(checking|sweeping|infra)[A-Za-z -]*|checking projects)' \
    '$SUP_LOG' | tr '\n' '|' | grep -q \
    'P0: checking memory|P1: checking disk|P4: infra housekeeping|checking projects|P2: harb: checking pipeline|P2e: harb: checking infra failures|P2: harb: checking dev-agent status|P2: harb: checking pipeline stall|P2: harb: checking dev-agent productivity|P3: harb: checking PRs|P3: harb: checking for circular dependencies|P3: harb: checking for stale dependencies|P2: harb: checking escalate sessions|P4: harb: sweeping orphaned dev sessions|'"
check "the last step is the tick's end" grep -qE \
    '^\[[0-9-]{10} [0-9:]{8} UTC\] supervisor: (all clear|fix command ran)' \
    "$DISINTO_RUN_DIR/supervisor-status"
