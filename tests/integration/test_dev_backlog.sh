# dev-poll priorities 1.5 and 2: stuck PRs (review changes, CI failed
# within the budget, chore and issue-less PRs passed over), then the
# backlog: the priority tier first, oldest first, skip labels, dependency
# readiness (sections, inline references, fenced code, "## Related"), an
# existing PR of a ready issue, and the hold while other PRs wait.
# Launches are observed through a stand-in legacy agent.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
legacy_agent
A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
C=cccccccccccccccccccccccccccccccccccccccc
pr() {	# NUMBER ISSUE-IN-TITLE BRANCH SHA REVIEW|""
	_r=
	[ -z "$5" ] || _r="{\"user\": \"review-bot\", \"state\": \"$5\", \"commit_id\": \"$4\"}"
	echo "{\"number\": $1, \"title\": \"$2\", \"files\": [\"a.c\"], \"head\": {\"ref\": \"$3\", \"sha\": \"$4\"}, \"reviews\": [$_r]}"
}

# Stuck PRs (newest first): an issue-less PR and a chore PR are passed
# over, the PR with review changes is fixed before the backlog.
scen '[{"number": 1, "title": "Backlog work", "labels": ["backlog"]},
       {"number": 2, "title": "Reviewed"}]' \
    "[$(pr 24 'misc cleanup' feature/x $A REQUEST_CHANGES),
      $(pr 23 'chore: tidy' chore/planner-1 $A REQUEST_CHANGES),
      $(pr 22 'fix: Reviewed (#2)' fix/issue-2 $B REQUEST_CHANGES)]" \
    "\"statuses\": {\"$A\": {\"state\": \"pending\"}, \"$B\": {\"state\": \"pending\"}}" \
    >"$T/case.json"
case_start
dp
rc_is "stuck PRs" 0
lhas "no issue ref: skipped" 'PR #24 has no issue ref — cannot spawn dev-agent, skipping'
lhas "review changes: fixed first" 'PR #22 \(issue #2\) has REQUEST_CHANGES — fixing first'
check_eq "stuck PR with changes: agent for #2" "$(launched)" 2
tick_twice "stuck PRs"
legacy_stop

# CI failed within the budget; the attempt is paid before the launch.
scen '[{"number": 3, "title": "Red"}]' "[$(pr 23 'fix: Red (#3)' fix/issue-3 $C '')]" \
    "\"statuses\": {\"$C\": {\"state\": \"failure\"}}" >"$T/case.json"
case_start
dp
lhas "CI failed: fixing" 'PR #23 \(issue #3\) CI failed — fixing'
check_eq "CI failed: agent for #3" "$(launched)" 3
check_eq "CI failed: attempt counted" \
    "$(pyjson 'd' <"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json")" '{"23": 1}'
tick_twice "stuck CI failure"

# The backlog: priority first, then oldest first.  #10 is the oldest but
# a formula; #11 depends on an open issue in a section; #12 (priority)
# depends on #13 inline ("Blocked by"); #14 (priority) only mentions #13
# in a fenced code block and under "## Related": it is ready.
scen '[{"number": 10, "title": "Formula", "labels": ["backlog", "formula", "priority"]},
       {"number": 11, "title": "Sectioned", "labels": ["backlog"],
        "body": "Do it.\n\n## Depends on\n- #13\n"},
       {"number": 12, "title": "Inline", "labels": ["backlog", "priority"],
        "body": "This is blocked by #13 for now."},
       {"number": 13, "title": "Open dependency"},
       {"number": 14, "title": "Fenced", "labels": ["backlog", "priority"],
        "body": "Example:\n```\ndepends on #13\n```\n\n## Related\n- #13\n"},
       {"number": 15, "title": "Plain", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
dp
rc_is "backlog" 0
lhas "backlog: counted" 'found 5 backlog issues \(3 priority\)'
lhas "skip label in the backlog" "issue #10 has 'formula' label — skipping in backlog scan"
lhas "inline dependency blocks" '#12 blocked: dep #13 not merged'
lhas "fenced code and Related do not" '#14 is READY'
lnot "the priority tier comes first" '#11 blocked'
check_eq "backlog: agent for #14" "$(launched)" 14
tick_twice "backlog"

# Close #13 and drop #14: the priority tier first, then the oldest.
sim_post /_admin/item '{"number": 13, "state": "closed"}' >/dev/null
sim_post /_admin/item '{"number": 14, "state": "closed"}' >/dev/null
legacy_stop
dp
check_eq "closed dependency: priority #12 now" "$(launched)" 12
sim_post /_admin/item '{"number": 12, "state": "closed"}' >/dev/null
legacy_stop
dp
check_eq "then the oldest plain issue, #11" "$(launched)" 11

# A ready issue whose PR waits for CI holds new work back.
scen '[{"number": 30, "title": "Waiting", "labels": ["backlog"]},
       {"number": 31, "title": "Next", "labels": ["backlog"]}]' \
    "[$(pr 40 'fix: Waiting (#30)' some-branch $A '')]" \
    "\"statuses\": {\"$A\": {\"state\": \"pending\"}}" >"$T/case.json"
case_start
dp
rc_is "waiting hold" 0
lhas "waiting PR found by title" '#30 PR #40 exists \(CI: pending, waiting\)'
lhas "held" 'holding #31 — waiting for open PR\(s\) to land first: #40'
check_eq "held: no launch" "$(launched)" ""
tick_twice "waiting hold"

# Out of budget: a red PR holds nothing; one that also has review
# changes is picked up again by the backlog scan (as upstream: review
# changes come before the CI check there).
scen '[{"number": 30, "title": "Exhausted", "labels": ["backlog"]},
       {"number": 31, "title": "Reviewed", "labels": ["backlog"]},
       {"number": 32, "title": "Later", "labels": ["backlog"]}]' \
    "[$(pr 40 'fix: Exhausted (#30)' fix/issue-30 $A ''),
      $(pr 41 'fix: Reviewed (#31)' fix/issue-31 $B REQUEST_CHANGES)]" \
    "\"statuses\": {\"$A\": {\"state\": \"failure\"}, \"$B\": {\"state\": \"failure\"}}" \
    >"$T/case.json"
case_start
echo '{"40": 4, "41": 4}' >"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json"
dp
lhas "exhausted PR: passed over" 'PR #40 \(issue #30\) CI exhausted \(4 attempts\) — already blocked, skipping'
lhas "review changes in the backlog" '#31 PR #41 has REQUEST_CHANGES — picking up'
lnot "an exhausted PR holds nothing" 'holding'
check_eq "review changes picked up: agent for #31" "$(launched)" 31
check_eq "no comment for an old exhaustion" "$(comments 30)$(comments 31)" 00
legacy_stop

# Nothing in the backlog.
scen '[]' '[]' >"$T/case.json"
case_start
dp
rc_is "empty backlog" 0
lhas "empty backlog: logged" 'no backlog issues'
check_eq "empty backlog: 3 requests" "$(requests)" 3
legacy_stop
