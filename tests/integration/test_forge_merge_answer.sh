# A merge answered with an error although it merged (issue 19): Gitea
# merges first and then answers the failure of the branch deletion asked
# with it (404 when the branch is gone, 403 when it is protected, 500 when
# git fails; routers/api/v1/repo/pull.go MergePullRequest).  dev-poll
# reads the PR back before calling a merge failed: each of the three is a
# merge, its after-merge steps done, no refusal, no escalation, no session.
# (The forge ends the check a merge starts at once: "check_reads": 0.)
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
pr() {	# pr N ISSUE STATUS: an approved PR of ISSUE whose deletion fails
	printf '{"number": %s, "title": "fix: %s (#%s)", "user": "dev-bot",
	  "head": {"ref": "fix/issue-%s", "sha": "%040d"},
	  "reviews": [{"user": "review-bot", "state": "APPROVED",
	               "commit_id": "%040d"}],
	  "branch_delete_status": %s}' "$1" "$2" "$2" "$2" "$1" "$1" "$3"
}
scen '[{"number": 1, "title": "one", "labels": ["in-progress"]},
       {"number": 2, "title": "two", "labels": ["in-progress"]},
       {"number": 3, "title": "three", "labels": ["in-progress"]}]' \
    "[$(pr 21 1 404), $(pr 22 2 403), $(pr 23 3 500)]" \
    '"check_reads": 0' >"$T/case.json"
dev_sim "$T/case.json" '[ci]' 'woodpecker_repo_id = 0'
state() {
	sim_state_get "[i['state'] for i in d['issues'] if i['number'] == $1][0]"
}

dp
rc_is "the merges" 0
check_eq "the forge answered 404, 403 and 500 (500 asked again: 405)" \
    "$(sim_get /_admin/log | pyjson '" ".join(sorted(str(e["status"]) for e in d if e["method"] == "POST" and e["path"].endswith("/merge")))')" \
    "403 404 405 500"
check_eq "each PR read back after its answer" \
    "$(sim_log_count GET '/pulls/2[123]$')" 3
check_eq "all three merged" \
    "$(sim_state_get '" ".join(str(p["merged"]) for p in d["pulls"])')" \
    "True True True"
for n in 1 2 3; do
	check_eq "issue $n: closed, in-progress off" "$(state $n) $(labels $n)" \
	    "closed "
done
lhas "called merged" 'PR #21 merged successfully'
lnot "no merge called failed or refused" 'direct merge failed|the merge failed'
check "no refusal remembered" test -z "$(grep -l '^REFUSED' "$RUN"/dev-state-* 2>/dev/null)"
check_eq "no session, no escalation" "$(sessions)$(ls "$RUN"/*.phase 2>/dev/null)" ""
tick_twice "after the merges"
