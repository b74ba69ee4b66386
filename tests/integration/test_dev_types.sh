# Forge objects with a field missing or of the wrong type (the
# simulator's wrongtype fault on one field of one item): the object is
# skipped with one log line, never read as an empty string or 0, and the
# good objects beside it are still handled.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
S3=3333333333333333333333333333333333333333
S4=4444444444444444444444444444444444444444
S9=9999999999999999999999999999999999999999

# field_fault METHOD PATH_REGEX FIELD ITEM [VALUE]: for good, FIELD of
# item ITEM comes back with another type (or as VALUE).
field_fault() {
	fault "{\"method\": \"$1\", \"path\": \"$2\", \"mode\": \"wrongtype\",
	    \"field\": \"$3\", \"item\": $4, \"count\": 0${5:+, \"value\": $5}}"
}

# --- Merges: PR 3's head.sha is an array, PR 4 is fine; both approved
# and green.  PR 4 is merged, PR 3 is skipped (one log line), untouched.
scen '[{"number": 1, "title": "One", "labels": ["in-progress"]},
       {"number": 2, "title": "Two", "labels": ["in-progress"]}]' \
    "[{\"number\": 3, \"title\": \"fix: One (#1)\", \"files\": [\"a.c\"],
       \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"$S3\"},
       \"reviews\": [{\"user\": \"review-bot\", \"state\": \"APPROVED\", \"commit_id\": \"$S3\"}]},
      {\"number\": 4, \"title\": \"fix: Two (#2)\", \"files\": [\"b.c\"],
       \"head\": {\"ref\": \"fix/issue-2\", \"sha\": \"$S4\"},
       \"reviews\": [{\"user\": \"review-bot\", \"state\": \"APPROVED\", \"commit_id\": \"$S4\"}]}]" \
    "\"statuses\": {\"$S3\": {\"state\": \"success\"}, \"$S4\": {\"state\": \"success\"}}" \
    >"$T/case.json"
case_start
field_fault GET '/pulls[?]' head.sha 3
dp
lhas "bad PR: one log line" \
    "skipping PR #3 of '/pulls[?]state=open': 'head.sha' is an array, not a string"
check_eq "bad PR: said once" "$(grep -c 'skipping PR #3' "$T/tick.log")" 1
check_eq "the good PR is merged, the bad one is not" \
    "$(sim_state_get '[p["merged"] for p in sorted(d["pulls"], key=lambda p: p["number"])]')" \
    '[false, true]'
check_eq "bad PR: no merge request" "$(requests '/pulls/3/merge')" 0
faults_clear
dp
check_eq "merged once its data is whole" \
    "$(sim_state_get '[p["merged"] for p in d["pulls"]]')" '[true, true]'

# --- Backlog: #10 is the oldest, but its title is an array in the list;
# #11 is launched instead, and #10 never gets a session or a label.
legacy_agent
scen '[{"number": 10, "title": "Oldest", "labels": ["backlog"]},
       {"number": 11, "title": "Next", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
field_fault GET 'labels=backlog' title 10
dp
lhas "bad issue: one log line" \
    "skipping issue #10 of '/issues[?]state=open&labels=backlog.*': 'title' is an array, not a string"
check_eq "the good issue is launched" "$(launched)" 11
check_eq "the bad issue is untouched" "$(labels 10)" backlog
legacy_stop

# A number that is not an integer is as bad as a missing one.
scen '[{"number": 10, "title": "Oldest", "labels": ["backlog"]},
       {"number": 11, "title": "Next", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
legacy_agent
field_fault GET 'labels=backlog' number 10 10.5
dp
lhas "fractional number: skipped" \
    "skipping issue [0-9]+ of '/issues[?]state=open&labels=backlog.*': 'number' is a number, not an integer from 1 to 2\^53"
check_eq "fractional number: the good issue is launched" "$(launched)" 11
legacy_stop

# A negative number, and one above 2^53 (no JSON reader holds it
# exactly), cannot number an issue either.
for bad in -10 9007199254740994; do
	case_start
	legacy_agent
	field_fault GET 'labels=backlog' number 10 "$bad"
	dp
	lhas "number $bad: skipped" \
	    "skipping issue #$bad of '/issues[?]state=open&labels=backlog.*': 'number' is a number, not an integer from 1 to 2\\^53"
	check_eq "number $bad: the good issue is launched" "$(launched)" 11
	lnot "number $bad: never claimed" "label 'in-progress' to #$bad"
	legacy_stop
done

# --- PHASE:awaiting_ci with a live session.  The issue's title comes
# back as an array: no PR titled "fix:  (#1)" is opened; once the title
# is a string, the PR is "fix: One (#1)".
unset DEV_AGENT_CMD AGENT_SANDBOX
export AGENT_CMD="env FAKE_AGENT_LOG=$T/agentlog $FAKE_AGENT"
scen '[{"number": 1, "title": "One", "labels": ["in-progress"]}]' '[]' \
    >"$T/case.json"
case_start
t_tmux new-session -d -s "dev-$PROJ-1" -x 200 -y 50 \
    "env FAKE_AGENT_LOG=$T/al-1 $FAKE_AGENT"
wait_for "t_tmux capture-pane -p -t dev-$PROJ-1 | grep -q '❯'" 10
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo 'PHASE:awaiting_ci' >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
field_fault GET '/issues/1$' title 1
dp
lhas "title an array: said" "issue: 'title' is an array, not a string"
check_eq "title an array: no PR opened" "$(sim_log_count POST '/pulls$')" 0
faults_clear
dp
check_eq "then the PR has the issue's title" \
    "$(sim_state_get '[p["title"] for p in d["pulls"]]')" '["fix: One (#1)"]'

# --- The PR just opened for a session in awaiting_ci comes back without a
# string head.sha: no crash (strcmp on NULL), the fault is said, and no
# second PR is opened for the branch on the next ticks.  In a list, such
# a PR is skipped with one log line.
scen '[{"number": 1, "title": "One", "labels": ["in-progress"]}]' '[]' \
    >"$T/case.json"
case_start
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo 'PHASE:awaiting_ci' >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
fault '{"method": "GET", "path": "/pulls/[0-9]+$", "mode": "wrongtype",
    "field": "head.sha", "count": 0}'
dp
check "head.sha an array: no crash" test "$DP_RC" -lt 128
lhas "head.sha an array: said" "PR: 'head.sha' is an array, not a string"
check_eq "head.sha an array: one PR" "$(sim_state_get 'len(d["pulls"])')" 1
faults_clear
field_fault GET '/pulls[?]' head.sha 2 null
dp
check "head.sha null: no crash" test "$DP_RC" -lt 128
lhas "head.sha null: one log line" \
    "skipping PR #2 of '/pulls[?]state=open': no 'head.sha'"
faults_clear
dp
rc_is "a whole PR again" 0
lnot "a whole PR again: nothing skipped" 'skipping'
check_eq "still one PR" "$(sim_state_get 'len(d["pulls"])')" 1
