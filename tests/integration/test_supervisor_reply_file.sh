# supervisor-poll and the legacy reply file (dev-escalation-reply): routed
# to the escalated session its first line names ("dev-harb-6" or "#6"),
# to the only escalated session when it names none, left in place when it
# cannot be routed, and claimed by exactly one of two supervisors started
# at once; to a parked escalation it is kept for dev-poll's resume.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-escalate.json"
REPLY=$DISINTO_RUN_DIR/dev-escalation-reply


sup_agent dev-harb-5
sup_agent dev-harb-6
sup_phase 5 'PHASE:escalate\nReason: db?\n'
sup_phase 6 'PHASE:escalate\nReason: name?\n'

printf 'Go ahead.\n' >"$REPLY"
sup_run
check "no name, two escalated: the file stays" test -s "$REPLY"
check "no name, two escalated: logged" \
    sup_log_has "reply file names no session and 2 are escalated"
check_eq "no name, two escalated: nothing injected" \
    "$(prompts "$T/agent-dev-harb-5")$(prompts "$T/agent-dev-harb-6")" 00

printf 'dev-harb-7\nWrong one.\n' >"$REPLY"
sup_run
check "names a session that is not escalated: the file stays" \
    grep -q 'Wrong one' "$REPLY"

printf '#6\nCall it blue.\n' >"$REPLY"
sup_run
wait_for '[ -f "$T/agent-dev-harb-6/prompt-1.txt" ]' 10
check "'#6' routes to dev-harb-6" \
    grep -q 'Call it blue.' "$T/agent-dev-harb-6/prompt-1.txt"
check "the naming line is not part of the reply" \
    sh -c "! grep -q '^#6' '$T/agent-dev-harb-6/prompt-1.txt'"
check "the file is consumed" test ! -e "$REPLY"
check_eq "dev-harb-5 got nothing" "$(prompts "$T/agent-dev-harb-5")" 0
check "answered: recorded, so no reminder follows" \
    test -s "$DISINTO_RUN_DIR/dev-escalation-injected-harb-6"

printf 'dev-harb-5\nUse sqlite.\n' >"$REPLY"
sup_run
wait_for '[ -f "$T/agent-dev-harb-5/prompt-1.txt" ]' 10
check "a session name routes too" \
    grep -q 'Use sqlite.' "$T/agent-dev-harb-5/prompt-1.txt"

# Only #5 escalated now: an unnamed reply goes there, claimed once by two
# supervisors racing.
sup_phase 6 'PHASE:awaiting_ci\n'
printf 'One more thing.\n' >"$REPLY"
"$SUP" >/dev/null 2>&1 &
p1=$!
"$SUP" >/dev/null 2>&1 &
p2=$!
wait $p1 $p2
wait_for '[ -f "$T/agent-dev-harb-5/prompt-2.txt" ]' 10
sleep 0.5
check_eq "two supervisors at once: injected exactly once" \
    "$(prompts "$T/agent-dev-harb-5")" 2
check "the only escalated session got it" \
    grep -q 'One more thing.' "$T/agent-dev-harb-5/prompt-2.txt"
check "the file is consumed" test ! -e "$REPLY"
check "no claimed copy left behind" \
    sh -c "! ls '$DISINTO_RUN_DIR' | grep -q claimed"
sup_run
sleep 0.5
check_eq "a later tick injects nothing more" "$(prompts "$T/agent-dev-harb-5")" 2

# A parked escalation: the session's Stop hook kept its Claude session id
# after the escalation, so the notice tick parks it (the session ends);
# the reply file that names it is kept for dev-poll's resume, once.
sup_agent dev-harb-8
sup_phase 8 'PHASE:escalate\nReason: which port?\n' '1 minute ago'
mkdir -p "$DISINTO_RUN_DIR/sessions/active/dev-harb-8"
printf 'id-8\n' >"$DISINTO_RUN_DIR/sessions/active/dev-harb-8/claude-id-dev-harb-8"
sup_run
check "parked: the record is written" \
    grep -qx 'ID: id-8' "$DISINTO_RUN_DIR/dev-escalation-parked-harb-8"
check "parked: its session ended" \
    sh -c "! tmux -L $(tmux_sock) has-session -t dev-harb-8 2>/dev/null"
printf '#8\nUse 8080.\n' >"$REPLY"
sup_run
check "parked: the reply file is consumed" test ! -e "$REPLY"
check "parked: the reply waits for the resume" \
    grep -q 'Use 8080.' "$DISINTO_RUN_DIR/dev-escalation-resume-harb-8"
check "parked: answered, so no reminder follows" \
    test -s "$DISINTO_RUN_DIR/dev-escalation-injected-harb-8"
check "parked: still parked (dev-poll resumes it)" \
    test -s "$DISINTO_RUN_DIR/dev-escalation-parked-harb-8"
cp "$DISINTO_RUN_DIR/dev-escalation-resume-harb-8" "$T/resume-8"
printf '#8\nA second thought.\n' >"$REPLY"
sup_run
check "parked: a second reply waits in the file, the first is kept" \
    cmp "$T/resume-8" "$DISINTO_RUN_DIR/dev-escalation-resume-harb-8"
