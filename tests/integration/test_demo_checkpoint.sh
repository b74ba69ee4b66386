# `make demo PROTOCOL=checkpoint` runs to the end: one BLOCKED round
# answered by a comment, no agent process while the session waits, the
# PR merged and the session cleaned up.
. "$(dirname "$0")/lib/common.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if PROTOCOL=checkpoint sh "$TOP/tests/demo" >"$out" 2>&1; then
	ok "make demo PROTOCOL=checkpoint runs the whole loop"
else
	fail "make demo PROTOCOL=checkpoint runs the whole loop" \
	    "$(tail -5 "$out" | tr '\n' '|')"
fi
for want in "PR #2: merged=true" "issue #1: closed" \
    "Reason:\*\* Should the greeting say hello or hi?" \
    "run 2 prompt: User answered: hello  Continue from where you left off." \
    "dev agent runs: 2 " "session dev-demo-1: ended" "worktree: removed" \
    "agent processes alive while waiting: 0 (memory per waiting session: 0)" \
    "time from the reply to the resumed run: [0-9]* ms" \
    "formal review: \[\"APPROVED by review-bot\"\]"; do
	if grep -q "$want" "$out"; then
		ok "demo: $want"
	else
		fail "demo: $want"
	fi
done
