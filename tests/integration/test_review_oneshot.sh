# review-poll --pr N [--force] against the simulator, with the fake agent
# as reviewer in real tmux: one PR reviewed now while the factory is
# paused, the verdict posted by the tick's own path and printed; a second
# run on the reviewed head says so and starts nothing; --force reviews it
# again (one more comment, never a duplicate on later ticks); changes
# requested; CI not passed, a PR that is not open, output that is no
# review; the timeout (the review goes on for a later tick); the review
# lock shared with the ticks.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
rv_setup
# Reviews here work at once: no Claude session lock (test_agent_lock has
# it).
export CLAUDE_SESSION_LOCK=

S1=$(rv_branch fix/issue-1 one.c "one")
S2=$(rv_branch fix/issue-2 two.c "two")
S3=$(rv_branch fix/issue-3 three.c "three")
S4=$(rv_branch fix/issue-4 four.c "four")
S5=$(rv_branch fix/issue-5 five.c "five")
cat >"$T/pulls.json" <<'JSON'
[
 {"number": 11, "title": "fix: one (#1)", "head": {"ref": "fix/issue-1"},
  "files": ["one.c"],
  "body": "OUTPUT<<{\"verdict\": \"APPROVE\", \"verdict_reason\": \"small and right\", \"review_markdown\": \"Fine.\"}>>OUTPUT"},
 {"number": 12, "title": "fix: two (#2)", "head": {"ref": "fix/issue-2"},
  "files": ["two.c"],
  "body": "OUTPUT<<{\"verdict\": \"REQUEST_CHANGES\", \"verdict_reason\": \"off by one\", \"review_markdown\": \"Fix it.\"}>>OUTPUT"},
 {"number": 13, "title": "fix: three (#3)", "head": {"ref": "fix/issue-3"},
  "files": ["three.c"], "body": "OUTPUT<<no idea>>OUTPUT"},
 {"number": 14, "title": "fix: four (#4)", "head": {"ref": "fix/issue-4"},
  "files": ["four.c"], "body": "OUTPUT<<{\"verdict\": \"APPROVE\"}>>OUTPUT"},
 {"number": 15, "title": "fix: five (#5)", "head": {"ref": "fix/issue-5"},
  "files": ["five.c"], "body": "OUTPUT<<{\"verdict\": \"APPROVE\"}>>OUTPUT"}
]
JSON
cat >"$T/statuses.json" <<JSON
{"$S1": {"state": "success"}, "$S2": {"state": "success"},
 "$S3": {"state": "success"}, "$S4": {"state": "pending"},
 "$S5": {"state": "success"}}
JSON
rv_scenario "$T/scenario.json"
sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
    { fail "simulator starts"; exit 1; }
# The factory is paused: a person's one-shot runs all the same.
rm -f "$FACTORY_ROOT/state/.reviewer-active"
export REVIEW_PR_TIMEOUT_SECONDS=20

# one PR: its output on stdout, its exit status in $OS_RC.
oneshot() {
	"$RP" "$@" >"$T/os.out" 2>"$T/os.err"
	OS_RC=$?
	if grep -qE 'Sanitizer|runtime error' "$T/os.err"; then
		fail "review-poll $* ran clean" "$(head -c 1000 "$T/os.err")"
	fi
}
marked() {	# PR SHA: review comments of that head
	rv_comments "$1" | pyjson "len([b for b in d if '<!-- reviewed: $2 -->' in b])"
}

rv_tick
check_has "the tick is paused" "$(cat "$FACTORY_ROOT/review/review.log")" \
    "reviewer not active"

oneshot --pr 11
check_eq "--pr 11: exit 0" "$OS_RC" 0
check_eq "--pr 11: the verdict is printed" "$(cat "$T/os.out")" \
    "PR #11 $(printf %.7s "$S1"): APPROVE — small and right"
check_eq "--pr 11: one review comment" "$(marked 11 "$S1")" 1
check_eq "--pr 11: the formal review" "$(rv_reviews 11)" \
    "review-bot APPROVED $S1 False"
check_eq "--pr 11: no session left" "$(sessions)" ""
check_eq "--pr 11: no run file left" \
    "$(ls "$DISINTO_RUN_DIR" | grep -c -- '-11')" 0
check "--pr 11: the prompt was the tick's" \
    grep -q "REVIEW_OUTPUT_FILE=$DISINTO_RUN_DIR/sessions/active/review-harb-11/harb-review-output-11.json" \
    "$T/prompts/pr-11.txt"

rm -f "$T/prompts/pr-11.txt"
W=$(write_requests)
oneshot --pr 11
check_eq "reviewed already: exit 0" "$OS_RC" 0
check_eq "reviewed already: said, with the verdict" "$(cat "$T/os.out")" \
    "PR #11 $(printf %.7s "$S1"): reviewed already: APPROVE — small and right (--force reviews it again)"
check_eq "reviewed already: no forge write" "$(write_requests)" "$W"
check "reviewed already: no agent started" test ! -e "$T/prompts/pr-11.txt"

oneshot --pr 11 --force
check_eq "--force: exit 0" "$OS_RC" 0
check_eq "--force: the new verdict is printed" "$(cat "$T/os.out")" \
    "PR #11 $(printf %.7s "$S1"): APPROVE — small and right"
check "--force: the agent reviewed it again" test -s "$T/prompts/pr-11.txt"
check_eq "--force: a second review comment" "$(marked 11 "$S1")" 2
check_eq "--force: the same formal review is not repeated" "$(rv_reviews 11)" \
    "review-bot APPROVED $S1 False"

oneshot --pr 12
check_eq "--pr 12: exit 0" "$OS_RC" 0
check_eq "--pr 12: changes requested" "$(cat "$T/os.out")" \
    "PR #12 $(printf %.7s "$S2"): REQUEST_CHANGES — off by one"
check_eq "--pr 12: awaiting changes, as after a tick" \
    "$(tr '\n' ' ' <"$DISINTO_RUN_DIR/sessions/active/review-harb-12/review-session-harb-12.phase")" \
    "PHASE:awaiting_changes SHA:$S2 "

oneshot --pr 13
check_eq "no review in the output: exit 1" "$OS_RC" 1
check_has "no review in the output: said" "$(cat "$T/os.err")" \
    "PR #13 $(printf %.7s "$S3"): the review failed"
check_eq "no review in the output: one error comment" \
    "$(rv_comments 13 | pyjson "len([b for b in d if 'review-error: $S3' in b])")" 1

W=$(write_requests)
oneshot --pr 14
check_eq "CI pending: exit 0" "$OS_RC" 0
check_eq "CI pending: said" "$(cat "$T/os.out")" \
    "PR #14 $(printf %.7s "$S4"): not reviewed: CI has not passed (pending)"
oneshot --pr 99
check_eq "no such open PR: exit 0" "$OS_RC" 0
check_eq "no such open PR: said" "$(cat "$T/os.out")" \
    "PR #99: not an open PR: nothing to review"
check_eq "CI pending, no PR: no forge write, no session" \
    "$(write_requests) $(sessions)" "$W "

# An agent that never answers: the wait ends, the review goes on.
echo '[]' >"$T/silent.json"
REVIEW_PR_TIMEOUT_SECONDS=2 AGENT_CMD="$FAKE_AGENT --script $T/silent.json" \
    oneshot --pr 15
check_eq "timeout: exit 1" "$OS_RC" 1
check_eq "timeout: said" "$(cat "$T/os.err")" \
    "PR #15 $(printf %.7s "$S5"): no verdict within 2 s; the review goes on and a later tick posts it"
check_eq "timeout: the review session goes on" "$(sessions)" "review-harb-15 "
check_eq "timeout: nothing posted" "$(marked 15 "$S5")" 0

# The review lock is the ticks': held elsewhere, the one-shot waits for
# it until its time is up.
t_tmux kill-server 2>/dev/null
python3 - "$DISINTO_RUN_DIR/harb-review.lock" "$T/locked" <<'PY' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(6)
PY
HOLDER=$!
wait_for '[ -e "$T/locked" ]' 5
REVIEW_PR_TIMEOUT_SECONDS=1 oneshot --pr 15 --force
check_eq "lock held by a tick: exit 1" "$OS_RC" 1
check_has "lock held by a tick: said" "$(cat "$T/os.err")" \
    "cannot take the review lock"
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null

oneshot --pr
check_eq "--pr without a number: exit 2" "$OS_RC" 2
oneshot --pr 15 --status
check_eq "--pr with --status: exit 2" "$OS_RC" 2

# Ticks after all this: the forced review is not posted again.
: >"$FACTORY_ROOT/state/.reviewer-active"
rv_tick
rv_wait_done 15
rv_tick
check_eq "ticks after --force: no third comment" "$(marked 11 "$S1")" 2
check_eq "ticks after --force: PR 11 not reviewed again" \
    "$(sessions | grep -c review-harb-11)" 0
