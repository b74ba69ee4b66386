# journald-friendly logging: with --log=stderr or DISINTO_LOG=stderr the
# log lines go to stderr without the timestamp and with the syslog
# priority prefix (<3> run-time failures, <4> skipped or degraded, <5>
# actions, <6> routine: the same for the same event in every tool), and
# no log file is written; the file stays the default.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-sweep.json"
DEV=$O/dev-poll/dev-poll
PROJ=$FACTORY_ROOT/projects/harb.toml
DLOG=$FACTORY_ROOT/dev/dev-agent-harb.log

"$DEV" --log=stderr "$PROJ" >"$T/out" 2>"$T/err"
check_eq "--log=stderr: exit 0" "$?" 0
check_eq "--log=stderr: a skipped tick is a warning, <4>, without timestamp" \
    "$(cat "$T/err")" "<4>poll: dev not active — skipping: '$FACTORY_ROOT/state/.dev-active' not found, FACTORY_ROOT=$FACTORY_ROOT (from the environment)"
check_eq "--log=stderr: nothing on stdout" "$(cat "$T/out")" ""
check "--log=stderr: no log file" test ! -e "$DLOG"

DISINTO_LOG=stderr "$DEV" "$PROJ" 2>"$T/err"
check_eq "DISINTO_LOG=stderr: the same" \
    "$(cat "$T/err")" "<4>poll: dev not active — skipping: '$FACTORY_ROOT/state/.dev-active' not found, FACTORY_ROOT=$FACTORY_ROOT (from the environment)"
printf 'DISINTO_LOG=stderr\n' >"$FACTORY_ROOT/.env"
"$DEV" "$PROJ" 2>"$T/err"
check_eq "DISINTO_LOG=stderr in .env: the same" \
    "$(cat "$T/err")" "<4>poll: dev not active — skipping: '$FACTORY_ROOT/state/.dev-active' not found, FACTORY_ROOT=$FACTORY_ROOT (from the environment)"
"$DEV" --log=file "$PROJ" 2>"$T/err"
check_eq "--log=file overrides it: stderr has only the skip's reason, for cron's mail" \
    "$(cat "$T/err")" \
    "dev-poll: SKIP: '$FACTORY_ROOT/state/.dev-active' not found — dev disabled (touch it to enable); FACTORY_ROOT=$FACTORY_ROOT (from the environment)"
check "--log=file: the timestamped line in the log file" \
    grep -qE '^\[[0-9-]{10} [0-9:]{8} UTC\] poll: dev not active' "$DLOG"
rm -f "$FACTORY_ROOT/.env" "$DLOG"

# A configuration error: <3>, and the message main prints as it is.
cp "$PROJ" "$T/harb.toml.good"
printf 'name = "harb"\nrepo = "johba/harb"\n[ci]\nwoodpecker_repo_id = "x"\n' \
    >"$PROJ"
"$DEV" --log=stderr "$PROJ" 2>"$T/err"
check_eq "configuration error: exit 2" "$?" 2
check "configuration error: logged as an error" \
    grep -qE '^<3>poll: failing: .*harb.toml:4: \[ci\] woodpecker_repo_id' "$T/err"
check_eq "configuration error: no timestamped line" \
    "$(grep -c '^\[' "$T/err")" 0
check "configuration error: no log file" test ! -e "$DLOG"

# A failed read: a warning where it failed, the tick's cause an error
# naming the setting.
: >"$FACTORY_ROOT/state/.dev-active"
sed "s|^forge_url = .*|forge_url = \"http://127.0.0.1:9\"|" \
    "$T/harb.toml.good" >"$PROJ"
DISINTO_HTTP_RETRIES=1 "$DEV" --log=stderr "$PROJ" 2>"$T/err"
check_eq "forge unreachable: exit 1" "$?" 1
check "forge unreachable: the failed read is a warning" \
    grep -qE '^<4>poll: cannot read the open PRs' "$T/err"
check "forge unreachable: the cause is an error naming FORGE_URL" \
    grep -qE '^<3>poll: forge unreachable at FORGE_URL=http://127.0.0.1:9 \(set in .*harb.toml:[0-9]+ as forge_url\)' "$T/err"
rm -f "$FACTORY_ROOT/state/.dev-active"

# The supervisor's lines too.
cp "$T/harb.toml.good" "$PROJ"
sup_run --log=stderr
check "supervisor: lines carry priority prefixes" \
    grep -q '^<6>checking project harb' "$T/sup.out"
check_eq "supervisor: no timestamped line" \
    "$(grep -c '^\[' "$T/sup.out")" 0
check "supervisor: no log file" test ! -e "$SUP_LOG"

"$DEV" --log=journal "$PROJ" 2>"$T/err"
check_eq "--log=journal: a usage error" "$?" 2
check "--log=journal: says what it expects" \
    grep -q "expected 'file' or 'stderr'" "$T/err"
DISINTO_LOG=syslog "$DEV" "$PROJ" 2>"$T/err"
check_eq "DISINTO_LOG=syslog: a configuration error" "$?" 2
check "DISINTO_LOG=syslog: names the setting" grep -q "DISINTO_LOG" "$T/err"
