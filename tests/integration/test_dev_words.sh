# The comments dev-poll posts that the bash scripts posted keep bash's
# headings and markers (issue 11, item 11), where people and tools look
# for them: the CI-fix exhaustion comment is dev-poll.sh's "Session
# failure diagnostic" table with exit reason ci_exhausted_poll (N
# attempts), timestamp and PR; a failed session's diagnostic is
# post_blocked_diagnostic's table; refusals are post_refusal_comment's
# "Dev-agent: TITLE" with their headings; the dependency notice is
# dev-agent.sh's.  Our own lines come below them.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
S=5555555555555555555555555555555555555555

# starts NAME N TEXT: a comment of issue N starts with TEXT.
starts() {
	WANT=$3
	export WANT
	if [ "$(sim_state_get "any(c['body'].startswith(__import__('os').environ['WANT']) for i in d['issues'] if i['number'] == $2 for c in i.get('comments', []))")" = true ]; then
		ok "$1"
	else
		fail "$1" "#$2: $(sim_state_get "[c['body'][:300] for i in d['issues'] if i['number'] == $2 for c in i.get('comments', [])]")"
	fi
}
BT='`'
SIG='---
*Automated assessment by dev-agent · '

# Failed sessions (none alive): a diagnostic and four refusals.  (No
# memory to launch what goes back on the backlog.)
scen '[{"number": 6, "title": "Six", "labels": ["in-progress"]},
       {"number": 7, "title": "Seven", "labels": ["in-progress"]},
       {"number": 8, "title": "Eight", "labels": ["in-progress"]},
       {"number": 9, "title": "Nine", "labels": ["in-progress"]},
       {"number": 11, "title": "Eleven", "labels": ["in-progress"]}]' \
    '[]' >"$T/case.json"
case_start
failed() {	# N REASON [SUMMARY]
	mkdir -p "$RUN/sessions/active/dev-$PROJ-$1"
	printf 'PHASE:failed\nReason: %s\n' "$2" >"$RUN/sessions/active/dev-$PROJ-$1/dev-session-$PROJ-$1.phase"
	[ $# -lt 3 ] || printf '%s' "$3" >"$RUN/sessions/active/dev-$PROJ-$1/dev-impl-summary-$PROJ-$1.txt"
}
failed 6 "broken build"
failed 7 refused '{"status": "too_large", "reason": "three subsystems"}'
failed 8 refused '{"status": "unmet_dependency", "blocked_by": "the lexer", "suggestion": 3}'
failed 9 refused '{"status": "already_done", "reason": "see x.c"}'
failed 11 refused '{"status": "weird"}'
mem 1000
dp
rc_is "failed sessions" 0
starts "diagnostic: post_blocked_diagnostic's table" 6 "### Session failure diagnostic

| Field | Value |
|---|---|
| Exit reason | ${BT}broken build${BT} |
| Timestamp | ${BT}"
starts "too_large: post_refusal_comment's words" 7 "📏 **Dev-agent: Too large for single session**

### Why this can't be implemented as-is

three subsystems

### Next steps
A maintainer should split this issue or add more detail to the spec.

$SIG"
starts "unmet_dependency: post_refusal_comment's words" 8 "🚧 **Dev-agent: Unmet dependency**

### Blocked by unmet dependency

the lexer

**Suggestion:** Work on #3 first.

$SIG"
starts "already_done: post_refusal_comment's words" 9 "✅ **Dev-agent: Already implemented**

### Existing implementation

see x.c

Closing as already implemented.

$SIG"
starts "unknown status: post_refusal_comment's words" 11 "❓ **Dev-agent: Unable to proceed**

The dev-agent could not process this issue.

Raw response:
${BT}${BT}${BT}json
"

# The CI-fix budget used up.  The defect on the code before: "### CI fix
# budget used up", which nothing looking for bash's table finds.
scen '[{"number": 5, "title": "Orphan", "labels": ["in-progress"]}]' \
    "[{\"number\": 15, \"title\": \"fix: Orphan (#5)\", \"files\": [\"a.c\"],
       \"head\": {\"ref\": \"fix/issue-5\", \"sha\": \"$S\"}}]" \
    "\"statuses\": {\"$S\": {\"state\": \"failure\"}}" >"$T/case.json"
case_start
mem 8000
echo '{"15": 3}' >"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json"
dp
rc_is "CI exhausted" 0
starts "CI exhausted: dev-poll.sh's table" 5 "### Session failure diagnostic

| Field | Value |
|---|---|
| Exit reason | ${BT}ci_exhausted_poll (3 attempts)${BT} |
| Timestamp | ${BT}"
check_eq "CI exhausted: the PR row" "$(comments_with 5 '| PR | #15 |')" 1
check_eq "CI exhausted: our line below" \
    "$(comments_with 5 'dev-poll stops here and marks this issue')" 1

# The dependency notice before a launch.
scen '[{"number": 5, "title": "Orphan", "labels": ["in-progress"],
        "body": "Depends on #7."},
       {"number": 7, "title": "Blocker"}]' '[]' >"$T/case.json"
case_start
dp
starts "dependency notice: dev-agent.sh's words" 5 "🚧 **Dev-agent: Unmet dependency**

### Blocked by open issues

This issue depends on #7, which is not yet closed.

**Suggestion:** Work on #7 first.

$SIG"
