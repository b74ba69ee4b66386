# A woken tick has the scheduled tick's settings (common/run/tickenv.h):
# a scheduled tick records the settings of its environment (0600, in its
# run directory); a wake from another environment (the agent's, a git
# hook's: here an empty one with another FACTORY_ROOT and no
# DISINTO_RUN_DIR) names the run directory and takes them, so the wake
# and its tick use the scheduled ticks' run directory, tick lock and
# factory; the session's wrapper wakes so; git's hook variables never
# reach a tick's git; a reason that starts with '-' is a reason; a record
# where the agents write, or one others could write, is not read.
# Nothing here asserts a duration: conditions are polled with generous
# bounds, and "one tick at a time" is read in the lock and wake files.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
dev_sim - <<JSON
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "blocked"}, {"id": 4, "name": "underspecified"}],
 "issues": []}
JSON
DP=$O/dev-poll/dev-poll
REC=$RUN/dev-poll-$PROJ.settings
PROM=$FACTORY_ROOT/metrics/dev-poll-$PROJ.prom
ELSE=$T/elsewhere
DEFAULT=/tmp/disinto-$(id -u)
mkdir -p "$ELSE/state"
: >"$ELSE/state/.dev-active"

# waker CMD...: CMD in the environment of a waker that is not the
# schedule: none of the test's settings, another factory, no run
# directory, git's variables of a post-receive hook.
waker() {
	env -i PATH="$PATH" HOME="$HOME" FACTORY_ROOT="$ELSE" \
	    GIT_DIR=/nonexistent GIT_WORK_TREE=/nonexistent \
	    GIT_INDEX_FILE=/nonexistent/index GIT_QUARANTINE_PATH=/nonexistent \
	    GIT_OBJECT_DIRECTORY=/nonexistent \
	    GIT_ALTERNATE_OBJECT_DIRECTORIES=/nonexistent GIT_PREFIX=x/ \
	    GIT_PUSH_OPTION_COUNT=1 GIT_PUSH_OPTION_0=x \
	    GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.bare \
	    GIT_CONFIG_VALUE_0=true "$@"
}
passes() {
	sed -n 's/^disinto_tick_passes{[^}]*} \([0-9]*\)$/\1/p' "$PROM"
}
no_tick() {
	! flock -n "$RUN/dev-poll-$PROJ.lock" true 2>/dev/null && return 1
	! pgrep -f "dev-poll/dev-poll --run-dir [^ ]* -- $P" >/dev/null
}
# nothing_elsewhere NAME: the waker's factory and run directory got no
# file of the tool's.
nothing_elsewhere() {
	check "$1: nothing in the waker's factory" \
	    sh -c "! ls '$ELSE' | grep -qv '^state\$'"
	check "$1: nothing of the project in the waker's run directory" \
	    sh -c "! ls '$DEFAULT' 2>/dev/null | grep -q 'dev-poll-$PROJ'"
}

# --- a scheduled tick records its settings ---
dp
check_eq "the scheduled tick exits 0" "$DP_RC" 0
check "the settings are recorded" test -f "$REC"
check_eq "the record is the tools' alone (0600)" "$(stat -c %a "$REC")" 600
check "the record has the run directory" \
    sh -c "tr '\\0' '\\n' <'$REC' | grep -qx 'DISINTO_RUN_DIR=$RUN'"
check "...and the factory" \
    sh -c "tr '\\0' '\\n' <'$REC' | grep -qx 'FACTORY_ROOT=$FACTORY_ROOT'"
check "...and no other variable" \
    sh -c "! tr '\\0' '\\n' <'$REC' | grep -q '^KEEP_T=\|^T=\|^P='"

# --- a wake during a scheduled tick: one lock, one run directory ---
: >"$DEVLOG"
DISINTO_TEST_WAKE_HOLD=pass:$T/go1 "$DP" "$P" >/dev/null 2>&1 &
TICK=$!
wait_for "test -e '$T/go1.at'" 60
waker "$DP" --wake --run-dir "$RUN" -- "$P" "agent wake" >"$T/w.out" 2>&1
check_eq "the wake exits 0" "$?" 0
check_eq "the wake finds the scheduled tick's lock held" \
    "$(grep -c 'wake (agent wake): a tick runs' "$DEVLOG")" 1
check "its wake file is in the scheduled run directory" \
    test -e "$RUN/dev-poll-$PROJ.wake"
nothing_elsewhere "a wake during a tick"
: >"$T/go1"
wait "$TICK"
check_eq "the scheduled tick runs once more for it" "$(passes)" 2
check_eq "...saying why" "$(grep -c 'woken: agent wake (pass 2)' "$DEVLOG")" 1

# --- a wake with no tick running: the tick it starts is the same ---
wait_for no_tick 60
cp "$REC" "$T/rec.before"
: >"$DEVLOG"
waker "$DP" --wake --run-dir "$RUN" -- "$P" "-v --dry-run" >/dev/null 2>&1
if wait_for "grep -q 'woken: -v --dry-run (pass 1)' '$DEVLOG'" 60; then
	ok "the woken tick logs in the scheduled tick's factory"
else
	fail "the woken tick logs in the scheduled tick's factory" \
	    "$(tail -5 "$DEVLOG" | tr '\n' '|')"
fi
ok_reason=$(grep -c 'dry-run:' "$DEVLOG")
check_eq "a reason that starts with '-' is no option" "$ok_reason" 0
wait_for no_tick 60
check_eq "the woken tick ran one pass (its metrics in that factory)" \
    "$(passes)" 1
check "the woken tick recorded nothing of its own" cmp -s "$REC" "$T/rec.before"
nothing_elsewhere "a started tick"
check "no settings were taken from the waker" \
    sh -c "! grep -q 'waker.s environment' '$DEVLOG'"

# --- the session's wrapper wakes with the run directory ---
S=dev-$PROJ-9
MARK=$RUN/sessions/active/$S/claude-idle-$S.ts
: >"$DEVLOG"
waker "$DP" --agent-exec --session "$S" --run-dir "$RUN" --wake "$P" -- \
    sh -c "mkdir -p '$RUN/sessions/active/$S' && sleep 0.3 && touch '$MARK' && sleep 0.3"
check_eq "the wrapper exits with its command" "$?" 0
if wait_for "grep -q 'woken: stop hook $S (pass 1)' '$DEVLOG'" 60; then
	ok "the wrapper's wake runs a tick of the scheduled settings"
else
	fail "the wrapper's wake runs a tick of the scheduled settings" \
	    "$(tail -5 "$DEVLOG" | tr '\n' '|')"
fi
wait_for no_tick 60
nothing_elsewhere "the wrapper's wake"

# --- a forged record where the agent writes is not read ---
SD=$RUN/sessions/active/$S
mkdir -p "$T/forged/state"
: >"$T/forged/state/.dev-active"
printf 'FACTORY_ROOT=%s\0DISINTO_RUN_DIR=%s\0' "$T/forged" "$SD" \
    >"$SD/dev-poll-$PROJ.settings"
chmod 600 "$SD/dev-poll-$PROJ.settings"
waker "$DP" --wake --run-dir "$SD" -- "$P" "forged" >/dev/null 2>&1
check_eq "a run directory where the agents write is refused" "$?" 2
WT=$RUN/$PROJ-worktree-7
mkdir -p "$WT"
chmod 700 "$WT"
cp -p "$SD/dev-poll-$PROJ.settings" "$WT/"
waker "$DP" --wake --run-dir "$WT" -- "$P" "forged" >/dev/null 2>&1
check_eq "...and a worktree" "$?" 2
waker "$DP" --wake --run-dir "run" -- "$P" "forged" >/dev/null 2>&1
check_eq "...and a relative one" "$?" 2
check "the forged records started nothing" \
    sh -c "! ls '$T/forged' | grep -qv '^state\$' && test ! -e '$SD/dev-poll-$PROJ.wake'"
rm -rf "$WT"

# A record others could write is no record: the wake says so and keeps
# to the run directory it was given.
printf 'FACTORY_ROOT=%s\0' "$T/forged" >"$REC"
chmod 660 "$REC"
: >"$DEVLOG"
env -i PATH="$PATH" HOME="$HOME" FACTORY_ROOT="$FACTORY_ROOT" \
    "$DP" --wake --run-dir "$RUN" -- "$P" "loose" >/dev/null 2>&1
if wait_for "grep -q 'woken: loose (pass 1)' '$DEVLOG'" 60; then
	ok "a record others could write: the wake runs its tick"
else
	fail "a record others could write: the wake runs its tick" \
	    "$(tail -5 "$DEVLOG" | tr '\n' '|')"
fi
check "...without reading it" sh -c "! ls '$T/forged' | grep -qv '^state\$'"
check "...and says the waker's settings are used" \
    grep -q "waker's environment are used" "$DEVLOG"
wait_for no_tick 60
rm -f "$REC"
dp
check "the next scheduled tick records them again" \
    sh -c "tr '\\0' '\\n' <'$REC' | grep -qx 'DISINTO_RUN_DIR=$RUN'"

# --- git's hook variables never reach the woken tick's git ---
scen '[{"number": 1, "title": "Git", "labels": ["backlog"], "body": "x"}]' \
    '[]' >"$T/case.json"
case_start
echo '[]' >"$T/script.json"
: >"$DEVLOG"
waker "$DP" --wake --run-dir "$RUN" -- "$P" "post-receive" >/dev/null 2>&1
if wait_for "test -f '$RUN/$PROJ-worktree-1/.git'" 120; then
	ok "a wake from a git hook: its tick's git made the worktree"
else
	fail "a wake from a git hook: its tick's git made the worktree" \
	    "$(tail -8 "$DEVLOG" | tr '\n' '|')"
fi
check "...and no git command saw the hook's repository" \
    sh -c "! grep -q 'not a git repository' '$DEVLOG'"
wait_for no_tick 60
