#!/bin/sh
# DISINTO_LOG_DIR, as upstream's newer main sets it for a factory mounted
# read-only in its container: the ticks' logs go below it
# (dev/dev-agent-P.log with dev/dev-agent.log linked to it,
# review/review-poll.log, supervisor/supervisor.log) and nothing into the
# factory's own log paths; unset, the logs stay in the factory; a relative
# directory is a configuration error.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
dev_sim "$(scen '[]' '[]' >"$T/case.json"; echo "$T/case.json")"
: >"$FACTORY_ROOT/state/.reviewer-active"
L=$T/logs
FACTORY_LOGS="$FACTORY_ROOT/dev/dev-agent-$PROJ.log
$FACTORY_ROOT/dev/dev-agent.log
$FACTORY_ROOT/review/review.log
$FACTORY_ROOT/review/review-poll.log
$FACTORY_ROOT/supervisor/supervisor.log"
# in_factory: the factory's log files that exist.
in_factory() {
	for f in $FACTORY_LOGS; do
		[ ! -e "$f" ] || echo "$f"
	done
}

export DISINTO_LOG_DIR=$L
dp
rc_is "dev-poll with DISINTO_LOG_DIR: exit 0" 0
check "its log is below DISINTO_LOG_DIR" \
    grep -q "no backlog issues" "$L/dev/dev-agent-$PROJ.log"
check_eq "dev-agent.log below it is the same file" \
    "$(stat -c %i "$L/dev/dev-agent.log" 2>&1)" \
    "$(stat -c %i "$L/dev/dev-agent-$PROJ.log" 2>&1)"
"$O/review-poll/review-poll" "$P" >"$T/rp.out" 2>&1
check_eq "review-poll with DISINTO_LOG_DIR: exit 0" "$?" 0
check "its log is review/review-poll.log below it" \
    test -s "$L/review/review-poll.log"
mkdir -p "$T/proc"
printf '100000.00 200000.00\n' >"$T/proc/uptime"
DISINTO_PROC_DIR=$T/proc DISINTO_DISK_PATH=$T \
    SUPERVISOR_FIX_CMD=/bin/true "$O/supervisor-poll/supervisor-poll" \
    >"$T/sp.out" 2>&1
check "supervisor-poll's log is below it" \
    test -s "$L/supervisor/supervisor.log"
check_eq "nothing in the factory's log paths" "$(in_factory)" ""

# A relative directory: exit 2, said on stderr, the failure's log line
# not below that directory (taken from where the tool runs).
mkdir -p "$T/cwd"
(cd "$T/cwd" && DISINTO_LOG_DIR=logs "$O/dev-poll/dev-poll" "$P" \
    >"$T/bad.out" 2>&1)
check_eq "a relative DISINTO_LOG_DIR: exit 2" "$?" 2
check "and the setting named" grep -q "DISINTO_LOG_DIR" "$T/bad.out"
check "nothing written below the relative directory" test ! -e "$T/cwd/logs"

# Unset: the factory's paths, as before.
unset DISINTO_LOG_DIR
dp
rc_is "dev-poll without DISINTO_LOG_DIR: exit 0" 0
check "its log is the factory's again" \
    grep -q "no backlog issues" "$FACTORY_ROOT/dev/dev-agent-$PROJ.log"
"$O/review-poll/review-poll" "$P" >"$T/rp.out" 2>&1
check "review-poll's is review/review.log in the factory" \
    test -s "$FACTORY_ROOT/review/review.log"
