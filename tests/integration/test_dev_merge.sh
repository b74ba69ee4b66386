# dev-poll step 1, the pre-lock merges: approved PRs whose CI passed (or
# that change no code) are merged at the SHA that was checked, with
# everything a merge entails; stale approvals, PRs without an issue and
# red PRs are left alone.  (The forge here ends the check of the other
# PRs that a merge starts before it is asked again: "check_reads": 0;
# test_dev_merge_checking.sh has the forge still checking.)
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git

SHA3=$(git_branch fix/issue-1 src.c)
Z40=0000000000000000000000000000000000000000
S4=4444444444444444444444444444444444444444
S5=5555555555555555555555555555555555555555
S6=6666666666666666666666666666666666666666
S7=7777777777777777777777777777777777777777
S8=8888888888888888888888888888888888888888
git init -q --bare -b master "$T/mirror.git"
dev_sim - '[ci]' 'woodpecker_repo_id = 1' '[mirrors]' \
    "backup = \"$T/mirror.git\"" <<JSON
{"repo": "johba/harb", "check_reads": 0,
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "blocked"}],
 "issues": [
  {"number": 1, "title": "Add a parser", "labels": ["in-progress"]},
  {"number": 2, "title": "Fix the docs", "labels": ["in-progress"]},
  {"number": 10, "title": "Stale one"},
  {"number": 11, "title": "Pending one"}],
 "pulls": [
  {"number": 3, "title": "fix: Add a parser (#1)", "body": "Fixes #1",
   "head": {"ref": "fix/issue-1", "sha": "$SHA3"}, "files": ["src.c"],
   "reviews": [{"user": "review-bot", "state": "APPROVED", "commit_id": "$SHA3"}]},
  {"number": 4, "title": "docs: typo (#2)", "head": {"ref": "docs-typo", "sha": "$S4"},
   "files": ["docs/guide.md", "README.md"],
   "reviews": [{"user": "review-bot", "state": "APPROVED", "commit_id": "$S4"}]},
  {"number": 5, "title": "fix: Stale one (#10)", "head": {"ref": "fix/issue-10", "sha": "$S5"},
   "files": ["a.c"],
   "reviews": [{"user": "review-bot", "state": "APPROVED", "commit_id": "$Z40"}]},
  {"number": 6, "title": "an unrelated change", "head": {"ref": "feature/x", "sha": "$S6"},
   "files": ["a.c"],
   "reviews": [{"user": "review-bot", "state": "APPROVED", "commit_id": "$S6"}]},
  {"number": 7, "title": "chore: gardening", "head": {"ref": "chore/gardener-1", "sha": "$S7"},
   "files": ["a.c"],
   "reviews": [{"user": "review-bot", "state": "APPROVED", "commit_id": "$S7"}]},
  {"number": 8, "title": "fix: Pending one (#11)", "head": {"ref": "fix/issue-11", "sha": "$S8"},
   "files": ["a.c"],
   "reviews": [{"user": "review-bot", "state": "APPROVED", "commit_id": "$S8"}]}],
 "statuses": {"$S5": {"state": "success"}, "$S6": {"state": "success"},
              "$S7": {"state": "success"}},
 "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": [
   {"number": 1, "commit": "$SHA3", "status": "success"},
   {"number": 2, "commit": "$S8", "status": "running"}]}}
JSON

# Run files of issue 1 and a CI-fix count for PR 3 (and another PR).
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo "PHASE:awaiting_review" >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
echo "summary" >"$RUN/sessions/active/dev-$PROJ-1/dev-impl-summary-$PROJ-1.txt"
echo '{"3": 2, "9": 1}' >"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json"
# The primary branch moved on at the origin (as a merge would do).
git clone -q "$T/origin.git" "$T/other" &&
    (cd "$T/other" && echo more >>README.md && git commit -qam more &&
     git push -q origin master)
NEW_MASTER=$(git --git-dir="$T/origin.git" rev-parse master)

dp
rc_is "merge tick" 0
lhas "the merge tick says so" 'pre-lock: merged PR\(s\) successfully — exiting'
lnot "nothing after the merges" 'checking for in-progress'
check_eq "PR 3 merged at the SHA checked" \
    "$(sim_get /_admin/log | pyjson "[e['body'].get('head_commit_id') for e in d if e['path'].endswith('/pulls/3/merge')]")" \
    "[\"$SHA3\"]"
check_eq "merge asks for the branch to be deleted" \
    "$(sim_get /_admin/log | pyjson "[e['body'].get('Do'), e['body'].get('delete_branch_after_merge')] if False else [[e['body'].get('Do'), e['body'].get('delete_branch_after_merge')] for e in d if e['path'].endswith('/pulls/3/merge')][0]")" \
    '["merge", true]'
check_eq "issue 1 closed" "$(sim_state_get '[i["state"] for i in d["issues"] if i["number"] == 1][0]')" closed
check_eq "issue 1 not in progress" "$(labels 1)" ""
check "phase file removed" test ! -e "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
check "summary removed" test ! -e "$RUN/sessions/active/dev-$PROJ-1/dev-impl-summary-$PROJ-1.txt"
check_eq "CI-fix count of PR 3 reset" \
    "$(pyjson 'd' <"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json")" '{"9": 1}'
check_eq "non-code PR 4 merged without CI" \
    "$(sim_state_get '[p["merged"] for p in d["pulls"] if p["number"] == 4][0]')" true
check_eq "issue 2 closed" "$(sim_state_get '[i["state"] for i in d["issues"] if i["number"] == 2][0]')" closed
check_eq "chore PR 7 merged" \
    "$(sim_state_get '[p["merged"] for p in d["pulls"] if p["number"] == 7][0]')" true
check_eq "stale approval, no issue ref, CI running: not merged" \
    "$(sim_state_get '[p["number"] for p in d["pulls"] if not p["merged"]]')" "[5, 6, 8]"
check_eq "merge requests: exactly PRs 3, 4, 7" "$(requests 'merge$')" 3
check_eq "issue 10 and 11 untouched" "$(requests 'issues/1[01]')" 0
check_eq "repo_root fast-forwarded to the new master" \
    "$(git -C "$T/repo" rev-parse master)" "$NEW_MASTER"
check_eq "repo_root on master" \
    "$(git -C "$T/repo" rev-parse --abbrev-ref HEAD)" master
if wait_for '[ "$(git --git-dir="$T/mirror.git" rev-parse master 2>/dev/null)" = "$NEW_MASTER" ]' 10; then
	ok "mirror pushed in the background"
else
	fail "mirror pushed in the background"
fi
lhas "mirror push logged by name" 'mirror: pushed to backup \(pid [0-9]+\)'
lnot "no URL in the log" "mirror.git"

# Label IDs are looked up once per handle; every other GET happens once
# per token (/user: the dev bot's and the review bot's logins, for whose
# verdicts count).
check_eq "each GET at most once" \
    "$(sim_get /_admin/log | pyjson 'len([1 for e in d if e["method"] == "GET" and "/labels" not in e["path"]]) - len(set([(e["path"], e["user"]) for e in d if e["method"] == "GET" and "/labels" not in e["path"]]))')" 0

tick_twice "after the merges"
rc_is "second tick" 0
lnot "second tick merges nothing" 'attempting direct merge'
lhas "second tick: PR 8 waits for CI" 'checking for stuck PRs'
lhas "second tick goes on to the backlog" 'no backlog issues'
