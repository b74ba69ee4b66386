# The contract of the tools' requests (tests/forge-contract.py): every
# request the tools send is one the real servers read whole.  The check
# itself: it fails on "sort" on a repository's issue list (Gitea reads no
# sort there), on a Woodpecker page size under another name than perPage,
# on a body key or a value the server does not take and on an endpoint
# not in the table; it passes on the tools' own requests, and leaves the
# test scripts' own requests (not the tools') alone.  Every integration
# test runs its simulator log through the same check when it ends
# (contract_check in lib/common.sh).
. "$(dirname "$0")/lib/common.sh"
t_setup
CHECK="python3 $TOP/tests/forge-contract.py"
R=/api/v1/repos/o/r

# entry METHOD PATH [BODY_JSON [AGENT]]: one line of a simulator log.
entry() {
	printf '{"method": "%s", "path": "%s", "body": %s, "agent": "%s"}\n' \
	    "$1" "$2" "${3:-null}" "${4:-disinto-c}"
}

# bad NAME LINE WHY: the check fails on the one request and says WHY.
bad() {
	printf '%s\n' "$2" >"$T/log"
	if $CHECK "$T/log" >"$T/out" 2>&1; then
		fail "$1" "the check passed: $(cat "$T/out")"
	elif grep -q -- "$3" "$T/out"; then
		ok "$1"
	else
		fail "$1" "no '$3' in: $(cat "$T/out")"
	fi
}

bad "sort on the issue list is caught" \
    "$(entry GET "$R/issues?state=open&labels=backlog&type=issues&sort=oldest&limit=50&page=1")" \
    "query parameter 'sort' is not read (routers/api/v1/repo/issue.go"
bad "per_page on Woodpecker's list is caught" \
    "$(entry GET "/api/repos/1/pipelines?per_page=50&page=1")" \
    "query parameter 'per_page' is not read"
bad "a merge body key Gitea does not take is caught" \
    "$(entry POST "$R/pulls/3/merge" '{"Do": "merge", "delete_branch": true}')" \
    "body key 'delete_branch' is not accepted"
bad "a review event Gitea takes as PENDING is caught" \
    "$(entry POST "$R/pulls/3/reviews" '{"event": "APPROVE", "body": "x"}')" \
    "body 'event: \"APPROVE\"' is not a value it takes"
bad "an issue state Gitea takes as open is caught" \
    "$(entry GET "$R/issues?state=opened&limit=50&page=1")" \
    "'state=opened' is not a value it takes"
bad "page and limit on the comment list (read in one answer) are caught" \
    "$(entry GET "$R/issues/3/comments?limit=50&page=1")" \
    "query parameter 'limit' is not read"
bad "an endpoint not in the table is caught" \
    "$(entry GET "$R/topics")" "no such endpoint"
bad "a body where none is read is caught" \
    "$(entry DELETE "$R/issues/3/labels/2" '{"id": 2}')" \
    "a body is sent, none is read"

{
	entry GET "$R/issues?state=open&labels=backlog&type=issues&limit=50&page=1"
	entry GET "$R/pulls?state=closed&limit=50&page=2"
	entry POST "$R/pulls/3/merge" \
	    '{"Do": "merge", "delete_branch_after_merge": true, "head_commit_id": "ab"}'
	entry POST "$R/pulls/3/reviews" \
	    '{"body": "ok", "event": "APPROVED", "commit_id": "ab"}'
	entry PATCH "$R/issues/3" '{"state": "closed"}'
	entry GET "/api/repos/1/pipelines?perPage=50&page=1"
	entry GET "/api/repos/1/logs/7/72"
	# A test script's own request (not the tools'): not checked.
	entry GET "$R/issues?sort=oldest" null Python-urllib/3.11
} >"$T/log"
check "the tools' requests pass" $CHECK "$T/log"
if $CHECK --all "$T/log" >/dev/null 2>&1; then
	fail "--all checks the scripts' own requests too" "passed"
else
	ok "--all checks the scripts' own requests too"
fi

# The tools themselves, against the simulator: what forge-probe sends for
# the lists, a label, a comment, a review and a merge is read whole.
cat >"$T/scen.json" <<'JSON'
{"repo": "o/r",
 "users": [{"login": "dev-bot", "token": "t", "admin": true},
           {"login": "alice", "token": "a"}],
 "labels": [{"id": 1, "name": "backlog"}],
 "issues": [{"number": 1, "title": "one", "labels": ["backlog"]}],
 "pulls": [{"number": 2, "title": "two", "user": "alice"}]}
JSON
sim_start "$T/scen.json" || exit 1
"$O/tests/tools/forge-probe" "$SIM_URL$R" t issues open backlog issues + \
    pulls open + comments 1 + comment 1 hello + label-add 1 in-progress + \
    label-remove 1 backlog + review 2 APPROVED fine + merge 2 - 1 + close 1 \
    >"$T/out" 2>&1
check_eq "forge-probe ran" "$?" 0
check "the tools' requests to the simulator pass" $CHECK "$T/sim.log"
check_eq "and they were checked (the tools' agent is logged)" \
    "$(grep -c '"agent": "disinto-c' "$T/sim.log")" \
    "$(grep -c '"method"' "$T/sim.log")"
