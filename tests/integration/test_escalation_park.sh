# An escalation frees the project: once the escalation pass (dev-poll's
# or supervisor-poll's) has posted the notice and the agent's turn has ended (its Stop hook kept the Claude
# session id), the conversation is parked (the agent ended, a parked
# record kept) and dev-poll starts the next ready issue; a parked issue
# is never recovered as a crash nor relaunched as an orphan.  A person's
# reply waits while the slot is busy and resumes the parked conversation
# (the agent command with --resume ID, in the same worktree) in the tick
# that finds the slot free, the reply delivered once.  The 24-hour
# timeout still ends a parked conversation: blocked, records removed.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/lib/checkpoint.sh"
dev_init git
scen '[
 {"number": 1, "title": "Pick a database", "labels": ["backlog"]},
 {"number": 2, "title": "Second thing", "labels": ["backlog"]},
 {"number": 3, "title": "Third thing"}]' '[]' >"$T/scen.json"
dev_sim "$T/scen.json"
ck_sup_setup

# agent NAME SCRIPT: the next session's agent logs under $T/NAME.
agent() {
	printf '%s\n' "$2" >"$T/script-$1.json"
	AGENT_CMD="env FAKE_AGENT_SCRIPT=$T/script-$1.json FAKE_AGENT_LOG=$T/$1 $FAKE_AGENT"
	export AGENT_CMD
}
alive() {
	t_tmux has-session -t "$1" 2>/dev/null
}

# --- #1 escalates: dev-poll's own pass parks it and the slot is free ----
agent a1 '[{"phase": "PHASE:escalate", "reason": "postgres or sqlite?", "stop": true}]'
dp
rc_is "#1 launched" 0
check "session of #1 lives" alive "dev-$PROJ-1"
wait_for "grep -q escalate '$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase' && [ -s '$RUN/sessions/active/dev-$PROJ-1/claude-id-dev-$PROJ-1' ]" 10
check_eq "the Stop hook kept the Claude session id" \
    "$(cat "$RUN/sessions/active/dev-$PROJ-1/claude-id-dev-$PROJ-1")" fake-agent
agent a2 '[]'
dp
rc_is "the tick that parks #1" 0
check_eq "dev-poll posts the notice once" "$(ck_notices 1)" 1
check "the conversation is parked" test -s "$RUN/dev-escalation-parked-$PROJ-1"
check "the parked record keeps the Claude session id" \
    grep -qx 'ID: fake-agent' "$RUN/dev-escalation-parked-$PROJ-1"
check "and the worktree" \
    grep -qx "WORKTREE: $RUN/$PROJ-worktree-1" "$RUN/dev-escalation-parked-$PROJ-1"
check "and the reason" \
    grep -qx 'REASON: postgres or sqlite?' "$RUN/dev-escalation-parked-$PROJ-1"
check "the agent of #1 ended" sh -c "! tmux -L $(tmux_sock) has-session -t dev-$PROJ-1 2>/dev/null"
check "the worktree of #1 is kept" test -d "$RUN/$PROJ-worktree-1"
check_eq "#1 keeps in-progress" "$(labels 1)" in-progress
check "#2 launched in the slot #1 freed, the same tick" alive "dev-$PROJ-2"

ck_sup
check_eq "supervisor-poll tick" "$SUP_RC" 0
check_eq "supervisor-poll posts no second notice" "$(ck_notices 1)" 1

"$O/dev-poll/dev-poll" --status "$P" >"$T/status.out" 2>&1
check "--status shows the parked escalation" \
    grep -qE '#1 for [0-9a-z]+ \(notified, parked, waiting for a human reply\)' "$T/status.out"

# --- #1 is left alone -----------------------------------------------------
dp
rc_is "the tick after the park" 0
lnot "the parked #1 is no crash" "recover"
check "#1 not started again" sh -c "! tmux -L $(tmux_sock) has-session -t dev-$PROJ-1 2>/dev/null"
ck_sup
check "supervisor-poll leaves the parked record" \
    test -s "$RUN/dev-escalation-parked-$PROJ-1"
check_eq "no second notice" "$(ck_notices 1)" 1

# --- a reply while the slot is busy waits --------------------------------
ck_reply 1 "Use sqlite, keep it simple."
ck_sup
check_eq "supervisor-poll tick with the reply" "$SUP_RC" 0
check "the reply waits for the resume" test -s "$RUN/dev-escalation-resume-$PROJ-1"
"$O/dev-poll/dev-poll" --status "$P" >"$T/status.out" 2>&1
check "--status: the reply waits for the slot" \
    grep -qF 'parked, the reply waits for the slot' "$T/status.out"
agent a1r '[{"say": "resumed"}]'
dp
lhas "the slot is busy with #2" "agent running"
check "#1 not resumed while #2 works" \
    sh -c "! tmux -L $(tmux_sock) has-session -t dev-$PROJ-1 2>/dev/null"
check "the reply still waits" test -s "$RUN/dev-escalation-resume-$PROJ-1"

# --- #2 ends: the same tick resumes #1 with the reply ---------------------
# (killed between the resumed session's start and the reply: the next
# tick delivers it, once)
mkdir -p "$RUN/sessions/active/dev-$PROJ-2"
printf 'PHASE:failed\nReason: gave up\n' >"$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase"
DISINTO_TEST_CRASH=session-started dp
check_eq "the resuming tick was killed at the point" "$DP_RC" 137
check "#2 ended" sh -c "! tmux -L $(tmux_sock) has-session -t dev-$PROJ-2 2>/dev/null"
lhas "the waiting reply resumes #1" "resuming Claude session fake-agent"
check "#1 lives again" alive "dev-$PROJ-1"
sleep 1
check_eq "no reply typed before the crash" "$(prompts "$T/a1r")" 0
check "the records stay until the reply is delivered" \
    test -s "$RUN/dev-escalation-parked-$PROJ-1"
dp
rc_is "the tick after the crash" 0
lhas "it finishes the resume" "the resume of dev-$PROJ-1 was cut off"
wait_for "[ -f '$T/a1r/prompt-1.txt' ]" 10
check "the agent was started with --resume ID" \
    grep -q ' resume fake-agent$' "$T/a1r/events.log"
check "in the same worktree" test "$(t_tmux display-message -p -t "dev-$PROJ-1" '#{pane_current_path}')" = "$RUN/$PROJ-worktree-1"
check "the reply is its first message" \
    grep -qF 'Use sqlite, keep it simple.' "$T/a1r/prompt-1.txt"
check "the records are gone" sh -c \
    "[ ! -e '$RUN/dev-escalation-parked-$PROJ-1' ] && [ ! -e '$RUN/dev-escalation-resume-$PROJ-1' ]"
dp
ck_sup
dp
ck_sup
sleep 0.5
check_eq "the reply was delivered once" "$(prompts "$T/a1r")" 1
check "the resumed session is not parked again" alive "dev-$PROJ-1"
check_eq "still one notice" "$(ck_notices 1)" 1

# --- 24 hours: a parked conversation ends as blocked ----------------------
mkdir -p "$RUN/sessions/active/dev-$PROJ-3"
printf 'PHASE:escalate\nReason: need creds\n' >"$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
touch -d '25 hours ago' "$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
printf 'ID: abc-3\nAT: %s\nWORKTREE: %s\nREASON: need creds\n' \
    "$(stat -c %Y "$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase")" "$RUN/$PROJ-worktree-3" \
    >"$RUN/dev-escalation-parked-$PROJ-3"
ck_sup
check_eq "24 h: labelled blocked" "$(labels 3)" blocked
check_eq "24 h: the diagnostic is posted" \
    "$(comments_with 3 '<!-- escalation-timeout: proj-3 -->')" 1
check "24 h: the parked record is removed" \
    test ! -e "$RUN/dev-escalation-parked-$PROJ-3"
check "24 h: the phase file is removed" \
    test ! -e "$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
ck_sup
check_eq "24 h: one diagnostic over two ticks" \
    "$(comments_with 3 '<!-- escalation-timeout: proj-3 -->')" 1
