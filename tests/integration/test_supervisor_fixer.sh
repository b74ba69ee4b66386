# supervisor-poll's fixer can act: the default SUPERVISOR_FIX_CMD is
# upstream's "claude -p --model sonnet --dangerously-skip-permissions"
# (without the last word a one-shot claude may not run a single command),
# found on the PATH lib/env.sh built, under the 300 s limit, with its
# prompt on its standard input (never on its command line).  After it
# ran, the P0/P1 alerts it was given are checked again: one it resolved
# is cleared (the status file says so) and the next tick does not call
# it again; one it did not resolve stays.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-escalate.json"
unset SUPERVISOR_FIX_CMD
export HOME=$T/home
mkdir -p "$HOME/.local/bin"
STATUS=$DISINTO_RUN_DIR/supervisor-status
low_memory() {
	printf 'MemTotal: 16000000 kB\nMemAvailable: 300000 kB\n' >"$T/meminfo"
}
# A one-shot claude: records its words, and frees memory when it may run
# commands (FIX_WORKS set).
cat >"$HOME/.local/bin/claude" <<EOF
#!/bin/sh
for a in "\$@"; do printf '%s\n' "\$a"; done >"$T/claude.argv"
cat >"$T/claude.prompt"
echo called >>"$T/claude.calls"
case " \$* " in
*" --dangerously-skip-permissions "*)
	[ -z "\${FIX_WORKS:-}" ] ||
	    printf 'MemTotal: 16000000 kB\nMemAvailable: 9000000 kB\n' \
		>"$T/meminfo"
	echo "freed memory" ;;
*) echo "I need permission to run that command" ;;
esac
EOF
chmod +x "$HOME/.local/bin/claude"

# The stall: with the command the toolkit used to default to, the fixer
# cannot run a command; the P0 stays, tick after tick.
low_memory
FIX_WORKS=1 SUPERVISOR_FIX_CMD="claude -p --model sonnet" sup_run
FIX_WORKS=1 SUPERVISOR_FIX_CMD="claude -p --model sonnet" sup_run
check_eq "without the flag: called on every tick" \
    "$(wc -l <"$T/claude.calls")" 2
check "without the flag: it could not act" sup_log_has \
    "I need permission to run that command"
check_eq "without the flag: the P0 stays" \
    "$(sup_log_count 'P0: memory still critical')" 2
rm -f "$T/claude.calls"
: >"$SUP_LOG"

# A memory crisis the host layer cannot settle: P0, the fixer is called
# with upstream's words.
sup_run
check_eq "crisis: exit 0" "$SUP_RC" 0
check "P0 raised" sup_log_has "P0: memory still critical after the fixes"
check_eq "the default fix command is upstream's, the prompt on stdin" \
    "$(tr '\n' ' ' <"$T/claude.argv")" \
    "-p --model sonnet --dangerously-skip-permissions "
check "its prompt lists the alert" grep -q '\[P0\] memory still critical' \
    "$T/claude.prompt"
check "under upstream's headings" sh -c "grep -q '^## Current Alerts' \
    '$T/claude.prompt' && grep -q '^## System State' '$T/claude.prompt'"
check "the fixer was allowed to act" sup_log_has "freed memory"
check "not resolved: the P0 stays" grep -q \
    'supervisor: fix command ran for 1 alert(s) (exit 0)' "$STATUS"
check_eq "not resolved: nothing cleared" "$(sup_log_count 'P0 cleared')" 0

# This time the fix frees memory: the re-check clears the P0.
rm -f "$T/claude.calls"
FIX_WORKS=1 sup_run
check_eq "fixed: exit 0" "$SUP_RC" 0
check_eq "fixed: the fixer ran once" "$(wc -l <"$T/claude.calls")" 1
check "fixed: the P0 is cleared after the re-check" sup_log_has \
    "P0 cleared: memory recovered after the fix command: 8789 MB available"
check "fixed: the status file says all clear" grep -q \
    'supervisor: all clear after the fix command (exit 0)' "$STATUS"

# The next tick finds nothing: the fixer is not called for it again.
rm -f "$T/claude.calls"
sup_run
check_eq "next tick: exit 0" "$SUP_RC" 0
check "next tick: the fixer is not called again" test ! -e "$T/claude.calls"
check "next tick: all clear" grep -q 'supervisor: all clear$' "$STATUS"
