# What an agent gets at launch, run the way cron runs the tools (env -i
# PATH=/usr/bin:/bin HOME=...; the settings in the factory's .env): a dev
# session, the legacy DEV_AGENT_CMD child and a review session each get
# PATH as lib/env.sh builds it (the default agent command `claude` is
# found in $HOME/.local/bin), HOME, the agent CLI's settings from .env
# (ANTHROPIC_*, CLAUDE_*), the .env variables AGENT_ENV_PASS names and no
# other, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, FACTORY_ROOT,
# PROJECT_TOML, PROJECT_NAME, FORGE_API and the token of their role (a
# dev agent's FORGE_TOKEN: FORGE_AGENT_TOKEN's value; a review agent has none): never the review
# bot's, never WOODPECKER_TOKEN, and no secret the tick
# itself inherited (the tmux server keeps the environment of the tick
# that started it).  No token is on any process's command line, and the
# private file that carried the variables is gone once the agent runs.
# A probe stands in for `claude`: it records its arguments and
# environment, then becomes the fake agent.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
H=$T/home
mkdir -p "$H/.local/bin" "$T/probe"
# Tokens no other process on the machine has.
TOK=tok$$${T##*.}
DEV_TOK=dev-$TOK
REV_TOK=rev-$TOK
AGT_TOK=agt-$TOK
SHA=$(git_branch fix/issue-2 f2.c)

# scenario ISSUES PULLS: the users hold this test's tokens.
scenario() {
	cat <<JSON
{"repo": "johba/harb", "default_branch": "master",
 "users": [{"login": "dev-bot", "token": "$DEV_TOK", "admin": true},
           {"login": "review-bot", "token": "$REV_TOK", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"}],
 "issues": $1, "pulls": $2, "statuses": {"$SHA": {"state": "success"}}}
JSON
}
scenario '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' \
    '[]' >"$T/case.json"
case_start

cat >"$H/.local/bin/claude" <<EOF
#!/bin/sh
env >"$T/probe/\$\$.env"
printf '%s\n' "\$@" >"$T/probe/\$\$.argv"
FAKE_AGENT_LOG=$T/agentlog FAKE_AGENT_SCRIPT=$T/script.json exec "$FAKE_AGENT" "\$@"
EOF
chmod +x "$H/.local/bin/claude"
# The operator's .env: the tokens, variables of their own (two passed to
# agents by name), the agent CLI's settings, the test's redirections.
cat >"$FACTORY_ROOT/.env" <<EOF
# secrets
export FORGE_TOKEN=$DEV_TOK
FORGE_AGENT_TOKEN=$AGT_TOK
FORGE_REVIEW_TOKEN="$REV_TOK"
WOODPECKER_TOKEN=wp-$TOK
MY_SETTING='a b'
DERIVED=\${MY_SETTING}-c
NOT_PASSED=1
AGENT_ENV_PASS=MY_SETTING,DERIVED
ANTHROPIC_MODEL=claude-test
FORGE_BOT_USERNAMES=review-bot
DISINTO_TMUX_SOCKET=$DISINTO_TMUX_SOCKET
DISINTO_MEMINFO=$T/meminfo
DISINTO_FORMULAS_DIR=$TOP/formulas
CLAUDE_SESSION_LOCK=$CLAUDE_SESSION_LOCK
AGENT_SANDBOX_RW=$T
EOF

# cron CMD...: CMD with cron's environment, and a secret of the tick's
# own (a crontab line's, say), which the tmux server it starts inherits.
cron() {
	env -i PATH=/usr/bin:/bin HOME="$H" FACTORY_ROOT="$FACTORY_ROOT" \
	    DISINTO_RUN_DIR="$RUN" CRON_DEPLOY_TOKEN=inh-$TOK \
	    CLAUDE_CONFIG_DIR="$H/.claude" "$@" >>"$T/cron.out" 2>&1
}

# var FILE NAME: the value of NAME in an `env` listing.
var() {
	sed -n "s/^$2=//p" "$1"
}

# probe: the environment file of the probe's one run so far.
probe() {
	wait_for 'ls "$T"/probe/*.env' 10
	ls "$T"/probe/*.env 2>/dev/null | head -1
}

# no_token WHAT: no command line on the machine holds a token (the
# pattern comes from a file: grep's own command line must not hold it).
echo "$TOK" >"$T/token.pat"
no_token() {
	check_eq "$1: no token on any command line" \
	    "$(grep -l -a -F -f "$T/token.pat" /proc/[0-9]*/cmdline 2>/dev/null | wc -l)" 0
}

# agent_env WHAT FILE TOKEN_NAME TOKEN: what every agent gets.
agent_env() {
	check_eq "$1: $3" "$(var "$2" "$3")" "$4"
	check_eq "$1: FORGE_API" "$(var "$2" FORGE_API)" \
	    "$SIM_URL/api/v1/repos/johba/harb"
	check_eq "$1: FACTORY_ROOT" "$(var "$2" FACTORY_ROOT)" "$FACTORY_ROOT"
	check_eq "$1: PROJECT_TOML" "$(var "$2" PROJECT_TOML)" "$P"
	check_eq "$1: PROJECT_NAME" "$(var "$2" PROJECT_NAME)" "$PROJ"
	check_eq "$1: no telemetry" \
	    "$(var "$2" CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC)" 1
	check_eq "$1: HOME" "$(var "$2" HOME)" "$H"
	check_eq "$1: a .env variable passed by name" \
	    "$(var "$2" MY_SETTING)" "a b"
	check_eq "$1: a .env variable made of another, passed" \
	    "$(var "$2" DERIVED)" "a b-c"
	check_eq "$1: the agent CLI's setting from .env" \
	    "$(var "$2" ANTHROPIC_MODEL)" claude-test
	check_eq "$1: the agent CLI's setting inherited" \
	    "$(var "$2" CLAUDE_CONFIG_DIR)" "$H/.claude"
	check_eq "$1: no other .env variable" "$(grep -c '^NOT_PASSED=' "$2")" 0
	check_eq "$1: no WOODPECKER_TOKEN" \
	    "$(grep -c '^WOODPECKER_TOKEN=' "$2")" 0
	check_eq "$1: no secret the tick inherited" \
	    "$(grep -c '^CRON_DEPLOY_TOKEN=' "$2")" 0
	check_eq "$1: no value of another token" \
	    "$(grep -c -e "wp-$TOK" -e "inh-$TOK" "$2")" 0
	case $(var "$2" PATH) in
	"$H/.local/bin:$H/.foundry/bin:"*/usr/local/bin:/usr/bin:/bin*)
		ok "$1: PATH as lib/env.sh builds it" ;;
	*) fail "$1: PATH as lib/env.sh builds it" "$(var "$2" PATH)" ;;
	esac
	check_eq "$1: the variables file is gone" \
	    "$(ls "$RUN" | grep -c '^agent-env-')" 0
}

# A dev session.
unset AGENT_CMD
cron "$O/dev-poll/dev-poll" "$P"
check "dev: session started" t_tmux has-session -t "dev-$PROJ-1"
E=$(probe)
agent_env dev "$E" FORGE_TOKEN "$AGT_TOK"
check_eq "dev: not the dev bot's token" "$(grep -c "$DEV_TOK" "$E")" 0
check_eq "dev: not the review token" "$(grep -c "$REV_TOK" "$E")" 0
check_eq "dev: the default agent command" "$(head -1 "${E%.env}.argv")" \
    --dangerously-skip-permissions
check "dev: the prompt arrived" wait_for '[ -f "$T/agentlog/prompt-1.txt" ]' 10
PANE=$(t_tmux display-message -p -t "=dev-$PROJ-1:" '#{pane_pid}')
check "dev: the pane runs the wrapper" \
    grep -qa -e --agent-exec "/proc/$PANE/cmdline"
no_token dev

# The legacy child.
t_tmux kill-server 2>/dev/null
cat >"$T/legacy.sh" <<EOF
#!/bin/sh
echo \$\$ >"$RUN/dev-agent-$PROJ.lock"
env >"$T/legacy.env"
printf '%s\n' "\$@" >"$T/legacy.argv"
exec sleep 20
EOF
chmod +x "$T/legacy.sh"
printf 'DEV_AGENT_CMD=%s\nAGENT_SANDBOX=unconfined-trust-agent\n' \
    "$T/legacy.sh" >>"$FACTORY_ROOT/.env"
scenario '[{"number": 3, "title": "Legacy", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
cron "$O/dev-poll/dev-poll" "$P"
wait_for '[ -s "$T/legacy.argv" ]' 10
check_eq "legacy: started for the issue" "$(cat "$T/legacy.argv")" 3
agent_env legacy "$T/legacy.env" FORGE_TOKEN "$AGT_TOK"
check_eq "legacy: not the dev bot's token" "$(grep -c "$DEV_TOK" "$T/legacy.env")" 0
check_eq "legacy: not the review token" \
    "$(grep -c "$REV_TOK" "$T/legacy.env")" 0
no_token legacy
legacy_stop
sed -i '/^DEV_AGENT_CMD=/d; /^AGENT_SANDBOX=/d' "$FACTORY_ROOT/.env"

# A review session.
rm -f "$T"/probe/*
scenario '[]' '[{"number": 5, "title": "fix: other (#2)", "body": "Fixes #2",
  "head": {"ref": "fix/issue-2"}, "user": "dev-bot", "state": "open"}]' \
    >"$T/case.json"
case_start
mkdir -p "$FACTORY_ROOT/review"
: >"$FACTORY_ROOT/state/.reviewer-active"
cron "$O/review-poll/review-poll" "$P"
check "review: session started" t_tmux has-session -t "review-$PROJ-5"
E=$(probe)
# No forge token: it writes its verdict, review-poll posts it.
agent_env review "$E" FORGE_REVIEW_TOKEN ""
check_eq "review: not the review token" "$(grep -c "$REV_TOK" "$E")" 0
check_eq "review: not the dev token" "$(grep -c "$DEV_TOK" "$E")" 0
check_eq "review: no FORGE_TOKEN" "$(grep -c '^FORGE_TOKEN=' "$E")" 0
check "review: the review model" grep -qx sonnet "${E%.env}.argv"
no_token review
S=$RUN/$PROJ-review-5/.claude/settings.json
check_eq "review: the session's hooks" \
    "$(pyjson 'sorted(d["hooks"])' <"$S")" \
    '["PostToolUse", "PreToolUse", "SessionEnd", "Stop", "StopFailure"]'
