#!/bin/sh
# Self-tests of the forge simulator (tests/forge-sim/forge-sim.py) and of
# the fake agent (tests/fake-agent) in a private tmux server.
. "$(dirname "$0")/lib/common.sh"
t_setup

API=/api/v1/repos/johba/harb
SHA1=1111111111111111111111111111111111111111

# ---------------------------------------------------------------- pagination
# 51 plain issues (1..51), labels on every third, 1 open PR (52).
python3 - "$T/many.json" <<'EOF'
import json, sys
issues = [{"number": n, "title": "issue %d" % n,
           "labels": ["backlog"] + (["priority"] if n % 3 == 0 else [])}
          for n in range(1, 52)]
sc = {"repo": "johba/harb",
      "users": [{"login": "dev-bot", "token": "dev-token"}],
      "labels": [{"id": 1, "name": "backlog", "color": "0075ca"},
                 {"id": 2, "name": "priority", "color": "b60205"}],
      "issues": issues,
      "pulls": [{"number": 52, "title": "a pr", "user": "dev-bot",
                 "head": {"ref": "fix/issue-1", "sha": "ab" * 20}}]}
json.dump(sc, open(sys.argv[1], "w"))
EOF
# Gitea 1.2x and Woodpecker 3.x, whatever FORGE_SIM_* say (the other
# dialects have their own checks below).
unset FORGE_SIM_DIALECT FORGE_SIM_WOODPECKER FORGE_SIM_PAGE_CAP
sim_start "$T/many.json" || exit 1
SIM_TOKEN=dev-token
export SIM_TOKEN

count() {
	sim_get "$1" | pyjson 'len(d)'
}
check_eq "page 1 of 51 issues, limit 50" \
    "$(count "$API/issues?type=issues&limit=50&page=1")" 50
check_eq "page 2 of 51 issues, limit 50" \
    "$(count "$API/issues?type=issues&limit=50&page=2")" 1
check_eq "page 3 of 51 issues is empty" \
    "$(sim_get "$API/issues?type=issues&limit=50&page=3")" "[]"
check_eq "limit above 50 is capped" \
    "$(count "$API/issues?type=issues&limit=100")" 50
check_eq "default limit is 30" "$(count "$API/issues?type=issues")" 30
check_eq "issues list includes pulls by default" \
    "$(count "$API/issues?limit=50&page=2")" 2
check_eq "type=pulls" "$(sim_get "$API/issues?type=pulls" |
    pyjson '[(i["number"], i["pull_request"] is not None) for i in d]')" \
    '[[52, true]]'
check_eq "newest first" "$(sim_get "$API/issues?type=issues&limit=2" |
    pyjson '[i["number"] for i in d]')" '[51, 50]'
check_eq "sort is not read on Gitea's issue list" \
    "$(sim_get "$API/issues?type=issues&limit=2&sort=oldest" |
    pyjson '[i["number"] for i in d]')" '[51, 50]'
check_eq "labels filter needs all labels" \
    "$(count "$API/issues?labels=backlog,priority&limit=50")" 17
check_eq "unknown label name is ignored (as Gitea)" \
    "$(count "$API/issues?labels=nosuch&limit=50")" 50
check_eq "unknown label name beside a known one" \
    "$(count "$API/issues?labels=nosuch,priority&limit=50")" 17
check_eq "X-Total-Count" "$($SIMREQ -t dev-token -h X-Total-Count GET \
    "$SIM_URL$API/issues?type=issues&limit=5")" 51
# Exactly 50: close issue 51, then page 2 is empty.
sim_req PATCH "$API/issues/51" '{"state":"closed"}' >/dev/null
check_eq "exactly 50 open: page 1" \
    "$(count "$API/issues?type=issues&limit=50&page=1")" 50
check_eq "exactly 50 open: page 2 empty" \
    "$(count "$API/issues?type=issues&limit=50&page=2")" 0
check_eq "state=closed" "$(sim_get "$API/issues?state=closed" |
    pyjson '[i["number"] for i in d]')" '[51]'
check_eq "state=all" "$(count "$API/issues?state=all&type=issues&limit=50&page=2")" 1
sim_stop

# ------------------------------------------------------------------ dialects
# hdr NAME PATH: one header of the answer to GET PATH (empty when absent).
hdr() {
	$SIMREQ -t dev-token -h "$1" GET "$SIM_URL$2"
}
sim_start "$T/many.json" --dialect forgejo --page-cap 30 || exit 1
check_eq "dialect reported" "$(sim_get /_admin/dialect |
    pyjson '[d["dialect"], d["woodpecker"], d["page_cap"]]')" \
    '["forgejo", "3", 30]'
check_eq "forgejo reads sort=oldest on the issue list" \
    "$(sim_get "$API/issues?type=issues&limit=2&sort=oldest" |
    pyjson '[i["number"] for i in d]')" '[1, 2]'
check_eq "forgejo: latest first by default" \
    "$(sim_get "$API/issues?type=issues&limit=2" |
    pyjson '[i["number"] for i in d]')" '[51, 50]'
check_eq "page cap 30: limit=50 answers 30" \
    "$(count "$API/issues?type=issues&limit=50&page=1")" 30
check_eq "page cap 30: page 2 holds the next 21" \
    "$(count "$API/issues?type=issues&limit=50&page=2")" 21
check_eq "page cap 30: X-Total-Count counts the whole list" \
    "$(hdr X-Total-Count "$API/issues?type=issues&limit=50")" 51
check "Link on page 1: next and last" sh -c "$SIMREQ -t dev-token -h Link \
    GET '$SIM_URL$API/issues?type=issues&limit=50&page=1' |
    grep -q 'page=2>; rel=\"next\",.*page=2>; rel=\"last\"'"
check "Link on the last page: no next" sh -c "! $SIMREQ -t dev-token \
    -h Link GET '$SIM_URL$API/issues?type=issues&limit=50&page=2' |
    grep -q 'rel=\"next\"'"
check_eq "no Link on a one-page list" \
    "$(hdr Link "$API/issues?type=pulls&limit=50")" ""
check_eq "no Link on the label list (the count only)" \
    "$(hdr Link "$API/labels?limit=1")" ""
sim_stop

# ------------------------------------------------------------- basic scenario
sim_start "$TOP/tests/fixtures/sim-basic.json" || exit 1

check_eq "no token: 401" "$(SIM_TOKEN= sim_status GET "$API/issues")" 401
check_eq "bad token: 401" "$(SIM_TOKEN=nope sim_status GET "$API/issues")" 401
check_eq "GET /user" "$(sim_get /api/v1/user | pyjson 'd["login"]')" dev-bot
check_eq "wrong repo: 404" "$(sim_status GET /api/v1/repos/x/y/issues)" 404
check_eq "unknown issue: 404" "$(sim_status GET "$API/issues/99")" 404

# Issues: shape and edit.
check_eq "issue labels are objects" "$(sim_get "$API/issues/2" |
    pyjson '[(l["id"], l["name"], l["color"]) for l in d["labels"]]')" \
    '[[1, "backlog", "0075ca"], [4, "priority", "b60205"]]'
check_eq "issue user.login" "$(sim_get "$API/issues/1" |
    pyjson 'd["user"]["login"]')" alice
check_eq "PATCH issue: 201" "$(sim_status PATCH "$API/issues/2" \
    '{"state":"closed","title":"Fix the parser!"}')" 201
check_eq "PATCH issue: state and title" "$(sim_get "$API/issues/2" |
    pyjson '[d["state"], d["title"], d["closed_at"] is not None]')" \
    '["closed", "Fix the parser!", true]'
sim_req PATCH "$API/issues/2" '{"state":"open"}' >/dev/null
check_eq "reopen clears closed_at" "$(sim_get "$API/issues/2" |
    pyjson '[d["state"], d["closed_at"]]')" '["open", null]'

# Labels.
check_eq "labels add by id" "$(sim_post "$API/issues/1/labels" \
    '{"labels":[2,3]}' | pyjson '[l["name"] for l in d]')" \
    '["backlog", "in-progress", "blocked"]'
check_eq "labels add again is idempotent" "$(sim_post "$API/issues/1/labels" \
    '{"labels":[2]}' | pyjson 'len(d)')" 3
check_eq "label remove: 204" "$(sim_status DELETE "$API/issues/1/labels/1")" 204
check_eq "label remove not on issue: 204" \
    "$(sim_status DELETE "$API/issues/1/labels/4")" 204
check_eq "label remove unknown id: 422" \
    "$(sim_status DELETE "$API/issues/1/labels/99")" 422
check_eq "labels after remove" "$(sim_get "$API/issues/1" |
    pyjson '[l["name"] for l in d["labels"]]')" '["in-progress", "blocked"]'
check_eq "label create: 201" "$(sim_status POST "$API/labels" \
    '{"name":"underspecified","color":"#aabbcc"}')" 201
check_eq "label create duplicate name (as Gitea): 201" \
    "$(sim_status POST "$API/labels" '{"name":"underspecified","color":"aabbcc"}')" 201
check_eq "label create bad color: 422" \
    "$(sim_status POST "$API/labels" '{"name":"x","color":"zz"}')" 422
check_eq "labels list" "$(sim_get "$API/labels?limit=50" |
    pyjson '[l["name"] for l in d]')" \
    '["backlog", "blocked", "in-progress", "priority", "underspecified", "underspecified"]'

# Comments.
check_eq "comment create: 201" "$(sim_status POST "$API/issues/1/comments" \
    '{"body":"first bot comment"}')" 201
check_eq "comment author is the token user" "$(sim_get "$API/issues/1/comments" |
    pyjson '[(c["user"]["login"], c["body"]) for c in d]')" \
    '[["alice", "Please keep it short."], ["dev-bot", "first bot comment"]]'
CID=$(sim_get "$API/issues/1/comments" | pyjson 'd[1]["id"]')
check_eq "comment edit: 200" "$(sim_status PATCH "$API/issues/comments/$CID" \
    '{"body":"edited"}')" 200
check_eq "comment edit by non-poster: 403" "$(SIM_TOKEN=alice-token \
    sim_status PATCH "$API/issues/comments/$CID" '{"body":"x"}')" 403
check_eq "comment delete: 204" "$(sim_status DELETE "$API/issues/comments/$CID")" 204
check_eq "comment deleted" "$(sim_get "$API/issues/1/comments" | pyjson 'len(d)')" 1
check_eq "comments are not paginated (as Gitea)" \
    "$(sim_get "$API/issues/1/comments?limit=1&page=2" | pyjson 'len(d)')" 1
check_eq "comment on a PR via issues endpoint" "$(sim_status POST \
    "$API/issues/3/comments" '{"body":"on the pr"}')" 201
check_eq "PR comment count" "$(sim_get "$API/pulls/3" | pyjson 'd["comments"]')" 1

# Pulls.
check_eq "pull shape" "$(sim_get "$API/pulls/3" | pyjson \
    '[d["head"]["ref"], d["head"]["sha"][:4], d["base"]["ref"], d["merged"], d["mergeable"], d["user"]["login"]]')" \
    '["fix/issue-1", "1111", "master", false, true, "dev-bot"]'
check_eq "GET pulls/1 (an issue): 404" "$(sim_status GET "$API/pulls/1")" 404
check_eq "pulls list" "$(sim_get "$API/pulls?state=open" |
    pyjson '[p["number"] for p in d]')" '[3]'
check_eq "PR create: 201" "$(sim_post "$API/pulls" \
    '{"title":"fix: Fix the parser (#2)","body":"Fixes #2","head":"fix/issue-2","base":"master"}' |
    pyjson '[d["number"], d["state"], d["user"]["login"]]')" '[4, "open", "dev-bot"]'
check_eq "PR create again: 409" "$(sim_status POST "$API/pulls" \
    '{"title":"again","head":"fix/issue-2","base":"master"}')" 409
check_eq "PR is an issue too" "$(sim_get "$API/issues/4" |
    pyjson 'd["pull_request"]["merged"]')" false
check_eq "PR files" "$(sim_get "$API/pulls/3/files" |
    pyjson '[(f["filename"], f["status"]) for f in d]')" '[["README.md", "changed"]]'
check_eq "PR diff is text" "$(sim_get "$API/pulls/3.diff" | head -1)" \
    "diff --git a/README.md b/README.md"

# Reviews.
check_eq "reviews list" "$(sim_get "$API/pulls/3/reviews" |
    pyjson '[(r["state"], r["stale"], r["dismissed"], r["commit_id"][:4]) for r in d]')" \
    '[["APPROVED", false, false, "1111"]]'
check_eq "review approve own PR: 422" "$(sim_status POST "$API/pulls/3/reviews" \
    '{"event":"APPROVED","body":"ok"}')" 422
check_eq "review REQUEST_CHANGES without body: 422" "$(SIM_TOKEN=review-token \
    sim_status POST "$API/pulls/3/reviews" '{"event":"REQUEST_CHANGES"}')" 422
check_eq "review REQUEST_CHANGES: 200" "$(SIM_TOKEN=review-token sim_post \
    "$API/pulls/3/reviews" "{\"event\":\"REQUEST_CHANGES\",\"body\":\"fix it\",\"commit_id\":\"$SHA1\"}" |
    pyjson '[d["state"], d["user"]["login"], d["body"]]')" \
    '["REQUEST_CHANGES", "review-bot", "fix it"]'
RID=$(sim_get "$API/pulls/3/reviews" | pyjson 'd[-1]["id"]')
check_eq "review dismiss by non-admin: 403" "$(SIM_TOKEN=alice-token \
    sim_status POST "$API/pulls/3/reviews/$RID/dismissals" '{"message":"x"}')" 403
check_eq "review dismiss: 200" "$(SIM_TOKEN=review-token sim_post \
    "$API/pulls/3/reviews/$RID/dismissals" '{"message":"superseded"}' |
    pyjson 'd["dismissed"]')" true
check_eq "COMMENT review" "$(SIM_TOKEN=review-token sim_post \
    "$API/pulls/3/reviews" '{"event":"COMMENT","body":"hm"}' | pyjson 'd["state"]')" COMMENT
check_eq "unknown event is PENDING (as Gitea)" "$(SIM_TOKEN=review-token sim_post \
    "$API/pulls/3/reviews" '{"event":"APPROVE","body":"hm"}' | pyjson 'd["state"]')" PENDING
check_eq "PENDING reviews are hidden from others" "$(SIM_TOKEN=alice-token \
    sim_get "$API/pulls/3/reviews" | pyjson '[r["state"] for r in d]')" \
    '["APPROVED", "REQUEST_CHANGES", "COMMENT"]'
check_eq "COMMENT review without body: 422" "$(SIM_TOKEN=review-token \
    sim_status POST "$API/pulls/3/reviews" '{"event":"COMMENT"}')" 422

# Combined status.
check_eq "combined status success" "$(sim_get "$API/commits/$SHA1/status" |
    pyjson '[d["state"], d["total_count"], d["statuses"][0]["status"]]')" \
    '["success", 1, "success"]'
check_eq "combined status of unknown sha" "$(sim_get "$API/commits/ffff/status" |
    pyjson '[d["state"], d["total_count"], d["statuses"]]')" '["", 0, null]'
check_eq "status create: 201" "$(sim_status POST "$API/statuses/$SHA1" \
    '{"state":"failure","context":"lint","target_url":"http://x"}')" 201
check_eq "combined status is the worst" "$(sim_get "$API/commits/$SHA1/status" |
    pyjson '[d["state"], d["total_count"]]')" '["failure", 2]'
check_eq "status create bad state: 422" "$(sim_status POST "$API/statuses/$SHA1" \
    '{"state":"great"}')" 422

# Merge.
check_eq "merge without Do: 422" "$(sim_status POST "$API/pulls/3/merge" '{}')" 422
check_eq "merge stale head: 409" "$(sim_status POST "$API/pulls/3/merge" \
    '{"Do":"merge","head_commit_id":"2222222222222222222222222222222222222222"}')" 409
sim_post /_admin/item '{"number":3,"mergeable":false}' >/dev/null
check_eq "merge not mergeable: 405" "$(sim_status POST "$API/pulls/3/merge" \
    "{\"Do\":\"merge\",\"head_commit_id\":\"$SHA1\"}")" 405
sim_post /_admin/item '{"number":3,"mergeable":true}' >/dev/null
check_eq "merge: 200" "$(sim_status POST "$API/pulls/3/merge" \
    "{\"Do\":\"merge\",\"head_commit_id\":\"$SHA1\",\"delete_branch_after_merge\":true}")" 200
check_eq "merged PR state" "$(sim_get "$API/pulls/3" |
    pyjson '[d["merged"], d["state"], d["merged_at"] is not None, d["merged_by"]["login"]]')" \
    '[true, "closed", true, "dev-bot"]'
check_eq "merge again: 405" "$(sim_status POST "$API/pulls/3/merge" '{"Do":"merge"}')" 405
check_eq "merged branch deleted" "$(sim_status GET "$API/branches/fix/issue-1")" 404
check_eq "reopen merged PR: 412" "$(sim_status PATCH "$API/issues/3" '{"state":"open"}')" 412
check_eq "branch get" "$(sim_get "$API/branches/fix/issue-2" | pyjson 'd["name"]')" fix/issue-2
check_eq "branch delete: 204" "$(sim_status DELETE "$API/branches/fix/issue-2")" 204
check_eq "branch delete again: 404" "$(sim_status DELETE "$API/branches/fix/issue-2")" 404
check_eq "default branch delete: 403" "$(sim_status DELETE "$API/branches/master")" 403

# Woodpecker.
SIM_WP_TOKEN=wp-token
export SIM_WP_TOKEN
check_eq "woodpecker without token: 401" "$(SIM_WP_TOKEN= SIM_TOKEN= \
    sim_status GET /api/repos/1/pipelines)" 401
check_eq "woodpecker pipelines" "$(sim_get /api/repos/1/pipelines |
    pyjson '[(p["number"], p["status"], p["commit"][:4]) for p in d]')" \
    '[[7, "failure", "1111"]]'
check_eq "woodpecker pipeline steps" "$(sim_get /api/repos/1/pipelines/7 |
    pyjson '[(c["id"], c["pid"], c["name"], c["exit_code"]) for w in d["workflows"] for c in w["children"]]')" \
    '[[71, 2, "clone", 0], [72, 3, "test", 1]]'
check_eq "woodpecker log data is base64" "$(sim_get /api/repos/1/logs/7/72 |
    pyjson '"|".join(__import__("base64").b64decode(e["data"]).decode() for e in d)')" \
    "running tests|FAIL: parser_test|exit 1"
check_eq "woodpecker log by pid: 404" "$(sim_status GET /api/repos/1/logs/7/3)" 404
check_eq "woodpecker unknown pipeline: 404" "$(sim_status GET /api/repos/1/pipelines/99)" 404
check_eq "woodpecker restart" "$(sim_post /api/repos/1/pipelines/7 '' |
    pyjson '[d["number"], d["status"], d["parent"], d["commit"][:4]]')" \
    '[8, "pending", 7, "1111"]'
check_eq "woodpecker list newest first" "$(sim_get '/api/repos/1/pipelines?page=1&perPage=1' |
    pyjson '[p["number"] for p in d]')" '[8]'
check_eq "woodpecker reads no per_page (50 a page)" \
    "$(sim_get '/api/repos/1/pipelines?page=1&per_page=1' |
    pyjson '[p["number"] for p in d]')" '[8, 7]'
check_eq "woodpecker 3: times named created, started, finished" \
    "$(sim_get /api/repos/1/pipelines/7 |
    pyjson 'sorted(set(d) & {"created", "started", "finished", "created_at"})')" \
    '["created", "finished", "started"]'

# Admin conveniences.
check_eq "admin comment" "$(sim_post /_admin/comment \
    '{"issue":1,"user":"alice","body":"human reply"}' | pyjson 'd["user"]["login"]')" alice
check_eq "admin status" "$(sim_post /_admin/status '{"sha":"cafe","state":"pending"}' |
    pyjson 'd["state"]')" pending
check_eq "admin pipeline" "$(sim_post /_admin/pipeline \
    '{"commit":"cafe","status":"success","steps":[{"name":"test","log":["ok"]}]}' |
    pyjson '[d["number"], d["status"]]')" '[9, "success"]'
check_eq "admin pipeline sets the forge status" \
    "$(sim_get "$API/commits/cafe/status" | pyjson 'd["state"]')" success
STEP=$(sim_get /api/repos/1/pipelines/9 | pyjson 'd["workflows"][0]["children"][0]["id"]')
check_eq "admin pipeline log" "$(sim_get /api/repos/1/logs/9/$STEP | pyjson 'len(d)')" 1
check_eq "admin push moves the PR head" "$(sim_post /_admin/push \
    '{"branch":"fix/issue-2","sha":"beef"}' >/dev/null
    sim_get "$API/pulls/4" | pyjson 'd["head"]["sha"]')" beef
check_eq "admin set (merge patch)" "$(sim_post /_admin/set \
    '{"woodpecker":{"token":"wp2"}}' | pyjson 'd["woodpecker"]["token"]')" wp2
check_eq "old woodpecker token now rejected" "$(sim_status GET /api/repos/1/pipelines)" 401
check "admin state" sim_get /_admin/state
check_eq "GET repo" "$(sim_get "$API" | pyjson '[d["full_name"], d["default_branch"]]')" '["johba/harb", "master"]'

# Request log.
N=$(sim_get /_admin/log | pyjson 'len(d)')
check_eq "log file has one line per request" "$(wc -l <"$T/sim.log" | tr -d ' ')" "$N"
check_eq "log counts POST merges" "$(sim_log_count POST '/pulls/3/merge$')" 5
check_eq "log counts by status" "$(sim_log_count POST '/pulls/3/merge$' 200)" 1
check_eq "log entry fields" "$(sim_get /_admin/log | pyjson \
    '[(e["method"], e["user"], e["status"], e["body"]) for e in d if e["path"].endswith("/issues/1/comments") and e["method"] == "POST"][0]')" \
    '["POST", "dev-bot", 201, {"body": "first bot comment"}]'
check_eq "log seq increases" "$(sim_get /_admin/log |
    pyjson 'all(b["seq"] == a["seq"] + 1 for a, b in zip(d, d[1:]))')" true
sim_post /_admin/log/reset '{}' >/dev/null
check_eq "log reset" "$(sim_get /_admin/log)" "[]"

# Faults.
fault '{"method":"GET","path":"/issues/1$","mode":"500","count":1}'
check_eq "fault 500" "$(sim_status GET "$API/issues/1")" 500
check_eq "fault 500 is used up" "$(sim_status GET "$API/issues/1")" 200
fault '{"method":"*","path":"/issues/1$","mode":"404","count":2}'
check_eq "fault 404 (count 2)" "$(sim_status GET "$API/issues/1") $(sim_status GET \
    "$API/issues/1") $(sim_status GET "$API/issues/1")" "404 404 200"
fault '{"method":"GET","path":"/issues/1$","mode":"badjson","count":1}'
check_eq "fault badjson" "$(sim_get "$API/issues/1")" '{"x":'
fault '{"method":"GET","path":"/labels","mode":"wrongtype","count":1}'
check_eq "fault wrongtype: object for array" "$(sim_get "$API/labels" |
    pyjson 'type(d).__name__')" dict
fault '{"method":"GET","path":"/issues/1$","mode":"wrongtype","count":1}'
check_eq "fault wrongtype: string numbers" "$(sim_get "$API/issues/1" |
    pyjson 'type(d["number"]).__name__')" str
fault '{"method":"GET","path":"/issues/1$","mode":"truncate","count":1}'
check_eq "fault truncate" "$(sim_status GET "$API/issues/1")" 000
fault '{"method":"GET","path":"/issues/1$","mode":"delay","count":1,"delay":1.5}'
t0=$(python3 -c 'import time; print(time.time())')
st=$(sim_status GET "$API/issues/1")
dt=$(python3 -c "import time; print(int(time.time() - $t0 >= 1.4))")
check_eq "fault delay" "$st $dt" "200 1"
check_eq "faulted requests are logged with the mode" "$(sim_get /_admin/log |
    pyjson '[e.get("fault") for e in d if "fault" in e]')" \
    '["500", "404", "404", "badjson", "wrongtype", "wrongtype", "truncate", "delay"]'
fault '{"method":"*","path":".","mode":"500","count":0}'
sim_post /_admin/faults/clear '{}' >/dev/null
check_eq "faults clear" "$(sim_status GET "$API/issues/1")" 200

# wrongtype on one field of one item; the other items are as they were.
fault '{"method":"GET","path":"/issues\\?","mode":"wrongtype","field":"title","item":2}'
check_eq "fault wrongtype: one field of one item" "$(sim_get "$API/issues?type=issues" |
    pyjson '[type(i["title"]).__name__ for i in sorted(d, key=lambda i: i["number"])]')" \
    '["str", "list"]'
fault '{"method":"GET","path":"/pulls/3$","mode":"wrongtype","field":"head.sha"}'
check_eq "fault wrongtype: a nested field" "$(sim_get "$API/pulls/3" |
    pyjson '[type(d["head"]["sha"]).__name__, type(d["head"]["ref"]).__name__]')" \
    '["list", "str"]'
fault '{"method":"GET","path":"/pulls/3$","mode":"wrongtype","field":"head.sha","remove":true}'
check_eq "fault wrongtype: a field left out" "$(sim_get "$API/pulls/3" |
    pyjson '"sha" in d["head"]')" false
fault '{"method":"GET","path":"/issues/1$","mode":"wrongtype","field":"number","value":1.5}'
check_eq "fault wrongtype: a given value" "$(sim_get "$API/issues/1" |
    pyjson 'd["number"]')" 1.5
check_eq "fault wrongtype: used up" "$(sim_get "$API/issues/1" | pyjson 'd["number"]')" 1

# 502once: the first request of each key (method, path with query) is
# answered 502 without being handled, the next ones normally.
ncom() {
	sim_state_get "len([c for i in d['issues'] if i['number'] == $1 for c in i['comments']])"
}
n0=$(ncom 1)
fault '{"method":"*","path":"/issues/[12]$|/issues/1/comments$","mode":"502once","count":0}'
check_eq "502once: first of each key 502, then handled" \
    "$(sim_status GET "$API/issues/1") $(sim_status GET "$API/issues/1") $(sim_status GET "$API/issues/2") $(sim_status GET "$API/issues/1")" \
    "502 200 502 200"
check_eq "502once: a refused write is not applied, its retry is" \
    "$(sim_status POST "$API/issues/1/comments" '{"body": "once"}') $(ncom 1) $(sim_status POST "$API/issues/1/comments" '{"body": "once"}') $(ncom 1)" \
    "502 $n0 201 $((n0 + 1))"
check_eq "502once: only the 502s are logged as faults" "$(sim_get /_admin/log |
    pyjson '[(e["status"], e.get("fault")) for e in d[-6:]]')" \
    '[[502, "502once"], [200, null], [502, "502once"], [200, null], [502, "502once"], [201, null]]'
faults_clear

# hang: no answer within the client's patience and the request is not
# handled; stall: handled at once, the answer comes after the client gave
# up.
n0=$(ncom 1)
fault '{"method":"POST","path":"/issues/1/comments$","mode":"hang","count":1,"delay":1}'
check_eq "hang: the client times out" \
    "$($SIMREQ -T 0.3 -s -t dev-token POST "$SIM_URL$API/issues/1/comments" '{"body": "hung"}')" 000
sleep 1.2
check_eq "hang: the write was never applied" "$(ncom 1)" "$n0"
check_eq "hang: logged with status 0" "$(sim_get /_admin/log |
    pyjson '[(e["status"], e.get("fault")) for e in d][-1]')" '[0, "hang"]'
fault '{"method":"POST","path":"/issues/1/comments$","mode":"stall","count":1,"delay":1}'
check_eq "stall: the client times out" \
    "$($SIMREQ -T 0.3 -s -t dev-token POST "$SIM_URL$API/issues/1/comments" '{"body": "stalled"}')" 000
check_eq "stall: the write was applied before the client gave up" \
    "$(ncom 1)" "$((n0 + 1))"
check_eq "stall: logged with the write's status" "$(sim_get /_admin/log |
    pyjson '[(e["status"], e.get("fault")) for e in d][-1]')" '[201, "stall"]'
check_eq "stall: a patient client gets the answer" \
    "$(fault '{"method":"GET","path":"/issues/2$","mode":"stall","count":1,"delay":0.5}'
      sim_status GET "$API/issues/2")" 200
faults_clear

# Reset: the scenario's state, an empty log, no fault.
sim_req PATCH "$API/issues/2" '{"title": "changed"}' >/dev/null
fault '{"method":"*","path":".","mode":"500","count":0}'
sim_post /_admin/reset '{}' >/dev/null
check_eq "reset: the scenario's state again" \
    "$(sim_get "$API/issues/2" | pyjson 'd["title"]') $(ncom 1)" \
    "Fix the parser 1"
check_eq "reset: no fault, the log restarts" \
    "$(sim_get /_admin/log | pyjson '[(e["seq"], e["status"]) for e in d]')" \
    '[[1, 200]]'
sim_req PATCH "$API/issues/2" '{"title": "kept"}' >/dev/null
sim_post /_admin/checkpoint '{}' >/dev/null
sim_req PATCH "$API/issues/2" '{"title": "lost"}' >/dev/null
sim_post /_admin/reset '{}' >/dev/null
check_eq "reset after a checkpoint: the checkpoint's state" \
    "$(sim_state_get '[i["title"] for i in d["issues"] if i["number"] == 2][0]')" \
    kept

# Keep-alive: three requests on one connection, each fully read.
check_eq "keep-alive connection reuse" "$(python3 - "$SIM_PORT" "$API" <<'EOF'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
out = []
socks = set()
for path in ("/issues/1", "/issues/2", "/labels"):
    c.request("GET", sys.argv[2] + path, headers={"Authorization": "token dev-token"})
    r = c.getresponse()
    r.read()
    out.append(str(r.status))
    socks.add(id(c.sock))
print(" ".join(out), len(socks) == 1)
EOF
)" "200 200 200 True"
sim_stop

# -------------------------------------------------------------- --git-dir
G=$T/git
git init -q --bare "$G/origin.git"
git init -q "$G/work"
(
	cd "$G/work" &&
	git -c user.name=t -c user.email=t@t commit -q --allow-empty -m init &&
	git branch -M master &&
	git remote add origin "$G/origin.git" &&
	git push -q origin master &&
	git checkout -q -b fix/issue-1 &&
	git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one &&
	git push -q origin fix/issue-1
) || fail "git fixture"
HEAD1=$(git --git-dir="$G/origin.git" rev-parse refs/heads/fix/issue-1)
sim_start "$TOP/tests/fixtures/sim-basic.json" --git-dir "$G/origin.git" || exit 1
check_eq "git-dir: PR head follows the repo" \
    "$(sim_get "$API/pulls/3" | pyjson 'd["head"]["sha"]')" "$HEAD1"
(cd "$G/work" && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m two &&
    git push -q origin fix/issue-1)
HEAD2=$(git --git-dir="$G/origin.git" rev-parse refs/heads/fix/issue-1)
check_eq "git-dir: head moves after a push" \
    "$(sim_get "$API/pulls?state=open" | pyjson 'd[0]["head"]["sha"]')" "$HEAD2"
check_eq "git-dir: PR create needs the branch" "$(sim_status POST "$API/pulls" \
    '{"title":"t","head":"nosuch","base":"master"}')" 404
(cd "$G/work" && git checkout -q -b fix/issue-2 &&
    git -c user.name=t -c user.email=t@t commit -q --allow-empty -m three &&
    git push -q origin fix/issue-2)
HEAD3=$(git --git-dir="$G/origin.git" rev-parse refs/heads/fix/issue-2)
check_eq "git-dir: PR create takes the head from the repo" "$(sim_post "$API/pulls" \
    '{"title":"t2","head":"fix/issue-2","base":"master"}' | pyjson 'd["head"]["sha"]')" "$HEAD3"
check_eq "git-dir: merge with the old head: 409" "$(sim_status POST "$API/pulls/3/merge" \
    "{\"Do\":\"merge\",\"head_commit_id\":\"$HEAD1\"}")" 409
check_eq "git-dir: merge: 200" "$(sim_status POST "$API/pulls/3/merge" \
    "{\"Do\":\"merge\",\"head_commit_id\":\"$HEAD2\",\"delete_branch_after_merge\":true}")" 200
check "git-dir: merged branch ref deleted" sh -c \
    "! git --git-dir='$G/origin.git' rev-parse --verify -q refs/heads/fix/issue-1"
check_eq "git-dir: branch endpoint reads the repo" \
    "$(sim_get "$API/branches/fix/issue-2" | pyjson 'd["commit"]["id"]')" "$HEAD3"
sim_stop

# -------------------------------------------------------------- fake agent
A=$T/agent
mkdir -p "$A/log"
printf 'Fix issue #1: "quoted" and '"'"'single'"'"'\n$(rm -rf /) and `uname`\n\ttab\tseparated\n\\backslash ${HOME}\nlast line\n' >"$A/prompt.txt"
cat >"$A/script.json" <<EOF
[
  {"on": "start", "write": "$A/started", "text": "yes"},
  {"phase": "PHASE:awaiting_ci", "reason": "pushed"},
  [{"say": "second prompt seen"}, {"exit": 3}]
]
EOF
FAKE_AGENT_LOG=$A/log FAKE_AGENT_PHASE_FILE=$A/dev-session-p-1.phase
export FAKE_AGENT_LOG FAKE_AGENT_PHASE_FILE
t_tmux new-session -d -s t -x 200 -y 50 \
    "cd '$A' && '$FAKE_AGENT' --script '$A/script.json'; echo exited \$? >'$A/rc'; sleep 30"
pane() {
	t_tmux capture-pane -p -t t
}
check "fake agent shows the ready glyph" wait_for 'pane | grep -q "❯"' 10
check_eq "start step ran" "$(cat "$A/started" 2>/dev/null)" yes
t_tmux load-buffer -b b "$A/prompt.txt"
t_tmux paste-buffer -p -t t -b b
t_tmux send-keys -t t Enter
check "prompt 1 received" wait_for '[ -f "$A/log/prompt-1.txt" ]' 10
check "prompt 1 is byte-identical" cmp "$A/prompt.txt" "$A/log/prompt-1.txt"
check "pane shows the prompt was received" wait_for \
    'pane | grep -q "prompt 1 received"' 5
check "phase step wrote the phase file" wait_for '[ -f "$FAKE_AGENT_PHASE_FILE" ]' 5
check_eq "phase file content" "$(cat "$FAKE_AGENT_PHASE_FILE")" \
    "PHASE:awaiting_ci
Reason: pushed"
t_tmux send-keys -t t 'typed text' Enter
check "typed prompt received" wait_for '[ -f "$A/log/prompt-2.txt" ]' 10
check_eq "typed prompt content" "$(cat "$A/log/prompt-2.txt")" "typed text"
check "exit step ends the agent with its code" wait_for \
    'grep -q "exited 3" "$A/rc"' 10
check "say step shows on the pane" sh -c \
    "tmux -L '$DISINTO_TMUX_SOCKET' capture-pane -p -t t | grep -q 'second prompt seen'"

# Second agent: paths learned from the prompt, commit and push to a bare
# repository, summary file, capture placeholders.
B=$T/agent2
mkdir -p "$B/log" "$B/run/sessions/active/t2"	# as a launch makes it
git init -q --bare "$B/origin.git"
git clone -q "$B/origin.git" "$B/wt" 2>/dev/null
(cd "$B/wt" && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m init &&
    git push -q origin HEAD:master)
cat >"$B/script.json" <<EOF2
[
  [{"commit": {"file": "README.md", "text": "hello\n", "message": "docs: add README"}},
   {"push": "fix/issue-7"},
   {"capture": "review output: (?P<out>\\\\S+)", "write": "{out}", "text": "{\"verdict\": \"APPROVE\"}"},
   {"summary": "Added a README."},
   {"phase": "PHASE:done"}, {"idle": true}]
]
EOF2
printf 'Work on issue #7.\nWrite your phase to %s and the summary to %s.\nreview output: %s\n' \
    "$B/run/sessions/active/dev-p-7/dev-session-p-7.phase" "$B/run/sessions/active/dev-p-7/dev-impl-summary-p-7.txt" "$B/out.json" \
    >"$B/prompt.txt"
# The tmux server keeps the environment it started with: pass new values.
t_tmux new-session -d -s t2 -x 200 -y 50 -e FAKE_AGENT_LOG="$B/log" \
    -e FAKE_AGENT_PHASE_FILE= -e FAKE_AGENT_IDLE_MARKER="$B/run/sessions/active/t2/claude-idle-t2.ts" \
    "cd '$B/wt' && '$FAKE_AGENT' --script '$B/script.json' --model x; sleep 30"
check "agent 2 ready" wait_for \
    "tmux -L '$DISINTO_TMUX_SOCKET' capture-pane -p -t t2 | grep -q '❯'" 10
t_tmux load-buffer -b b2 "$B/prompt.txt"
t_tmux paste-buffer -p -t t2 -b b2
t_tmux send-keys -t t2 Enter
check "agent 2: phase file from the prompt path" wait_for \
    '[ -f "$B/run/sessions/active/dev-p-7/dev-session-p-7.phase" ]' 10
check_eq "agent 2: phase" "$(cat "$B/run/sessions/active/dev-p-7/dev-session-p-7.phase" 2>/dev/null)" PHASE:done
check_eq "agent 2: summary" "$(cat "$B/run/sessions/active/dev-p-7/dev-impl-summary-p-7.txt" 2>/dev/null)" \
    "Added a README."
check_eq "agent 2: captured path written" "$(cat "$B/out.json" 2>/dev/null)" \
    '{"verdict": "APPROVE"}'
check_eq "agent 2: pushed commit" "$(git --git-dir="$B/origin.git" log -1 \
    --format=%s refs/heads/fix/issue-7 2>/dev/null)" "docs: add README"
check "agent 2: prompt saved" cmp "$B/prompt.txt" "$B/log/prompt-1.txt"
check "agent 2: idle marker touched" wait_for '[ -f "$B/run/sessions/active/t2/claude-idle-t2.ts" ]' 5
