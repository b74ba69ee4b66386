# The forge client against each dialect the simulator answers as (a brief
# sample of make test-dialects): Gitea 1.2x, Forgejo, Woodpecker 2.x and
# 3.x, a page cap of 30.  In every one the tools read the same facts: the
# whole backlog in their own order, a merged PR's branch after its
# deletion, a merge whose branch deletion failed as merged, a pipeline's
# times, a canceled pipeline as canceled, and a log that is not there.
. "$(dirname "$0")/lib/common.sh"
t_setup
PROBE=$O/tests/tools/forge-probe
API=/api/v1/repos/o/r
now=$(date +%s)
python3 - "$T" "$now" <<'EOF'
import json, sys
t, now = sys.argv[1], int(sys.argv[2])
issues = [{"number": n, "title": "issue %d" % n, "labels": ["backlog"]}
          for n in range(1, 36)]
pulls = [{"number": 40, "title": "fix: one", "state": "closed",
          "merged": True, "head": {"ref": "fix/issue-40", "sha": "a" * 40}},
         {"number": 41, "title": "fix: two", "user": "alice",
          "head": {"ref": "fix/issue-41", "sha": "b" * 40},
          "branch_delete_status": 404}]
pipelines = [
    {"number": 7, "commit": "c" * 40, "status": "canceled",
     "created": now - 300, "started": now - 200, "finished": now - 100,
     "workflows": [{"children": [
         {"id": 710, "name": "test", "state": "killed", "exit_code": 137}]}]},
    {"number": 8, "commit": "d" * 40, "status": "success",
     "created": now - 90, "started": now - 80, "finished": now - 20,
     "workflows": [{"children": [{"id": 810, "name": "test"}]}]}]
json.dump({"repo": "o/r",
           "users": [{"login": "dev-bot", "token": "t", "admin": True},
                     {"login": "alice", "token": "a"}],
           "labels": [{"id": 1, "name": "backlog"}],
           "issues": issues, "pulls": pulls,
           "woodpecker": {"repo_id": 1, "token": "w",
                          "pipelines": pipelines}},
          open(t + "/scen.json", "w"))
EOF

# dialect DIALECT WOODPECKER CAP: the same reads against that simulator.
dialect() {
	_d=$1/wp$2/cap$3
	sim_stop
	sim_start "$T/scen.json" --dialect "$1" --woodpecker "$2" \
	    --page-cap "$3" || exit 1
	"$PROBE" -W "$SIM_URL" -w w -r 1 "$SIM_URL$API" t \
	    issues open backlog issues + pulls closed + merge 41 - 1 + \
	    pulls closed + pipeline 8 + ci "$(printf 'c%.0s' $(seq 40))" + \
	    log 7 810 >"$T/out" 2>"$T/err"
	check_eq "$_d: the reads succeed" "$?" 0
	check_eq "$_d: the whole backlog, oldest first" \
	    "$(sed -n '1p;2p;36p' "$T/out" | tr '\t\n' ': ')" \
	    "count 35 1:issue 1 35:issue 35 "
	check_eq "$_d: pages read until X-Total-Count" \
	    "$(sim_log_count GET '/issues\?' 200)" \
	    $(((35 + ($3 < 50 ? $3 : 50) - 1) / ($3 < 50 ? $3 : 50)))
	check "$_d: a merged PR's branch after its deletion" \
	    grep -qx "$(printf '40\tfix/issue-40')" "$T/out"
	check "$_d: the branch deletion failed (404), the PR merged" \
	    grep -qx 'status 404 merged 1' "$T/out"
	check "$_d: the PR merged by it, found by its branch" \
	    grep -qx "$(printf '41\tfix/issue-41')" "$T/out"
	check "$_d: a pipeline's times" grep -qx \
	    "status success created $((now - 90)) started $((now - 80)) finished $((now - 20))" \
	    "$T/out"
	check "$_d: a canceled pipeline is canceled" \
	    grep -qx 'state canceled pipeline 7' "$T/out"
	check "$_d: the log of a step of another pipeline is no log" \
	    grep -qx 'no log' "$T/out"
}

dialect gitea 3 50
dialect forgejo 3 50
dialect gitea 2 50
dialect forgejo 2 30
