# review-poll's verdict routing and re-reviews: a REQUEST_CHANGES verdict
# injected into the dev session waiting in awaiting_review exactly once
# over several ticks; the "no review, escalate" notice after 3 hours (by
# the phase file's mtime), once; a re-review after the developer pushed
# and CI passed, with the previous review, the developer's response and
# the incremental diff in the prompt; the approval dismissing the old
# request for changes and routed once; a re-review whose previous commit
# is gone falls back to the whole diff.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
rv_setup
TT="$O/tests/tools/tmux-tool -L $(tmux_sock) -T $T"

S1=$(rv_branch fix/issue-1 one.c "one")
S2=$(rv_branch fix/issue-2 two.c "two")
S3=$(rv_branch fix/issue-3 three.c "three")
GONE=dead0000dead0000dead0000dead0000dead0000
cat >"$T/pulls.json" <<JSON
[
 {"number": 11, "title": "fix: one (#1)", "head": {"ref": "fix/issue-1"},
  "files": ["one.c"],
  "body": "OUTPUT<<{\"verdict\": \"REQUEST_CHANGES\", \"verdict_reason\": \"off by one\", \"review_markdown\": \"- **high** one.c:1: off by one\"}>>OUTPUT"},
 {"number": 12, "title": "fix: two (#2)", "head": {"ref": "fix/issue-2"},
  "files": ["two.c"], "body": "Fixes #2"},
 {"number": 13, "title": "fix: three (#3)", "head": {"ref": "fix/issue-3"},
  "files": ["three.c"],
  "body": "OUTPUT<<{\"verdict\": \"APPROVE\", \"verdict_reason\": \"fixed\"}>>OUTPUT",
  "comments": [{"user": "review-bot", "body": "## AI Review\n<!-- reviewed: $GONE -->\n\nold findings here\n\n### Verdict\n**REQUEST_CHANGES** — old\n"}]}
]
JSON
cat >"$T/statuses.json" <<JSON
{"$S1": {"state": "success"}, "$S2": {"state": "pending"},
 "$S3": {"state": "success"}}
JSON
rv_scenario "$T/scenario.json"
sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
    { fail "simulator starts"; exit 1; }

# Two dev sessions waiting for their reviews.
PH1=$DISINTO_RUN_DIR/sessions/active/dev-$P-1/dev-session-$P-1.phase
PH2=$DISINTO_RUN_DIR/sessions/active/dev-$P-2/dev-session-$P-2.phase
for n in 1 2; do
	mkdir -p "$T/dev$n" "$T/wt$n"
	$TT -e FAKE_AGENT_LOG="$T/dev$n" new "dev-$P-$n" "$T/wt$n" \
	    "$FAKE_AGENT" >/dev/null
	$TT wait-ready "dev-$P-$n" "❯" 10 >/dev/null
	mkdir -p "$DISINTO_RUN_DIR/sessions/active/dev-$P-$n"
	echo PHASE:awaiting_review >"$DISINTO_RUN_DIR/sessions/active/dev-$P-$n/dev-session-$P-$n.phase"
done

rv_tick
check_eq "tick 1 exits 0" "$RV_RC" 0
check_eq "no injection before a review exists" "$(prompts "$T/dev1")$(prompts "$T/dev2")" 00
rv_wait_done 11 13
rv_tick
check_eq "tick 2 exits 0" "$RV_RC" 0
wait_for '[ -f "$T/dev1/prompt-1.txt" ]' 10
check_eq "the verdict reached the dev session" "$(prompts "$T/dev1")" 1
V1=$(cat "$T/dev1/prompt-1.txt")
check_has "verdict message names it, round 1" "$V1" "Review of PR #11 (round 1): REQUEST_CHANGES."
check_has "verdict message quotes the review" "$V1" \
    "- **high** one.c:1: off by one"
check_has "verdict message says how to push" "$V1" \
    "git push origin fix/issue-1"
check_has "verdict message names the phase file" "$V1" \
    "PHASE:awaiting_ci to $PH1"
check_eq "the injection is recorded with the head sha" \
    "$(cat "$DISINTO_RUN_DIR/review-injected-$P-11")" "$S1"
rv_tick
rv_tick
sleep 0.3
check_eq "the verdict is injected once over several ticks" "$(prompts "$T/dev1")" 1
check_eq "no notice for a fresh wait without review" "$(prompts "$T/dev2")" 0

# Three hours without a review (CI of #12 is pending): escalate, once.
touch -d '3 hours ago 1 minute ago' "$PH2"
rv_tick
wait_for '[ -f "$T/dev2/prompt-1.txt" ]' 10
V2=$(cat "$T/dev2/prompt-1.txt" 2>/dev/null)
check_has "no-review notice injected" "$V2" "No review: PR #12"
check_has "the notice asks for an escalation" "$V2" \
    "Write PHASE:escalate on the first line of $PH2"
check_eq "the notice is recorded" \
    "$(cat "$DISINTO_RUN_DIR/review-injected-$P-12")" "no-review $S2"
rv_tick
sleep 0.3
check_eq "the notice is injected once" "$(prompts "$T/dev2")" 1

# The developer answers and pushes; CI is still running.
sim_post /_admin/comment "{\"issue\": 11, \"user\": \"dev-bot\", \"body\": \"<!-- dev-response: -->\\nThe bound is fixed now.\"}" >/dev/null
S1B=$(rv_branch fix/issue-1 one.c "one fixed")
sim_post /_admin/status "{\"sha\": \"$S1B\", \"state\": \"pending\"}" >/dev/null
sim_post /_admin/item "{\"number\": 11, \"body\": \"OUTPUT<<{\\\"verdict\\\": \\\"APPROVE\\\", \\\"verdict_reason\\\": \\\"fixed\\\", \\\"review_markdown\\\": \\\"### Previous findings\\\\\\\\n- off by one: FIXED\\\"}>>OUTPUT\"}" >/dev/null
echo PHASE:awaiting_ci >"$PH1"
rv_tick
check_eq "no re-review while CI runs" \
    "$(t_tmux has-session -t "review-$P-11" 2>/dev/null && echo yes)" ""
check_has "waiting for CI is logged" \
    "$(cat "$FACTORY_ROOT/review/review.log")" "pr #11: ci=pending, skip"
sim_post /_admin/status "{\"sha\": \"$S1B\", \"state\": \"success\"}" >/dev/null
echo PHASE:awaiting_review >"$PH1"
rv_tick
check_eq "re-review started" \
    "$(t_tmux has-session -t "review-$P-11" 2>/dev/null && echo yes)" yes
rv_wait_done 11
R=$(cat "$T/prompts/pr-11.txt")
check_has "re-review prompt says so" "$R" "## This is a re-review"
check_has "re-review prompt: previous review" "$R" \
    "- **high** one.c:1: off by one"
check_has "re-review prompt: developer response" "$R" \
    "The bound is fixed now."
check_has "re-review prompt: incremental diff header" "$R" \
    "### Changes since the previous review ($(printf %.7s "$S1")..$(printf %.7s "$S1B"))"
check_has "re-review prompt: incremental diff" "$R" "+one fixed"
check_has "re-review prompt: flag" "$R" "Re-review: yes"
rv_tick
check_eq "re-review collected" "$RV_RC" 0
wait_for '[ -f "$T/dev1/prompt-2.txt" ]' 10
C=$(rv_comments 11 | pyjson 'd[-1]')
check_has "re-review comment heading" "$C" "## AI Re-review (round 2)"
check_has "re-review comment marker" "$C" "<!-- reviewed: $S1B -->"
check_has "re-review footer names the previous sha" "$C" \
    "| Previous: \`$(printf %.7s "$S1")\`"
check_eq "approval submitted, old request for changes dismissed" \
    "$(rv_reviews 11)" "review-bot REQUEST_CHANGES $S1 True
review-bot APPROVED $S1B False"
check_has "approval injected" "$(cat "$T/dev1/prompt-2.txt")" \
    "Approved: the reviewer approved PR #11"
check_eq "approval recorded" \
    "$(cat "$DISINTO_RUN_DIR/review-injected-$P-11")" "$S1B"
check_eq "review run files gone after approval" \
    "$(cd "$DISINTO_RUN_DIR" && ls -d sessions/active/review-$P-11/review-session-$P-11.phase \
	$P-review-11 $P-review-request-11 \
	sessions/active/review-$P-11/$P-review-output-11.json 2>/dev/null)" ""
rv_tick
rv_tick
sleep 0.3
check_eq "approval injected once" "$(prompts "$T/dev1")" 2
check_eq "two comments of the reviewer on #11" \
    "$(rv_comments 11 | pyjson 'len([c for c in d if c.startswith("## AI")])')" 2

# #13: its previous review names a commit the clone does not have.
R3=$(cat "$T/prompts/pr-13.txt")
check_has "gone previous commit: previous review still given" "$R3" \
    "old findings here"
check_has "gone previous commit: whole diff instead" "$R3" \
    "is not available any more"
check_has "gone previous commit: counted as a re-review" \
    "$(rv_comments 13 | pyjson 'd[-1]')" "## AI Re-review (round 2)"
check_eq "all ticks exit 0" "$RV_RC" 0
