# Woodpecker trouble does not freeze dev-poll (issue 11, item 1): when
# Woodpecker answers 500, times out, refuses the token (401) or sends
# JSON of the wrong shape, the forge's commit status stands in (as
# ci-helpers.sh's ci_commit_status fell back), the trouble is logged once
# a tick and Woodpecker is not asked again that tick, and the tick still
# merges the approved green PR and launches the ready backlog issue.
# Launches are seen through a stand-in legacy agent (DEV_AGENT_CMD).
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
legacy_agent
S3=3333333333333333333333333333333333333333
S6=6666666666666666666666666666666666666666
# #1 in progress with PR 3 approved and green; #2 ready on the backlog;
# #4 with PR 6 whose CI still runs.
scen '[{"number": 1, "title": "One", "labels": ["in-progress"]},
       {"number": 2, "title": "Two", "labels": ["backlog"]},
       {"number": 4, "title": "Four"}]' \
    "[{\"number\": 3, \"title\": \"fix: One (#1)\", \"files\": [\"a.c\"],
       \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"$S3\"},
       \"reviews\": [{\"user\": \"review-bot\", \"state\": \"APPROVED\", \"commit_id\": \"$S3\"}]},
      {\"number\": 6, \"title\": \"fix: Four (#4)\", \"files\": [\"b.c\"],
       \"head\": {\"ref\": \"fix/issue-4\", \"sha\": \"$S6\"}}]" \
    "\"statuses\": {\"$S3\": {\"state\": \"success\"}, \"$S6\": {\"state\": \"pending\"}},
     \"woodpecker\": {\"repo_id\": 1, \"token\": \"wp-token\", \"pipelines\": [
       {\"number\": 1, \"commit\": \"$S3\", \"status\": \"success\"},
       {\"number\": 2, \"commit\": \"$S6\", \"status\": \"running\"}]}" \
    >"$T/case.json"

# trouble NAME [MODE [DELAY]]: Woodpecker's pipelines fail so (no MODE:
# the token is refused), for good.
trouble() {
	case_start "$T/case.json" '[ci]' 'woodpecker_repo_id = 1'
	if [ $# -ge 2 ]; then
		fault GET '/api/repos/1/pipelines' "$2" "${3:-0}"
	else
		export WOODPECKER_TOKEN=not-the-token
	fi
	# The stall on the code before: every PR's CI state was unknown and
	# the tick ended there, exit 1, nothing merged or launched.
	dp
	rc_is "$1: the first tick" 0
	check_eq "$1: the trouble is said once" \
	    "$(grep -c "Woodpecker: .* the forge's commit status stands in" "$T/tick.log")" 1
	check_eq "$1: the green PR is merged" \
	    "$(sim_state_get '[p["merged"] for p in d["pulls"] if p["number"] == 3][0]')" true
	check_eq "$1: its issue closed" \
	    "$(sim_state_get '[i["state"] for i in d["issues"] if i["number"] == 1][0]')" closed
	check_eq "$1: the running PR is not" \
	    "$(sim_state_get '[p["merged"] for p in d["pulls"] if p["number"] == 6][0]')" false
	dp
	rc_is "$1: the next tick" 0
	check_eq "$1: the trouble is said once again" \
	    "$(grep -c "Woodpecker: .* the forge's commit status stands in" "$T/tick.log")" 1
	check "$1: the running PR's state came from the forge" \
	    test "$(requests "/commits/$S6/status")" -ge 1
	check_eq "$1: the ready issue is launched" "$(launched)" 2
	export WOODPECKER_TOKEN=wp-token
}
trouble "Woodpecker 500" 500
trouble "Woodpecker timeout" delay 3
trouble "Woodpecker 401"
trouble "Woodpecker wrong JSON types" wrongtype
trouble "Woodpecker malformed JSON" badjson

# Woodpecker up: it is the CI source, the forge's status is not asked.
case_start "$T/case.json" '[ci]' 'woodpecker_repo_id = 1'
dp
rc_is "Woodpecker up" 0
lnot "Woodpecker up: no trouble said" 'Woodpecker: '
check_eq "Woodpecker up: PR 3 merged" \
    "$(sim_state_get '[p["merged"] for p in d["pulls"] if p["number"] == 3][0]')" true
check_eq "Woodpecker up: no commit status read" "$(requests "/commits/$S3/status")" 0
