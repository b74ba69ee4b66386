# supervisor-poll on the backlog and open PRs: dependency cycles (2 and 3
# issues; self-reference ignored; each reported once), dependencies open
# for more than 30 days, the "dev" metric, and PR checks (merge conflict
# with green CI, failed CI untouched > 30 min, green CI without a review
# for > 60 min: review-poll started; a PR that changes only non-code files
# needs no CI, as dev-poll and review-poll have it), with check_prs
# honoured.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
iso() {	# iso SECONDS_AGO
	date -u -d "@$(( $(date +%s) - $1 ))" +%Y-%m-%dT%H:%M:%SZ
}
scen=$(mktemp "${TMPDIR:-/tmp}/sup-backlog.XXXXXX")
old=$(iso 7200)
cat >"$scen" <<JSON
{
  "repo": "johba/harb",
  "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
            {"login": "review-bot", "token": "review-token", "admin": true}],
  "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "blocked"},
             {"id": 3, "name": "in-progress"}],
  "issues": [
    {"number": 10, "title": "a", "labels": ["backlog"],
     "body": "## Dependencies\n- #11\n"},
    {"number": 11, "title": "b", "labels": ["backlog"],
     "body": "This depends on #10."},
    {"number": 20, "title": "c", "labels": ["backlog"], "body": "Blocked by #21"},
    {"number": 21, "title": "d", "labels": ["backlog"], "body": "Depends on #22"},
    {"number": 22, "title": "e", "labels": ["backlog"],
     "body": "## Blocked by\n- #20\n"},
    {"number": 30, "title": "f", "labels": ["backlog"], "body": "Depends on #30"},
    {"number": 40, "title": "g", "labels": ["backlog"], "body": "Depends on #41"},
    {"number": 41, "title": "An old dependency nobody finished",
     "created_at": "$(iso 5184000)", "labels": []},
    {"number": 42, "title": "h", "labels": ["backlog"], "body": "Depends on #43"},
    {"number": 43, "title": "recent", "created_at": "$(iso 432000)",
     "labels": []},
    {"number": 44, "title": "stuck", "labels": ["blocked"]}
  ],
  "pulls": [
    {"number": 50, "head": {"ref": "fix/issue-70", "sha": "5050505050505050505050505050505050505050"},
     "mergeable": false, "updated_at": "$old"},
    {"number": 51, "head": {"ref": "fix/issue-71", "sha": "5151515151515151515151515151515151515151"},
     "updated_at": "$old"},
    {"number": 52, "head": {"ref": "fix/issue-72", "sha": "5252525252525252525252525252525252525252"},
     "updated_at": "$old"},
    {"number": 53, "head": {"ref": "fix/issue-73", "sha": "5353535353535353535353535353535353535353"},
     "updated_at": "$old", "comments": [{"user": "review-bot",
       "body": "## AI Review\n<!-- reviewed: 5353535353535353535353535353535353535353 -->"}]},
    {"number": 54, "head": {"ref": "fix/issue-74", "sha": "5454545454545454545454545454545454545454"},
     "updated_at": "$old", "reviews": [{"user": "review-bot",
       "state": "APPROVED", "body": "ok"}]},
    {"number": 55, "head": {"ref": "fix/issue-75", "sha": "5555555555555555555555555555555555555555"},
     "updated_at": "$(iso 600)"},
    {"number": 56, "head": {"ref": "fix/issue-76", "sha": "5656565656565656565656565656565656565656"},
     "updated_at": "$old", "files": ["docs/guide.md", "README.md"]},
    {"number": 57, "head": {"ref": "fix/issue-77", "sha": "5757575757575757575757575757575757575757"},
     "updated_at": "$old", "files": ["docs/guide.md"]},
    {"number": 58, "head": {"ref": "fix/issue-78", "sha": "5858585858585858585858585858585858585858"},
     "updated_at": "$(iso 2400)", "files": ["docs/guide.md"]},
    {"number": 59, "head": {"ref": "fix/issue-79", "sha": "5959595959595959595959595959595959595959"},
     "draft": true, "updated_at": "$(iso 600)"}
  ],
  "statuses": {
    "5050505050505050505050505050505050505050": {"state": "success"},
    "5151515151515151515151515151515151515151": {"state": "failure"},
    "5252525252525252525252525252525252525252": {"state": "success"},
    "5353535353535353535353535353535353535353": {"state": "success"},
    "5454545454545454545454545454545454545454": {"state": "success"},
    "5555555555555555555555555555555555555555": {"state": "success"},
    "5656565656565656565656565656565656565656": {"state": "failure"},
    "5757575757575757575757575757575757575757": {"state": "pending"},
    "5858585858585858585858585858585858585858": {"state": "pending"},
    "5959595959595959595959595959595959595959": {"state": "success"}
  },
  "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": []}
}
JSON
sup_setup "$scen"
rm -f "$scen"
METRICS=$FACTORY_ROOT/metrics/supervisor-metrics.jsonl

sup_run
check_eq "tick exits 0" "$SUP_RC" 0
check_eq "2-cycle reported once" \
    "$(sup_log_count 'dependency cycle, none can start: #10 -> #11 -> #10')" 1
check_eq "3-cycle reported once" \
    "$(sup_log_count 'dependency cycle, none can start: #20 -> #21 -> #22 -> #20')" 1
check_eq "no other cycle (self-reference ignored)" \
    "$(sup_log_count 'dependency cycle, none')" 2
check "stale dependency reported" sup_log_has \
    'stale dependency: #40 waits on #41 (open 60 days)'
check "the fix command gets no issue title" \
    sh -c "grep -q 'waits on #41' '$T/fixer.text' &&
    ! grep -q 'An old dependency' '$T/fixer.text'"
check_eq "a recent dependency is not stale" \
    "$(sup_log_count 'waits on #43')" 0
check "dev metric counts" python3 -c "
import json
ms = [json.loads(l) for l in open('$METRICS')]
dev = [m for m in ms if m['type'] == 'dev']
assert len(dev) == 1 and dev[0]['project'] == 'harb', dev
assert (dev[0]['issues_in_backlog'], dev[0]['issues_blocked'],
    dev[0]['pr_open']) == (8, 1, 10), dev
"
# "mergeable": false is a conflict, or a check still going on after a
# merge to the base (models/issues/pull.go Mergeable): the first run
# notes it; a draft (also not mergeable) is no conflict at all.
check_eq "not mergeable, seen the first time: no conflict alert yet" \
    "$(sup_log_count 'PR #50: CI green but a merge conflict')" 0
check "not mergeable: noted with its head" \
    grep -q '^50 5050505050505050505050505050505050505050 [0-9]*$' \
    "$DISINTO_RUN_DIR/supervisor-unmergeable-harb"
check_eq "a draft is no conflict" "$(sup_log_count 'PR #59')" 0
check "failed CI untouched" \
    sup_log_has "P3: harb: PR #51: CI failure, untouched for 120 min"
check "green without review" \
    sup_log_has "P3: harb: PR #52: CI green, no review for 120 min"
check_eq "reviewed PRs and a fresh one are not reported" \
    "$(grep -cE 'PR #(53|54|55)' "$SUP_LOG")" 0
# Only non-code files: CI is not needed (common/world/pulls.c, the rule
# all three tools apply), so a failure is no alert and the PR waits for
# its review; its files are read only once it is idle long enough.
check_eq "non-code PR: its CI failure is no alert" \
    "$(sup_log_count 'PR #56: CI failure')" 0
check "non-code PR, CI failed: no review for 120 min" \
    sup_log_has "P3: harb: PR #56: only non-code files (no CI needed), no review for 120 min"
check "non-code PR, CI pending: no review for 120 min" \
    sup_log_has "P3: harb: PR #57: only non-code files (no CI needed), no review for 120 min"
check_eq "non-code PR idle 40 min: nothing yet, its files not read" \
    "$(sup_log_count 'PR #58') $(sim_log_count GET '/pulls/58/files')" "0 0"
wait_for '[ -s "$T/review-poll.calls" ]' 5
check_eq "review-poll started once, for the project" \
    "$(cat "$T/review-poll.calls")" \
    "review-poll $FACTORY_ROOT/projects/harb.toml"
check_eq "the supervisor writes nothing to the forge here" \
    "$(sim_log_count '(POST|PATCH|DELETE)' '^/api/v1/')" 0

# Still not mergeable at that head ten minutes later: a conflict.
sed -i "s/^\(50 [0-9a-f]*\) [0-9]*$/\1 $(($(date +%s) - 601))/" \
    "$DISINTO_RUN_DIR/supervisor-unmergeable-harb"
: >"$SUP_LOG"
sup_run
check "conflict with green CI, not mergeable for ten minutes" \
    sup_log_has "P3: harb: PR #50: CI green but a merge conflict"
check_eq "the draft: still no conflict" "$(sup_log_count 'PR #59')" 0

printf '[monitoring]\ncheck_prs = false\n' \
    >>"$FACTORY_ROOT/projects/harb.toml"
: >"$SUP_LOG"
sup_run
check_eq "check_prs = false: no PR alerts" "$(sup_log_count 'PR #')" 0
check_eq "check_prs = false: cycles still checked" \
    "$(sup_log_count 'dependency cycle, none')" 2
