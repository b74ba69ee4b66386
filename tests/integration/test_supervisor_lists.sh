# supervisor-poll's shared lists, read page by page: the open PRs (PR
# checks, the dev metric, the sweep) and the open backlog issues (the
# stall check, the dependency checks) are each read once a tick, every
# page once, and what the checks need is found on any page; the closed
# PRs are read once for all the sessions that need them.  A list that
# fails on a later page is dropped whole: nothing is decided from the
# pages that did arrive.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"

# 120 backlog issues (3 pages, newest first: #120-#71 on page 1), a
# cycle on page 1, an old dependency from page 1 to page 2, two blocked
# issues; open PRs from fix/issue-1 to fix/issue-70 (2 pages); closed,
# merged PRs from fix/issue-301 to fix/issue-355 (2 pages).
WORLD=$(mktemp "${TMPDIR:-/tmp}/disinto-world.XXXXXX") || exit 1
python3 - "$WORLD" <<'EOF'
import json, sys
issues = []
for k in range(1, 121):
    body = "Do it."
    if k == 110:
        body = "Depends on #111"
    elif k == 111:
        body = "Depends on #110"
    elif k == 90:
        body = "Depends on #40"
    issues.append({"number": k, "title": "Issue %d" % k,
                   "labels": ["backlog"], "body": body})
for k in (200, 201):
    issues.append({"number": k, "title": "Blocked %d" % k,
                   "labels": ["blocked"]})
for k in range(301, 361):
    issues.append({"number": k, "title": "Done %d" % k})
pulls = [{"number": 1000 + k, "head": {"ref": "fix/issue-%d" % k}}
         for k in range(1, 71)]
pulls += [{"number": 2000 + k, "state": "closed", "merged": True,
           "head": {"ref": "fix/issue-%d" % k}} for k in range(301, 356)]
world = {"repo": "johba/harb",
         "users": [{"login": "dev-bot", "token": "dev-token", "admin": True},
                   {"login": "review-bot", "token": "review-token"}],
         "labels": [{"id": 1, "name": "backlog"},
                    {"id": 2, "name": "in-progress"},
                    {"id": 3, "name": "blocked"}],
         "issues": issues, "pulls": pulls, "statuses": {},
         "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": []}}
with open(sys.argv[1], "w") as f:
    json.dump(world, f)
EOF
sup_setup "$WORLD"
rm -f "$WORLD"
RUN=$DISINTO_RUN_DIR
METRICS=$FACTORY_ROOT/metrics/supervisor-metrics.jsonl
alive() {
	t_tmux has-session -t "$1" 2>/dev/null
}
gone() {
	! t_tmux has-session -t "$1" 2>/dev/null
}
idle() {	# idle ISSUE AGE: the agent stopped at its prompt AGE ago
	mkdir -p "$RUN/sessions/active/dev-harb-$1"	# as a launch makes it
	touch -d "$2" "$RUN/sessions/active/dev-harb-$1/claude-idle-dev-harb-$1.ts"
}
dev_metrics() {
	cat "$METRICS" 2>/dev/null | grep -c '"type":"dev"'
}
reads() {	# reads REGEX: GETs of the tick whose path matches
	sim_log_count GET "$1"
}
# A tick's start: no faults, an empty request log, the sessions there.
# 65 has an open PR on the list's second page; 355 a merged one on the
# closed list's second page; 356 none at all.  All idle for 40 minutes.
new_tick() {
	faults_clear
	sim_post /_admin/log/reset '{}' >/dev/null
	mkdir -p "$(dirname "$SUP_LOG")" && : >"$SUP_LOG"
	for n in 65 355 356; do
		alive "dev-harb-$n" || sup_agent "dev-harb-$n"
		idle "$n" '40 minutes ago'
	done
}

# The backlog fails on its second page: the cycle on the first is not
# reported, nor a stall or a metric counted from part of the list.
new_tick
ndev=$(dev_metrics)
fault GET 'labels=backlog.*page=2' 500
sup_run
check_eq "backlog page 2 fails: exit 1" "$SUP_RC" 1
check "backlog page 2 fails: logged" \
    sup_log_has "skipped: harb: cannot list 'backlog' issues"
check "backlog page 2 fails: no cycle from page 1" \
    sh -c "! grep -q 'dependency cycle' '$SUP_LOG'"
check "backlog page 2 fails: no stall from a partial count" \
    sh -c "! grep -q 'Pipeline stalled' '$SUP_LOG'"
check_eq "backlog page 2 fails: no dev metric" "$(dev_metrics)" "$ndev"
check "backlog page 2 fails: PR checks still ran" \
    sup_log_has "P3: harb: checking PRs"

# The open PRs fail on their second page: no metric, and no session is
# judged without its PR (356 has none, but that is not known).
new_tick
fault GET '/pulls[?]state=open.*page=2' 500
sup_run
check_eq "open PRs page 2 fails: exit 1" "$SUP_RC" 1
check "open PRs page 2 fails: logged" \
    sup_log_has "skipped: harb: cannot list open PRs"
check_eq "open PRs page 2 fails: no dev metric" "$(dev_metrics)" "$ndev"
check "open PRs page 2 fails: the dependency checks still ran" \
    sup_log_has "dependency cycle, none can start"
check "open PRs page 2 fails: 356 not swept blind" alive dev-harb-356
check "open PRs page 2 fails: 355 not swept blind" alive dev-harb-355

# The closed PRs fail on their second page: neither session that needed
# them is swept (355's PR is there, on the page that did not arrive).
new_tick
fault GET '/pulls[?]state=closed.*page=2' 500
sup_run
check_eq "closed PRs page 2 fails: exit 1" "$SUP_RC" 1
check "closed PRs page 2 fails: logged" \
    sup_log_has "skipped: harb: cannot list closed PRs"
check "closed PRs page 2 fails: 355 kept" alive dev-harb-355
check "closed PRs page 2 fails: 356 kept" alive dev-harb-356
check "closed PRs page 2 fails: 65 kept (its PR is open)" alive dev-harb-65

# Healthy: every page of every list read once, whoever needs it.
new_tick
sup_run
check_eq "healthy: exit 0" "$SUP_RC" 0
for p in 1 2; do
	check_eq "healthy: open PRs page $p read once" \
	    "$(reads "/pulls[?]state=open&limit=50&page=$p\$")" 1
	check_eq "healthy: closed PRs page $p read once" \
	    "$(reads "/pulls[?]state=closed&limit=50&page=$p\$")" 1
done
for p in 1 2 3; do
	check_eq "healthy: backlog page $p read once" \
	    "$(reads "labels=backlog&type=issues&limit=50&page=$p\$")" 1
done
check_eq "healthy: blocked list read once" "$(reads 'labels=blocked')" 1
check_eq "healthy: in-progress list read once" \
    "$(reads 'labels=in-progress')" 1
check_eq "healthy: a listed dependency is not asked for" \
    "$(reads '/issues/40$')" 0
check "healthy: the cycle on page 1" \
    sup_log_has "dependency cycle, none can start: #110 -> #111 -> #110"
check "healthy: the stale dependency across pages" \
    sup_log_has 'stale dependency: #90 waits on #40 (open'
check_eq "healthy: the dev metric counts every page" \
    "$(grep '"type":"dev"' "$METRICS" | tail -n 1 |
	pyjson '[d["issues_in_backlog"], d["issues_blocked"], d["pr_open"]]')" \
    "[120, 2, 70]"
check "healthy: 65's open PR on page 2 keeps it" alive dev-harb-65
check "healthy: 355's merged PR on page 2 of the closed list" sup_log_has \
    "cleaned up the orphaned session dev-harb-355 (its PR #2355 is closed or merged)"
check "healthy: 356 without a PR swept" sup_log_has \
    "cleaned up the orphaned session dev-harb-356 (no PR, idle for"
