#!/bin/sh
# One tick of dev-poll, review-poll and supervisor-poll on the 1600/400
# scale world (tests/tools/scale-world.py: 1600 backlog issues, a third
# with a dependency, 400 open PRs waiting for CI) decides what it decided
# before the reads were made cheaper: the same forge writes and the same
# log lines as the golden files in tests/fixtures/scale-decisions/, which
# were recorded from the code that read every PR one by one.
# SCALE_GOLDEN_WRITE=1 writes the golden files instead.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/scale.sh"
GOLD=$TOP/tests/fixtures/scale-decisions
scale_init
# Pipelines dated a minute ago are still pending for the supervisor
# (its limit is 30 minutes).
SC_NOW=$(date +%s)
scale_world 1600 400 || { fail "the simulator starts"; exit 1; }
for tool in dev-poll review-poll supervisor-poll; do
	scale_reset
	scale_tick "$tool"
	check_eq "$tool: tick exit status" "$SC_RC" 0
	scale_decisions "$tool" >"$T/$tool.dec"
	if [ "${SCALE_GOLDEN_WRITE:-}" = 1 ]; then
		mkdir -p "$GOLD"
		cp "$T/$tool.dec" "$GOLD/$tool.txt"
	fi
	if diff -u "$GOLD/$tool.txt" "$T/$tool.dec" >"$T/diff"; then
		ok "$tool: the same writes and decisions as before"
	else
		fail "$tool: the same writes and decisions as before" \
		    "$(head -20 "$T/diff" | tr '\n' '|')"
	fi
	check "$tool: the tick decided something" test -s "$T/$tool.dec"
done
