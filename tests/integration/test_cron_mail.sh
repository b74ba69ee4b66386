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
check "forge down: it says the tick failed, what first, and where the log is" \
    grep -qE "^dev-poll: tick failed: cannot read the open PRs: .* \(log: $DEVLOG\)$" "$T/err"
check_eq "forge down: nothing on stdout" "$(cat "$T/out")" ""
