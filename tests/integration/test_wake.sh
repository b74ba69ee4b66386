# Ticks started by events (common/tick/wake.h): `dev-poll --wake` starts a
# detached tick, or leaves a wake that the running tick answers with one
# more pass; many wakes during one pass cost one pass; a wake that comes
# as a tick lets go of its lock is not lost; a wake whose tick never ran
# is consumed by the next scheduled tick; an inactive factory only logs.
# The agent hooks wake dev-poll: an agent that stops without a phase is
# ended as idle, and a CI-less PHASE:awaiting_ci is answered, with no
# tick run by the test.  Nothing here asserts a duration: conditions are
# polled with generous bounds.
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
WAKE=$RUN/dev-poll-$PROJ.wake
PROM=$FACTORY_ROOT/metrics/dev-poll-$PROJ.prom

# passes: the disinto_tick_passes of the last tick.
passes() {
	sed -n 's/^disinto_tick_passes{[^}]*} \([0-9]*\)$/\1/p' "$PROM"
}
# no_tick: no dev-poll tick of the project holds the lock.
no_tick() {
	! flock -n "$RUN/dev-poll-$PROJ.lock" true 2>/dev/null && return 1
	! pgrep -f "dev-poll/dev-poll -- $P" >/dev/null
}

# --- usage ---
"$DP" --wake --status "$P" >/dev/null 2>&1
check_eq "--wake with --status is refused" "$?" 2
"$DP" "$P" "why" >/dev/null 2>&1
check_eq "a reason without --wake is refused" "$?" 2

# --- a wake with no tick running starts one, detached ---
"$DP" --wake "$P" "first wake" >"$T/w.out" 2>&1
check_eq "--wake exits 0" "$?" 0
check_eq "--wake prints nothing" "$(cat "$T/w.out")" ""
if wait_for "grep -q 'woken: first wake (pass 1)' '$DEVLOG'" 60; then
	ok "the started tick logs why it was woken"
else
	fail "the started tick logs why it was woken" "$(tail -5 "$DEVLOG")"
fi
wait_for no_tick 60
check "the wake was consumed" test ! -e "$WAKE"
check_eq "the woken tick ran one pass" "$(passes)" 1

# --- 100 wakes during a pass: exactly one more pass ---
: >"$DEVLOG"
DISINTO_TEST_WAKE_HOLD=pass:$T/go1 "$DP" "$P" >/dev/null 2>&1 &
TICK=$!
wait_for "test -e '$T/go1.at'" 60
i=0
while [ $i -lt 100 ]; do
	"$DP" --wake "$P" "storm $i" >/dev/null 2>&1 || break
	i=$((i + 1))
done
check_eq "100 wakes during a pass all exit 0" "$i" 100
check_eq "none of them started a tick" \
    "$(grep -c 'no tick runs' "$DEVLOG")" 0
: >"$T/go1"
wait "$TICK"
check_eq "the tick exits 0" "$?" 0
check_eq "100 wakes during a pass: exactly one more pass" "$(passes)" 2
check_eq "the second pass logs the last wake's reason" \
    "$(grep -c 'woken: storm 99 (pass 2)' "$DEVLOG")" 1
check "no wake is left" test ! -e "$WAKE"
wait_for no_tick 30

# --- a wake as the tick lets go of its lock is not lost ---
: >"$DEVLOG"
DISINTO_TEST_WAKE_HOLD=release:$T/go2 "$DP" "$P" >/dev/null 2>&1 &
TICK=$!
wait_for "test -e '$T/go2.at'" 60
"$DP" --wake "$P" "late wake" >/dev/null 2>&1
check_eq "a wake at the release finds the tick running" \
    "$(grep -c 'late wake.*a tick runs' "$DEVLOG")" 1
: >"$T/go2"
wait "$TICK"
check_eq "the wake at the release: one more pass" "$(passes)" 2
check_eq "...that says why" "$(grep -c 'woken: late wake (pass 2)' "$DEVLOG")" 1
check "...and leaves no wake" test ! -e "$WAKE"

# --- a wake whose tick never ran: the next scheduled tick takes it ---
: >"$DEVLOG"
exec 9>"$RUN/dev-poll-$PROJ.lock"
flock -n 9
"$DP" --wake "$P" "orphan wake" >/dev/null 2>&1
exec 9>&-
check "a wake whose tick died stays" test -e "$WAKE"
dp
check_eq "the scheduled tick exits 0" "$DP_RC" 0
lhas "the scheduled tick consumes the wake" 'woken: orphan wake \(pass 1\)'
check "...and no wake is left" test ! -e "$WAKE"
check_eq "...in one pass" "$(passes)" 1

# --- inactive: a wake only logs ---
rm -f "$FACTORY_ROOT/state/.dev-active"
"$DP" --wake "$P" "paused wake" >/dev/null 2>&1
check_eq "an inactive wake exits 0" "$?" 0
check "an inactive wake leaves nothing" test ! -e "$WAKE"
check_eq "an inactive wake says so" \
    "$(grep -c 'wake (paused wake): dev not active' "$DEVLOG")" 1
: >"$FACTORY_ROOT/state/.dev-active"
