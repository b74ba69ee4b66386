# A label removed is every label of that name on the issue: the
# repository's /labels lists its own labels only (routers/api/v1/repo/
# label.go ListLabels), an issue may carry its organisation's label of
# the same name, and Gitea allows two labels of one name in a repository.
# The merge's after-merge step takes in-progress off by the IDs the issue
# itself carries (DeleteIssueLabel takes any label's ID): none survives.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
scen '[{"number": 1, "title": "one", "labels": ["in-progress", 6, 1001, "priority"]},
       {"number": 2, "title": "two", "labels": [1001]}]' \
    '[{"number": 21, "title": "fix: one (#1)", "body": "Fixes #1",
       "head": {"ref": "fix/issue-1", "sha": "2121212121212121212121212121212121212121"},
       "reviews": [{"user": "review-bot", "state": "APPROVED",
                    "commit_id": "2121212121212121212121212121212121212121"}]}]' \
    '"org_labels": [{"id": 1001, "name": "in-progress"}]' >"$T/case.json"
python3 - "$T/case.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["labels"].append({"id": 6, "name": "in-progress"})
json.dump(d, open(sys.argv[1], "w"))
PY
dev_sim "$T/case.json" '[ci]' 'woodpecker_repo_id = 0'
ids() {	# the label IDs issue N carries, as the forge answers
	SIM_TOKEN=dev-token sim_get "/api/v1/repos/johba/harb/issues/$1/labels" |
	    pyjson '" ".join(str(l["id"]) for l in d)'
}
check_eq "the issue carries three in-progress labels" "$(ids 1)" "2 6 1001 4"
check_eq "the repository's labels: not the organisation's" \
    "$(SIM_TOKEN=dev-token sim_get /api/v1/repos/johba/harb/labels?limit=50 | pyjson '" ".join(str(l["id"]) for l in d if l["name"] == "in-progress")')" \
    "2 6"
dp
rc_is "the merge" 0
check_eq "merged" "$(sim_state_get 'str([p["merged"] for p in d["pulls"]][0])')" True
check_eq "every in-progress label removed, by its ID; priority kept" \
    "$(ids 1)" 4
check_eq "three removals" "$(requests '/issues/1/labels/(2|6|1001)$')" 3
check_eq "another issue's organisation label untouched" "$(ids 2)" 1001
