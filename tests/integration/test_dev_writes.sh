# Forge writes whose answer is lost or refused: every comment carries a
# hidden marker and is not posted again when the issue has it; a comment
# or label change whose answer was lost is read back before it counts as
# failed; label races converge on the intended set (a claim delayed past
# the client timeout, a 404 on a removal); and a tick whose writes failed
# exits 1 with the first failure in dev-agent-status-P.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
export DISINTO_HTTP_TIMEOUT=1
C=cccccccccccccccccccccccccccccccccccccccc
STATUS=$RUN/dev-agent-status-$PROJ

# status_has NAME REGEX: the status file's line matches.
status_has() {
	if grep -qE -- "$2" "$STATUS" 2>/dev/null; then
		ok "$1"
	else
		fail "$1" "status: $(cat "$STATUS" 2>/dev/null)"
	fi
}

# --- Labels.  The claim's answer comes after the client's timeout (the
# forge applies it late): the labels are read back, the claim sent again,
# and the issue ends claimed, not both claimed and given back.
scen '[{"number": 10, "title": "Ready", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
fault '{"method": "POST", "path": "/issues/10/labels$", "mode": "delay",
    "delay": 2.5, "count": 1}'
dp
rc_is "claim answered late" 0
lhas "claim answered late: read back" "#10: labels as intended after all"
check "claim answered late: the session runs" \
    t_tmux has-session -t "dev-$PROJ-10"
sleep 2
check_eq "claim answered late: claimed, not given back" "$(labels 10)" \
    in-progress
t_tmux kill-session -t "dev-$PROJ-10"
rm -f "$RUN/sessions/active/dev-$PROJ-10/dev-session-$PROJ-10.phase"

# A 404 on removing a label the issue still carries is not "removed": the
# labels are read back and the removal sent again.  #20 is in progress
# but a formula: in-progress comes off.
scen '[{"number": 20, "title": "Formula", "labels": ["in-progress", "formula"]}]' \
    '[]' >"$T/case.json"
case_start
fault '{"method": "DELETE", "path": "/issues/20/labels/2$", "mode": "404",
    "count": 1}'
dp
rc_is "404 on a removal, once" 0
check_eq "404 on a removal, once: the label is gone" "$(labels 20)" formula
lhas "404 on a removal, once: read back" \
    "#20: labels as intended after all .*HTTP 404"
faults_clear

# Every time: the label stays, the tick fails and says which write.
scen '[{"number": 21, "title": "Formula", "labels": ["in-progress", "formula"]}]' \
    '[]' >"$T/case.json"
case_start
fault DELETE '/issues/21/labels/2$' 404
dp
rc_is "404 on a removal, always" 1
check_eq "404 on a removal, always: the label stays" "$(labels 21)" \
    formula,in-progress
lhas "404 on a removal, always: said" \
    "cannot remove label 'in-progress' from #21: HTTP 404"
status_has "404 on a removal, always: in the status file" \
    "dev-poll: tick failed: 1 write failed, the first: cannot remove label 'in-progress' from #21$"
faults_clear

# --- Comments.  #3's PR has failed CI for the fourth time: dev-poll
# posts the one diagnostic comment and labels the issue blocked.
ci_case() {	# EXTRA_COMMENTS_JSON
	scen "[{\"number\": 3, \"title\": \"Red\", \"labels\": [\"in-progress\"],
	        \"comments\": [$1]}]" \
	    "[{\"number\": 23, \"title\": \"fix: Red (#3)\", \"files\": [\"a.c\"],
	       \"head\": {\"ref\": \"fix/issue-3\", \"sha\": \"$C\"}}]" \
	    "\"statuses\": {\"$C\": {\"state\": \"failure\"}}" >"$T/case.json"
	case_start
	legacy_agent
	echo '{"23": 3}' >"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json"
}
ci_case ''
dp
rc_is "CI exhausted" 0
check_eq "CI exhausted: one comment" "$(comments 3)" 1
check_eq "CI exhausted: it ends with its marker" \
    "$(sim_state_get '[i for i in d["issues"] if i["number"] == 3][0]["comments"][0]["body"].endswith("\n\n<!-- disinto: ci-exhausted #23 -->\n")')" \
    true
check_eq "CI exhausted: blocked" "$(labels 3)" blocked,in-progress

# The issue has the comment already (an earlier tick's, whose answer was
# lost): it is not posted again.
ci_case '{"user": "dev-bot", "body": "### CI fix budget used up\n\n<!-- disinto: ci-exhausted #23 -->\n"}'
dp
lhas "marker there already: said" "#3 has the comment 'ci-exhausted #23' already"
check_eq "marker there already: no second comment" \
    "$(sim_log_count POST '/issues/3/comments$')" 0
check_eq "marker there already: still blocked" "$(labels 3)" blocked,in-progress

# The forge posts the comment, but its answer is cut off: the comments
# are read back, the comment is there, nothing failed.
ci_case ''
fault '{"method": "POST", "path": "/issues/3/comments$", "mode": "truncate",
    "count": 1}'
dp
rc_is "comment answer cut off" 0
lhas "comment answer cut off: read back" \
    "#3: the answer to the comment 'ci-exhausted #23' was lost, but the comment is there"
check_eq "comment answer cut off: one comment" "$(comments 3)" 1

# The forge refuses the comment: the tick fails and says so.
ci_case ''
fault POST '/issues/3/comments$' 500
dp
rc_is "comment refused" 1
check_eq "comment refused: no comment" "$(comments 3)" 0
status_has "comment refused: in the status file" \
    "tick failed: 1 write failed, the first: cannot comment on #3$"
faults_clear

# --- Writes inside the phase reactions of a live session fail the tick.
unset DEV_AGENT_CMD AGENT_SANDBOX
scen '[{"number": 1, "title": "One", "labels": ["in-progress"]}]' '[]' \
    >"$T/case.json"
case_start
t_tmux new-session -d -s "dev-$PROJ-1" -x 200 -y 50 \
    "env FAKE_AGENT_LOG=$T/al-1 $FAKE_AGENT"
wait_for "t_tmux capture-pane -p -t dev-$PROJ-1 | grep -q '❯'" 10
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo 'PHASE:awaiting_ci' >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
fault POST '/pulls$' 500
dp
rc_is "POST /pulls refused" 1
status_has "POST /pulls refused: in the status file" \
    "tick failed: 1 write failed, the first: cannot open a PR from fix/issue-1$"
check_eq "POST /pulls refused: the next tick tries first, the agent is not told" \
    "$(prompts "$T/al-1")" 0
dp
rc_is "POST /pulls refused twice" 1
check_eq "POST /pulls refused twice: the agent is told once" \
    "$(prompts "$T/al-1")" 1
check "POST /pulls refused twice: how to try again" \
    grep -q 'could not be created' "$T/al-1/prompt-1.txt"
faults_clear

mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
printf 'PHASE:failed\nReason: tests do not pass\n' \
    >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
fault POST '/issues/1/comments$' 500
dp
rc_is "diagnostic comment refused" 1
status_has "diagnostic comment refused: in the status file" \
    "tick failed: 1 write failed, the first: cannot comment on #1$"
faults_clear
dp
rc_is "diagnostic comment, then" 0
status_has "a good tick replaces the failed tick's status line" \
    "dev-poll: tick ok \\(the last failed tick is in the log\\)$"
check_eq "diagnostic comment, then: posted once" \
    "$(comments_with 1 '<!-- disinto: dev-diagnostic ')" 1
check_eq "diagnostic comment, then: blocked" "$(labels 1)" blocked
tick_twice "after the diagnostic"
status_has "a later good tick keeps it" \
    "dev-poll: tick ok \\(the last failed tick is in the log\\)$"
