# A failed review is tried again.  The review-error marker used to count
# as reviewed, so a review that failed once (the agent's output was not
# the review JSON: an API hiccup, a confused agent) was never retried and
# the PR waited for a person.  Now: the error comment is posted once per
# head, and the head is tried again on later ticks (review-poll.sh tried
# on every poll), at most 3 tries per head, the count written (synced)
# before each try, so a crash between the two never grants an extra one
# (an agent that never started is no try: the count goes back); a new
# push starts over.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
rv_setup
# Reviews here work at once: no Claude session lock (test_agent_lock has
# it).
export CLAUDE_SESSION_LOCK=
LOG=$FACTORY_ROOT/review/review.log
GOOD='OUTPUT<<{"verdict": "APPROVE", "verdict_reason": "fine now", "review_markdown": "ok"}>>OUTPUT'

S1=$(rv_branch fix/issue-1 one.c "one")
S2=$(rv_branch fix/issue-2 two.c "two")
S3=$(rv_branch fix/issue-3 three.c "three")
cat >"$T/pulls.json" <<'JSON'
[{"number": 11, "title": "fix: one (#1)", "head": {"ref": "fix/issue-1"},
  "files": ["one.c"], "body": "OUTPUT<<the API said: overloaded>>OUTPUT"},
 {"number": 12, "title": "fix: two (#2)", "head": {"ref": "fix/issue-2"},
  "files": ["two.c"], "body": "OUTPUT<<never a verdict>>OUTPUT"},
 {"number": 13, "title": "fix: three (#3)", "head": {"ref": "fix/issue-3"},
  "files": ["three.c"], "body": "no agent ever starts for this one"}]
JSON
echo "{\"$S1\": {\"state\": \"success\"}, \"$S2\": {\"state\": \"success\"},
 \"$S3\": {\"state\": \"success\"}}" >"$T/statuses.json"
rv_scenario "$T/scenario.json"
sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
    { fail "simulator starts"; exit 1; }
tries() {	# tries PR: "SHA7 N" from the try count, or "none"
	_f=$DISINTO_RUN_DIR/$P-review-tries-$1
	[ -e "$_f" ] || { echo none; return; }
	printf '%.7s %s\n' "$(sed -n 's/^SHA: //p' "$_f")" \
	    "$(sed -n 's/^TRIES: //p' "$_f")"
}
short() {
	printf %.7s "$1"
}
# #13 waits for the last part: a draft until then.
sim_post /_admin/item '{"number": 13, "draft": true}' >/dev/null

# --- the stall, then the retry --------------------------------------------------
rv_tick
check_eq "try 1 of both: counted before the agents ran" \
    "$(tries 11) / $(tries 12)" "$(short "$S1") 1 / $(short "$S2") 1"
rv_wait_done 11 12
rv_tick
check_has "the failure: one error comment, upstream's heading, marker, words" \
    "$(rv_comments 11 | pyjson 'd[0]')" \
    "## AI Review — Error
<!-- review-error: $S1 -->
Review failed."
check_eq "no review of #11 yet" "$(rv_reviews 11)" ""
check "the failed head is tried again (the marker used to stop it)" \
    grep -q "pr #11: review session review-$P-11 started (.*try 2 of 3)" "$LOG"
# Whatever made it fail has passed.
sim_post /_admin/item "{\"number\": 11, \"body\": $(printf '%s' "$GOOD" |
    python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')}" \
    >/dev/null
rv_wait_done 11
# The second try ran with the old body; one more tick, one more try.
rv_tick
rv_wait_done 11
rv_tick
check_eq "#11 reviewed in the end" "$(rv_reviews 11)" \
    "review-bot APPROVED $S1 False"
check_eq "#11: one error comment and one review comment" \
    "$(rv_comments 11 | pyjson 'len(d)')" 2
check_eq "#11: the count is gone with the review" "$(tries 11)" none

# --- 3 tries per head, then a new push ------------------------------------------
rv_wait_done 12
rv_tick
rv_tick
rv_tick
check_eq "#12: 3 tries" "$(tries 12)" "$(short "$S2") 3"
check_eq "#12: tried 3 times" \
    "$(grep -c "pr #12: review of $(short "$S2") failed" "$LOG")" 3
check "#12: then left until a new push" grep -q \
    "pr #12: $(short "$S2") tried 3 times without a usable review, skip until a new push" "$LOG"
check_eq "#12: one error comment" "$(rv_comments 12 | pyjson 'len(d)')" 1
check_eq "#12: no session" "$(sessions)" ""
W=$(write_requests)
rv_tick
check_eq "#12: a quiet tick writes nothing" "$(write_requests)" "$W"
N2=$(rv_branch fix/issue-2 two.c "two, again")
sim_post /_admin/status "{\"sha\": \"$N2\", \"state\": \"success\"}" >/dev/null
rv_tick
check_eq "#12 after a push: try 1 of the new head" "$(tries 12)" \
    "$(short "$N2") 1"

# --- the count is written before the try -----------------------------------------
# An agent that looks at the count as it starts: it already says this try.
t_tmux kill-server 2>/dev/null
sim_post /_admin/item '{"number": 12, "state": "closed"}' >/dev/null
sim_post /_admin/item '{"number": 13, "draft": false}' >/dev/null
cat >"$T/peeking-agent" <<EOF
#!/bin/sh
cat "$DISINTO_RUN_DIR/$P-review-tries-13" >"$T/seen-at-start"
exec $AGENT_CMD
EOF
chmod +x "$T/peeking-agent"
# (Unconfined: a confined agent sees nothing of the run directory.)
AGENT_SANDBOX=unconfined-trust-agent AGENT_CMD=$T/peeking-agent rv_tick
check_eq "#12 closed: its count forgotten" "$(tries 12)" none
check_eq "#13: the agent found its try counted" \
    "$(sed -n 's/^TRIES: //p' "$T/seen-at-start" 2>/dev/null)" 1
# An agent that never starts (a missing command) made no try: the count
# goes back, and later ticks try again, as review-pr.sh's failures were.
t_tmux kill-server 2>/dev/null
rm -f "$DISINTO_RUN_DIR/sessions/active/review-$P-13/review-session-$P-13.phase"
AGENT_CMD=$T/no-such-agent rv_tick
AGENT_CMD=$T/no-such-agent rv_tick
check_eq "#13: a start that failed is no try" "$(tries 13)" "$(short "$S3") 1"
check_eq "#13: tried to start again on the next tick" \
    "$(grep -c "cannot start session review-$P-13: " "$LOG")" 2

# --- output that cannot be read is unknown, not a failed review ------------------
# The agent wrote its review, but the file cannot be read this tick (here
# a directory stands in its place): nothing is posted, no try is used,
# and the next tick reads it.
sim_post /_admin/item "{\"number\": 13, \"body\": $(printf '%s' "$GOOD" |
    python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')}" \
    >/dev/null
rv_tick
rv_wait_done 13
OUT=$DISINTO_RUN_DIR/sessions/active/review-$P-13/$P-review-output-13.json
check "#13: the review is written" test -s "$OUT"
cp "$OUT" "$T/out-13.json"
TRIES13=$(tries 13)
W=$(write_requests)
rm -f "$OUT"
mkdir "$OUT"
rv_tick
check_eq "unreadable output: the tick says it failed" "$RV_RC" 1
check "unreadable output: said, with the path" grep -q \
    "pr #13: cannot read the review of $(short "$S3") in '$OUT': Is a directory — read again next tick" "$LOG"
check_eq "unreadable output: nothing posted" "$(write_requests)" "$W"
check_eq "unreadable output: no 'Review failed' comment" \
    "$(rv_comments 13 | pyjson 'len([c for c in d if "Review failed" in c])')" 0
check_eq "unreadable output: no try used" "$(tries 13)" "$TRIES13"
rmdir "$OUT"
cp "$T/out-13.json" "$OUT"
rv_tick
check_eq "readable again: the review is posted" "$(rv_reviews 13)" \
    "review-bot APPROVED $S3 False"
check_eq "readable again: one comment, the review" \
    "$(rv_comments 13 | pyjson 'len(d)')" 1
