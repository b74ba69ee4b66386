# supervisor-poll and Woodpecker: pipelines stuck running (> 20 min) or
# pending (> 30 min), the "ci" metric, and the infra retrigger: a failed
# clone (exit 128) is restarted, counted in the retry directory before the
# restart, at most twice over the pipeline and its restarts; code failures
# are left alone; old counts are pruned; check_infra_retry = false stops it.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
now=$(date +%s)
mkdir -p "${TMPDIR:-/tmp}"
scen=$(mktemp "${TMPDIR:-/tmp}/sup-ci.XXXXXX")
cat >"$scen" <<JSON
{
  "repo": "johba/harb",
  "users": [{"login": "dev-bot", "token": "dev-token", "admin": true}],
  "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": [
    {"number": 2, "commit": "e2", "status": "success",
     "created": $((now - 8000)), "started": $((now - 7800)),
     "finished": $((now - 7200)), "workflows": []},
    {"number": 3, "commit": "c3", "status": "running",
     "created": $((now - 3100)), "started": $((now - 3000)),
     "finished": 0, "workflows": []},
    {"number": 4, "commit": "d4", "status": "pending",
     "created": $((now - 4000)), "started": 0, "finished": 0,
     "workflows": []},
    {"number": 5, "commit": "b5", "status": "failure",
     "created": $((now - 1500)), "started": $((now - 1400)),
     "finished": $((now - 1200)),
     "workflows": [{"children": [
       {"id": 510, "name": "test", "state": "failure", "exit_code": 1}]}]},
    {"number": 7, "commit": "a7", "status": "failure",
     "created": $((now - 1000)), "started": $((now - 900)),
     "finished": $((now - 600)),
     "workflows": [{"children": [
       {"id": 710, "name": "clone", "state": "failure", "exit_code": 128}]}]}
  ],
  "logs": {"5/510": ["FAIL: parser_test"], "7/710": ["fatal: could not read"]}}
}
JSON
sup_setup "$scen"
rm -f "$scen"
RETRY=$DISINTO_RUN_DIR/supervisor-infra-retries
METRICS=$FACTORY_ROOT/metrics/supervisor-metrics.jsonl
restarts() {
	sim_log_count POST '^/api/repos/1/pipelines/[0-9]+$'
}
fail_infra() {	# fail_infra N: pipeline N fails in its clone step
	sim_post /_admin/pipeline "{\"number\": $1, \"status\": \"failure\",
	    \"forge_status\": false, \"steps\": [{\"name\": \"clone\",
	    \"state\": \"failure\", \"exit_code\": 128}]}" >/dev/null
}

mkdir -p "$RETRY"
echo 1 >"$RETRY/1-1"
touch -d '25 hours ago' "$RETRY/1-1"

sup_run
check_eq "tick 1 exits 0" "$SUP_RC" 0
check_eq "infra failure restarted once" "$(restarts)" 1
check_eq "the restarted one is #7" \
    "$(sim_log_count POST '^/api/repos/1/pipelines/7$')" 1
check_eq "the code failure (#5) is left alone" \
    "$(sim_log_count POST '^/api/repos/1/pipelines/5$')" 0
check_eq "retry counted for #7" "$(cat "$RETRY/1-7" 2>/dev/null)" 1
check "retry counts older than a day pruned" test ! -e "$RETRY/1-1"
check "stuck running alert" \
    sup_log_has "P2: harb: CI: 1 pipeline(s) running > 20 min"
check "stuck pending alert" \
    sup_log_has "P2: harb: CI: 1 pipeline(s) pending > 30 min"
check "fix recorded" sup_log_has "retriggered pipeline #7"
check "ci metric: newest finished pipeline" python3 -c "
import json, sys
ms = [json.loads(l) for l in open('$METRICS')]
ci = [m for m in ms if m['type'] == 'ci']
assert ci == [{'ts': ci[0]['ts'], 'type': 'ci', 'project': 'harb',
    'pipeline': 7, 'duration_min': 5, 'status': 'failure'}], ci
"
check "the fix command got the alerts" grep -q 'pending > 30 min' "$T/fixer.text"

sup_run
check_eq "tick 2: #7 was replaced by its restart, nothing more" \
    "$(restarts)" 1

fail_infra 8
sup_run
check_eq "the restart failed again: restarted (2/2)" "$(restarts)" 2
check_eq "counted on the first pipeline of the chain" \
    "$(cat "$RETRY/1-7" 2>/dev/null)" 2
check "no separate count for the restart" test ! -e "$RETRY/1-8"

fail_infra 9
sup_run
sup_run
check_eq "capped at 2 retries" "$(restarts)" 2
check "retries used up: alert" \
    sup_log_has "pipeline #9: infra retries used up (2/2)"

# Switched off in the project file.
printf '[monitoring]\ncheck_infra_retry = false\n' \
    >>"$FACTORY_ROOT/projects/harb.toml"
sim_post /_admin/pipeline '{"commit": "f10", "status": "failure",
    "forge_status": false, "steps": [{"name": "clone", "state": "failure",
    "exit_code": 128}]}' >/dev/null
sup_run
check_eq "check_infra_retry = false: no restart" "$(restarts)" 2
check "metrics lines are JSON objects with ts and type" python3 -c "
import json
for l in open('$METRICS'):
    m = json.loads(l)
    assert isinstance(m, dict) and m['ts'] and m['type'], l
"
