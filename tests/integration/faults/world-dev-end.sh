# Fault matrix world: dev-poll's reactions to the end of a session, three
# at once: #1 wrote PHASE:done and its PR is merged (the issue closed, out
# of in-progress, the session ended); #2 wrote PHASE:failed (one
# diagnostic comment, blocked, the session ended); #3 refused the issue as
# too large (one comment, underspecified, off in-progress).
. "$TOP/tests/integration/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/faults/lib.sh"
W_NAME=dev-end

w_init() {
	dev_init git
	_s1=$(git_branch fix/issue-1 a.c)
	# The last "labels" member (this world's) is the one JSON readers keep.
	scen '[{"number": 1, "title": "One", "labels": ["in-progress"]},
	       {"number": 2, "title": "Two", "labels": ["in-progress"]},
	       {"number": 3, "title": "Three", "labels": ["in-progress"]}]' \
	    "[{\"number\": 10, \"title\": \"fix: One (#1)\", \"body\": \"Fixes #1\",
	       \"state\": \"closed\", \"merged\": true,
	       \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"$_s1\"}}]" \
	    '"labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
	                {"id": 3, "name": "blocked"}, {"id": 4, "name": "underspecified"}]' \
	    >"$T/scenario.json"
	printf 'PHASE:done\n' >"$RUN/dev-session-$PROJ-1.phase"
	printf 'PHASE:failed\nReason: the tests keep failing\n' \
	    >"$RUN/dev-session-$PROJ-2.phase"
	printf 'PHASE:failed\nReason: refused\n' >"$RUN/dev-session-$PROJ-3.phase"
	printf '{"status": "too_large", "reason": "needs three subsystems"}' \
	    >"$RUN/dev-impl-summary-$PROJ-3.txt"
	dev_sim "$T/scenario.json"
	W_CMD="$O/dev-poll/dev-poll $P"
	W_AGENTS="dev-$PROJ-1=$T/al-1 dev-$PROJ-2=$T/al-2 dev-$PROJ-3=$T/al-3"
}

w_start() {
	# shellcheck disable=SC2086
	fm_agents $W_AGENTS
}

fm_main
