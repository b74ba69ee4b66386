# What cron mails: a tick writes to stderr only when the operator must
# hear it.  A tick that fails at run time (the forge does not answer)
# exits 1 with one line on stderr saying so and where the log is; a
# tick skipped because the factory is off says which file turns it on,
# as lib/guard.sh did; a good tick and one that finds another tick at
# work print nothing.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "One", "labels": []}]' '[]' >"$T/case.json"
dev_sim "$T/case.json"
errs() {	# the tick's stderr alone
	"$O/dev-poll/dev-poll" "$P" 2>"$T/err" >"$T/out"
	RC=$?
}

errs
check_eq "a good tick: exit 0" "$RC" 0
check_eq "a good tick: nothing on stderr" "$(cat "$T/err")" ""
check_eq "a good tick: nothing on stdout" "$(cat "$T/out")" ""

rm -f "$FACTORY_ROOT/state/.dev-active"
errs
check_eq "factory off: exit 0" "$RC" 0
check_eq "factory off: one line on stderr, the file that turns it on and the FACTORY_ROOT used" \
    "$(cat "$T/err")" \
    "dev-poll: SKIP: '$FACTORY_ROOT/state/.dev-active' not found — dev disabled (touch it to enable); FACTORY_ROOT=$FACTORY_ROOT (from the environment)"
: >"$FACTORY_ROOT/state/.dev-active"

sim_stop
errs
check_eq "forge down: exit 1" "$RC" 1
check_eq "forge down: one line on stderr" "$(grep -c . "$T/err")" 1
check "forge down: it says the tick failed, the setting to fix, and where the log is" \
    grep -qE "^dev-poll: tick failed: forge unreachable at FORGE_URL=http://127\.0\.0\.1:[0-9]+ \(set in $P:[0-9]+ as forge_url\): .* \(log: $DEVLOG\)$" "$T/err"
check_eq "forge down: nothing on stdout" "$(cat "$T/out")" ""

# A token the forge refuses (revoked): the line names the setting and
# where it is set, never the token.
dev_sim "$T/case.json"
FORGE_TOKEN=revoked-tok-1234 errs
check_eq "refused token: exit 1" "$RC" 1
check "refused token: the line names FORGE_TOKEN and where it is set" \
    grep -qE "^dev-poll: tick failed: 401 from the forge: FORGE_TOKEN \(set in the environment\) is refused" "$T/err"
check_eq "refused token: its value is not on stderr" "$(grep -c revoked-tok "$T/err")" 0
check_eq "refused token: nor in the log" "$(grep -c revoked-tok "$DEVLOG")" 0
printf 'FORGE_TOKEN=revoked-tok-5678\n' >"$FACTORY_ROOT/.env"
(unset FORGE_TOKEN; errs; echo "$RC" >"$T/rc")
check "refused token from .env: the line names .env and its line" \
    grep -qE "^dev-poll: tick failed: 401 from the forge: FORGE_TOKEN \(set in $FACTORY_ROOT/.env:1\) is refused" "$T/err"
check_eq "refused token from .env: its value is not on stderr" "$(grep -c revoked-tok "$T/err")" 0
rm -f "$FACTORY_ROOT/.env"

# supervisor-poll reads each project's forge: a failed read names the
# project file that set the URL, not a .env that sets the same one.
mkdir -p "$FACTORY_ROOT/projects" "$FACTORY_ROOT/supervisor"
cp "$P" "$FACTORY_ROOT/projects/$PROJ.toml"
printf '# the factory\nFORGE_URL=%s\n' "$SIM_URL" >"$FACTORY_ROOT/.env"
: >"$FACTORY_ROOT/state/.supervisor-active"
sim_stop
"$O/supervisor-poll/supervisor-poll" 2>"$T/err" >"$T/out"
check_eq "supervisor-poll, forge down: exit 1" "$?" 1
check "supervisor-poll, forge down: names the project file's forge_url" \
    grep -qE "forge unreachable at FORGE_URL=http://127\.0\.0\.1:[0-9]+ \(set in $FACTORY_ROOT/projects/$PROJ\.toml:[0-9]+ as forge_url\)" \
    "$T/err"
check_eq "supervisor-poll, forge down: not .env" "$(grep -c '\.env:2' "$T/err")" 0
rm -f "$FACTORY_ROOT/.env" "$FACTORY_ROOT/projects/$PROJ.toml"
