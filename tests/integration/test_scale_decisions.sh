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
	check "$tool: no CI memo where Woodpecker answers" \
	    test ! -e "$DISINTO_RUN_DIR/ci-status-harb"
done

# Without Woodpecker (CI reports forge commit statuses only) and 7 in 8
# heads final, the heads' statuses are remembered (ci-status-P): the next
# tick of each tool decides what the first decided, and reads the
# statuses of the 50 pending heads only; dev-poll's steady tick costs its
# list pages and those 50, and a final head a webhook marked as changed
# (ci-changed-P) is read again at once.
export SCALE_CI=forge
scale_world 1600 400 || { fail "the forge-CI world starts"; exit 1; }
for tool in dev-poll review-poll supervisor-poll; do
	scale_reset
	scale_tick "$tool"
	check_eq "$tool, forge CI: first tick exit status" "$SC_RC" 0
	check_eq "$tool, forge CI: first tick reads every head's status" \
	    "$(sim_log_count GET '/commits/[0-9a-f]+/status')" 400
	scale_decisions "$tool" | grep -v 'GET ' >"$T/$tool.first"
	check "$tool, forge CI: the memo is written" \
	    test -s "$DISINTO_RUN_DIR/ci-status-harb"
	sim_post /_admin/log/reset '{}' >/dev/null
	scale_tick "$tool"
	check_eq "$tool, forge CI: next tick exit status" "$SC_RC" 0
	check_eq "$tool, forge CI: next tick reads the pending heads only" \
	    "$(sim_log_count GET '/commits/[0-9a-f]+/status')" 50
	scale_decisions "$tool" | grep -v 'GET ' >"$T/$tool.next"
	if diff -u "$T/$tool.first" "$T/$tool.next" >"$T/diff"; then
		ok "$tool, forge CI: the next tick decides the same"
	else
		fail "$tool, forge CI: the next tick decides the same" \
		    "$(head -20 "$T/diff" | tr '\n' '|')"
	fi
	[ "$tool" = dev-poll ] || continue
	pages=$(($(sim_log_count GET '/issues(\?|$)') +
	    $(sim_log_count GET '/pulls(\?|$)')))
	check_eq "dev-poll, forge CI: a steady tick costs list pages + pending heads" \
	    "$(sim_log_count '*' .)" $((pages + 50))
	# A webhook delivery said PR 1's head (final) changed: read again.
	sha1=$(printf '%040x' $((0x5ca1e000000 + 1)))
	echo "$sha1 $(date +%s)" >"$DISINTO_RUN_DIR/ci-changed-harb"
	sim_post /_admin/log/reset '{}' >/dev/null
	scale_tick dev-poll
	check_eq "dev-poll, forge CI: a marked final head is read again at once" \
	    "$(sim_log_count GET "/commits/$sha1/status")" 1
	check_eq "dev-poll, forge CI: with the pending ones only" \
	    "$(sim_log_count GET '/commits/[0-9a-f]+/status')" 51
done
