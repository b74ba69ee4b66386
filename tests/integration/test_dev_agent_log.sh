# dev/dev-agent.log, which upstream's AI supervisor preflight tails
# ("## Recent Agent Logs": tail -15, the age from stat -c %Y) and the
# dashboard's metrics take as the dev agent's last activity, is the dev
# log of the project that ticked last (a hard link): a preflight-style
# read finds the tick's last line, at its time.  bash's own file there
# is kept as dev-agent.log.old.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
dev_sim "$(scen '[]' '[]' >"$T/case.json"; echo "$T/case.json")"
SHARED=$FACTORY_ROOT/dev/dev-agent.log
echo "[2020-01-01 00:00:00 UTC] bash dev-agent: an old line" >"$SHARED"

dp
rc_is "a tick" 0
check "bash's old log kept" grep -q "bash dev-agent: an old line" \
    "$SHARED.old"
check_eq "dev-agent.log is the dev log" \
    "$(stat -c %i "$SHARED")" "$(stat -c %i "$DEVLOG")"
# The preflight's read, as supervisor/preflight.sh does it.
check_eq "tail finds the tick's last line" \
    "$(tail -15 "$SHARED" | tail -1)" "$(tail -1 "$DEVLOG")"
check "the tick's activity is there" sh -c \
    "tail -15 '$SHARED' | grep -q 'no backlog issues'"
check_eq "its age is the dev log's" \
    "$(stat -c %Y "$SHARED")" "$(stat -c %Y "$DEVLOG")"

# A second tick: the same file, one more line, nothing renamed again.
dp
check_eq "second tick: still the dev log" \
    "$(stat -c %i "$SHARED")" "$(stat -c %i "$DEVLOG")"
check "second tick: bash's log still kept" grep -q "an old line" \
    "$SHARED.old"
check_eq "second tick: its last line" \
    "$(tail -1 "$SHARED")" "$(tail -1 "$DEVLOG")"
