# --check --forge on what the agents' user may do and on Woodpecker:
# a warning when the agents' token can approve for the primary branch
# (Gitea's IsUserOfficialReviewer: any writer without an approvals
# whitelist, else the users and teams it lists) or merge into it through
# a team of the merge whitelist (IsUserMergeWhitelisted, the user's teams
# read with its own token); an admin's warning names the rule's field that
# binds admins (Gitea's block_admin_merge_override, Forgejo's
# apply_to_admins); a bad WOODPECKER_TOKEN or WOODPECKER_REPO_ID fails the
# check with the reason.  The check writes nothing: no run file, no
# metrics, no log.
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
           {"login": "agent", "token": "agent-token",
            "teams": [{"name": "mergers", "org": "johba"},
                      {"name": "approvers", "org": "elsewhere"}]}],
 "branch_protections": [{"rule_name": "master",
                         "enable_merge_whitelist": true,
                         "merge_whitelist_usernames": ["dev-bot"],
                         "enable_approvals_whitelist": true,
                         "approvals_whitelist_username": ["review-bot"]}],
 "woodpecker": {"token": "wp-token", "user": "ci-bot",
                "full_name": "johba/demo"}}
JSON
# Gitea first, Forgejo below, whatever dialect the run was given.
sim_start "$T/scenario.json" --dialect gitea ||
    { fail "simulator starts"; exit 1; }
cp -R "$FIX/." "$F/"
mkdir -p "$T/repo"
sed "s|@WOODPECKER_SERVER@|$SIM_URL|" "$F/.env.example" >"$F/.env"
sed "s|@FORGE_URL@|$SIM_URL|; s|@REPO_ROOT@|$T/repo|" \
    "$F/projects/demo.toml.example" >"$F/projects/demo.toml"
TOML=$F/projects/demo.toml
export FORGE_AGENT_TOKEN=agent-token

run() {	# ARGS...: dev-poll's exit status in $RC, output in $T/out, $T/err
	"$O/dev-poll/dev-poll" "$@" >"$T/out" 2>"$T/err"
	RC=$?
}
protect() {	# RULE_JSON: the primary branch's only rule
	sim_post /_admin/set "{\"branch_protections\": [$1]}" >/dev/null
}
warned() {	# NAME REGEX: a warning line of the last run matches
	check "$1" grep -qE "^warning: $2" "$T/out"
}
no_warning() {	# NAME
	check_eq "$1" "$(grep -c '^warning' "$T/out")" 0
}
ls -A "$F" | sort >"$T/factory.before"

# The agents' own user outside every whitelist, Woodpecker's token good.
run --check --forge "$TOML"
check_eq "outside the whitelists: exit 0" "$RC" 0
no_warning "outside the whitelists: no warning"
check "Woodpecker's user and repository" grep -qx \
    "WOODPECKER_TOKEN: user ci-bot: repository 1 (johba/demo)" "$T/out"
check "Woodpecker was asked who the token is" \
    test "$(sim_log_count GET '^/api/user$')" -ge 1
check "Woodpecker was asked for the repository" \
    test "$(sim_log_count GET '^/api/repos/1$')" -ge 1

# Approvals: no approvals whitelist makes any writer's approval count.
protect '{"rule_name": "master", "enable_merge_whitelist": true,
    "merge_whitelist_usernames": ["dev-bot"]}'
run --check --forge "$TOML"
check_eq "no approvals whitelist: exit 0 (a warning)" "$RC" 0
warned "no approvals whitelist: the agent's approval counts" \
    "FORGE_AGENT_TOKEN: the agents' user agent: the protection of master has no approvals whitelist, so any writer's approval counts"
protect '{"rule_name": "master", "enable_merge_whitelist": true,
    "merge_whitelist_usernames": ["dev-bot"],
    "enable_approvals_whitelist": true,
    "approvals_whitelist_username": ["review-bot", "agent"]}'
run --check --forge "$TOML"
warned "in the approvals whitelist: warned" \
    "FORGE_AGENT_TOKEN: the agents' user agent: it is in the approvals whitelist of master"

# Teams: one of the repository's organisation counts, another's does not.
protect '{"rule_name": "master", "enable_merge_whitelist": true,
    "merge_whitelist_usernames": ["dev-bot"],
    "merge_whitelist_teams": ["mergers"],
    "enable_approvals_whitelist": true,
    "approvals_whitelist_username": ["review-bot"],
    "approvals_whitelist_teams": ["approvers"]}'
run --check --forge "$TOML"
warned "a team of the merge whitelist: warned" \
    "FORGE_AGENT_TOKEN: the agents' user agent: it is in team mergers of the merge whitelist of master"
check_eq "a team of another organisation: not counted" \
    "$(grep -c 'approvals whitelist' "$T/out")" 0
check "the user's teams were read" \
    test "$(sim_log_count GET '^/api/v1/user/teams')" -ge 1
protect '{"rule_name": "master", "enable_merge_whitelist": true,
    "merge_whitelist_usernames": ["dev-bot"],
    "merge_whitelist_teams": ["owners"],
    "enable_approvals_whitelist": true,
    "approvals_whitelist_username": ["review-bot"],
    "approvals_whitelist_teams": ["mergers"]}'
run --check --forge "$TOML"
warned "a team of the approvals whitelist: warned" \
    "FORGE_AGENT_TOKEN: the agents' user agent: it is in team mergers of the approvals whitelist of master"
check_eq "a team it is not in: no merge warning" \
    "$(grep -c 'merge whitelist' "$T/out")" 0

# The agents sharing the review bot's user: their approvals are its own.
protect '{"rule_name": "master", "enable_merge_whitelist": true,
    "merge_whitelist_usernames": ["dev-bot"],
    "enable_approvals_whitelist": true,
    "approvals_whitelist_username": ["review-bot"]}'
FORGE_AGENT_TOKEN=review-token run --check --forge "$TOML"
warned "the review bot's token as the agents': warned" \
    "FORGE_AGENT_TOKEN: the same user as FORGE_REVIEW_TOKEN \(review-bot\): the agents act as the review bot"

# An admin: the field that binds admins, by forge.
FORGE_AGENT_TOKEN=dev-token run --check --forge "$TOML"
warned "Gitea: an admin merges past the rule (block_admin_merge_override off)" \
    "FORGE_AGENT_TOKEN: the agents' user dev-bot: an admin of johba/demo: .*merge past the rule \(block_admin_merge_override off\)"
kill "$SIM_PID" 2>/dev/null
wait "$SIM_PID" 2>/dev/null
sim_start "$T/scenario.json" --dialect forgejo ||
    { fail "simulator starts (forgejo)"; exit 1; }
sed -i "s|^WOODPECKER_SERVER=.*|WOODPECKER_SERVER=$SIM_URL|" "$F/.env"
sed -i "s|^forge_url *=.*|forge_url = \"$SIM_URL\"|" "$TOML"
FORGE_AGENT_TOKEN=dev-token run --check --forge "$TOML"
warned "Forgejo: an admin merges past the rule (apply_to_admins off)" \
    "FORGE_AGENT_TOKEN: the agents' user dev-bot: an admin of johba/demo: .*merge past the rule \(apply_to_admins off\)"
protect '{"rule_name": "master", "apply_to_admins": true}'
FORGE_AGENT_TOKEN=dev-token run --check --forge "$TOML"
warned "Forgejo: apply_to_admins binds it, the rule it can edit" \
    "FORGE_AGENT_TOKEN: the agents' user dev-bot: an admin of johba/demo: it can edit the protection of master \(apply_to_admins binds it"

# Woodpecker: a token it refuses, a repository it does not have.
sim_post /_admin/set '{"woodpecker": {"token": "other-wp-token"}}' >/dev/null
run --check --forge "$TOML"
check_eq "a bad WOODPECKER_TOKEN: exit 2" "$RC" 2
check "a bad WOODPECKER_TOKEN: the reason" grep -qF \
    "WOODPECKER_TOKEN: Woodpecker at $SIM_URL refuses it (HTTP 401)" "$T/err"
check_eq "the token's value is not printed" \
    "$(cat "$T/out" "$T/err" | grep -c -e wp-token -e other-wp-token)" 0
sim_post /_admin/set '{"woodpecker": {"token": "wp-token", "repo_id": 7}}' \
    >/dev/null
run --check --forge "$TOML"
check_eq "an unknown WOODPECKER_REPO_ID: exit 2" "$RC" 2
check "an unknown WOODPECKER_REPO_ID: named" grep -q \
    "^WOODPECKER_REPO_ID: Woodpecker user ci-bot cannot read repository 1: .*404" \
    "$T/err"
sim_post /_admin/set '{"woodpecker": {"repo_id": 1,
    "full_name": "johba/other"}}' >/dev/null
run --check --forge "$TOML"
check_eq "another repository on Woodpecker: exit 0 (a warning)" "$RC" 0
warned "another repository on Woodpecker: warned" \
    "WOODPECKER_REPO_ID: repository 1 is johba/other on Woodpecker, not johba/demo"

# Every run above wrote nothing: no run file, no metrics, no log.
check_eq "--check --forge wrote nothing in the run directory" \
    "$(ls -A "$DISINTO_RUN_DIR")" ""
ls -A "$F" | sort >"$T/factory.after"
check_eq "--check --forge made nothing in the factory (metrics, logs)" \
    "$(comm -13 "$T/factory.before" "$T/factory.after" | tr '\n' ' ')" ""
check_eq "no dev log was written" "$(ls "$F/dev" 2>/dev/null | grep -c log)" 0
check_eq "no metrics were written" \
    "$(find "$F" -name '*.prom' | wc -l)" 0
