# dev-poll priority 1: the first open in-progress issue, each branch of
# dev-poll.sh's decision: skip labels, an approved PR the forge will not
# merge, review changes, CI failed within the budget, the budget used up
# (one blocked comment even with two pollers at once), no PR at all, a
# PR waiting for CI; and the dependency preflight before a recovery
# launch, whose notice is never repeated.  Launches are observed through
# a stand-in legacy agent (DEV_AGENT_CMD), except for the preflight, which
# only an in-process launch does.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
legacy_agent
S=5555555555555555555555555555555555555555
ORPHAN='{"number": 5, "title": "Orphan", "labels": ["in-progress"]}'
pr5() {	# STATE_OF_REVIEW|"" [MORE PR FIELDS]
	_r=
	[ -z "$1" ] || _r="{\"user\": \"review-bot\", \"state\": \"$1\", \"commit_id\": \"$S\"}"
	echo "[{\"number\": 15, \"title\": \"fix: Orphan (#5)\", \"files\": [\"a.c\"], \"head\": {\"ref\": \"fix/issue-5\", \"sha\": \"$S\"}, \"reviews\": [$_r]${2:+, $2}}]"
}
status() {
	echo "\"statuses\": {\"$S\": {\"state\": \"$1\"}}"
}

# Skip label: in-progress is removed, nothing else happens.
scen "[{\"number\": 5, \"title\": \"Orphan\", \"labels\": [\"in-progress\", \"formula\"]}]" '[]' >"$T/case.json"; case_start
dp
rc_is "skip label" 0
lhas "skip label: logged" "issue #5 has 'formula' label — removing in-progress, skipping"
check_eq "skip label: in-progress removed" "$(labels 5)" formula
check_eq "skip label: no launch" "$(launched)" ""
tick_twice "skip label"

# Approved and green, but the forge says it cannot be merged: the first
# tick notes it (the forge may be checking it after another merge) and
# asks no merge; still so at that head a minute later (the note aged
# instead of waiting it out), it is a conflict and an agent is asked to
# merge it.
scen "[$ORPHAN]" "$(pr5 APPROVED '"mergeable": false')" "$(status success)" >"$T/case.json"; case_start
dp
rc_is "not mergeable" 0
lhas "not mergeable: a later tick looks again" 'PR #15: not mergeable now'
check_eq "not mergeable: no agent yet" "$(launched)" ""
sed -i "s/^UNMERGEABLE: \([0-9a-f]*\) [0-9]*/UNMERGEABLE: \1 $(($(date +%s) - 61))/" \
    "$RUN/dev-state-$PROJ-5"
dp
rc_is "merge refused" 0
lhas "merge refused: logged" 'PR #15: not mergeable for 6[0-9]s at .* a conflict'
lhas "merge refused: fallback" 'falling back to dev-agent for PR #15 merge'
check_eq "merge refused: agent started for #5" "$(launched)" 5
tick_twice "merge refused"
lhas "merge refused: then the slot is busy" 'agent running \(PID'

# Review changes while CI is still pending.
scen "[$ORPHAN]" "$(pr5 REQUEST_CHANGES)" "$(status pending)" >"$T/case.json"; case_start
dp
lhas "review changes: logged" 'issue #5 PR #15 has REQUEST_CHANGES — spawning agent'
check_eq "review changes: agent started for #5" "$(launched)" 5
tick_twice "review changes"

# CI failed, budget left: the attempt is counted before the launch.
scen "[$ORPHAN]" "$(pr5 '')" "$(status failure)" >"$T/case.json"; case_start
echo '{"15": 1}' >"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json"
dp
lhas "CI failed: logged" 'issue #5 PR #15 CI failed — spawning agent to fix'
check_eq "CI failed: agent started for #5" "$(launched)" 5
check_eq "CI failed: attempt 2 counted" \
    "$(pyjson 'd' <"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json")" '{"15": 2}'
tick_twice "CI failed"
check_eq "CI failed: not counted twice" \
    "$(pyjson 'd' <"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json")" '{"15": 2}'

# CI failed with the budget used up, two pollers started at once: one
# diagnostic, one blocked label, count 4, no launch.
scen "[$ORPHAN]" "$(pr5 '')" "$(status failure)" >"$T/case.json"; case_start
echo '{"15": 3}' >"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json"
"$O/dev-poll/dev-poll" "$P" >/dev/null 2>&1 &
A=$!
"$O/dev-poll/dev-poll" "$P" >/dev/null 2>&1 &
B=$!
wait "$A"
RA=$?
wait "$B"
RB=$?
check_eq "exhausted: both pollers exit 0" "$RA$RB" 00
check_eq "exhausted: exactly one comment" "$(comments 5)" 1
BODY=$(sim_state_get 'd["issues"][0]["comments"][0]["body"]')
case $BODY in
*"ci_exhausted_poll (3 attempts)"*"| PR | #15 |"*)
	ok "exhausted: the comment names PR and attempts" ;;
*)	fail "exhausted: the comment names PR and attempts" "$BODY" ;;
esac
check_eq "exhausted: labelled blocked" "$(labels 5)" "blocked,in-progress"
check_eq "exhausted: count 4" \
    "$(pyjson 'd' <"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json")" '{"15": 4}'
check_eq "exhausted: no launch" "$(launched)" ""
dp
rc_is "exhausted, later tick" 0
lhas "exhausted: later ticks see it blocked" 'PR #15 \(issue #5\) already blocked \(4 attempts\) — skipping'
tick_twice "exhausted"
check_eq "exhausted: still one comment" "$(comments 5)" 1

# No PR: a recovery launch.
scen "[$ORPHAN]" '[]' >"$T/case.json"; case_start
dp
lhas "no PR: logged" 'recovering orphaned issue #5 \(no PR found\)'
check_eq "no PR: agent started for #5" "$(launched)" 5
tick_twice "no PR"

# A PR waiting for CI: priority 1 passes, the backlog goes on.
scen "[$ORPHAN, {\"number\": 6, \"title\": \"Next\", \"labels\": [\"backlog\"]}]" \
    "$(pr5 '')" "$(status pending)" >"$T/case.json"; case_start
dp
lhas "waiting PR: logged" 'issue #5 has open PR #15 \(CI: pending, waiting\)'
check_eq "waiting PR: the backlog goes on" "$(launched)" 6
legacy_stop

# The preflight of an in-process launch: #5 depends on #7 (blocked by the
# open #8) and on #9 (ready): one notice naming both, suggesting #9.
unset DEV_AGENT_CMD AGENT_SANDBOX
scen '[{"number": 5, "title": "Orphan", "labels": ["in-progress"],
        "body": "## Dependencies\n- #7\n- #9\n\n## Related\n- #10\n"},
       {"number": 7, "title": "Blocked blocker", "body": "Blocked by #8"},
       {"number": 8, "title": "Deep"},
       {"number": 9, "title": "Ready blocker"},
       {"number": 10, "title": "Only related"}]' '[]' >"$T/case.json"; case_start
dp
rc_is "unmet dependency" 0
lhas "unmet dependency: logged" 'BLOCKED: unmet dependencies: #7 #9, suggest #9'
check_eq "unmet dependency: one comment" "$(comments 5)" 1
BODY=$(sim_state_get 'd["issues"][0]["comments"][0]["body"]')
case $BODY in
*"Dev-agent: Unmet dependency"*"### Blocked by open issues"*"#7, #9, which are not yet closed"*"Work on #9 first"*"Automated assessment by dev-agent"*)
	ok "unmet dependency: the notice names blockers and suggestion" ;;
*)	fail "unmet dependency: the notice names blockers and suggestion" "$BODY" ;;
esac
check_eq "unmet dependency: nothing claimed or started" \
    "$(sim_get /_admin/log | pyjson '[e["method"] for e in d if e["method"] != "GET"]')" '["POST"]'
check "unmet dependency: no session" sh -c "! t_tmux has-session -t dev-$PROJ-5 2>/dev/null"
tick_twice "unmet dependency"
lhas "unmet dependency: not repeated" 'skipping duplicate dependency comment'
check_eq "unmet dependency: still one comment" "$(comments 5)" 1
legacy_stop
