# --check: the configuration checked as the tools would read it, offline
# like `sshd -t` (exit 0 and silent when good, one summary line with -v;
# exit 2 with "file: key: what is wrong" when not; nothing written in the
# run directory, nothing asked of the forge), and with --forge what each
# token may do on the forge: a warning when the agents' token can merge
# into the primary branch (an admin, no protection, no merge whitelist,
# or in it), none for an agent user outside the whitelist.  The bad
# configurations of test_config_errors.sh are checked there.
. "$(dirname "$0")/lib/common.sh"
t_setup
FIX=$TOP/tests/fixtures/factory
F=$FACTORY_ROOT
unset FORGE_TOKEN FORGE_REVIEW_TOKEN FORGE_AGENT_TOKEN FORGE_REPO \
    PROJECT_NAME DISINTO_FORMULAS_DIR CODEBERG_TOKEN REVIEW_BOT_TOKEN
cat >"$T/scenario.json" <<'JSON'
{"repo": "johba/demo",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true},
           {"login": "agent", "token": "agent-token"}],
 "branch_protections": [{"rule_name": "master",
                         "enable_merge_whitelist": true,
                         "merge_whitelist_usernames": ["dev-bot"],
                         "enable_approvals_whitelist": true,
                         "approvals_whitelist_username": ["review-bot"]}]}
JSON
sim_start "$T/scenario.json" || { fail "simulator starts"; exit 1; }

# The factory fixture, its examples filled in as an operator does.
cp -R "$FIX/." "$F/"
mkdir -p "$T/repo"
sed "s|@WOODPECKER_SERVER@|$SIM_URL|" "$F/.env.example" >"$F/.env"
sed "s|@FORGE_URL@|$SIM_URL|; s|@REPO_ROOT@|$T/repo|" \
    "$F/projects/demo.toml.example" >"$F/projects/demo.toml"
TOML=$F/projects/demo.toml

run() {	# TOOL ARGS...: exit status in $RC, output in $T/out and $T/err
	_tool=$1
	shift
	"$O/$_tool/$_tool" "$@" >"$T/out" 2>"$T/err"
	RC=$?
}

# Good: silent, exit 0, nothing asked, nothing written (the agents' own
# token from the environment: the fixture's .env does not set it).
export FORGE_AGENT_TOKEN=agent-token
sim_post /_admin/log/reset '{}' >/dev/null
for tool in dev-poll review-poll supervisor-poll; do
	[ "$tool" = supervisor-poll ] && arg= || arg=$TOML
	run "$tool" --check $arg
	check_eq "good fixture: $tool --check exits 0" "$RC" 0
	check_eq "good fixture: $tool --check is silent" \
	    "$(cat "$T/out" "$T/err")" ""
	run "$tool" --check -v $arg
	check_eq "good fixture: $tool --check -v exits 0" "$RC" 0
	check "good fixture: $tool --check -v says so in one line" \
	    grep -qx "$tool: configuration good (0 problems, 0 warnings)" \
	    "$T/out"
done
check_eq "offline --check asked the forge nothing" \
    "$(sim_log_count '*' '.')" 0
check_eq "--check wrote nothing in the run directory" \
    "$(ls -A "$DISINTO_RUN_DIR")" ""

# A project without its checkout: exit 2, the file and the key.
mv "$T/repo" "$T/repo.away"
for tool in dev-poll supervisor-poll; do
	[ "$tool" = supervisor-poll ] && arg= || arg=$TOML
	run "$tool" --check $arg
	check_eq "no checkout: $tool --check exits 2" "$RC" 2
	check "no checkout: $tool --check names the file and the key" \
	    grep -qF "$TOML: repo_root: not a directory" "$T/err"
done
# A failing --check writes nothing either: no metrics, log or status.
check_eq "failing --check: no metrics written" \
    "$(ls -A "$F/metrics" 2>/dev/null)" ""
check_eq "failing --check: no log written" \
    "$(find "$F/dev" "$F/supervisor" -name '*.log' 2>/dev/null)" ""
check_eq "failing --check: nothing in the run directory" \
    "$(ls -A "$DISINTO_RUN_DIR")" ""
mv "$T/repo.away" "$T/repo"
run dev-poll --forge "$TOML"
check_eq "--forge without --check: usage, exit 2" "$RC" 2
check "--forge without --check: says so" \
    grep -qF -- "--forge goes with --check" "$T/err"
rm -rf "$DISINTO_RUN_DIR" && mkdir "$DISINTO_RUN_DIR"

# --forge, the agents trusted with the dev bot's token: it can merge (an
# admin).
unset FORGE_AGENT_TOKEN
export AGENT_TRUST_DEV_BOT_TOKEN=true
run dev-poll --check --forge "$TOML"
check_eq "agents on FORGE_TOKEN: exit 0" "$RC" 0
check "each token's user and access" \
    grep -qx "FORGE_TOKEN: user dev-bot: admin, push, pull on johba/demo" \
    "$T/out"
check "the review token too" grep -qx \
    "FORGE_REVIEW_TOKEN: user review-bot: admin, push, pull on johba/demo" \
    "$T/out"
check "agents on FORGE_TOKEN: warned" grep -q \
    "^warning: FORGE_TOKEN: the agents' user dev-bot: an admin of johba/demo" \
    "$T/out"
check "agents on FORGE_TOKEN: the remedy" grep -q \
    "^warning: FORGE_AGENT_TOKEN: unset: the dev agents get FORGE_TOKEN, the dev bot's, which merges (AGENT_TRUST_DEV_BOT_TOKEN=true)" \
    "$T/out"

# Their own user, outside the merge whitelist: no warning.
export FORGE_AGENT_TOKEN=agent-token
run dev-poll --check --forge "$TOML"
check_eq "own agent user: exit 0" "$RC" 0
check "own agent user: its access" \
    grep -qx "FORGE_AGENT_TOKEN: user agent: push, pull on johba/demo" \
    "$T/out"
check_eq "own agent user outside the whitelist: no warning" \
    "$(grep -c '^warning' "$T/out")" 0
run supervisor-poll --check --forge
check_eq "supervisor-poll --check --forge: exit 0" "$RC" 0
check "supervisor-poll --check --forge: each project file's forge" \
    grep -qx "FORGE_AGENT_TOKEN: user agent: push, pull on johba/demo" \
    "$T/out"

# In the whitelist, no whitelist, no protection: warned.
sim_post /_admin/set '{"branch_protections": [{"rule_name": "master",
    "enable_merge_whitelist": true,
    "merge_whitelist_usernames": ["dev-bot", "agent"],
    "enable_approvals_whitelist": true,
    "approvals_whitelist_username": ["review-bot"]}]}' >/dev/null
run dev-poll --check --forge "$TOML"
check_eq "agent in the whitelist: exit 0" "$RC" 0
check "agent in the whitelist: warned" grep -q \
    "^warning: FORGE_AGENT_TOKEN: the agents' user agent: it is in the merge whitelist of master" \
    "$T/out"
sim_post /_admin/set '{"branch_protections": [{"rule_name": "ma*"}]}' \
    >/dev/null
run dev-poll --check --forge "$TOML"
check "a rule without a merge whitelist (by glob): warned" grep -q \
    "^warning: FORGE_AGENT_TOKEN: .*protection of master has no merge whitelist" \
    "$T/out"
sim_post /_admin/set '{"branch_protections": []}' >/dev/null
run dev-poll --check --forge "$TOML"
check "no protection: warned" grep -q \
    "^warning: FORGE_AGENT_TOKEN: .*master has no branch protection" \
    "$T/out"

# A token the forge refuses: exit 2, which token.
export FORGE_AGENT_TOKEN=no-such-token
run dev-poll --check --forge "$TOML"
check_eq "refused token: exit 2" "$RC" 2
check "refused token: named" \
    grep -qF "FORGE_AGENT_TOKEN: the forge refuses it for johba/demo (HTTP 401)" \
    "$T/err"
check_eq "--check --forge wrote nothing in the run directory" \
    "$(ls -A "$DISINTO_RUN_DIR")" ""

# No .env: named, a problem when no token is set anywhere (every call
# would be refused), else a warning; --check --forge says what it did.
unset FORGE_AGENT_TOKEN
mv "$F/.env" "$F/.env.away"
run dev-poll --check "$TOML"
check_eq "no .env, no token: --check exits 2" "$RC" 2
check "no .env, no token: names the file" \
    grep -qF "'$F/.env' not found, and no FORGE_TOKEN is set anywhere" \
    "$T/err"
run dev-poll --check --forge "$TOML"
check_eq "no .env, no token: --check --forge exits 2" "$RC" 2
check "no .env, no token: --check --forge is not silent" \
    grep -qF "'$F/.env' not found" "$T/err"
FORGE_TOKEN=dev-token run dev-poll --check "$TOML"
check_eq "no .env, a token in the environment: exit 0" "$RC" 0
check "no .env, a token in the environment: a warning naming the file" \
    grep -qxF "warning: '$F/.env' not found: the settings come from the environment and the project file" \
    "$T/out"
printf 'WOODPECKER_TOKEN=wp\n' >"$F/.env"
run dev-poll --check --forge "$TOML"
check_eq "no token at all: --check --forge exits 2" "$RC" 2
check "no token at all: --check --forge says the forge was not asked" \
    grep -qF "FORGE_TOKEN: not set (nor FORGE_REVIEW_TOKEN, FORGE_AGENT_TOKEN): the forge of johba/demo was not asked" \
    "$T/err"
# A tick without .env: the cause line names the missing file.
rm -f "$F/.env"
touch "$F/state/.dev-active"
run dev-poll "$TOML"
check_eq "no .env: the tick fails" "$RC" 1
check "no .env: the tick's cause names the missing file" \
    grep -qF "FORGE_TOKEN (set in the default: '$F/.env' not found) is refused" \
    "$T/err"
rm -f "$F/state/.dev-active"
mv "$F/.env.away" "$F/.env"
