# The forge, Woodpecker and CI clients against the forge simulator, driven
# through tests/tools/forge-probe: pagination and the per-run cache, label
# find-or-create, PR creation and 409 adoption, merge answers, retries and
# every kind of failed read, Woodpecker logs and CI classification.
set -u
. "$(dirname "$0")/lib/common.sh"
t_setup

PROBE=$O/tests/tools/forge-probe
TOKEN=sekrit-dev-token-4711
WPTOKEN=sekrit-wp-token-0815

# The scenario: 120 open issues (and 5 closed), labels, PRs, statuses and
# Woodpecker pipelines with logs.
python3 - "$T/scenario.json" "$TOKEN" "$WPTOKEN" <<'EOF'
import json, sys
path, token, wptoken = sys.argv[1:4]
issues = [{"number": n, "title": "issue %d" % n,
           "labels": ["backlog"] if n % 2 else []} for n in range(1, 121)]
issues += [{"number": n, "title": "old %d" % n, "state": "closed"}
           for n in range(121, 126)]
pulls = [
    {"number": 200, "title": "fix: thing (#1)", "head": {"ref": "fix/issue-1",
     "sha": "a" * 40}, "files": ["src/a.c", "docs/x.md"]},
    {"number": 201, "title": "docs only", "head": {"ref": "fix/issue-2",
     "sha": "b" * 40}, "files": ["docs/a.txt", "README.md"],
     "diff": "diff --git a/README.md b/README.md\n" + "+line\n" * 200},
    {"number": 202, "title": "stuck", "head": {"ref": "fix/issue-3",
     "sha": "c" * 40}, "mergeable": False},
]
pipelines = [
    {"number": 5, "commit": "a" * 40, "status": "failure",
     "workflows": [{"name": "woodpecker", "children": [
         {"id": 501, "name": "clone", "state": "success"},
         {"id": 502, "name": "test", "state": "failure", "exit_code": 1}]}]},
    {"number": 6, "commit": "a" * 40, "status": "success",
     "workflows": [{"children": [{"id": 601, "name": "test"}]}]},
    {"number": 7, "commit": "d" * 40, "status": "failure",
     "workflows": [{"children": [
         {"id": 701, "name": "build", "state": "failure", "exit_code": 2},
         {"id": 702, "name": "push", "state": "failure",
          "exit_code": 1}]}]},
    {"number": 8, "commit": "e" * 40, "status": "failure",
     "workflows": [{"children": [
         {"id": 801, "name": "test", "state": "killed",
          "exit_code": 137}]}]},
    # Canceled while it ran (Woodpecker 2.x: the pipeline "killed", its
    # running step killed with 137): no verdict, no infra failure.
    {"number": 4, "commit": "b" * 40, "status": "killed",
     "workflows": [{"children": [
         {"id": 401, "name": "test", "state": "killed",
          "exit_code": 137}]}]},
]
logs = {
    "5/502": ["running tests", "FAIL: test_parse", "assertion failed"],
    "7/701": ["compiling", "error: undefined reference"],
    "7/702": ["pushing image",
              "Get https://registry/v2/: net/http: TLS handshake timeout"],
}
ci_url = "http://ci/repos/1/pipeline/"
scen = {
    "repo": "owner/proj",
    "users": [{"login": "dev-bot", "token": token, "admin": True}],
    "labels": [{"name": "backlog"}, {"name": "in-progress"}],
    "issues": issues, "pulls": pulls,
    "statuses": {
        "a" * 40: {"statuses": [{"status": "success", "context": "ci",
                                 "target_url": ci_url + "6"}]},
        "f" * 40: {"statuses": [{"status": "failure", "context": "ci",
                                 "target_url": ci_url + "9"}]},
    },
    "woodpecker": {"repo_id": 1, "token": wptoken, "pipelines": pipelines,
                   "logs": logs},
}
json.dump(scen, open(path, "w"))
EOF

sim_start "$T/scenario.json" || { fail "simulator starts"; exit 1; }
API=$SIM_URL/api/v1/repos/owner/proj
SIM_TOKEN=$TOKEN
export SIM_TOKEN

# probe NAME ARGS...: run forge-probe with short timeouts, stdout in
# $T/out, stderr in $T/err; the exit status is returned.
probe() {
	"$PROBE" -c 2000 -t 5000 -n 3 -b 20 -W "$SIM_URL" -w "$WPTOKEN" \
	    -r 1 "$@" >"$T/out" 2>"$T/err"
}

# no_token NAME: the secrets appear nowhere in the probe's output.
no_token() {
	if grep -q -e "$TOKEN" -e "$WPTOKEN" "$T/out" "$T/err"; then
		fail "$1: no token in messages" "$(cat "$T/err")"
	else
		ok "$1: no token in messages"
	fi
}

# expect_fail NAME TEXT ARGS...: the probe fails, says TEXT on stderr,
# prints no partial result and leaks no token.
expect_fail() {
	_n=$1 _t=$2
	shift 2
	if probe "$@"; then
		fail "$_n fails" "exit 0: $(cat "$T/out")"
	elif ! grep -qF -- "$_t" "$T/err"; then
		fail "$_n fails" "stderr lacks '$_t': $(cat "$T/err")"
	elif grep -q '^count ' "$T/out"; then
		fail "$_n fails" "a list was printed anyway"
	else
		ok "$_n fails"
	fi
	no_token "$_n"
}

# item_field N KEY: field KEY of issue or PR N in the simulator state.
item_field() {
	sim_state_get "[i['$2'] for i in d['issues'] + d['pulls']
	    if i['number'] == $1][0]"
}

# label_colors NAME: the colours of the labels called NAME.
label_colors() {
	sim_state_get "[l['color'] for l in d['labels'] if l['name'] == '$1']"
}

reset_log() {
	sim_post /_admin/log/reset '{}' >/dev/null
	sim_post /_admin/faults/clear '{}' >/dev/null
}


# --- pagination and the per-run cache -------------------------------------
# The forge's pages: limit=50 asked, its page cap ([api] MAX_RESPONSE_ITEMS
# of the simulator's dialect) answered.
CAP=$(sim_get /_admin/dialect | pyjson 'd["page_cap"]')
PER=$((CAP < 50 ? CAP : 50))
PAGES=$(((120 + PER - 1) / PER))
reset_log
probe "$API" "$TOKEN" issues open - issues + issues open - issues + \
    count
check_eq "120 open issues over pages" "$(grep -c '^count 120$' "$T/out")" 2
check_eq "every issue once" \
    "$(grep -c '^[0-9]*	issue [0-9]*$' "$T/out")" 240
check_eq "one GET per page" "$(sim_log_count GET '/issues\?' 200)" "$PAGES"
check_eq "the last page asked once" \
    "$(sim_log_count GET "/issues\\?.*limit=50&page=$PAGES\$")" 1
check_eq "no page after it (X-Total-Count)" \
    "$(sim_log_count GET "page=$((PAGES + 1))")" 0
check_eq "request counter" "$(grep '^requests ' "$T/out")" \
    "requests $PAGES"

# --- lists visited page by page, nothing kept --------------------------------
reset_log
probe "$API" "$TOKEN" issues open - issues + issues-each open - issues
check_eq "visited by pages: every issue of the list" \
    "$(sed -n '2,121p' "$T/out" | sort | md5sum)" \
    "$(sed -n '122,241p' "$T/out" | sort | md5sum)"
check_eq "the list in the tools' order (oldest first), the visit in the forge's" \
    "$(sed -n '2p;121p' "$T/out" | cut -f1 | tr '\n' ' ')$(sed -n '122p;241p' "$T/out" | cut -f1 | tr '\n' ' ')" \
    "1 120 120 1 "
check_eq "visited by pages: 120 seen" "$(tail -1 "$T/out")" "seen 120"
reset_log
probe "$API" "$TOKEN" issues-each open - issues + issues-each open - issues
check_eq "a visit is not cached: every page twice" \
    "$(sim_log_count GET '/issues\?' 200)" $((2 * PAGES))
reset_log
probe "$API" "$TOKEN" issues-each open - issues 10
check_eq "a visit stopped after 10: one page read" \
    "$(sim_log_count GET '/issues\?' 200) $(tail -1 "$T/out")" "1 seen 10"
reset_log
fault '{"method":"GET","path":"/issues\\?.*page=2","mode":"500","count":20}'
if probe "$API" "$TOKEN" issues-each open - -; then
	fail "visit: second page lost fails" "exit 0"
else
	check "visit: second page lost fails, naming the page" \
	    grep -q 'page=2' "$T/err"
	check_eq "visit: the first page was seen, no total" \
	    "$(grep -c '^seen' "$T/out") $(grep -c '^[0-9]' "$T/out")" "0 $PER"
fi
reset_log
probe "$API" "$TOKEN" issues open - -
all=$(sed -n 's/^count //p' "$T/out")
fault '{"method":"GET","path":"/issues\\?","mode":"wrongtype","field":"title","item":14,"count":0}'
probe "$API" "$TOKEN" issues-each open - -
faults_clear
check_eq "visit: one bad issue among good ones left out" \
    "$(tail -1 "$T/out") $(grep -c "^14	" "$T/out") $(grep -c "^15	issue 15$" "$T/out")" \
    "seen $((all - 1)) 0 1"

reset_log
probe "$API" "$TOKEN" issues closed - - + issues all backlog issues
check_eq "closed issues" "$(grep -c '^12[1-5]	old' "$T/out")" 5
check_eq "label filter" "$(grep '^count' "$T/out" | tail -1)" "count 60"

reset_log
probe "$API" "$TOKEN" issue 7 + issue 7 + close 7 + issue 7
check_eq "write refreshes cached reads" "$(cat "$T/out")" \
    "$(printf 'open\tissue 7\nopen\tissue 7\nclosed\tissue 7')"
check_eq "GET again only after a write" "$(sim_log_count GET '/issues/7$')" 2
check_eq "close is a PATCH" "$(item_field 7 state)" closed

# --- labels ---------------------------------------------------------------
reset_log
probe "$API" "$TOKEN" label-id blocked create + label-id blocked create + \
    label-id priority - + label-id backlog -
BLOCKED_ID=$(sed -n '1s/^id //p' "$T/out")
check_eq "label created once" "$(sim_log_count POST '/labels$' 201)" 1
check_eq "label id cached" "$(sed -n 2p "$T/out")" "id $BLOCKED_ID"
check_eq "missing label not created" "$(sed -n 3p "$T/out")" none
check_eq "existing label found" "$(sed -n 4p "$T/out")" "id 1"
check_eq "blocked colour" "$(label_colors blocked)" '["e11d48"]'
probe "$API" "$TOKEN" label-id blocked create
check_eq "found by a later run" "$(cat "$T/out")" "id $BLOCKED_ID"
check_eq "still one blocked label" \
    "$(sim_state_get 'len([l for l in d["labels"] if l["name"]=="blocked"])')" 1

reset_log
probe "$API" "$TOKEN" label-add 4 in-progress + label-remove 4 backlog + \
    label-remove 4 backlog + label-remove 4 never-such
check_eq "labels added and removed" "$?" 0
check_eq "issue 4 labels" "$(item_field 4 labels)" '["in-progress"]'
probe "$API" "$TOKEN" label-add 5 priority
check_eq "priority colour" "$(label_colors priority)" '["f59e0b"]'

# --- comments -------------------------------------------------------------
probe "$API" "$TOKEN" comment 9 'first note' + comments 9
CID=$(sed -n '1s/^id //p' "$T/out")
check_eq "comment listed" "$(grep -c "^$CID	first note$" "$T/out")" 1
probe "$API" "$TOKEN" comment-edit "$CID" 'edited note' + comments 9
check_eq "comment edited" "$(grep -c "^$CID	edited note$" "$T/out")" 1

# --- pull requests --------------------------------------------------------
probe "$API" "$TOKEN" pull-create 'fix: new (#10)' 'Fixes #10' fix/issue-10 \
    master
NEWPR=$(sed -n 's/^created //p' "$T/out")
check "PR created" test -n "$NEWPR"
probe "$API" "$TOKEN" pull-create 'fix: new (#10)' 'Fixes #10' fix/issue-10 \
    master
check_eq "409 adopts the open PR" "$(cat "$T/out")" "exists $NEWPR"
check_eq "409 answered" "$(sim_log_count POST '/pulls$' 409)" 1

probe "$API" "$TOKEN" files 200 + files 201
check_eq "code PR needs CI" "$(grep -c '^need-ci 1$' "$T/out")" 1
check_eq "docs PR needs none" "$(grep -c '^need-ci 0$' "$T/out")" 1
probe "$API" "$TOKEN" diff 201 100
check_eq "diff capped" "$(head -1 "$T/out")" "truncated 1"
check_eq "diff bytes" "$(tail -n +2 "$T/out" | wc -c)" 100
probe "$API" "$TOKEN" diff 201 100000
check_eq "diff whole" "$(head -1 "$T/out")" "truncated 0"

probe "$API" "$TOKEN" review 200 REQUEST_CHANGES 'please fix' + reviews 200
RID=$(sed -n '1s/^id //p' "$T/out")
check_eq "review listed" "$(grep -c "^$RID	REQUEST_CHANGES$" "$T/out")" 1
reset_log
probe "$API" "$TOKEN" reviews 200 + reviews 200 + forget reviews 200 + \
    reviews 200 + files 200 + forget files 200 + files 200 + forget files 9
check_eq "forget: the cached reviews dropped and read again" \
    "$(sim_log_count GET '/pulls/200/reviews') $(grep -c "^$RID	REQUEST_CHANGES$" "$T/out")" "2 3"
check_eq "forget: the changed files read again" \
    "$(sim_log_count GET '/pulls/200/files')" 2
probe "$API" "$TOKEN" dismiss 200 "$RID" superseded
check_eq "review dismissed" \
    "$(sim_state_get "[r['dismissed'] for p in d['pulls']
	for r in p['reviews'] if r.get('id') == $RID]")" '[true]'

# --- merges ---------------------------------------------------------------
probe "$API" "$TOKEN" merge 200 "$(printf '9%.0s' $(seq 40))" 1
check_eq "stale head refused" "$(head -1 "$T/out")" "status 409 merged 0"
probe "$API" "$TOKEN" merge 200 "$(printf 'a%.0s' $(seq 40))" 1
check_eq "merged" "$(head -1 "$T/out")" "status 200 merged 1"
check_eq "branch deleted on merge" \
    "$(sim_state_get '"fix/issue-1" in d["branches"]')" false
probe "$API" "$TOKEN" merge 200 - 1
check_eq "405 when merged already" "$(head -1 "$T/out")" \
    "status 405 merged 1"
probe "$API" "$TOKEN" merge 202 - 0
check_eq "405 when not mergeable" "$(head -1 "$T/out")" \
    "status 405 merged 0"
check "405 message kept" grep -q '^message HTTP 405.*try again later' "$T/out"

probe "$API" "$TOKEN" branch-delete fix/issue-3 + branch-delete fix/issue-3
check_eq "branch delete idempotent" "$?" 0
check_eq "branch gone" "$(sim_state_get '"fix/issue-3" in d["branches"]')" \
    false

probe "$API" "$TOKEN" user
check_eq "current user" "$(cat "$T/out")" "login dev-bot"

# An object keeps only the fields of its table (the forge sends many more).
probe "$API" "$TOKEN" issue-keys 5
check_eq "issue pruned to the fields read" "$(sort "$T/out" | tr '\n' ' ')" \
    "body closed_at created_at labels number pull_request state title updated_at user.login "
check "the simulator sends more" sh -c \
    "$SIMREQ -t $TOKEN GET '$API/issues/5' | grep -q html_url"

# --- retries and failed reads ---------------------------------------------
reset_log
fault '{"method":"GET","path":"/issues/11$","mode":"500","count":2}'
probe "$API" "$TOKEN" issue 11
check_eq "500 retried then read" "$(cat "$T/out")" "$(printf 'open\tissue 11')"
check_eq "three attempts" "$(sim_log_count GET '/issues/11$')" 3

reset_log
fault '{"method":"GET","path":"/issues\\?","mode":"500","count":20}'
expect_fail "permanent 500" \
    "HTTP 500 from 'GET /api/v1/repos/owner/proj/issues" \
    "$API" "$TOKEN" issues open - -
check_eq "bounded attempts" "$(sim_log_count GET '/issues\?')" 3

reset_log
fault '{"method":"GET","path":"/issues/12$","mode":"delay","delay":1,"count":5}'
"$PROBE" -t 300 -n 2 -b 10 "$API" "$TOKEN" issue 12 >"$T/out" 2>"$T/err"
rc=$?
check_eq "timeout is a failure" "$rc" 1
check "timeout named" grep -qi 'timed out.*issues/12' "$T/err"
# The simulator logs a delayed request once its delay is over.
sleep 1.2
check_eq "timeout retried for a GET" "$(sim_log_count GET '/issues/12$')" 2
no_token "timeout"

reset_log
fault '{"method":"GET","path":"/issues\\?","mode":"truncate","count":20}'
expect_fail "truncated body" "transfer closed" "$API" "$TOKEN" issues open - -

# An answer that is no HTTP (bytes an earlier answer left on a reused
# connection): another attempt on a fresh connection, for a read and for
# a DELETE.
reset_log
fault '{"method":"GET","path":"/issues/12$","mode":"nothttp","count":1}'
probe "$API" "$TOKEN" issue 12
check_eq "no HTTP: a GET tried again" "$?" 0
check_eq "no HTTP: two GETs" "$(sim_log_count GET '/issues/12$')" 2
fault '{"method":"DELETE","path":"/issues/12/labels/","mode":"nothttp","count":1}'
probe "$API" "$TOKEN" label-remove 12 backlog
check_eq "no HTTP: a DELETE tried again" "$?" 0
fault '{"method":"POST","path":"/issues/12/comments$","mode":"nothttp","count":1}'
probe "$API" "$TOKEN" comment 12 once
check_eq "no HTTP: a POST that was sent is not sent again" "$?" 1
check_eq "no HTTP: one POST" "$(sim_log_count POST '/issues/12/comments$')" 1

reset_log
fault '{"method":"GET","path":"/issues\\?","mode":"badjson","count":20}'
expect_fail "bad JSON" "malformed JSON" "$API" "$TOKEN" issues open - -

reset_log
fault '{"method":"GET","path":"/issues\\?","mode":"wrongtype","count":20}'
expect_fail "object for a list" "expected an array, got an object" \
    "$API" "$TOKEN" issues open - -

reset_log
fault '{"method":"GET","path":"/issues\\?.*page=2","mode":"500","count":20}'
expect_fail "second page lost" "page=2" "$API" "$TOKEN" issues open - -

# A field of the wrong type is an error for its object, never an empty
# string or 0: a single object fails the call, naming the field; an
# element of a list is left out and the others are there.
reset_log
fault '{"method":"GET","path":"/issues/13$","mode":"wrongtype","count":1}'
expect_fail "issue with wrong types" "issue: 'number' is a string, not an integer" \
    "$API" "$TOKEN" issue 13
fault '{"method":"GET","path":"/issues/13$","mode":"wrongtype","field":"title"}'
expect_fail "issue title an array" "issue: 'title' is an array, not a string" \
    "$API" "$TOKEN" issue 13
fault '{"method":"GET","path":"/pulls/200$","mode":"wrongtype","field":"head.sha"}'
expect_fail "PR head.sha an array" "PR: 'head.sha' is an array, not a string" \
    "$API" "$TOKEN" pull 200
fault '{"method":"GET","path":"/pulls/200$","mode":"wrongtype","field":"number","value":200.5}'
expect_fail "PR number not an integer" "PR: 'number' is a number, not an integer" \
    "$API" "$TOKEN" pull 200
probe "$API" "$TOKEN" issues open - -
before=$(sed -n 1p "$T/out")
fault '{"method":"GET","path":"/issues\\?","mode":"wrongtype","field":"title","item":14,"count":0}'
probe "$API" "$TOKEN" issues open - -
faults_clear
check_eq "one bad issue among good ones: left out" \
    "$before $(sed -n 1p "$T/out") $(grep -c "^14	" "$T/out") $(grep -c "^15	issue 15$" "$T/out")" \
    "count 122 count 121 0 1"
probe "$API" "$TOKEN" pulls open
before=$(cut -f1 "$T/out" | tr '\n' ' ')
fault '{"method":"GET","path":"/pulls\\?","mode":"wrongtype","field":"head.sha","item":202}'
probe "$API" "$TOKEN" pulls open
check_eq "one bad PR among good ones: left out" \
    "$before/ $(cut -f1 "$T/out" | tr '\n' ' ')" "count 3 203 202 201 / count 2 203 201 "
fault '{"method":"GET","path":"/pulls\\?","mode":"wrongtype","field":"head.sha","item":202}'
probe "$API" "$TOKEN" pulls-each open
check_eq "visit: one bad PR among good ones left out" \
    "$(cut -f1 "$T/out" | tr '\n' ' ')" "203 201 seen 2 "
fault '{"method":"GET","path":"/api/repos/1/pipelines\\?","mode":"wrongtype","field":"commit","item":6}'
probe "$API" "$TOKEN" ci "$(printf 'a%.0s' $(seq 40))"
check_eq "one bad pipeline among good ones: left out" "$(cat "$T/out")" \
    "state failure pipeline 5"
fault '{"method":"GET","path":"/api/repos/1/pipelines/5$","mode":"wrongtype","field":"workflows"}'
expect_fail "pipeline with a bad workflow list" \
    "pipeline: 'workflows' is an object, not an array" "$API" "$TOKEN" pipeline 5

"$PROBE" -m 1000 "$API" "$TOKEN" issues open - - >"$T/out" 2>"$T/err"
check_eq "body over the cap fails" "$?" 1
check "cap named" grep -q 'over 1000 bytes' "$T/err"

expect_fail "wrong token" "HTTP 401" "$API" "not-$TOKEN" issue 1
expect_fail "missing issue" \
    "HTTP 404 from 'GET /api/v1/repos/owner/proj/issues/999'" \
    "$API" "$TOKEN" issue 999
expect_fail "refused connection" "127.0.0.1:1" \
    "http://127.0.0.1:1/api/v1/repos/owner/proj" "$TOKEN" issue 1
expect_fail "credentials in the URL" "http://127.0.0.1:1/" \
    "http://user:$TOKEN@127.0.0.1:1/api/v1/repos/owner/proj" "$TOKEN" issue 1

reset_log
fault '{"method":"POST","path":"/issues/14/comments","mode":"500","count":1}'
probe "$API" "$TOKEN" comment 14 'after a 500'
check_eq "POST retried after a 500" \
    "$(sim_log_count POST '/issues/14/comments$')" 2
reset_log
fault '{"method":"POST","path":"/issues/15/comments","mode":"delay",
    "delay":1,"count":1}'
"$PROBE" -t 300 -n 3 -b 10 "$API" "$TOKEN" comment 15 'slow' \
    >"$T/out" 2>"$T/err"
check_eq "POST timeout fails" "$?" 1
sleep 1.2
check_eq "POST not repeated after a timeout" \
    "$(sim_log_count POST '/issues/15/comments$')" 1

# --- Woodpecker and CI ----------------------------------------------------
probe "$API" "$TOKEN" log 5 502
check_eq "log decoded" "$(cat "$T/out")" \
    "$(printf 'running tests\nFAIL: test_parse\nassertion failed')"
probe "$API" "$TOKEN" log 5 502 0 1
check_eq "log tail" "$(cat "$T/out")" "assertion failed"
probe "$API" "$TOKEN" log 5 999
check_eq "missing log" "$(cat "$T/out")" "no log"

probe "$API" "$TOKEN" classify 5
check_eq "code failure" "$(head -1 "$T/out")" \
    "found 1 step test id 502 exit 1 infra 0"
check "code failure log tail" grep -q '^assertion failed$' "$T/out"
reset_log
probe "$API" "$TOKEN" classify 7
check_eq "infra failure by log" "$(head -1 "$T/out")" \
    "found 1 step push id 702 exit 1 infra 1"
check "infra reason" grep -q "^reason step 'push' log shows" "$T/out"
check_eq "logs asked by step id" "$(sim_log_count GET '/logs/7/70[12]$')" 2
probe "$API" "$TOKEN" classify 8
check_eq "infra failure by exit 137" "$(head -1 "$T/out")" \
    "found 1 step test id 801 exit 137 infra 1"
probe "$API" "$TOKEN" classify 6
check_eq "nothing failed" "$(head -1 "$T/out")" \
    "found 0 step  id 0 exit 0 infra 0"
probe "$API" "$TOKEN" classify 4
check_eq "a canceled (killed) pipeline: no failed step, no infra" \
    "$(head -1 "$T/out")" "found 0 step  id 0 exit 0 infra 0"
fault '{"method":"GET","path":"/logs/5/502","mode":"500","count":10}'
expect_fail "unreadable log" "HTTP 500" "$API" "$TOKEN" classify 5
sim_post /_admin/faults/clear '{}' >/dev/null

probe "$API" "$TOKEN" ci "$(printf 'a%.0s' $(seq 40))"
check_eq "woodpecker: latest pipeline wins" "$(cat "$T/out")" \
    "state success pipeline 6"
probe "$API" "$TOKEN" ci "$(printf 'e%.0s' $(seq 40))"
check_eq "woodpecker: a killed step in a failed pipeline" "$(cat "$T/out")" \
    "state failure pipeline 8"
probe "$API" "$TOKEN" ci "$(printf 'b%.0s' $(seq 40))"
check_eq "woodpecker: a killed (canceled) pipeline is canceled" \
    "$(cat "$T/out")" "state canceled pipeline 4"
probe "$API" "$TOKEN" ci "$(printf 'f%.0s' $(seq 40))"
check_eq "forge status fallback" "$(cat "$T/out")" "state failure pipeline 9"
probe "$API" "$TOKEN" ci "$(printf '0%.0s' $(seq 40))"
check_eq "no status at all" "$(cat "$T/out")" "state none pipeline 0"
"$PROBE" "$API" "$TOKEN" ci "$(printf 'a%.0s' $(seq 40))" >"$T/out" 2>&1
check_eq "no woodpecker: forge status" "$(cat "$T/out")" \
    "state success pipeline 6"
fault '{"method":"GET","path":"/api/repos/1/pipelines\\?","mode":"500",
    "count":10}'
# Woodpecker down: the forge's status stands in (ci_commit_status did so).
probe "$API" "$TOKEN" ci "$(printf 'a%.0s' $(seq 40))"
check_eq "woodpecker down: the forge's status stands in" "$(cat "$T/out")" \
    "state success pipeline 6"
fault '{"method":"GET","path":"/commits/.*/status","mode":"badjson","count":10}'
"$PROBE" -n 1 "$API" "$TOKEN" ci "$(printf 'f%.0s' $(seq 40))" \
    >"$T/out" 2>"$T/err"
check_eq "forge status unreadable is unknown" "$?" 1
sim_post /_admin/faults/clear '{}' >/dev/null

probe "$API" "$TOKEN" restart 5 + pipelines
check_eq "restart gives a new pipeline" "$(head -1 "$T/out")" "new 9"
check_eq "restart seen by the list" "$(sed -n 3p "$T/out")" \
    "$(printf '9\tpending')"
