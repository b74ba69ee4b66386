# Unknown phases (issue 11, item 4): PHASE:merged is done, as
# agent-session.sh had it; any other value is logged once per distinct
# value, has no effect of its own, and counts as "no phase yet" for the
# idle and crash clocks, so the session ends in recovery or failed
# instead of holding the slot for good.  Against the simulator and fake
# agents in real tmux.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
dev_sim - '[ci]' 'woodpecker_repo_id = 0' <<'JSON'
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "blocked"}],
 "issues": [{"number": 1, "title": "One", "labels": ["in-progress"]},
            {"number": 2, "title": "Two", "state": "closed"},
            {"number": 3, "title": "Three"},
            {"number": 4, "title": "Four"}]}
JSON
export CLAUDE_TIMEOUT=600
# Two sessions work at once here: no Claude session lock (test_agent_lock
# has it).
export CLAUDE_SESSION_LOCK=

agent() {	# N PHASE
	mkdir -p "$T/al-$1"
	t_tmux new-session -d -s "dev-$PROJ-$1" -x 200 -y 50 \
	    "env FAKE_AGENT_LOG=$T/al-$1 $FAKE_AGENT"
	wait_for "t_tmux capture-pane -p -t dev-$PROJ-$1 | grep -q '❯'" 10
	mkdir -p "$RUN/sessions/active/dev-$PROJ-$1"
	echo "$2" >"$RUN/sessions/active/dev-$PROJ-$1/dev-session-$PROJ-$1.phase"
}
alive() {
	t_tmux has-session -t "dev-$PROJ-$1" 2>/dev/null && echo yes || echo no
}

# #1: an unknown phase at the prompt: the idle clock runs.  #2:
# PHASE:merged of a closed issue: done.
agent 1 PHASE:bogus
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
date +%s >"$RUN/sessions/active/dev-$PROJ-1/claude-idle-dev-$PROJ-1.ts"
agent 2 PHASE:merged
# The stall on the code before: "unknown phase — ignored" every tick,
# the session never ended and held the slot.
dp
rc_is "unknown phase" 0
lhas "unknown: logged" "#1: unknown phase 'PHASE:bogus' — no phase yet"
lhas "unknown: the idle clock runs" '#1: at the prompt with no phase for [0-9]+s — idle after 90s'
lhas "merged: done" '#2: done — cleaning up'
check_eq "merged: the session ended" "$(alive 2)" no
check "merged: the phase file removed" \
    test ! -e "$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase"
dp
lnot "unknown: not logged again" 'unknown phase'
lhas "unknown: the idle clock goes on" 'idle after 90s'
check "unknown: nothing injected" test "$(prompts "$T/al-1")" = 0
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
echo PHASE:weird >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
echo $(($(date +%s) - 300)) >"$RUN/sessions/active/dev-$PROJ-1/claude-idle-dev-$PROJ-1.ts"
dp
lhas "another value: logged" "#1: unknown phase 'PHASE:weird'"
lhas "idle past AGENT_IDLE_SECONDS: failed" '#1: session failed: idle_prompt'
check_eq "idle: the session ended" "$(alive 1)" no
check_eq "idle: blocked" "$(labels 1)" blocked

# #3: an unknown phase and the session gone: recovered.  #4: an unknown
# phase unchanged past CLAUDE_TIMEOUT: recovered.
mkdir -p "$RUN/sessions/active/dev-$PROJ-3"
echo PHASE:bogus >"$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
agent 4 PHASE:bogus
touch -d '-20 minutes' "$RUN/sessions/active/dev-$PROJ-4/dev-session-$PROJ-4.phase"
dp
lhas "gone: recovered" '#3: the session is gone \(PHASE:bogus, recovery 1/2\)'
lhas "stuck: recovered" '#4: the phase did not change within CLAUDE_TIMEOUT \(PHASE:bogus, recovery 1/2\)'
check_eq "both started again" "$(alive 3) $(alive 4)" "yes yes"
check_eq "#3 in progress again" "$(labels 3)" in-progress
