#!/bin/sh
# The combined commit status by the server's own rule: dev-poll reads the
# forge's version (GET /version) and combines a head's statuses itself, so
# that "CI passed" is what that server shows.  Gitea up to 1.22 and
# Forgejo: the worst state, a `warning` context makes it `warning`, not
# passed (no merge); Gitea 1.23 on: `warning` and `skipped` count as
# success (merged).  A head with more contexts than one page of /status:
# every context is read from /statuses and combined, never the server's
# state over the first page.  Run as the dialect FORGE_SIM_DIALECT says
# (gitea, the default: 1.22; gitea-1.23; forgejo), see Makefile DIALECTS.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git

S3=3333333333333333333333333333333333333333
S4=4444444444444444444444444444444444444444
S5=5555555555555555555555555555555555555555
S6=6666666666666666666666666666666666666666

# ctxs N LAST: N contexts, success but the last, which is LAST.
ctxs() {
	python3 - "$1" "$2" <<'PY'
import json, sys
n, last = int(sys.argv[1]), sys.argv[2]
print(json.dumps([{"context": "ci/check-%02d" % i,
                   "status": "success" if i < n else last}
                  for i in range(1, n + 1)]))
PY
}

pr() {
	printf '{"number": %s, "title": "fix: issue %s (#%s)", "body": "Fixes #%s",
	  "head": {"ref": "fix/issue-%s", "sha": "%s"}, "files": ["a.c"],
	  "reviews": [{"user": "review-bot", "state": "APPROVED", "commit_id": "%s"}]}' \
	    "$1" "$2" "$2" "$2" "$2" "$3" "$3"
}

dev_sim - '[ci]' 'woodpecker_repo_id = 1' <<JSON
{"repo": "johba/harb", "check_reads": 0,
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"}],
 "issues": [
  {"number": 1, "title": "one", "labels": ["in-progress"]},
  {"number": 2, "title": "two", "labels": ["in-progress"]},
  {"number": 10, "title": "ten", "labels": ["in-progress"]},
  {"number": 11, "title": "eleven", "labels": ["in-progress"]}],
 "pulls": [$(pr 3 1 $S3), $(pr 4 2 $S4), $(pr 5 10 $S5), $(pr 6 11 $S6)],
 "statuses": {
   "$S3": {"statuses": $(ctxs 2 warning)},
   "$S4": {"statuses": $(ctxs 2 skipped)},
   "$S5": {"statuses": $(ctxs 35 failure)},
   "$S6": {"statuses": $(ctxs 35 success)}},
 "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": []}}
JSON

merged() {
	sim_get /_admin/log | pyjson "sorted(int(e['path'].split('/')[-2]) for e in d if e['method'] == 'POST' and e['path'].endswith('/merge'))"
}

# The simulator answers as the dialect says, and combines by its rule.
case ${FORGE_SIM_DIALECT:-gitea} in
gitea-1.23)
	version=1.23.8 warning=success want='[3, 4, 6]' ;;
forgejo)
	version=9.0.3+gitea-1.22.0 warning=warning want='[4, 6]' ;;
*)
	version=1.22.6 warning=warning want='[4, 6]' ;;
esac
check_eq "the forge's version" \
    "$(SIM_TOKEN=dev-token sim_get /api/v1/version | pyjson 'd["version"]')" "$version"
check_eq "the server's own combined state of success and warning" \
    "$(SIM_TOKEN=dev-token sim_get "/api/v1/repos/johba/harb/commits/$S3/status" | pyjson 'd["state"]')" \
    "$warning"
check_eq "the server combines the first page of contexts alone" \
    "$(SIM_TOKEN=dev-token sim_get "/api/v1/repos/johba/harb/commits/$S5/status" | pyjson 'd["state"]')" \
    success
sim_post /_admin/log/reset "{}" >/dev/null

dp
rc_is "merge tick" 0
check_eq "merged: the PRs whose CI passed by the server's rule" \
    "$(merged)" "$want"
check_eq "every status of the heads with more contexts than a page read" \
    "$(sim_get /_admin/log | pyjson "sorted(set(e['path'].split('/')[-2][:1] for e in d if e['method'] == 'GET' and e['path'].split('?')[0].endswith('/statuses')))")" \
    '["5", "6"]'
check_eq "the version asked once" \
    "$(sim_get /_admin/log | pyjson "len([1 for e in d if e['path'].split('?')[0] == '/api/v1/version'])")" 1
check "the version kept in a run file" \
    grep -qx "$version" "$RUN"/forge-version-*

# A later tick takes the version from the run file: not asked again.
dp
check_eq "the version not asked again within a day" \
    "$(sim_get /_admin/log | pyjson "len([1 for e in d if e['path'].split('?')[0] == '/api/v1/version'])")" 1
