# Protocol "checkpoint": prompts never travel in argv, and forge text in
# them is capped.  A 200 KiB issue launches a run (no E2BIG: the prompt
# is the run's standard input, from a private file removed once it
# runs); no process's command line holds the prompt; the prompt says the
# body was cut.  A review of a PR whose description is 300 KiB: the same.
# Each run's environment holds its role's token and not the other's, nor
# the Woodpecker token or a password the tick had in its own.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/lib/checkpoint.sh"
MARK=body-mark-$$-${T##*.}
BIG=$(python3 -c "import sys; print(sys.argv[1] + ' ' + 'lorem ipsum ' * 17500)" "$MARK")
ck_setup "[{\"number\": 1, \"title\": \"Big\", \"labels\": [\"backlog\"], \"body\": \"$BIG\"}]" git
check "the issue is over 200 KiB" \
    test "$(sim_state_get "len(d['issues'][0]['body'])")" -gt 204800
ck_script '[{"checkpoint": {"status": "DONE", "summary": "read it"}}]'
export FORGE_REVIEW_TOKEN=review-token DB_PASSWORD=hunter2-hunter2
export ANTHROPIC_BASE_URL=http://127.0.0.1:9

# no_mark WHAT: no command line on the machine holds the prompt's mark
# (the pattern from a file: grep's own command line must not hold it).
no_mark() {
	check_eq "$1: the prompt is on no command line" \
	    "$(grep -l -a -F -f "$T/mark.pat" /proc/[0-9]*/cmdline 2>/dev/null | wc -l)" 0
}

echo "$MARK" >"$T/mark.pat"
dp
rc_is "launch" 0
ck_wait_run 1 || fail "run 1 ended" "$(tail -5 "$DEVLOG")"
check "the run started" grep -q '^[0-9:]* run 1 new ' "$T/agentlog/events.log"
check "its prompt came on stdin" \
    grep -q '^[0-9:]* prompt from stdin$' "$T/agentlog/events.log"
check "the prompt has the issue" grep -q "$MARK" "$T/agentlog/prompt-1.txt"
check "the prompt says the body was cut" \
    grep -q '^\[\.\.\. cut: [0-9]* more bytes\]$' "$T/agentlog/prompt-1.txt"
check "the prompt is below the argument limit" \
    test "$(wc -c <"$T/agentlog/prompt-1.txt")" -lt 131072
check "the run's command line lacks it" \
    sh -c "test -s '$T/agentlog/argv-1.txt' &&
    ! grep -q -a -F -f '$T/mark.pat' '$T/agentlog/argv-1.txt'"
check "the prompt file is gone" test ! -e "$(ck_dir 1)/prompt.txt"
no_mark dev
E=$T/agentlog/env-1.txt
check "dev: FORGE_TOKEN, the agents' own" grep -qx 'FORGE_TOKEN=agent-token' "$E"
check "dev: no FORGE_REVIEW_TOKEN" sh -c "! grep -q '^FORGE_REVIEW_TOKEN=' '$E'"
check "dev: no WOODPECKER_TOKEN" sh -c "! grep -q '^WOODPECKER_TOKEN=' '$E'"
check "dev: no password of the tick's" sh -c "! grep -q '^DB_PASSWORD=' '$E'"
check "dev: the agent CLI's settings" \
    grep -qx 'ANTHROPIC_BASE_URL=http://127.0.0.1:9' "$E"
sim_stop
t_cleanup

# --- a review of a PR with a 300 KiB description.
ck_setup '[]' git
SHA=$(git_branch fix/issue-2 b.c)
BODY=$(python3 -c "import sys; print(sys.argv[1] + ' ' + 'dolor sit ' * 31000)" "$MARK")
sim_stop
scen '[]' "[{\"number\": 5, \"title\": \"fix: two (#2)\", \"body\": \"Fixes #2 $BODY\", \"head\": {\"ref\": \"fix/issue-2\"}, \"user\": \"dev-bot\", \"state\": \"open\"}]" \
    '"woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": []}' >"$T/case.json"
dev_sim "$T/case.json" '[ci]' 'woodpecker_repo_id = 1' '' '[agent]' \
    'protocol = "checkpoint"'
sim_post /_admin/pipeline "{\"commit\": \"$SHA\", \"status\": \"success\", \"branch\": \"fix/issue-2\", \"steps\": []}" >/dev/null
echo "$MARK" >"$T/mark.pat"
mkdir -p "$T/reviewlog" "$FACTORY_ROOT/review"
: >"$FACTORY_ROOT/state/.reviewer-active"
echo '[{"checkpoint": {"status": "DONE", "summary": "looked"}}]' >"$T/review.json"
AGENT_CMD="env FAKE_AGENT_SCRIPT=$T/review.json FAKE_AGENT_LOG=$T/reviewlog $FAKE_AGENT" \
    "$O/review-poll/review-poll" "$P" >"$T/rp.out" 2>&1
check_eq "review-poll started the review" "$?" 0
wait_for "grep -q 'run 1 end' '$T/reviewlog/events.log'" 15 ||
    fail "the review run ended" "$(tail -5 "$T/rp.out" "$FACTORY_ROOT"/review/*.log 2>&1)"
check "review: its prompt came on stdin" \
    grep -q '^[0-9:]* prompt from stdin$' "$T/reviewlog/events.log"
check "review: the prompt has the description" \
    grep -q "$MARK" "$T/reviewlog/prompt-1.txt"
check "review: the prompt says the description was cut" \
    grep -q '^\[\.\.\. cut: [0-9]* more bytes\]$' "$T/reviewlog/prompt-1.txt"
check "review: the prompt is below the argument limit" \
    test "$(wc -c <"$T/reviewlog/prompt-1.txt")" -lt 131072
check "review: the run's command line lacks it" \
    sh -c "test -s '$T/reviewlog/argv-1.txt' &&
    ! grep -q -a -F -f '$T/mark.pat' '$T/reviewlog/argv-1.txt'"
no_mark review
E=$T/reviewlog/env-1.txt
# A review agent writes its verdict; review-poll posts it with the token.
check "review: no FORGE_REVIEW_TOKEN" \
    sh -c "! grep -q '^FORGE_REVIEW_TOKEN=' '$E'"
check "review: no FORGE_TOKEN" sh -c "! grep -q '^FORGE_TOKEN=' '$E'"
check "review: no WOODPECKER_TOKEN" sh -c "! grep -q '^WOODPECKER_TOKEN=' '$E'"
