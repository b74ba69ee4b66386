# Woodpecker 2.x as it answers (issue 19): a pipeline's times are
# created_at, started_at and finished_at there (3.x: created, started,
# finished), a cancel makes a pipeline "killed" (its running steps killed
# with 137), and a step that is not of the pipeline gets 400.  A pipeline
# running for 2 hours raises the stuck alert, the "ci" metric is written,
# a failed clone within the retry window is restarted, and a canceled
# pipeline is neither a success (no merge) nor an infrastructure failure
# (no restart) nor a failure of the code.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
now=$(date +%s)
mkdir -p "${TMPDIR:-/tmp}"
scen=$(mktemp "${TMPDIR:-/tmp}/wp2.XXXXXX")
HEAD=4444444444444444444444444444444444444444
cat >"$scen" <<JSON
{
  "repo": "johba/harb",
  "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
            {"login": "review-bot", "token": "review-token", "admin": true}],
  "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"}],
  "issues": [{"number": 4, "title": "four", "labels": ["in-progress"]}],
  "pulls": [{"number": 14, "title": "fix: four (#4)", "user": "dev-bot",
             "head": {"ref": "fix/issue-4", "sha": "$HEAD"},
             "reviews": [{"user": "review-bot", "state": "APPROVED",
                          "commit_id": "$HEAD"}]}],
  "statuses": {"$HEAD": {"state": "failure"}},
  "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": [
    {"number": 2, "commit": "e2", "status": "success",
     "created": $((now - 1500)), "started": $((now - 1400)),
     "finished": $((now - 1200)), "workflows": []},
    {"number": 3, "commit": "c3", "status": "running",
     "created": $((now - 7300)), "started": $((now - 7200)),
     "finished": 0, "workflows": []},
    {"number": 5, "commit": "a5", "status": "failure",
     "created": $((now - 1000)), "started": $((now - 900)),
     "finished": $((now - 600)),
     "workflows": [{"children": [
       {"id": 510, "name": "clone", "state": "failure", "exit_code": 128}]}]},
    {"number": 6, "commit": "$HEAD", "status": "killed",
     "created": $((now - 500)), "started": $((now - 400)),
     "finished": $((now - 300)),
     "workflows": [{"children": [
       {"id": 610, "name": "test", "state": "killed", "exit_code": 137}]}]}
  ]}
}
JSON
FORGE_SIM_WOODPECKER=2
export FORGE_SIM_WOODPECKER
sup_setup "$scen"
rm -f "$scen"
METRICS=$FACTORY_ROOT/metrics/supervisor-metrics.jsonl

pipe=$(SIM_WP_TOKEN=wp-token sim_get /api/repos/1/pipelines/3)
check_eq "2.x names the times created_at, started_at, finished_at" \
    "$(echo "$pipe" | pyjson '" ".join(sorted(set(d) & {"created", "started", "finished", "created_at", "started_at", "finished_at"}))')" \
    "created_at finished_at started_at"
check_eq "2.x: a step of another pipeline is 400" \
    "$(SIM_WP_TOKEN=wp-token sim_status GET /api/repos/1/logs/3/610)" 400

sup_run
check_eq "supervisor exits 0" "$SUP_RC" 0
check "running for 2 h: the stuck alert" \
    sup_log_has "P2: harb: CI: 1 pipeline(s) running > 20 min"
check "the ci metric: the newest finished pipeline with a verdict" python3 -c "
import json
ms = [json.loads(l) for l in open('$METRICS')]
ci = [m for m in ms if m['type'] == 'ci']
assert ci == [{'ts': ci[0]['ts'], 'type': 'ci', 'project': 'harb',
    'pipeline': 5, 'duration_min': 5, 'status': 'failure'}], ci
"
check_eq "the failed clone in the retry window is restarted" \
    "$(sim_log_count POST '^/api/repos/1/pipelines/5$')" 1
check_eq "the canceled (killed) pipeline is not restarted" \
    "$(sim_log_count POST '^/api/repos/1/pipelines/6$')" 0

# The forge holds what Woodpecker reports for a killed pipeline
# ("failure"); Woodpecker's own status decides: canceled, no verdict.
PROBE=$O/tests/tools/forge-probe
API=$SIM_URL/api/v1/repos/johba/harb
"$PROBE" -W "$SIM_URL" -w wp-token -r 1 "$API" dev-token ci "$HEAD" \
    >"$T/out" 2>&1
check_eq "a killed pipeline is canceled, not a failure" "$(cat "$T/out")" \
    "state canceled pipeline 6"
"$PROBE" -W "$SIM_URL" -w wp-token -r 1 "$API" dev-token classify 6 \
    >"$T/out" 2>&1
check_eq "a canceled pipeline has no failed step and no infra failure" \
    "$(head -1 "$T/out")" "found 0 step  id 0 exit 0 infra 0"

# dev-poll: the approved PR whose pipeline was canceled is not merged,
# not restarted, and no CI fix is started for it.
. "$TOP/tests/integration/lib/dev.sh"
mkdir -p "$FACTORY_ROOT/dev" "$T/agentlog"
: >"$FACTORY_ROOT/state/.dev-active"
mem 8000
export DISINTO_MEMINFO=$T/meminfo AGENT_CMD="env FAKE_AGENT_LOG=$T/agentlog $FAKE_AGENT"
DEVLOG=$FACTORY_ROOT/dev/dev-agent-$PROJ.log
write_project '[ci]' 'woodpecker_repo_id = 1'
sim_post /_admin/log/reset '{}' >/dev/null
dp
rc_is "dev-poll with a canceled pipeline" 0
check_eq "not merged" "$(sim_log_count POST '/pulls/14/merge')" 0
check_eq "not restarted" "$(sim_log_count POST '^/api/repos/1/pipelines/')" 0
check_eq "no session started" "$(sessions)" ""
lnot "not called a CI failure" 'CI failed'
