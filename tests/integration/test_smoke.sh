# Smoke test of the pieces together: the forge simulator up, the fake
# agent in a real tmux session on a private socket, a prompt full of shell
# metacharacters injected through the C tmux module and received byte for
# byte, the phase file written back as the protocol says, and the forge
# reached through the C client.
. "$(dirname "$0")/lib/common.sh"
t_setup
TT="$O/tests/tools/tmux-tool -L $(tmux_sock) -T $T"
PROBE="$O/tests/tools/forge-probe"

sim_start "$TOP/tests/fixtures/sim-basic.json" || { fail "simulator starts"; exit 1; }
ok "simulator starts"

mkdir -p "$T/log" "$T/wt"
cat >"$T/script.json" <<'JSON'
[ {"phase": "PHASE:awaiting_ci"},
  {"phase": "PHASE:failed", "reason": "refused",
   "summary": "{\"status\": \"too_large\", \"reason\": \"x\"}"} ]
JSON
PHASE=$DISINTO_RUN_DIR/sessions/active/dev-smoke-1/dev-session-smoke-1.phase
$TT -e FAKE_AGENT_LOG="$T/log" -e FAKE_AGENT_SCRIPT="$T/script.json" \
    -e FAKE_AGENT_PHASE_FILE="$PHASE" \
    -e FAKE_AGENT_SUMMARY_FILE="$T/summary.txt" \
    new dev-smoke-1 "$T/wt" "$FAKE_AGENT" --model x
check "fake agent session starts" $TT has dev-smoke-1
check "fake agent shows the ready prompt" $TT wait-ready dev-smoke-1 "❯" 10

printf '%s\n' "Fix the \"quoted\" and 'single' bits." \
    'Do not run $(rm -rf /) or `id` or ${HOME}; keep \backslashes\.' \
    "	tabbed line; semicolon & ampersand | pipe > redirect" \
    "" "last line after a blank" >"$T/prompt.txt"
check "inject reports delivery" $TT inject dev-smoke-1 "$T/prompt.txt"
wait_for '[ -f "$T/log/prompt-1.txt" ]' 10
if cmp -s "$T/prompt.txt" "$T/log/prompt-1.txt"; then
	ok "agent received the prompt byte for byte"
else
	fail "agent received the prompt byte for byte" \
	    "$(od -c "$T/log/prompt-1.txt" | head -5 | tr '\n' ' ')"
fi
check "no temp file left behind" sh -c "! ls '$T' | grep -q inject"
wait_for '[ -f "$PHASE" ]' 10
check_eq "agent wrote the phase" "$(head -1 "$PHASE")" "PHASE:awaiting_ci"

printf 'second\n' >"$T/p2.txt"
check "second inject delivered" $TT inject dev-smoke-1 "$T/p2.txt"
wait_for 'grep -q failed "$PHASE"' 10
check_eq "phase line 1" "$(head -1 "$PHASE")" "PHASE:failed"
check_eq "phase line 2" "$(sed -n 2p "$PHASE")" "Reason: refused"

check "forge reached through the C client" \
    $PROBE "$SIM_URL/api/v1/repos/johba/harb" dev-token user
check "kill the session" $TT kill dev-smoke-1
check "session is gone" sh -c "! $TT has dev-smoke-1"
