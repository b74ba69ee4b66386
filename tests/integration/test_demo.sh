# The full-loop demo behind `make demo` runs to the end (also under the
# markers protocol, and with KEEP=1): issue launched,
# PR opened, CI passed, reviewed and approved, merged, session cleaned up.
. "$(dirname "$0")/lib/common.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if sh "$TOP/tests/demo" >"$out" 2>&1; then
	ok "make demo runs the whole loop"
else
	fail "make demo runs the whole loop" "$(tail -5 "$out" | tr '\n' '|')"
fi
for want in "PR #2: merged=true" "issue #1: closed" "session dev-demo-1: ended" \
    "worktree: removed" "run files left: 0" \
    "metrics: the exposition-format check passed" "formal review: \[\"APPROVED by review-bot\"\]"; do
	if grep -q "$want" "$out"; then
		ok "demo: $want"
	else
		fail "demo: $want"
	fi
done

# It says its agents are scripted, and `--status --forge` after each step
# shows the session, its PR, the CI state of the PR's head and the phase.
# status_at WHEN: the report printed after that step.
status_at() {
	sed -n "/^==> --status --forge $1\$/,/^==> /p" "$out"
}
# at_has WHEN REGEX: a line of that report matches REGEX (grep -E).
at_has() {
	status_at "$1" | grep -qE "$2"
}
check "demo: says its agents are scripted" \
    grep -qx 'demo: the agents are scripted (tests/fake-agent), no model is asked' "$out"
check "demo --status after the launch: the session, no PR yet" at_has "after the launch" \
    '^        dev-demo-1 +PHASE:awaiting_ci +[0-9]+s  alive  no PR$'
check "demo --status after the launch: the slot is busy" at_has "after the launch" \
    '^      backlog: +slot busy: dev-demo-1 \(#1, awaiting_ci [0-9]+s\)$'
check "demo --status with the PR: PR #2 open, CI success" at_has "with the PR and its CI" \
    '^        dev-demo-1 +PHASE:awaiting_review +[0-9]+s  alive  PR #2 open, CI success at [0-9a-f]{8}$'
check "demo --status once reviewed: PHASE:done, the review tick" at_has "once reviewed" \
    '^        dev-demo-1 +PHASE:done +[0-9]+s  alive  PR #2 open, CI success'
check "demo --status once reviewed: review-poll ticked with exit 0" at_has "once reviewed" \
    '^      review tick: +[-0-9T:]+Z \([0-9]+s ago\), exit 0$'
check "demo --status once merged: no session, the slot free" at_has "once merged" \
    '^      sessions:      none$'
check "demo --status once merged: the old status line marked past" at_has "once merged" \
    '^      \(that status line is past: \#1 has no session now\)$'
sock=$(sed -n 's/^tmux socket: //p' "$out")
check "demo: its tmux socket is named" test -n "$sock"
check "demo: no tmux socket left" test ! -e "/tmp/tmux-$(id -u)/$sock"

# make demo KEEP=1: the world is kept, the simulator stopped, and the
# printed command runs --status on it with the simulator restarted.
if KEEP=1 sh "$TOP/tests/demo" >"$out" 2>&1; then
	ok "make demo KEEP=1 runs the whole loop"
else
	fail "make demo KEEP=1 runs the whole loop" "$(tail -5 "$out" | tr '\n' '|')"
fi
kept=$(sed -n 's/^the world is kept in \([^;]*\);.*/\1/p' "$out")
check "KEEP=1: the world is kept" test -f "$kept/try" -a -d "$kept/run"
try=$(grep -m1 -F "sh $kept/try dev-poll --status --forge" "$out")
$try >"$kept/status.out" 2>&1
check_eq "KEEP=1: the printed --status command: exit 0" "$?" 0
check "KEEP=1: --status --forge on the kept world reads the restarted forge" \
    grep -qx '                 no backlog issue' "$kept/status.out"
sock=$(sed -n 's/^tmux socket: //p' "$out")
check "KEEP=1: no tmux socket left" test ! -e "/tmp/tmux-$(id -u)/$sock"
case $kept in /tmp/disinto-test.*) rm -rf "$kept" ;; esac

# make demo PROTOCOL=markers: the same loop through the marker handshake.
if PROTOCOL=markers sh "$TOP/tests/demo" >"$out" 2>&1; then
	ok "make demo PROTOCOL=markers runs the whole loop"
else
	fail "make demo PROTOCOL=markers runs the whole loop" \
	    "$(tail -5 "$out" | tr '\n' '|')"
fi
for want in "PR #2: merged=true" "issue #1: closed" "run files left: 0" \
    "agent protocol: markers" "prompts acknowledged: 4" \
    "session directories left: 0" "agent processes alive while waiting: 1 "; do
	if grep -q "$want" "$out"; then
		ok "demo markers: $want"
	else
		fail "demo markers: $want"
	fi
done
