# Fault matrix world: review-poll collects two finished reviews and
# routes them: #11 (issue #1) approved, which also dismisses the bot's
# older request for changes, and #12 (issue #2) with changes requested;
# each gets its comment and its formal review, and the dev sessions of
# #1 and #2, waiting in PHASE:awaiting_review, are told the verdict.
. "$TOP/tests/integration/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
. "$TOP/tests/integration/faults/lib.sh"
W_NAME=review

w_init() {
	rv_setup
	_s1=$(rv_branch fix/issue-1 f1.c f1)
	_s2=$(rv_branch fix/issue-2 f2.c f2)
	python3 - "$T" "$_s1" "$_s2" <<'PY'
import json, sys
t, s1, s2 = sys.argv[1:]
def out(verdict, text):
    return "OUTPUT<<%s>>OUTPUT" % json.dumps({
        "verdict": verdict, "verdict_reason": "because",
        "review_markdown": text})
pulls = [{"number": 11, "title": "fix: f1 (#1)", "files": ["f1.c"],
          "head": {"ref": "fix/issue-1"},
          "body": out("APPROVE", "Looks right."),
          "reviews": [{"id": 900, "user": "review-bot",
                       "state": "REQUEST_CHANGES", "body": "old",
                       "commit_id": "0" * 40}]},
         {"number": 12, "title": "fix: f2 (#2)", "files": ["f2.c"],
          "head": {"ref": "fix/issue-2"},
          "body": out("REQUEST_CHANGES", "Handle the empty case.")}]
json.dump(pulls, open(t + "/pulls.json", "w"))
json.dump({s1: {"state": "success"}, s2: {"state": "success"}},
          open(t + "/statuses.json", "w"))
PY
	rv_scenario "$T/scenario.json"
	sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
	    { fail "simulator starts"; exit 1; }
	# The reviews are made (not a part of the matrix): the world starts
	# with both agents through, their sessions gone.
	rv_tick
	rv_wait_done 11 12
	t_tmux kill-server 2>/dev/null
	for _n in 1 2; do
		echo 'PHASE:awaiting_review' \
		    >"$DISINTO_RUN_DIR/dev-session-$P-$_n.phase"
	done
	W_CMD=$RP
	W_AGENTS="dev-$P-1=$T/al-1 dev-$P-2=$T/al-2"
}

w_start() {
	# shellcheck disable=SC2086
	fm_agents $W_AGENTS
}

fm_main
