# The full-loop demo behind `make demo` runs to the end: issue launched,
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
