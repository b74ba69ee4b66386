# Bad answers on every endpoint dev-poll reads: 500s, a timeout,
# malformed JSON, wrong JSON types and truncated bodies.  What depends on
# the missing data is left untouched (no forge write, no merge, no
# claim) and what failed is logged; what does not depend on it still
# happens, and the tick exits 1 all the same ("degraded": a decision was
# "unknown"), its cause in the log; Woodpecker's trouble, for which the
# forge's commit status stands in, is no failure.  Once the forge answers again, the
# same tick acts.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
S3=3333333333333333333333333333333333333333
S4=4444444444444444444444444444444444444444

# only_fault METHOD PATH_REGEX MODE [DELAY]: this fault alone, on a
# fresh request log.
only_fault() {
	faults_clear
	sim_post /_admin/log/reset '{}' >/dev/null
	fault "$@"
}

# expect_safe NAME LOG_REGEX: the tick failed, said why, changed nothing.
expect_safe() {
	rc_is "$1" 1
	lhas "$1: logged" "$2"
	check_eq "$1: no forge write" \
	    "$(sim_get /_admin/log | pyjson 'len([e for e in d if e["method"] != "GET"])')" 0
}

# Merges: PR 3 is green in Woodpecker, PR 4 changes only docs and has
# no CI at all; both approved.
scen '[{"number": 1, "title": "One", "labels": ["in-progress"]},
       {"number": 2, "title": "Two", "labels": ["in-progress"]}]' \
    "[{\"number\": 3, \"title\": \"fix: One (#1)\", \"files\": [\"a.c\"],
       \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"$S3\"},
       \"reviews\": [{\"user\": \"review-bot\", \"state\": \"APPROVED\", \"commit_id\": \"$S3\"}]},
      {\"number\": 4, \"title\": \"docs (#2)\", \"files\": [\"docs/a.md\"],
       \"head\": {\"ref\": \"docs\", \"sha\": \"$S4\"},
       \"reviews\": [{\"user\": \"review-bot\", \"state\": \"APPROVED\", \"commit_id\": \"$S4\"}]}]" \
    "\"woodpecker\": {\"repo_id\": 1, \"token\": \"wp-token\", \"pipelines\": [{\"number\": 1, \"commit\": \"$S3\", \"status\": \"success\"}]}" \
    >"$T/merge.json"

# merge_fault NAME PATH_REGEX MODE LOG_REGEX PR RC [DELAY]: on a fresh
# simulator, the read at PATH_REGEX fails: PR is not merged, the tick
# says why and exits RC (1: the other PR, whose data arrived, is merged
# all the same, but a decision was "unknown"; 0 when Woodpecker failed
# and the forge's commit status stood in: no decision was unknown).
merge_fault() {
	case_start "$T/merge.json" '[ci]' 'woodpecker_repo_id = 1'
	only_fault GET "$2" "$3" "${7:-0}"
	dp
	rc_is "$1" "$6"
	lhas "$1: logged" "$4"
	check_eq "$1: PR #$5 not merged" "$(requests "/pulls/$5/merge")" 0
}

# other_merged NAME PR: the PR whose data arrived was merged all the same.
other_merged() {
	check_eq "$1: PR #$2 merged all the same" \
	    "$(sim_state_get "[p['merged'] for p in d['pulls'] if p['number'] == $2][0]")" true
}

for mode in 500 badjson wrongtype truncate; do
	merge_fault "open PRs, $mode" '/pulls[?]state=open' $mode \
	    'cannot read the open PRs' 3 1
	check_eq "open PRs, $mode: no forge write" "$(writes)" 0
done
# Woodpecker's trouble: the forge's commit status stands in (PR 3 has
# none there, so it waits).
for mode in 500 badjson wrongtype; do
	merge_fault "Woodpecker pipelines, $mode" '/api/repos/1/pipelines' \
	    $mode "Woodpecker: .* the forge's commit status stands in" 3 0
	other_merged "Woodpecker pipelines, $mode" 4
done
for mode in 500 badjson truncate; do
	merge_fault "commit status, $mode" "/commits/$S4/status" $mode \
	    'cannot read the CI state of PR #4' 4 1
	other_merged "commit status, $mode" 3
done
for mode in 500 badjson wrongtype; do
	merge_fault "reviews, $mode" '/pulls/3/reviews' $mode \
	    'cannot read the reviews of PR #3' 3 1
	other_merged "reviews, $mode" 4
	merge_fault "changed files, $mode" '/pulls/4/files' $mode \
	    'cannot read the files of PR #4' 4 1
	other_merged "changed files, $mode" 3
done
merge_fault "reviews, timeout" '/pulls/3/reviews' delay \
    'cannot read the reviews of PR #3: .*(timed out|Timeout)' 3 1 3
check "a degraded tick: its result in the metrics" \
    grep -q 'result="degraded"} [1-9]' "$FACTORY_ROOT/metrics/dev-poll-proj.prom"
lhas "a degraded tick: the cause, by the setting" \
    'GET .*/pulls/3/reviews.*(timed out|Timeout)|forge unreachable at FORGE_URL=.*reviews'

sim_post /_admin/faults/clear '{}' >/dev/null
dp
rc_is "merges once the forge answers" 0
check_eq "both PRs merged then" \
    "$(sim_state_get '[p["merged"] for p in d["pulls"]]')" '[true, true]'

# Scheduling and launch reads: #10 is ready (its dependency #11 is
# closed) and would be claimed.
unset DEV_AGENT_CMD AGENT_SANDBOX
scen '[{"number": 10, "title": "Ready", "labels": ["backlog"],
        "body": "Depends on #11."},
       {"number": 11, "title": "Done", "state": "closed"}]' '[]' \
    >"$T/case.json"
case_start
for mode in 500 badjson wrongtype truncate; do
	only_fault GET 'labels=in-progress' $mode
	dp
	expect_safe "in-progress issues, $mode" "cannot read the open 'in-progress' issues"
	only_fault GET 'labels=backlog' $mode
	dp
	expect_safe "backlog issues, $mode" "cannot read the open 'backlog' issues"
done
for mode in 500 badjson; do
	only_fault GET '/issues/11$' $mode
	dp
	expect_safe "dependency, $mode" 'cannot read issue #11'
	only_fault GET '/issues/10/comments' $mode
	dp
	expect_safe "issue comments, $mode" 'cannot read the comments of #10'
	only_fault GET '/api/v1/user$' $mode
	dp
	expect_safe "token user, $mode" "cannot read the token's user"
	only_fault GET 'state=closed' $mode
	dp
	expect_safe "closed PRs, $mode" 'cannot read the closed PRs'
done
sim_post /_admin/faults/clear '{}' >/dev/null
dp --dry-run
rc_is "launch reads once the forge answers" 0
lhas "then the issue would be claimed" "dry-run: would add label 'in-progress' to #10"
