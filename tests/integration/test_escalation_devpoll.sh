# Escalations with dev-poll alone, as upstream's own crontab runs the
# factory (no supervisor-poll): the escalation frees the slot, is noticed
# on the issue, parked, resumed on a person's reply, reminded after 6
# hours and timed out after 24, with no supervisor-poll tick at all.  A
# parked conversation whose worktree was removed meanwhile (an old
# worktree with no process) is resumed in the worktree made again at the
# same path from its pushed branch, or, its branch gone too, starts a
# fresh conversation carrying the escalation and the reply; no tick
# fails for it.  With both tools, the project's escalation lock lets one
# pass act at a time: one notice.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/lib/checkpoint.sh"
dev_init git
scen '[
 {"number": 1, "title": "Pick a database", "labels": ["backlog"]},
 {"number": 2, "title": "Second thing", "labels": ["backlog"]},
 {"number": 3, "title": "Third thing"},
 {"number": 4, "title": "Fourth thing"},
 {"number": 5, "title": "Fifth thing"},
 {"number": 6, "title": "Sixth thing"},
 {"number": 7, "title": "Seventh thing"}]' '[]' >"$T/scen.json"
dev_sim "$T/scen.json"
SUP_LOG=$FACTORY_ROOT/supervisor/supervisor.log

agent() {
	printf '%s\n' "$2" >"$T/script-$1.json"
	AGENT_CMD="env FAKE_AGENT_SCRIPT=$T/script-$1.json FAKE_AGENT_LOG=$T/$1 $FAKE_AGENT"
	export AGENT_CMD
}
alive() {
	t_tmux has-session -t "$1" 2>/dev/null
}
gone() {
	! t_tmux has-session -t "$1" 2>/dev/null
}
# parked N HOURS_AGO REASON: issue N escalated HOURS_AGO, its
# conversation (Claude session id abc-N) parked, its worktree not there.
parked() {
	mkdir -p "$RUN/sessions/active/dev-$PROJ-$1"
	printf 'PHASE:escalate\nReason: %s\n' "$3" >"$RUN/sessions/active/dev-$PROJ-$1/dev-session-$PROJ-$1.phase"
	[ "$2" = 0 ] || touch -d "$2 hours ago" "$RUN/sessions/active/dev-$PROJ-$1/dev-session-$PROJ-$1.phase"
	printf 'ID: abc-%s\nAT: %s\nWORKTREE: %s\nREASON: %s\n' "$1" \
	    "$(stat -c %Y "$RUN/sessions/active/dev-$PROJ-$1/dev-session-$PROJ-$1.phase")" \
	    "$RUN/$PROJ-worktree-$1" "$3" >"$RUN/dev-escalation-parked-$PROJ-$1"
}

# --- #1 escalates: dev-poll notices, parks, and starts #2 ----------------
agent a1 '[{"phase": "PHASE:escalate", "reason": "postgres or sqlite?", "stop": true}]'
dp
rc_is "#1 launched" 0
wait_for "grep -q escalate '$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase' && [ -s '$RUN/sessions/active/dev-$PROJ-1/claude-id-dev-$PROJ-1' ]" 10
agent a2 '[]'
dp
rc_is "the tick of the escalation" 0
check_eq "the notice is posted" "$(ck_notices 1)" 1
check "the conversation is parked" test -s "$RUN/dev-escalation-parked-$PROJ-1"
check "the agent of #1 ended" gone "dev-$PROJ-1"
check "the slot is free: #2 started in the same tick" alive "dev-$PROJ-2"
dp
check_eq "a second tick posts no second notice" "$(ck_notices 1)" 1

# --- a reply: kept while the slot is busy, then the resume ----------------
ck_reply 1 "Use sqlite, keep it simple."
agent a1r '[{"say": "resumed"}]'
dp
rc_is "the tick that finds the reply" 0
lhas "dev-poll keeps the reply" "reply recorded for the parked conversation"
check "the reply waits for the resume" test -s "$RUN/dev-escalation-resume-$PROJ-1"
check "#1 waits while #2 works" gone "dev-$PROJ-1"
mkdir -p "$RUN/sessions/active/dev-$PROJ-2"
printf 'PHASE:failed\nReason: gave up\n' >"$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase"
dp
rc_is "the tick that resumes" 0
lhas "the reply resumes #1" "resuming Claude session fake-agent"
wait_for "[ -f '$T/a1r/prompt-1.txt' ]" 10
check "resumed with --resume ID" grep -q ' resume fake-agent$' "$T/a1r/events.log"
check "the reply is its first message" \
    grep -qF 'Use sqlite, keep it simple.' "$T/a1r/prompt-1.txt"
check "the records are gone" sh -c \
    "[ ! -e '$RUN/dev-escalation-parked-$PROJ-1' ] && [ ! -e '$RUN/dev-escalation-resume-$PROJ-1' ]"
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
printf 'PHASE:failed\nReason: done here\n' >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
dp
check "#1 ended" gone "dev-$PROJ-1"

# --- a parked worktree removed, its branch pushed: made again ------------
git_branch fix/issue-3 three.txt >/dev/null
parked 3 0 "which port?"
dp
rc_is "#3 noticed" 0
check_eq "#3: the notice" "$(ck_notices 3)" 1
ck_reply 3 "Port 8080."
agent a3 '[{"say": "resumed"}]'
dp
rc_is "the tick with the worktree gone (exit status 0)" 0
lhas "the worktree is made again" "the worktree '$RUN/$PROJ-worktree-3' of the parked conversation is gone — making it again from fix/issue-3"
wait_for "[ -f '$T/a3/prompt-1.txt' ]" 10
check "#3 resumed with --resume ID" grep -q ' resume abc-3$' "$T/a3/events.log"
check "in the worktree at the same path" test "$(t_tmux display-message -p -t "dev-$PROJ-3" '#{pane_current_path}')" = "$RUN/$PROJ-worktree-3"
check "on the pushed branch" test -f "$RUN/$PROJ-worktree-3/three.txt"
check "#3's reply is its first message" grep -qF 'Port 8080.' "$T/a3/prompt-1.txt"
check "#3's records are gone" test ! -e "$RUN/dev-escalation-parked-$PROJ-3"
mkdir -p "$RUN/sessions/active/dev-$PROJ-3"
printf 'PHASE:failed\nReason: done here\n' >"$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
dp

# --- a parked worktree removed with its branch: a fresh conversation -----
parked 4 0 "which colour?"
dp
check_eq "#4: the notice" "$(ck_notices 4)" 1
ck_reply 4 "Blue, please."
agent a4 '[{"say": "fresh"}]'
dp
rc_is "the tick with worktree and branch gone (exit status 0)" 0
lhas "a fresh conversation starts" "starting a fresh conversation with the escalation and the reply"
wait_for "[ -f '$T/a4/prompt-1.txt' ]" 10
check "#4 lives" alive "dev-$PROJ-4"
check "no --resume of a conversation that is gone" sh -c "! grep -q ' resume ' '$T/a4/events.log'"
check "the prompt carries the escalation" grep -qF 'which colour?' "$T/a4/prompt-1.txt"
check "and the reply" grep -qF 'Blue, please.' "$T/a4/prompt-1.txt"
check "#4 has a worktree again" test -d "$RUN/$PROJ-worktree-4"
check "#4's records are gone" sh -c \
    "[ ! -e '$RUN/dev-escalation-parked-$PROJ-4' ] && [ ! -e '$RUN/dev-escalation-resume-$PROJ-4' ]"
dp
rc_is "the tick after" 0
check "#4 not started twice" test ! -e "$T/a4/prompt-2.txt"

# --- the clocks: a reminder after 6 hours, the timeout after 24 ----------
parked 5 7 "need creds"
dp
check_eq "6 h: the reminder" "$(comments_with 5 '<!-- escalation-renotify: proj-5')" 1
dp
check_eq "6 h: one reminder over two ticks" "$(comments_with 5 '<!-- escalation-renotify: proj-5')" 1
parked 5 25 "need creds"
dp
check_eq "24 h: labelled blocked" "$(labels 5)" blocked
check_eq "24 h: the diagnostic" "$(comments_with 5 '<!-- escalation-timeout: proj-5')" 1
check "24 h: the parked record is removed" test ! -e "$RUN/dev-escalation-parked-$PROJ-5"
check "24 h: the phase file is removed" test ! -e "$RUN/sessions/active/dev-$PROJ-5/dev-session-$PROJ-5.phase"
check "no supervisor-poll ran" test ! -e "$SUP_LOG"

# --- both tools: one pass at a time --------------------------------------
ck_sup_setup
parked 6 0 "left or right?"
flock "$RUN/dev-escalations-$PROJ.lock" sh -c \
    ": >'$T/held'; while [ ! -e '$T/release' ]; do sleep 0.1; done" &
holder=$!
wait_for "[ -e '$T/held' ]" 10
dp
lhas "dev-poll leaves the escalations to the pass that holds the lock" "the other tool's pass holds"
check_eq "nothing posted meanwhile" "$(ck_notices 6)" 0
: >"$T/release"
wait "$holder"
dp
check_eq "then dev-poll's pass posts the notice" "$(ck_notices 6)" 1
parked 7 0 "up or down?"
for i in 1 2 3; do
	dp &
	dpid=$!
	ck_sup
	wait "$dpid"
done
check_eq "dev-poll and supervisor-poll together: one notice" "$(ck_notices 7)" 1
