# Fault matrix world: dev-poll launches a session for a ready backlog
# issue (#1, whose dependency #2 is closed; a human comment; #3 waits on
# the backlog): the claim, the worktree, the fake agent in tmux, the
# prompt.  The ticks after it find the slot busy.
. "$TOP/tests/integration/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/faults/lib.sh"
W_NAME=dev-launch

w_init() {
	dev_init git
	scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"],
	        "body": "Parse it.\n\n## Dependencies\n- #2\n",
	        "comments": [{"user": "alice", "body": "Use a table."}]},
	       {"number": 2, "title": "Done before", "state": "closed"},
	       {"number": 3, "title": "Later", "labels": ["backlog"],
	        "body": "Depends on #1."}]' '[]' >"$T/scenario.json"
	dev_sim "$T/scenario.json"
	W_CMD="$O/dev-poll/dev-poll $P"
	W_AGENTS="dev-$PROJ-1=$T/agentlog"
}

w_start() {
	:
}

fm_main
