# The tmux server a tick starts holds no secret in its global environment
# (anyone who reaches its socket reads it with `tmux show-environment
# -g`): only the non-secret part of .env, FACTORY_ROOT and the
# no-telemetry switch; no token of .env, none of the tick's own
# environment, no value that carries a token.  Our agent still gets what
# its role may have, through its private file.  With DISINTO_TMUX_SOCKET
# unset, the sessions' server is one of the tools' own (`-L disinto`),
# never the default server upstream's gardener and planner start from
# their own environment.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
# The operator trusts the agents with the dev bot's token (no token of
# their own): the token the agent holds is the one its role gets.
unset FORGE_AGENT_TOKEN
export AGENT_TRUST_DEV_BOT_TOKEN=true
scen '[{"number": 1, "title": "Ready", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
dev_sim "$T/case.json"
KEY=sk-ant-srvenv-$$-0123456789abcdef
cat >"$FACTORY_ROOT/.env" <<ENV
FORGE_TOKEN=dev-token
FORGE_REVIEW_TOKEN=review-token
ANTHROPIC_API_KEY=$KEY
GARDENER_SETTING=compost
COPY_OF_KEY="\${ANTHROPIC_API_KEY}"
MIRROR_URL=https://bot:mirror-pass-$$-0123@mirror.example/x
GITHUB_TOKEN=gh-action-$$
ENV
unset ANTHROPIC_API_KEY GITHUB_TOKEN
# A secret in the tick's own environment (cron's, a unit's Environment=).
export TICK_PASSWORD=tick-pass-$$-0123456789
check "no tmux server yet" sh -c "! tmux -L $(tmux_sock) ls >/dev/null 2>&1"

dp
rc_is "the launch" 0
genv() {	# genv NAME: the server's global value, or nothing
	t_tmux show-environment -g "$1" 2>/dev/null
}
for v in FORGE_TOKEN FORGE_REVIEW_TOKEN ANTHROPIC_API_KEY COPY_OF_KEY \
    MIRROR_URL GITHUB_TOKEN TICK_PASSWORD; do
	check_eq "server: no $v" "$(genv $v)" ""
done
check_eq "server: the no-telemetry switch" \
    "$(genv CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC)" \
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"
check_eq "server: FACTORY_ROOT" "$(genv FACTORY_ROOT)" \
    "FACTORY_ROOT=$FACTORY_ROOT"
check_eq "server: a setting of .env" "$(genv GARDENER_SETTING)" \
    "GARDENER_SETTING=compost"
# What `tmux show-environment -g` prints to anyone on the socket.
t_tmux show-environment -g >"$T/global.env" 2>&1
check "the global environment was read" grep -q '^FACTORY_ROOT=' "$T/global.env"
printf '%s\n' dev-token review-token "$KEY" "mirror-pass-$$" "tick-pass-$$" \
    >"$T/secrets"
check "show-environment -g prints no secret" \
    sh -c "! grep -qFf '$T/secrets' '$T/global.env'"

# A session started later in that server inherits no token either.
t_tmux new-session -d -s probe "env >'$T/probe.env.tmp'; mv '$T/probe.env.tmp' '$T/probe.env'; sleep 30"
wait_for '[ -s "$T/probe.env" ]' 10
check "a later session's environment was read" grep -q '^GARDENER_SETTING=' "$T/probe.env"
check "a later session: no secret" sh -c "! grep -qFf '$T/secrets' '$T/probe.env'"
t_tmux kill-session -t =probe

# Our agent: only its role's variables, whatever the server holds.
pane=$(t_tmux display-message -p -t "=dev-$PROJ-1:" '#{pane_pid}')
agent_envs() {	# the environments of the pane's process tree but its root
	_q=$(pgrep -P "$pane")
	while [ -n "$_q" ]; do
		_n=
		for _p in $_q; do
			tr '\0' '\n' <"/proc/$_p/environ" 2>/dev/null
			_n="$_n $(pgrep -P "$_p")"
		done
		_q=$(echo $_n)
	done
}
agent_envs >"$T/agent.env"
check "the agent's environment was read" grep -q '^FAKE_AGENT_LOG=' "$T/agent.env"
check "the agent has its token" grep -qx "FORGE_TOKEN=dev-token" "$T/agent.env"
check "the agent has the API key" grep -qx "ANTHROPIC_API_KEY=$KEY" "$T/agent.env"
check "the agent: no review token" sh -c "! grep -q '^FORGE_REVIEW_TOKEN=' '$T/agent.env'"
check "the agent: no other .env setting" sh -c "! grep -q '^GARDENER_SETTING=' '$T/agent.env'"
check "the agent: no GITHUB_TOKEN" sh -c "! grep -q '^GITHUB_TOKEN=' '$T/agent.env'"
check "the agent: not the tick's secret" sh -c "! grep -q '^TICK_PASSWORD=' '$T/agent.env'"
# Without FORGE_AGENT_TOKEN, trusted, the dev bot's token is what it got: said.
lhas "the log says the agent got the dev bot's token" \
    "the dev agent gets FORGE_TOKEN, the dev bot's: FORGE_AGENT_TOKEN is unset"
printf '%s\n' "$KEY" >"$T/key"	# the pattern off this test's own argv
check "no command line holds the key" \
    sh -c "! grep -lFf '$T/key' /proc/[0-9]*/cmdline 2>/dev/null | grep -q ."
check "the server names what it holds, for the wrappers" \
    sh -c "tmux -L $(tmux_sock) show-environment -g DISINTO_SERVER_ENV | grep -q GARDENER_SETTING"
check "the agent: not that list" sh -c "! grep -q '^DISINTO_SERVER_ENV=' '$T/agent.env'"

# --status says where to attach.
"$O/dev-poll/dev-poll" --status "$P" >"$T/status.out" 2>&1
check "--status: the attach command names the socket" \
    grep -qx "  attach:        tmux -L $(tmux_sock) attach -r -t =dev-$PROJ-1" \
    "$T/status.out"

# DISINTO_TMUX_SOCKET unset: a server of the tools' own, not the default
# one (a private TMUX_TMPDIR keeps this off the machine's servers).
TMX=$T/tmx
mkdir -p "$TMX"
(unset DISINTO_TMUX_SOCKET; TMUX_TMPDIR=$TMX "$O/dev-poll/dev-poll" --tmux-server) \
    >"$T/own.out" 2>&1
check_eq "--tmux-server without a socket set (exit status)" "$?" 0
check_eq "the tools' own server runs on -L disinto" \
    "$(TMUX_TMPDIR=$TMX tmux -L disinto show-options -gv exit-empty 2>&1)" off
check "the default server was not started" \
    sh -c "! TMUX_TMPDIR='$TMX' tmux -L default ls >/dev/null 2>&1"
check_eq "its global environment: no token" \
    "$(TMUX_TMPDIR=$TMX tmux -L disinto show-environment -g 2>&1 | grep -cFf "$T/secrets")" 0
TMUX_TMPDIR=$TMX tmux -L disinto kill-server 2>/dev/null
