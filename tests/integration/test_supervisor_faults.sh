# supervisor-poll against a failing forge and CI: a 500, a timeout or a
# malformed answer on one endpoint skips the check that needed it (logged,
# exit 1, no action taken on data that did not arrive) while every other
# check still runs; a healthy tick afterwards completes without repeating
# anything.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-faults.json"
dev_metrics() {
	grep -c '"type":"dev"' "$FACTORY_ROOT/metrics/supervisor-metrics.jsonl"
}
clear_faults() {
	sim_post /_admin/faults/clear '{}' >/dev/null
	: >"$SUP_LOG"
}
others_ran() {	# others_ran LABEL: the cycle alert shows the tick went on
	check "$1: other checks still ran" \
	    sup_log_has "dependency cycle, none can start: #10 -> #11 -> #10"
}
gone() {
	! t_tmux has-session -t "$1" 2>/dev/null
}
sup_agent dev-harb-5
sup_agent dev-harb-60
sup_phase 5 'PHASE:escalate\nReason: which?\n'

# Comments and pipelines fail: no notice without knowing the comments.
fault GET '/issues/5/comments' 500
fault GET '/api/repos/1/pipelines' 500
sup_run
check_eq "500s: exit 1" "$SUP_RC" 1
check "500 on comments: logged" \
    sup_log_has "skipped: harb: cannot read the comments of #5"
check_eq "500 on comments: no notice posted blind" \
    "$(sim_log_count POST '/issues/5/comments$')" 0
check "500 on pipelines: logged" sup_log_has "skipped: harb: cannot read pipelines"
check "500 on pipelines: no CI alert made up" \
    sh -c "! grep -q 'pipeline(s) running' '$SUP_LOG'"
others_ran "500 on comments and pipelines"
check "500s: the summary names what was not checked" grep -qE \
    'supervisor: .*not checked \(2, see the log\): harb: cannot read .*; harb: cannot read' \
    "$DISINTO_RUN_DIR/supervisor-status"
check "500s: never all clear" sh -c \
    "! grep -q 'all clear' '$DISINTO_RUN_DIR/supervisor-status'"
check "500 on comments: the sweep still ran" gone dev-harb-60
# A PR's CI state: the forge's commit status stands in for Woodpecker,
# as ci_commit_status fell back.
check "500 on pipelines: the forge's status stands in for a PR's CI" \
    test "$(sim_log_count GET '/commits/5252525252525252525252525252525252525252/status')" -ge 1
check "500 on pipelines: so a PR's CI state is not unknown" \
    sh -c "! grep -q 'PR #52: cannot read the CI state' '$SUP_LOG'"

# Malformed PR lists.
clear_faults
ndev=$(dev_metrics)
fault GET '/pulls[?]' badjson
sup_run
check_eq "bad JSON: exit 1" "$SUP_RC" 1
check "bad JSON on PRs: logged" sup_log_has "skipped: harb: cannot list open PRs"
check "bad JSON on PRs: no PR alert" sh -c "! grep -q 'PR #52' '$SUP_LOG'"
check_eq "bad JSON on PRs: no dev metric from a partial count" \
    "$(dev_metrics)" "$ndev"
check_eq "bad JSON on PRs: the notice went out" \
    "$(sim_log_count POST '/issues/5/comments$')" 1
check "bad JSON on PRs: CI still checked" \
    sup_log_has "CI: 1 pipeline(s) running > 20 min"
others_ran "bad JSON on PRs"

# A timeout on the backlog list.
clear_faults
fault GET 'labels=backlog' delay 3
sup_run
check_eq "timeout: exit 1" "$SUP_RC" 1
check "timeout on the backlog: logged" \
    sup_log_has "skipped: harb: cannot list 'backlog' issues"
check "timeout on the backlog: no cycle reported" \
    sh -c "! grep -q 'dependency cycle, none' '$SUP_LOG'"
check "timeout on the backlog: PR checks still ran" \
    sup_log_has "PR #52: CI green, no review"

# The token's user unknown: a new escalation waits.
clear_faults
sup_agent dev-harb-6
sup_phase 6 'PHASE:escalate\nReason: what?\n'
fault GET '/api/v1/user$' 500
sup_run
check_eq "500 on /user: exit 1" "$SUP_RC" 1
check "500 on /user: logged" sup_log_has "cannot tell the token's user"
check_eq "500 on /user: no notice" "$(sim_log_count POST '/issues/6/comments$')" 0
others_ran "500 on /user"

# One PR's CI state unknown, one issue unreadable.
clear_faults
sup_agent dev-harb-61
fault GET '/commits/5252525252525252525252525252525252525252/status' 500
fault GET '/issues/61$' 500
sup_run
check_eq "500 on a status: exit 1" "$SUP_RC" 1
check "500 on a status: that PR skipped, logged" \
    sup_log_has "PR #52: cannot read the CI state"
check "500 on an issue: its session is not swept blind" \
    t_tmux has-session -t dev-harb-61
others_ran "500 on a status"

# Healthy again: everything completes, nothing is repeated.
clear_faults
sup_run
check_eq "healthy: exit 0" "$SUP_RC" 0
check "healthy: nothing said unchecked" sh -c \
    "! grep -q 'not checked' '$DISINTO_RUN_DIR/supervisor-status'"
check_eq "healthy: still one notice for #5" \
    "$(sim_log_count POST '/issues/5/comments$')" 1
check_eq "healthy: the notice for #6 now" \
    "$(sim_log_count POST '/issues/6/comments$')" 1
check "healthy: the closed issue's session swept" gone dev-harb-61
