# supervisor-poll and a dev session that waits in a protected phase
# (awaiting_review, awaiting_ci, escalate) after its PR was merged or
# closed by hand, or its issue closed: the session holds the project's
# slot for nothing.  The orphan sweep leaves it to dev-poll (it is never
# killed here), but once dev-poll has had 20 minutes (two ticks) to end it,
# it is reported as a P4 alert and the fix command hears of it; a close
# younger than that is only logged; a session with an open PR is quiet.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
SCEN=$(mktemp)
cat >"$SCEN" <<'JSON'
{
  "repo": "johba/harb",
  "users": [{"login": "dev-bot", "token": "dev-token", "admin": true}],
  "issues": [
    {"number": 1, "title": "merged by hand while awaiting review"},
    {"number": 2, "title": "closed unmerged while awaiting CI"},
    {"number": 3, "title": "issue closed while escalated", "state": "closed"},
    {"number": 4, "title": "merged a moment ago"},
    {"number": 5, "title": "awaiting review, PR open"}
  ],
  "pulls": [
    {"number": 11, "state": "closed", "merged": true,
     "head": {"ref": "fix/issue-1"}},
    {"number": 12, "state": "closed", "merged": false,
     "head": {"ref": "fix/issue-2"}},
    {"number": 14, "state": "closed", "merged": true,
     "head": {"ref": "fix/issue-4"}},
    {"number": 15, "head": {"ref": "fix/issue-5"}}
  ],
  "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": []}
}
JSON
sup_setup "$SCEN"
rm -f "$SCEN"
RUN=$DISINTO_RUN_DIR
ago() {
	date -u -d "$1" +%Y-%m-%dT%H:%M:%SZ
}
sim_post /_admin/item "{\"number\": 11, \"merged_at\": \"$(ago '45 minutes ago')\"}" >/dev/null
sim_post /_admin/item "{\"number\": 12, \"closed_at\": \"$(ago '3 hours ago')\"}" >/dev/null
sim_post /_admin/item "{\"number\": 3, \"closed_at\": \"$(ago '1 hour ago')\"}" >/dev/null
sim_post /_admin/item "{\"number\": 14, \"merged_at\": \"$(ago '5 minutes ago')\"}" >/dev/null

for n in 1 2 3 4 5; do
	sup_agent "dev-harb-$n"
done
sup_phase 1 'PHASE:awaiting_review\n'
sup_phase 2 'PHASE:awaiting_ci\n'
sup_phase 3 'PHASE:escalate\nReason: which way?\n'
sup_phase 4 'PHASE:awaiting_review\n'
sup_phase 5 'PHASE:awaiting_review\n'

# The stall: every session lives, waiting, with nothing left to wait for.
check_eq "before: the sessions wait" "$(sessions)" \
    "dev-harb-1 dev-harb-2 dev-harb-3 dev-harb-4 dev-harb-5 "

sup_run
check_eq "tick exits 0" "$SUP_RC" 0
check "merged PR under awaiting_review reported" sup_log_has \
    "P4: harb: dev-harb-1 still waits in PHASE:awaiting_review although its PR #11 was merged 45 min ago (dev-poll has not ended it)"
check "PR closed unmerged under awaiting_ci reported" sup_log_has \
    "P4: harb: dev-harb-2 still waits in PHASE:awaiting_ci although its PR #12 was closed unmerged 180 min ago"
check "closed issue under escalate reported" sup_log_has \
    "P4: harb: dev-harb-3 still waits in PHASE:escalate although issue #3 was closed 60 min ago"
check "a merge 5 minutes old is left to dev-poll" sup_log_has \
    "harb: dev-harb-4 waits in PHASE:awaiting_review and its PR #14 was merged 5 min ago: left to dev-poll"
check_eq "no alert for it" "$(sup_log_count 'P4: harb: dev-harb-4')" 0
check_eq "nothing said of the session with an open PR" \
    "$(sup_log_count 'dev-harb-5')" 0
check "the fix command hears of them" grep -q \
    '\[P4\] harb: dev-harb-1 still waits' "$T/fixer.text"
check "not all clear" sh -c "! grep -q 'all clear' '$RUN/supervisor-status'"
check_eq "no session killed (dev-poll cleans up)" "$(sessions)" \
    "dev-harb-1 dev-harb-2 dev-harb-3 dev-harb-4 dev-harb-5 "
check "phase files kept" test -e "$RUN/sessions/active/dev-harb-1/dev-session-harb-1.phase"
check_eq "no forge writes" "$(sim_log_count '(POST|PATCH|DELETE)' '^/api/v1/')" 0

# dev-poll ends the session of #1: the next tick no longer reports it.
t_tmux kill-session -t dev-harb-1
rm -f "$RUN/sessions/active/dev-harb-1/dev-session-harb-1.phase"
: >"$SUP_LOG"
sup_run
check_eq "after dev-poll's clean-up: exit 0" "$SUP_RC" 0
check_eq "after dev-poll's clean-up: #1 no longer reported" \
    "$(sup_log_count 'dev-harb-1')" 0
check "the others still are" sup_log_has "P4: harb: dev-harb-2 still waits"
