# The Prometheus files the ticks write in $FACTORY_ROOT/metrics: one per
# tool and project (the supervisor's per host, or per --project), every
# way a tick ends recorded (ok, inactive, config_error, failed), counters
# carried from tick to tick, API failures counted, nothing written by a
# dry run or --status; every file passes the exposition-format checker
# (and promtool check metrics when installed).
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-sweep.json"
M=$FACTORY_ROOT/metrics
DEV=$O/dev-poll/dev-poll
PROJ=$FACTORY_ROOT/projects/harb.toml

# value FILE SERIES: the value of the sample whose name and labels start
# with SERIES (a regular expression), or "none".
value() {
	_v=$(grep -E "^$2" "$1" 2>/dev/null | head -1 | sed 's/.* //')
	echo "${_v:-none}"
}

# --- the supervisor, per host --------------------------------------------------
sup_run
check_eq "supervisor tick: exit 0" "$SUP_RC" 0
check "supervisor-poll.prom written" test -f "$M/supervisor-poll.prom"
sup_run
S=$M/supervisor-poll.prom
check_eq "ticks counted across ticks" \
    "$(value "$S" 'disinto_ticks_total\{tool="supervisor-poll",result="ok"\}')" 2
check_eq "exit code of the last tick" \
    "$(value "$S" 'disinto_tick_exit_code\{')" 0
check "the last success is a Unix time" \
    grep -qE '^disinto_tick_last_success_timestamp_seconds\{tool="supervisor-poll"\} [0-9]{10}$' "$S"
check_eq "alerts by priority, every priority" \
    "$(grep -c '^disinto_supervisor_alerts{tool="supervisor-poll",priority="P[0-4]"}' "$S")" 5
# MemAvailable 8000000 kB, read in whole MiB (7812).
check_eq "the host's memory in bytes" \
    "$(value "$S" 'disinto_host_memory_available_bytes\{')" 8191475712
check "forge requests counted" \
    grep -qE '^disinto_api_requests_total\{tool="supervisor-poll",api="forge"\} [1-9]' "$S"
check_eq "no project label on the host's file" \
    "$(grep -c 'project=' "$S")" 0

# --- the supervisor of one project ---------------------------------------------
sup_run --project harb
check_eq "--project: exit 0" "$SUP_RC" 0
check "--project harb writes supervisor-poll-harb.prom" \
    grep -q '^disinto_ticks_total{tool="supervisor-poll",project="harb",result="ok"} 1$' \
    "$M/supervisor-poll-harb.prom"

# --- dev-poll: paused, broken, failing, dry run ----------------------------------
D=$M/dev-poll-harb.prom
"$DEV" "$PROJ" >"$T/dev.out" 2>&1
check_eq "paused factory: exit 0" "$?" 0
check_eq "paused factory: result inactive" \
    "$(value "$D" 'disinto_ticks_total\{tool="dev-poll",project="harb",result="inactive"\}')" 1

cp "$PROJ" "$T/harb.toml.good"
printf '[ci]\nwoodpecker_repo_id = "x"\n' >>"$PROJ"
"$DEV" "$PROJ" >"$T/dev.out" 2>&1
check_eq "broken project file: exit 2" "$?" 2
check_eq "broken project file: result config_error" \
    "$(value "$D" 'disinto_ticks_total\{tool="dev-poll",project="harb",result="config_error"\}')" 1
check_eq "broken project file: exit code 2" \
    "$(value "$D" 'disinto_tick_exit_code\{')" 2
check "the inactive tick is still counted" \
    grep -q 'result="inactive"} 1$' "$D"
last=$(value "$D" 'disinto_tick_last_success_timestamp_seconds\{')
check "the inactive tick (exit 0) was the last success" \
    test "$last" -gt 1700000000

# The forge is unreachable: the tick fails and its requests count as errors.
sed "s|^forge_url = .*|forge_url = \"http://127.0.0.1:9\"|" \
    "$T/harb.toml.good" >"$PROJ"
: >"$FACTORY_ROOT/state/.dev-active"
DISINTO_HTTP_RETRIES=1 "$DEV" "$PROJ" >"$T/dev.out" 2>&1
check_eq "unreachable forge: exit 1" "$?" 1
check_eq "unreachable forge: result failed" \
    "$(value "$D" 'disinto_ticks_total\{tool="dev-poll",project="harb",result="failed"\}')" 1
check "unreachable forge: its requests counted as errors, code transport" \
    grep -qE '^disinto_api_errors_total\{tool="dev-poll",project="harb",api="forge",code="transport"\} [1-9]' "$D"
check_eq "a failed tick keeps the last success of an earlier one" \
    "$(value "$D" 'disinto_tick_last_success_timestamp_seconds\{')" "$last"
check "sessions by phase are written" \
    grep -q '^disinto_dev_sessions{tool="dev-poll",project="harb",phase="awaiting_ci"} 0$' "$D"

# A token the forge refuses: every 4xx counts, by its code.
cp "$T/harb.toml.good" "$PROJ"
FORGE_TOKEN=revoked DISINTO_HTTP_RETRIES=1 "$DEV" "$PROJ" >"$T/dev.out" 2>&1
check_eq "refused token: exit 1" "$?" 1
check "refused token: the 401s counted as errors, code 401" \
    grep -qE '^disinto_api_errors_total\{tool="dev-poll",project="harb",api="forge",code="401"\} [1-9]' "$D"
check "refused token: the transport errors of before still counted" \
    grep -qE '^disinto_api_errors_total\{tool="dev-poll",project="harb",api="forge",code="transport"\} [1-9]' "$D"
check_eq "refused token: no tick counted as ok" \
    "$(value "$D" 'disinto_ticks_total\{tool="dev-poll",project="harb",result="ok"\}')" none

sup_phase 7 'PHASE:escalate\nReason: which API?\n' "2 hours ago"
before=$(cat "$D")
"$DEV" --dry-run "$PROJ" >"$T/dev.out" 2>&1
check_eq "a dry run does not write the metrics" "$(cat "$D")" "$before"
"$DEV" --status "$PROJ" >"$T/dev.out" 2>&1
check_eq "--status does not write the metrics" "$(cat "$D")" "$before"
DISINTO_HTTP_RETRIES=1 "$DEV" "$PROJ" >"$T/dev.out" 2>&1
check_eq "an escalation pending" \
    "$(value "$D" 'disinto_escalations_pending\{')" 1
age=$(value "$D" 'disinto_escalation_oldest_age_seconds\{')
check "its age in seconds (about 2 hours)" \
    test "${age%.*}" -ge 7190 -a "${age%.*}" -lt 7400
check_eq "the escalated session by phase" \
    "$(value "$D" 'disinto_dev_sessions\{tool="dev-poll",project="harb",phase="escalate"\}')" 1

# --- every file passes the checkers ----------------------------------------------
check_eq "no temporary file left" "$(ls -a "$M" | grep -c tmp)" 0
if out=$(python3 "$TOP/tests/tools/promcheck.py" "$M"/*.prom 2>&1); then
	ok "the ticks' files pass the exposition-format checker"
else
	fail "the ticks' files pass the exposition-format checker" \
	    "$(printf '%s' "$out" | tr '\n' ';')"
fi
if command -v promtool >/dev/null 2>&1; then
	for f in "$M"/*.prom; do
		check "promtool check metrics $(basename "$f")" \
		    sh -c "promtool check metrics <'$f'"
	done
else
	echo "# promtool not found: promtool check metrics skipped"
fi
