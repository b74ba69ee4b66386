# supervisor-poll's fixer can act: the default SUPERVISOR_FIX_CMD is
# upstream's "claude -p --model sonnet --dangerously-skip-permissions"
# (without the last word a one-shot claude may not run a single command),
# found on the PATH lib/env.sh built, under the 300 s limit, with its
# prompt on its standard input (never on its command line), in the
# environment lib/env.sh gave bash's children (.env's variables, the
# no-telemetry switch, FACTORY_ROOT).  It never runs during a memory
# crisis the host layer could not end: supervisor-poll.sh never handed
# the memory alert to claude, and a claude started then takes what the
# host lacks.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-escalate.json"
unset SUPERVISOR_FIX_CMD
export HOME=$T/home
mkdir -p "$HOME/.local/bin"
STATUS=$DISINTO_RUN_DIR/supervisor-status
LOCK=$DISINTO_RUN_DIR/dev-agent-harb.lock
low_memory() {
	printf 'MemTotal: 16000000 kB\nMemAvailable: 300000 kB\n' >"$T/meminfo"
}
enough_memory() {
	printf 'MemTotal: 16000000 kB\nMemAvailable: 9000000 kB\n' >"$T/meminfo"
}
# A P2 alert the fixer can settle: a live dev agent (this shell) without
# a status file.
echo $$ >"$LOCK"
# The factory's .env, as upstream's: the fixer needs the key.
cat >"$FACTORY_ROOT/.env" <<'ENV'
export ANTHROPIC_API_KEY="sk-ant-fixer-key"
FIXER_NOTE='from .env'
ENV
# A one-shot claude: records its words and environment, and removes the
# agent's lock when it may run commands (FIX_WORKS set).
cat >"$HOME/.local/bin/claude" <<EOF
#!/bin/sh
for a in "\$@"; do printf '%s\n' "\$a"; done >"$T/claude.argv"
env >"$T/claude.env"
cat >"$T/claude.prompt"
echo called >>"$T/claude.calls"
case " \$* " in
*" --dangerously-skip-permissions "*)
	[ -z "\${FIX_WORKS:-}" ] || rm -f "$LOCK"
	echo "removed the lock" ;;
*) echo "I need permission to run that command" ;;
esac
EOF
chmod +x "$HOME/.local/bin/claude"

# The stall: with the command the toolkit used to default to, the fixer
# cannot run a command; the alert stays, tick after tick.
FIX_WORKS=1 SUPERVISOR_FIX_CMD="claude -p --model sonnet" sup_run
FIX_WORKS=1 SUPERVISOR_FIX_CMD="claude -p --model sonnet" sup_run
check_eq "without the flag: called on every tick" \
    "$(wc -l <"$T/claude.calls")" 2
check "without the flag: it could not act" sup_log_has \
    "I need permission to run that command"
check_eq "without the flag: the alert stays" \
    "$(sup_log_count 'runs without a status file')" 2
rm -f "$T/claude.calls"
: >"$SUP_LOG"

# A memory crisis the host layer cannot settle: P0, and no fixer while it
# lasts, even with another alert to fix; the status file says why.
low_memory
FIX_WORKS=1 sup_run
check_eq "crisis: exit 0" "$SUP_RC" 0
check "crisis: P0 raised" sup_log_has \
    "P0: memory still critical after the fixes"
check "crisis: the other alert too" sup_log_has "runs without a status file"
check "crisis: the fixer is not called" test ! -e "$T/claude.calls"
check "crisis: the log says why" sup_log_has \
    "fix command not run: memory crisis: 292 MB available"
check "crisis: the status file says why" grep -q \
    'supervisor: 2 alert(s); fix command not run during the memory crisis' \
    "$STATUS"
check "crisis: the lock is still there" test -e "$LOCK"
: >"$SUP_LOG"

# Memory back: the fixer is called with upstream's words, the prompt on
# its standard input, in the environment bash's children had.
enough_memory
FIX_WORKS=1 sup_run
check_eq "alert: exit 0" "$SUP_RC" 0
check_eq "alert: the fixer ran once" "$(wc -l <"$T/claude.calls")" 1
check_eq "the default fix command is upstream's, the prompt on stdin" \
    "$(tr '\n' ' ' <"$T/claude.argv")" \
    "-p --model sonnet --dangerously-skip-permissions "
check "its prompt lists the alert" grep -q \
    '\[P2\] harb: dev agent .* runs without a status file' "$T/claude.prompt"
check "under upstream's headings" sh -c "grep -q '^## Current Alerts' \
    '$T/claude.prompt' && grep -q '^## System State' '$T/claude.prompt'"
check "the fixer was allowed to act" sup_log_has "removed the lock"
check "the fixer has .env's key" grep -qx \
    'ANTHROPIC_API_KEY=sk-ant-fixer-key' "$T/claude.env"
check "and .env's other variables" grep -qx 'FIXER_NOTE=from .env' \
    "$T/claude.env"
check "and the no-telemetry switch" grep -qx \
    'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1' "$T/claude.env"
check "and FACTORY_ROOT" grep -qx "FACTORY_ROOT=$FACTORY_ROOT" \
    "$T/claude.env"
check "and lib/env.sh's PATH" grep -q "^PATH=$HOME/.local/bin:" \
    "$T/claude.env"
check "the key never reaches the log" sh -c \
    "! grep -q sk-ant-fixer-key '$SUP_LOG'"
check "the status file says it ran" grep -q \
    'supervisor: fix command ran for 1 alert(s) (exit 0)' "$STATUS"

# The fixer removed the lock: the next tick finds nothing and does not
# call it again.
rm -f "$T/claude.calls"
sup_run
check_eq "next tick: exit 0" "$SUP_RC" 0
check "next tick: the fixer is not called again" test ! -e "$T/claude.calls"
check "next tick: all clear" grep -q 'supervisor: all clear$' "$STATUS"
