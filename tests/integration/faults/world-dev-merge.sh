# Fault matrix world: dev-poll merges an approved PR whose CI passed
# (#3 for issue #1, in progress, no session): the merge at the checked
# SHA, the issue closed and out of in-progress, the branch deleted, the
# primary branch fast-forwarded.  The ticks after it have nothing to do;
# none may start a session on the merged work.
. "$TOP/tests/integration/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/faults/lib.sh"
W_NAME=dev-merge

w_init() {
	dev_init git
	_sha=$(git_branch fix/issue-1 src.c)
	scen '[{"number": 1, "title": "Add a parser", "labels": ["in-progress"]}]' \
	    "[{\"number\": 3, \"title\": \"fix: Add a parser (#1)\",
	       \"body\": \"Fixes #1\", \"files\": [\"src.c\"],
	       \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"$_sha\"},
	       \"reviews\": [{\"user\": \"review-bot\", \"state\": \"APPROVED\",
	                    \"commit_id\": \"$_sha\"}]}]" \
	    "\"woodpecker\": {\"repo_id\": 1, \"token\": \"wp-token\",
	      \"pipelines\": [{\"number\": 1, \"commit\": \"$_sha\",
	                      \"status\": \"success\"}]}" >"$T/scenario.json"
	echo "summary" >"$RUN/dev-impl-summary-$PROJ-1.txt"
	dev_sim "$T/scenario.json" '[ci]' 'woodpecker_repo_id = 1'
	W_CMD="$O/dev-poll/dev-poll $P"
	W_AGENTS="dev-$PROJ-1=$T/agentlog"
}

w_start() {
	:
}

fm_main
