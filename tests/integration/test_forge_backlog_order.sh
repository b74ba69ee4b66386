# The backlog as the real servers list it (issue 19): Gitea lists a
# repository's issues newest first and reads no "sort" there, and caps its
# pages at [api] MAX_RESPONSE_ITEMS.  dev-poll orders the backlog itself
# (created time, then number) and reads every page until the forge's
# X-Total-Count says the list ended, never stopping at a short page; a
# page that did not arrive makes the backlog unknown, never empty.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
legacy_agent

# Two ready backlog issues; the newer one (#3, created later although its
# number is lower) is listed first by the forge: the older one, #7, is
# launched.
scen '[{"number": 3, "title": "newer", "labels": ["backlog"],
        "created_at": "2024-02-01T10:00:00Z"},
       {"number": 7, "title": "older", "labels": ["backlog"],
        "created_at": "2024-01-01T10:00:00Z"}]' '[]' >"$T/case.json"
case_start
listed=$(SIM_TOKEN=dev-token sim_get \
    '/api/v1/repos/johba/harb/issues?state=open&labels=backlog&type=issues' |
    pyjson '" ".join(str(i["number"]) for i in d)')
check_eq "the forge lists the newer issue first" "$listed" "3 7"
dp
rc_is "two ready issues" 0
check_eq "the older issue is launched" "$(launched)" 7
check_eq "no sort sent: the order is the tools' own" \
    "$(sim_log_count GET 'sort=')" 0

# 45 backlog issues behind a page cap of 30: 44 wait on an open issue
# (#100); the only ready one, #1, the oldest, is on the forge's page 2.
python3 - "$T" <<'EOF'
import json, sys
issues = [{"number": 100, "title": "the dependency"}]
for n in range(1, 46):
    it = {"number": n, "title": "backlog %d" % n, "labels": ["backlog"]}
    if n != 1:
        it["body"] = "## Dependencies\n- #100\n"
    issues.append(it)
print(json.dumps(issues), file=open(sys.argv[1] + "/issues.json", "w"))
EOF
scen "$(cat "$T/issues.json")" '[]' >"$T/case.json"
legacy_stop
sim_stop
rm -f "$RUN"/*.phase "$RUN"/dev-state-* "$RUN"/dev-poll-ticks-*
sim_start "$T/case.json" --page-cap 30 || exit 1
write_project
check_eq "the forge's first page holds 30 issues, not #1" \
    "$(SIM_TOKEN=dev-token sim_get \
    '/api/v1/repos/johba/harb/issues?state=open&labels=backlog&limit=50&page=1' |
    pyjson 'str(len(d)) + " " + str(1 in [i["number"] for i in d])')" \
    "30 False"
dp
rc_is "page cap 30" 0
check_eq "the ready issue on page 2 is launched" "$(launched)" 1
check_eq "both pages read" \
    "$(sim_log_count GET '/issues\?.*labels=backlog.*page=2' 200)" 1
lhas "all 45 backlog issues seen" 'found 45 backlog issues'

# Page 2 lost: the backlog is unknown, nothing is launched and nothing
# says the backlog is empty or that nothing is ready.
legacy_stop
sim_post /_admin/reset '{}' >/dev/null
rm -f "$RUN"/dev-poll-ticks-* "$RUN"/dev-state-*
fault '{"method": "GET", "path": "/issues\\?.*labels=backlog.*page=2",
    "mode": "500", "count": 0}'
dp
rc_is "page 2 lost" 1
check_eq "page 2 lost: nothing launched" "$(cat "$T/launched" 2>/dev/null)" ""
lhas "page 2 lost: the read failed, said so" \
    "cannot read the open 'backlog' issues"
lnot "page 2 lost: never 'no ready issues'" 'no ready issues|no backlog issues'
check "page 2 lost: the tick is recorded failed, not empty" \
    grep -q '^OUTCOME: failed' "$RUN/dev-poll-ticks-$PROJ"
