# The full-loop demo behind `make demo` runs to the end (also under the
# markers protocol): issue launched,
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
