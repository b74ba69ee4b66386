# Fault matrix world: dev-poll's reactions to PHASE:awaiting_ci, three
# sessions at once: #1 has no PR yet (it is opened) and CI passed on its
# branch; #2's PR failed a test step (the failure and the log tail are
# typed in); #3's PR failed at the clone, an infrastructure failure (the
# pipeline is started again).
. "$TOP/tests/integration/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/faults/lib.sh"
W_NAME=dev-ci

w_init() {
	dev_init git
	_s1=$(git_branch fix/issue-1 a.c)
	_s2=$(git_branch fix/issue-2 b.c)
	_s3=$(git_branch fix/issue-3 c.c)
	scen '[{"number": 1, "title": "One", "labels": ["in-progress"]},
	       {"number": 2, "title": "Two", "labels": ["in-progress"]},
	       {"number": 3, "title": "Three", "labels": ["in-progress"]}]' \
	    "[{\"number\": 10, \"title\": \"fix: Two (#2)\", \"body\": \"Fixes #2\",
	       \"head\": {\"ref\": \"fix/issue-2\", \"sha\": \"$_s2\"}, \"files\": [\"b.c\"]},
	      {\"number\": 11, \"title\": \"fix: Three (#3)\", \"body\": \"Fixes #3\",
	       \"head\": {\"ref\": \"fix/issue-3\", \"sha\": \"$_s3\"}, \"files\": [\"c.c\"]}]" \
	    "\"woodpecker\": {\"repo_id\": 1, \"token\": \"wp-token\",
	      \"pipelines\": [
	       {\"number\": 1, \"commit\": \"$_s1\", \"status\": \"success\",
	        \"branch\": \"fix/issue-1\"},
	       {\"number\": 2, \"commit\": \"$_s2\", \"status\": \"failure\",
	        \"branch\": \"fix/issue-2\", \"workflows\": [{\"children\": [
	         {\"id\": 21, \"name\": \"clone\", \"state\": \"success\", \"exit_code\": 0},
	         {\"id\": 22, \"name\": \"test\", \"state\": \"failure\", \"exit_code\": 2}]}]},
	       {\"number\": 3, \"commit\": \"$_s3\", \"status\": \"failure\",
	        \"branch\": \"fix/issue-3\", \"workflows\": [{\"children\": [
	         {\"id\": 31, \"name\": \"clone\", \"state\": \"failure\", \"exit_code\": 128}]}]}],
	      \"logs\": {\"2/22\": [\"running tests\", \"FAIL: parser_test\"],
	                \"3/31\": [\"fatal: could not read from remote\"]}},
	     \"statuses\": {\"$_s1\": {\"state\": \"success\"},
	                  \"$_s2\": {\"state\": \"failure\"},
	                  \"$_s3\": {\"state\": \"failure\"}}" \
	    >"$T/scenario.json"
	for _n in 1 2 3; do
		echo 'PHASE:awaiting_ci' >"$RUN/dev-session-$PROJ-$_n.phase"
	done
	echo "Adds a.c." >"$RUN/dev-impl-summary-$PROJ-1.txt"
	dev_sim "$T/scenario.json" '[ci]' 'woodpecker_repo_id = 1'
	W_CMD="$O/dev-poll/dev-poll $P"
	W_AGENTS="dev-$PROJ-1=$T/al-1 dev-$PROJ-2=$T/al-2 dev-$PROJ-3=$T/al-3"
}

w_start() {
	# shellcheck disable=SC2086
	fm_agents $W_AGENTS
}

fm_main
