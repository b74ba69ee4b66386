# review-poll against the simulator with the fake agent as reviewer: first
# reviews that approve, request changes and discuss; output in a fence;
# garbage output (one error comment, 3 tries); at most 3 review sessions;
# WIP, draft, foreign-base and CI-pending PRs skipped while a docs-only PR
# with pending CI is reviewed; every tick repeated on an unchanged world
# without a second side effect.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
rv_setup

S1=$(rv_branch fix/issue-1 one.c "one")
S2=$(rv_branch fix/issue-2 two.c "two")
S3=$(rv_branch fix/issue-3 three.c "three")
S4=$(rv_branch fix/issue-4 four.c "four")
S5=$(rv_branch fix/issue-5 five.c "five")
S6=$(rv_branch fix/issue-6 six.c "six")
S7=$(rv_branch fix/issue-7 seven.c "seven")
S8=$(rv_branch fix/issue-8 docs/guide.md "guide")
S9=$(rv_branch fix/issue-9 nine.c "nine")

cat >"$T/pulls.json" <<'JSON'
[
 {"number": 11, "title": "fix: one (#1)", "head": {"ref": "fix/issue-1"},
  "files": ["one.c"],
  "body": "Fixes #1\nOUTPUT<<{\"verdict\": \"APPROVE\", \"verdict_reason\": \"small and right\", \"review_markdown\": \"### Summary\\nLooks right.\"}>>OUTPUT"},
 {"number": 12, "title": "fix: two (#2)", "head": {"ref": "fix/issue-2"},
  "files": ["two.c"],
  "body": "OUTPUT<<{\"verdict\": \"request-changes\", \"verdict_reason\": \"off by one\", \"review_markdown\": \"- **high** `two.c:1`: off by one\"}>>OUTPUT"},
 {"number": 13, "title": "fix: three (#3)", "head": {"ref": "fix/issue-3"},
  "files": ["three.c"],
  "body": "OUTPUT<<Here is my review:\n```json\n{\"verdict\": \"DISCUSS\", \"verdict_reason\": \"which design?\", \"review_markdown\": \"Two ways.\"}\n```\nDone.>>OUTPUT"},
 {"number": 14, "title": "fix: four (#4)", "head": {"ref": "fix/issue-4"},
  "files": ["four.c"], "body": "OUTPUT<<I could not decide, sorry.>>OUTPUT"},
 {"number": 15, "title": "WIP: five (#5)", "head": {"ref": "fix/issue-5"},
  "files": ["five.c"], "body": "OUTPUT<<{\"verdict\": \"APPROVE\"}>>OUTPUT"},
 {"number": 16, "title": "fix: six (#6)", "head": {"ref": "fix/issue-6"},
  "draft": true, "files": ["six.c"],
  "body": "OUTPUT<<{\"verdict\": \"APPROVE\"}>>OUTPUT"},
 {"number": 17, "title": "fix: seven (#7)", "head": {"ref": "fix/issue-7"},
  "files": ["seven.c"], "body": "OUTPUT<<{\"verdict\": \"APPROVE\"}>>OUTPUT"},
 {"number": 18, "title": "docs: eight (#8)", "head": {"ref": "fix/issue-8"},
  "files": ["docs/guide.md"],
  "body": "OUTPUT<<{\"verdict\": \"APPROVE\", \"verdict_reason\": \"docs\"}>>OUTPUT"},
 {"number": 19, "title": "fix: nine (#9)", "head": {"ref": "fix/issue-9"},
  "base": {"ref": "release"}, "files": ["nine.c"],
  "body": "OUTPUT<<{\"verdict\": \"APPROVE\"}>>OUTPUT"}
]
JSON
cat >"$T/statuses.json" <<JSON
{"$S1": {"state": "success"}, "$S2": {"state": "success"},
 "$S3": {"state": "success"}, "$S4": {"state": "success"},
 "$S5": {"state": "success"}, "$S6": {"state": "success"},
 "$S7": {"state": "pending"}, "$S8": {"state": "pending"},
 "$S9": {"state": "success"}}
JSON
python3 - "$T/pulls.json" <<'PY'
import json, sys
pulls = json.load(open(sys.argv[1]))
pulls[2]["diff"] = "diff --git a/three.c b/three.c\n" + "+xxxxxxxxx\n" * 3000
json.dump(pulls, open(sys.argv[1], "w"))
PY
git -C "$T/origin.git" branch -q release master
rv_scenario "$T/scenario.json"
sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
    { fail "simulator starts"; exit 1; }

comments_posted() {
	sim_log_count POST '/issues/[0-9]+/comments$' 201
}

# Tick 1: three launches at most (newest PRs first: 18, 14, 13).
rv_tick
check_eq "tick 1 exits 0" "$RV_RC" 0
check_eq "three review sessions after tick 1" \
    "$(sessions)" "review-harb-13 review-harb-14 review-harb-18 "
check_eq "the worktree is detached at the PR head" \
    "$(git -C "$DISINTO_RUN_DIR/harb-review-14" rev-parse HEAD)" "$S4"
check_eq "the worktree has no branch checked out" \
    "$(git -C "$DISINTO_RUN_DIR/harb-review-14" symbolic-ref -q HEAD; echo $?)" 1
check_eq "the review agent runs with the review model" \
    "$(t_tmux list-panes -t review-harb-14 -F '#{pane_start_command}' |
	grep -c -- '--model sonnet')" 1
rv_wait_done 13 14 18
check "the prompt names the output file" \
    grep -q "REVIEW_OUTPUT_FILE=$DISINTO_RUN_DIR/sessions/active/review-harb-14/harb-review-output-14.json" \
    "$T/prompts/pr-14.txt"
check "the prompt holds the diff" grep -q '^+++ b/four.c' "$T/prompts/pr-14.txt"
check "the prompt holds the changed files" grep -qx 'four.c' "$T/prompts/pr-14.txt"
check "a long diff is cut and the prompt says so" \
    grep -q '^### Diff (truncated at 25000 bytes)' "$T/prompts/pr-13.txt"
check_eq "the cut diff holds 25000 bytes" \
    "$(sed -n '/^```diff$/,/^```$/p' "$T/prompts/pr-13.txt" | sed '1d;$d' |
	head -c 30000 | wc -c | tr -d ' ')" 25001
check "a short diff is not said to be cut" \
    grep -qx '### Diff' "$T/prompts/pr-14.txt"
check "the prompt holds the head sha" grep -q "$S4" "$T/prompts/pr-14.txt"
check "the docs-only prompt says CI is not required" \
    grep -q "CI: pending (not required: no code files)" "$T/prompts/pr-18.txt"
check_eq "nothing posted in tick 1" "$(comments_posted)" 0

# Tick 2: collect 13, 14, 18; launch 11, 12 and #14's second try.
rv_tick
check_eq "tick 2 exits 0" "$RV_RC" 0
check_eq "sessions after tick 2 (finished ones killed)" "$(sessions)" \
    "review-harb-11 review-harb-12 review-harb-14 "
rv_wait_done 11 12 14
check_eq "the discussed review awaits changes" \
    "$(cat "$DISINTO_RUN_DIR/sessions/active/review-harb-13/review-session-harb-13.phase" | tr '\n' ' ')" \
    "PHASE:awaiting_changes SHA:$S3 "
# Tick 3: collect 11, 12 and #14 (failed again); #14's third try.
rv_tick
check_eq "tick 3 exits 0" "$RV_RC" 0
check_eq "the garbage review's third try" "$(sessions)" "review-harb-14 "
rv_wait_done 14
rv_tick
check_eq "tick 4 exits 0" "$RV_RC" 0
check_eq "only the awaiting_changes reviews stay" \
    "$(cd "$DISINTO_RUN_DIR/sessions/active" && ls */review-session-* | tr '\n' ' ')" \
    "review-harb-12/review-session-harb-12.phase review-harb-13/review-session-harb-13.phase "
check_eq "no session is left" "$(sessions)" ""
check_eq "no worktree is left" \
    "$(ls -d "$DISINTO_RUN_DIR"/harb-review-[0-9]* 2>/dev/null)" ""
check_eq "git knows no review worktree" \
    "$(git -C "$T/repo" worktree list | grep -c review)" 0

C11=$(rv_comments 11 | pyjson 'd[0]')
check_eq "approve comment body" "$C11" \
"## AI Review
<!-- reviewed: $S1 -->

### Summary
Looks right.

### Verdict
**APPROVE** — small and right

---
*Reviewed at \`$(printf %.7s "$S1")\` | [AGENTS.md](AGENTS.md)*

<!-- disinto: review #11 $S1 -->"
check_eq "approve formal review" "$(rv_reviews 11)" \
    "review-bot APPROVED $S1 False"
check_has "request changes comment" "$(rv_comments 12 | pyjson 'd[0]')" \
    "**REQUEST_CHANGES** — off by one"
check_eq "request changes formal review" "$(rv_reviews 12)" \
    "review-bot REQUEST_CHANGES $S2 False"
check_eq "discuss (fenced output) formal review" "$(rv_reviews 13)" \
    "review-bot REQUEST_CHANGES $S3 False"
check_has "discuss comment" "$(rv_comments 13 | pyjson 'd[0]')" \
    "**DISCUSS** — which design?"
C14=$(rv_comments 14 | pyjson 'd[0]')
check_has "garbage output gives an error comment" "$C14" \
    "## AI Review — Error"
check_has "the error comment carries its marker" "$C14" \
    "<!-- review-error: $S4 -->"
check_eq "garbage output, 3 tries: one comment" \
    "$(rv_comments 14 | pyjson 'len(d)')" 1
check_eq "garbage output: tried 3 times" \
    "$(grep -c 'pr #14: review of .* failed: no JSON object found' \
	"$FACTORY_ROOT/review/review.log")" 3
check_eq "garbage output: no formal review" "$(rv_reviews 14)" ""
check_eq "docs-only PR reviewed with pending CI" "$(rv_reviews 18)" \
    "review-bot APPROVED $S8 False"
for n in 15 16 17 19; do
	check_eq "pr #$n never reviewed" \
	    "$(rv_comments $n)$(rv_reviews $n)" "[]"
	check_lacks "pr #$n never got a session" \
	    "$(cat "$FACTORY_ROOT/review/review.log")" "review-harb-$n"
done
check_has "the pending PR is logged as skipped" \
    "$(cat "$FACTORY_ROOT/review/review.log")" "pr #17: ci=pending, skip"
check_eq "five review comments posted" "$(comments_posted)" 5
check_eq "four formal reviews posted" \
    "$(sim_log_count POST '/pulls/[0-9]+/reviews$' 200)" 4
check_eq "every write made with the review token" \
    "$(sim_get /_admin/log | pyjson "sorted(set(e['user'] for e in d if e['method'] != 'GET'))")" \
    '["review-bot"]'

# Unchanged world: more ticks change nothing.
rv_tick
rv_tick
check_eq "repeated ticks exit 0" "$RV_RC" 0
check_eq "no second comment" "$(comments_posted)" 5
check_eq "no second formal review" \
    "$(sim_log_count POST '/pulls/[0-9]+/reviews$')" 4
check_eq "no new session" "$(sessions)" ""
