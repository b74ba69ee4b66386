# supervisor-poll --project NAME: two projects, each on a forge simulator
# of its own (harb on the usual one with its Woodpecker, other on a second
# without CI); --project asks only that project's forge and CI (the other
# simulator, or harb's forge and Woodpecker repository, see no request)
# while the host layer still runs once; without it both are checked; an unknown name, and a
# broken file of another project, with --project.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-escalate.json"

cat >"$T/other.json" <<'JSON'
{"repo": "johba/other",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true}],
 "issues": [{"number": 1, "title": "Other work", "labels": ["backlog"]}]}
JSON
: >"$T/simb.log"
python3 "$TOP/tests/forge-sim/forge-sim.py" --scenario "$T/other.json" \
    --port-file "$T/simb.port" --log "$T/simb.log" >"$T/simb.out" 2>&1 &
SIMB_PID=$!
trap 'kill "$SIMB_PID" 2>/dev/null; t_cleanup' EXIT
wait_for '[ -s "$T/simb.port" ]' 10 || { fail "second simulator starts"; exit 1; }
SIMB_URL=http://127.0.0.1:$(cat "$T/simb.port")
cat >"$FACTORY_ROOT/projects/other.toml" <<EOF
name = "other"
repo = "johba/other"
forge_url = "$SIMB_URL"
repo_root = "$T/repo"
primary_branch = "master"
[ci]
woodpecker_repo_id = 0
EOF

# requests_a / requests_b REGEX: logged requests whose path matches.
requests_a() {
	sim_log_count '*' "$1"
}
requests_b() {
	$SIMREQ --log-count "$SIMB_URL" '*' "$1"
}
reset_logs() {
	sim_post /_admin/log/reset '{}' >/dev/null
	SIM_URL=$SIMB_URL sim_post /_admin/log/reset '{}' >/dev/null
	mkdir -p "$(dirname "$SUP_LOG")" && : >"$SUP_LOG"
}

reset_logs
sup_run --project harb
check_eq "--project harb: exit 0" "$SUP_RC" 0
check "--project harb: its forge is asked" \
    test "$(requests_a '/repos/johba/harb/')" -gt 0
check "--project harb: its CI is asked" \
    test "$(requests_a '^/api/repos/1/')" -gt 0
check_eq "--project harb: the other forge is not asked" "$(requests_b .)" 0
check "--project harb: checked" sup_log_has "checking project harb"
check "--project harb: other not checked" sh -c \
    "! grep -q 'checking project other' '$SUP_LOG'"
check_eq "--project harb: the host layer ran once" \
    "$(sup_log_count 'P0: checking memory')" 1

reset_logs
sup_run --project other
check_eq "--project other: exit 0" "$SUP_RC" 0
check "--project other: its forge is asked" \
    test "$(requests_b '/repos/johba/other/')" -gt 0
check_eq "--project other: the first forge is not asked" \
    "$(requests_a '/repos/johba/harb/')" 0
check_eq "--project other: nor harb's CI" "$(requests_a '^/api/repos/1/')" 0
check_eq "--project other: the host layer ran once" \
    "$(sup_log_count 'P0: checking memory')" 1

reset_logs
sup_run
check_eq "every project: exit 0" "$SUP_RC" 0
check "every project: both forges asked" test \
    "$(requests_a '/repos/johba/harb/')" -gt 0 -a "$(requests_b '/repos/johba/other/')" -gt 0

reset_logs
sup_run --project nosuch
check_eq "unknown project: exit 2" "$SUP_RC" 2
check "unknown project: said" grep -qF "no project called 'nosuch'" "$T/sup.out"
check_eq "unknown project: no request" "$(requests_a . ) $(requests_b .)" "0 0"

# A broken file of another project does not stop --project; of its own,
# or without --project, it does.
printf 'name = "bad"\nrepo = "o/bad"\n[ci]\nwoodpecker_repo_id = "x"\n' \
    >"$FACTORY_ROOT/projects/bad.toml"
reset_logs
sup_run --project harb
check_eq "another project's broken file: exit 0" "$SUP_RC" 0
check "another project's broken file: harb checked" \
    sup_log_has "checking project harb"
sup_run --project bad
check_eq "its own broken file: exit 2" "$SUP_RC" 2
check "its own broken file: file:line" \
    grep -qF "$FACTORY_ROOT/projects/bad.toml:4:" "$T/sup.out"
sup_run
check_eq "a broken file without --project: exit 2" "$SUP_RC" 2
