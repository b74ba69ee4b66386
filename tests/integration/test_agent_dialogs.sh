# First-run dialogs are not prompts.  The agent CLI (Claude Code 2.1) can
# open with a folder trust dialog, an API key confirmation, a
# bypass-permissions confirmation or its first-run setup, each with a
# selected line starting with the prompt glyph ("❯ 1. No, exit").  The
# fake agent draws each as the real one does: dev-poll's launch must not
# take it for the input box (nothing is pasted, no Enter chooses an
# option), must log what the dialog says and what to accept once by hand,
# end the session, give the issue back and back it off (whatever starts
# the next tick, test_event_queue.sh).  Then the input box itself (a
# "❯" line between two rules) is ready, and so is a dialog accepted by
# hand.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "Ready", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
dev_sim "$T/case.json"

# dialog KIND NAME TEXT: a launch into an agent showing dialog KIND.
dialog() {
	_al=$T/al-$1
	mkdir -p "$_al"
	export AGENT_CMD="env FAKE_AGENT_DIALOG=$1 FAKE_AGENT_LOG=$_al $FAKE_AGENT"
	# Each case a first launch: the last one's back-off goes.
	rm -f "$RUN/dev-backoff-$PROJ-1"
	_d_before=0
	[ ! -f "$DEVLOG" ] || _d_before=$(wc -l <"$DEVLOG")
	timeout 60 "$O/dev-poll/dev-poll" "$P" >"$T/dp.out" 2>&1
	DP_RC=$?
	tail -n +"$((_d_before + 1))" "$DEVLOG" >"$T/tick.log"
	rc_is "$1: the launch fails" 1
	lhas "$1: the dialog's text is logged" \
	    "session dev-$PROJ-1 shows the agent's $2, not its input box: .*$3"
	lhas "$1: one line says what to accept by hand" \
	    "cannot start session dev-$PROJ-1: session 'dev-$PROJ-1' waits in the agent's $2; run the agent once by hand"
	check_eq "$1: that line is there once" \
	    "$(grep -c 'once by hand' "$T/tick.log")" 1
	check "$1: the dialog was shown" grep -q "dialog $1 shown" "$_al/events.log"
	check "$1: nothing was typed into it" \
	    sh -c "! grep -qE ': (chose|key)' '$_al/events.log'"
	check "$1: no prompt" sh -c "! ls '$_al' | grep -q '^prompt-'"
	check "$1: the session is ended" \
	    sh -c "! tmux -L $(tmux_sock) has-session -t dev-$PROJ-1 2>/dev/null"
	lhas "$1: the issue is given back" 'unclaiming issue #1'
	check_eq "$1: labels given back" "$(labels 1)" backlog
	check "$1: the issue is backed off" \
	    grep -q '^FAILURES: 1$' "$RUN/dev-backoff-$PROJ-1"
}

dialog trust "folder trust dialog" \
    "Accessing workspace: \| $RUN/$PROJ-worktree-1 \|.*❯ 1\. Yes, I trust this folder \| 2\. No, exit"
lhas "trust: trust the repository the worktrees come from" \
    "run the agent once by hand in '$T/repo' \(the repository the worktrees come from: the agent trusts a worktree through it\) and choose \"Yes, I trust this folder\""
# The API key dialog shows the key's last 20 characters: none of them,
# nor any tail of 12 or more, reaches the log.
KEY=sk-ant-api03-Zq81LmN4pR8sT1vW3yB5dF6gH0jK-tailXYZ
export ANTHROPIC_API_KEY=$KEY
dialog api-key "API key confirmation dialog" \
    "Detected a custom API key in your environment .*❯ 2\. No \(recommended\)"
lhas "api-key: answer yes" 'answer "Yes" to use it'
check "api-key: the dialog showed the key's tail" \
    grep -qF "key shown: ...$(printf %s "$KEY" | tail -c 20)" "$T/al-api-key/events.log"
check "api-key: no tail of the key in the log" \
    sh -c "! grep -qF '$(printf %s "$KEY" | tail -c 12)' '$DEVLOG'"
lhas "api-key: the key is masked in the dialog's line" \
    'ANTHROPIC_API_KEY: sk-ant-\.\.\.\[REDACTED\]'
unset ANTHROPIC_API_KEY
dialog bypass "bypass-permissions confirmation dialog" \
    "running in Bypass Permissions mode .*❯ 1\. No, exit \| 2\. Yes, I accept"
lhas "bypass: accept" 'with --dangerously-skip-permissions and choose "Yes, I accept"'
dialog onboarding "first-run setup" "Unable to connect to Anthropic services"

# A dialog at launch with wakes on: the end of the killed agent wakes
# dev-poll at once (the real CLI's SessionEnd hook; here the wakes are
# sent by hand, three of them), and the issue's back-off holds whatever
# starts the tick: one launch, one claim and one unclaim, however many
# wakes, bounded by the back-off and not by time.
rm -f "$RUN/dev-backoff-$PROJ-1"
export DISINTO_WAKE=true
_al=$T/al-wake
mkdir -p "$_al"
export AGENT_CMD="env FAKE_AGENT_DIALOG=trust FAKE_AGENT_LOG=$_al $FAKE_AGENT"
sim_post /_admin/log/reset '{}' >/dev/null
dp
rc_is "wakes: the dialog's launch fails" 1
held() {
	grep -c '#1: launch backed off until' "$DEVLOG"
}
for i in 1 2 3; do
	"$O/dev-poll/dev-poll" --wake "$P" "session-end hook dev-$PROJ-1" \
	    >/dev/null 2>&1
	wait_for '[ "$(held)" -ge '$i' ]' 60 || break
done
check_eq "wakes: each woken tick finds the issue backed off" "$(held)" 3
check "wakes: the ticks were woken" \
    grep -q "woken: session-end hook dev-$PROJ-1" "$DEVLOG"
wait_for "flock -n '$RUN/dev-poll-$PROJ.lock' true" 30
check_eq "wakes: one launch met the dialog" \
    "$(grep -c 'dialog trust shown' "$_al/events.log")" 1
check_eq "wakes: one claim and one unclaim" \
    "$(sim_get /_admin/log | pyjson 'len([e for e in d if e["method"] != "GET" and "/issues/1/labels" in e["path"]])')" 4
check_eq "wakes: labels given back" "$(labels 1)" backlog
export DISINTO_WAKE=false

# The input box is ready: the prompt arrives, once.
rm -f "$RUN/dev-backoff-$PROJ-1"
mkdir -p "$T/al-ready"
export AGENT_CMD="env FAKE_AGENT_LOG=$T/al-ready $FAKE_AGENT"
dp
rc_is "input box: launched" 0
lhas "input box: the prompt is sent" "initial prompt sent to session dev-$PROJ-1"
wait_for '[ -f "$T/al-ready/prompt-1.txt" ]' 10
check "input box: the agent got the prompt" test -s "$T/al-ready/prompt-1.txt"
check_eq "input box: in-progress" "$(labels 1)" in-progress
t_tmux kill-session -t "dev-$PROJ-1"
