# The end of an API pause is an event no hook or webhook sees: the tick
# that finds the project paused leaves one sleeping process per tool and
# project (it holds pause-wake-TOOL-P.lock) that wakes the tool once the
# pause's UNTIL has passed, so the pause ends then, not at the
# schedule's next tick.  A second paused tick leaves no second sleeper;
# without DISINTO_WAKE none is left.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
echo '[{"stop": true}]' >"$T/script.json"
PAUSE=$RUN/api-pause-$PROJ
LOCK=$RUN/pause-wake-dev-poll-$PROJ.lock
pause_for() {	# pause_for SECONDS: the project paused until then
	printf 'SINCE: %s\nUNTIL: %s\nREASON: overloaded\nCOUNT: 1\nRESUMED: 0\n' \
	    "$(date +%s)" "$(($(date +%s) + $1))" >"$PAUSE"
}
sleepers() {	# this test's sleeping wakes (its run directory on their line)
	pgrep -af "^sh -c sleep .* api pause over" | grep -cF -- "$RUN" || true
}

# Wakes off (the test library's default): paused, nothing left behind.
pause_for 60
dp
rc_is "paused, no wakes" 0
lhas "said paused" "paused: overloaded since"
check_eq "no wakes: no sleeper" "$(sleepers)" 0
check "no wakes: no lock" test ! -e "$LOCK"

# Wakes on: the paused tick leaves one sleeper, a second tick no other.
export DISINTO_WAKE=true
pause_for 4
dp
rc_is "paused, wakes on" 0
lhas "said when it is woken" "dev-poll is woken at the pause's end, in [0-9]+ s"
check_eq "one sleeper" "$(sleepers)" 1
dp
check_eq "a second paused tick: still one sleeper" "$(sleepers)" 1
lnot "the second tick arranged nothing" "woken at the pause's end"
# The pause's end wakes dev-poll, with no tick run here.
wait_for "grep -q 'woken: api pause over' '$DEVLOG'" 30
check "woken at the pause's end" grep -q "woken: api pause over" "$DEVLOG"
wait_for '[ "$(sleepers)" -eq 0 ]' 10
check_eq "the sleeper is gone" "$(sleepers)" 0
wait_for "grep -q 'launching dev-agent for #1' '$DEVLOG'" 20
check "the woken tick launches the backlog" \
    grep -q "launching dev-agent for #1" "$DEVLOG"
