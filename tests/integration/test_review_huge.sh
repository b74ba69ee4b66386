# A PR that changes 100 000 files: review-poll reads a capped part of
# its changed files (20 pages, 1000 files) and of its diff, reviews it
# all the same, and says in the prompt and in the posted review how many
# files were not read.  Such a PR is never "non-code" for the CI rule.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
rv_setup
export CLAUDE_SESSION_LOCK=
LOG=$FACTORY_ROOT/review/review.log

S1=$(rv_branch fix/issue-1 one.c "one")
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
pulls = [{"number": 11, "title": "vendor everything (#1)",
          "head": {"ref": "fix/issue-1"}, "files": ["one.c"],
          "files_generated": 99999,
          "diff": "diff --git a/one.c b/one.c\n+one\n",
          "body": 'Fixes #1\nOUTPUT<<{"verdict": "APPROVE", '
                  '"verdict_reason": "ok", "review_markdown": "looks fine"}'
                  '>>OUTPUT'}]
json.dump(pulls, open(t + "/pulls.json", "w"))
PY
printf '{"%s": {"state": "success"}}' "$S1" >"$T/statuses.json"
rv_scenario "$T/scenario.json"
sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
    { fail "simulator starts"; exit 1; }

rv_tick
check_eq "the tick exits 0" "$RV_RC" 0
check_eq "at most 20 pages of changed files read" \
    "$(sim_log_count GET '/pulls/11/files' | awk '{ print ($1 <= 20) }')" 1
check "the review started" test -s "$T/prompts/pr-11.txt" -o \
    -e "$DISINTO_RUN_DIR/sessions/active/review-$P-11/review-session-$P-11.phase"
rv_wait_done 11
check "the prompt says how many files were not read" \
    grep -q '^(99000 files not read' "$T/prompts/pr-11.txt"
check_has "the log says so" "$(cat "$LOG")" \
    "pr #11: 1000 changed files read, 99000 not read: reviewed all the same"
rv_tick
check_eq "the collecting tick exits 0" "$RV_RC" 0
check_has "the posted review says how many files were not read" \
    "$(rv_comments 11)" "99000 files not read"
