# review-poll under forge faults: the PR list unreadable (nothing done),
# a diff unreadable at launch (that review waits), and every endpoint of
# posting a review failing in its own way (500, a slow answer the client
# gave up on although the forge acted, a broken answer after the forge
# acted, unreadable comments, a failed dismissal).  No review is left
# half posted: the next tick completes each one, and nothing is posted
# twice.  Also: a review setting from the environment
# (REVIEW_MAX_REVIEWS_PER_TICK, [review] max_reviews_per_tick).
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
rv_setup

# Ten reviews per tick.
export REVIEW_MAX_REVIEWS_PER_TICK=10

: >"$T/statuses.json.in"
for n in 1 2 3 4 5 6 7; do
	eval "S$n=\$(rv_branch fix/issue-$n f$n.c 'f$n')"
done
python3 - "$T" "$S1" "$S2" "$S3" "$S4" "$S5" "$S6" "$S7" <<'PY'
import json, sys
t, shas = sys.argv[1], sys.argv[2:]
verdict = {2: "REQUEST_CHANGES"}
pulls = []
for i, sha in enumerate(shas, 1):
    out = {"verdict": verdict.get(i, "APPROVE"), "verdict_reason": "r%d" % i,
           "review_markdown": "review of %d" % i}
    pulls.append({"number": 10 + i, "title": "fix: f%d (#%d)" % (i, i),
                  "head": {"ref": "fix/issue-%d" % i}, "files": ["f%d.c" % i],
                  "body": "OUTPUT<<%s>>OUTPUT" % json.dumps(out)})
# #16 carries an older request for changes by the reviewer.
pulls[5]["reviews"] = [{"id": 900, "user": "review-bot",
                        "state": "REQUEST_CHANGES", "body": "old",
                        "commit_id": "0" * 40}]
json.dump(pulls, open(t + "/pulls.json", "w"))
json.dump({s: {"state": "success"} for s in shas},
          open(t + "/statuses.json", "w"))
PY
rv_scenario "$T/scenario.json"
sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
    { fail "simulator starts"; exit 1; }

n_comments() {
	rv_comments "$1" | pyjson 'len(d)'
}
n_reviews() {
	rv_reviews "$1" | grep -c "$2"
}

# The PR list cannot be read: exit 1, nothing started, nothing written.
fault '{"method": "GET", "path": "/pulls\\?", "mode": "500", "count": 0}'
rv_tick
check_eq "unreadable PR list: exit 1" "$RV_RC" 1
check_eq "unreadable PR list: no session" "$(sessions)" ""
check_eq "unreadable PR list: no write" "$(write_requests)" 0
check_has "unreadable PR list: logged" \
    "$(cat "$FACTORY_ROOT/review/review.log")" "cannot list the open prs"
faults_clear

# One PR of the list has no string head.sha: it is skipped with one log
# line, the others would be reviewed (a dry run).
fault '{"method": "GET", "path": "/pulls\\?", "mode": "wrongtype",
    "field": "head.sha", "item": 11, "count": 0}'
: >"$T/tick.out"
rv_tick --dry-run
faults_clear
RVLOG=$(cat "$T/tick.out")
check_has "a bad PR among good ones: skipped" "$RVLOG" \
    "skipping PR #11 of '/pulls?state=open': 'head.sha' is an array, not a string"
check_lacks "a bad PR among good ones: not reviewed" "$RVLOG" \
    "would start session review-$P-11 "
check_has "a bad PR among good ones: the others would be" "$RVLOG" \
    "would start session review-$P-12 "

# One diff cannot be read: that review waits, the others start.
fault '{"method": "GET", "path": "/pulls/17\\.diff", "mode": "truncate", "count": 0}'
rv_tick
check_eq "unreadable diff: exit 1" "$RV_RC" 1
check_eq "unreadable diff: the other six started" "$(sessions)" \
    "review-harb-11 review-harb-12 review-harb-13 review-harb-14 review-harb-15 review-harb-16 "
check_eq "unreadable diff: no run files for it" \
    "$(ls "$DISINTO_RUN_DIR" | grep -c -- '-17')" 0
faults_clear
rv_wait_done 11 12 13 14 15 16

# Posting fails in a different way for each review.
fault '{"method": "POST", "path": "/issues/11/comments$", "mode": "500", "count": 0}'
fault '{"method": "POST", "path": "/pulls/12/reviews$", "mode": "500", "count": 0}'
fault '{"method": "POST", "path": "/issues/13/comments$", "mode": "delay", "delay": 3}'
fault '{"method": "POST", "path": "/issues/14/comments$", "mode": "badjson"}'
fault '{"method": "GET", "path": "/issues/15/comments", "mode": "500", "count": 0}'
fault '{"method": "POST", "path": "/pulls/16/reviews/900/dismissals", "mode": "500", "count": 0}'
rv_tick
check_eq "faults while posting: exit 1" "$RV_RC" 1
check "faults while posting: said in the status file" grep -qE \
    "review-poll: tick failed: [0-9]+ writes failed, the first: cannot (comment on|submit the APPROVED review of) #1[1-6]$" \
    "$DISINTO_RUN_DIR/$P-review-status"
wait_for '[ "$(n_comments 13)" = 1 ]' 5
check_eq "comment refused: nothing posted" \
    "$(n_comments 11) $(n_reviews 11 APPROVED)" "0 0"
check_eq "formal review refused: comment only" \
    "$(n_comments 12) $(n_reviews 12 REQUEST_CHANGES)" "1 0"
check_eq "slow comment (done by the forge): no formal review yet" \
    "$(n_comments 13) $(n_reviews 13 APPROVED)" "1 0"
check_eq "broken answer to the comment: read back, the review goes in" \
    "$(n_comments 14) $(n_reviews 14 APPROVED)" "1 1"
check_eq "comments unreadable: nothing posted" \
    "$(n_comments 15) $(n_reviews 15 APPROVED)" "0 0"
check_eq "dismissal refused: the approval still goes in" \
    "$(n_comments 16) $(n_reviews 16 APPROVED)" "1 1"
check_eq "dismissal refused: the old review stays" \
    "$(rv_reviews 16 | grep REQUEST_CHANGES)" \
    "review-bot REQUEST_CHANGES 0000000000000000000000000000000000000000 False"
for n in 11 12 13 15 16; do
	check_eq "#$n is still to be posted" \
	    "$(head -1 "$DISINTO_RUN_DIR/sessions/active/review-$P-$n/review-session-$P-$n.phase")" \
	    PHASE:done
done
faults_clear

rv_tick
check_eq "after the faults: exit 0" "$RV_RC" 0
for n in 11 13 14 15; do
	check_eq "#$n completed once" \
	    "$(n_comments $n) $(n_reviews $n APPROVED)" "1 1"
done
check_eq "#16: the old review dismissed by the next tick" \
    "$(rv_reviews 16 | grep REQUEST_CHANGES)" \
    "review-bot REQUEST_CHANGES 0000000000000000000000000000000000000000 True"
check_eq "#16: still one comment, one approval" \
    "$(n_comments 16) $(n_reviews 16 APPROVED)" "1 1"
check_eq "#12 completed once" \
    "$(n_comments 12) $(n_reviews 12 REQUEST_CHANGES)" "1 1"
check_eq "#12 now awaits changes" \
    "$(head -1 "$DISINTO_RUN_DIR/sessions/active/review-$P-12/review-session-$P-12.phase")" \
    PHASE:awaiting_changes
rv_wait_done 17
rv_tick
rv_tick
check_eq "quiet ticks: exit 0" "$RV_RC" 0
for n in 11 13 14 15 16 17; do
	check_eq "#$n: one comment, one approval in the end" \
	    "$(n_comments $n) $(n_reviews $n APPROVED)" "1 1"
done
check_eq "#12: one comment, one request for changes in the end" \
    "$(n_comments 12) $(n_reviews 12 REQUEST_CHANGES)" "1 1"
check_eq "no session left" "$(sessions)" ""
