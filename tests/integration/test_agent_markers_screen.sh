# The markers protocol looks at the screen before it types.  An agent
# that takes seconds to start (the real CLI took 19 s once) gets nothing
# typed until it shows its input box: what is typed into an agent still
# starting is read later as one merged request (the fake agent reads it
# so, as the real one did), and the handshake never completes.  An agent
# that opens with a dialog gets no keystroke (an Enter would answer it):
# the launch fails, the dialog is named with what to accept by hand, and
# the issue is given back.  (The phase protocol's dialogs:
# test_agent_dialogs.sh.)
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "Ready", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
dev_sim "$T/case.json" '[agent]' 'protocol = "markers"'
# Three asks for the ready marker 2 s apart, were they typed blindly.
export AGENT_MARKER_READY_TIMEOUT=6 AGENT_MARKER_ACK_TIMEOUT=5
S=dev-$PROJ-1
events() {
	grep -c "$2" "$1/events.log" 2>/dev/null || true
}

# --- a dialog first -----------------------------------------------------
AL=$T/al-dialog
export AGENT_CMD="env FAKE_AGENT_DIALOG=trust FAKE_AGENT_LOG=$AL $FAKE_AGENT"
dp
rc_is "dialog: the launch fails" 1
check "dialog: it was shown" grep -q "dialog trust shown" "$AL/events.log"
check "dialog: nothing was typed into it" \
    sh -c "! grep -qE ': (chose|key)|marker' '$AL/events.log'"
lhas "dialog: named, with what to accept by hand" \
    "cannot start session $S: session '$S' waits in the agent's folder trust dialog; run the agent once by hand in '$T/repo'"
lhas "dialog: the issue is given back" 'unclaiming issue #1'
check_eq "dialog: labels given back" "$(labels 1)" backlog
check "dialog: the issue is backed off" test -f "$RUN/dev-backoff-$PROJ-1"
rm -f "$RUN/dev-backoff-$PROJ-1"

# --- a slow start -------------------------------------------------------
AL=$T/al-slow
echo '[]' >"$T/script.json"
export AGENT_CMD="env FAKE_AGENT_START_DELAY=5 FAKE_AGENT_SCRIPT=$T/script.json FAKE_AGENT_LOG=$AL $FAKE_AGENT"
dp
rc_is "slow start: the launch" 0
check_eq "slow start: nothing typed while it started" \
    "$(events "$AL" 'merged input')" 0
check_eq "slow start: the ready marker asked for once" \
    "$(events "$AL" 'marker ready')" 1
check_eq "slow start: the system prompt acknowledged" \
    "$(events "$AL" 'marker system')" 1
check_eq "slow start: the prompt arrived" "$(events "$AL" 'marker prompt 1')" 1
lhas "slow start: launched" "initial prompt sent to session $S"
