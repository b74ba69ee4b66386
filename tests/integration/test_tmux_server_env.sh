# The tmux server a tick starts carries the factory's .env, as the one
# bash's tools started did (lib/env.sh sources .env with set -a): an
# upstream agent started later in that server (a gardener-style session)
# sees FORGE_TOKEN, ANTHROPIC_API_KEY and the no-telemetry switch, but
# not the external-action tokens lib/env.sh unsets.  Nothing of it is on
# a command line, and our own agent still gets only what it may have
# (its wrapper keeps its role's variables): the .env's other secrets
# never reach it.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "Ready", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
dev_sim "$T/case.json"
KEY=sk-ant-srvenv-$$-0123456789abcdef
cat >"$FACTORY_ROOT/.env" <<ENV
FORGE_TOKEN=dev-token
FORGE_REVIEW_TOKEN=review-token
ANTHROPIC_API_KEY=$KEY
GARDENER_SETTING=compost
GITHUB_TOKEN=gh-action-$$
ENV
unset ANTHROPIC_API_KEY GITHUB_TOKEN
check "no tmux server yet" sh -c "! tmux -L $(tmux_sock) ls >/dev/null 2>&1"

dp
rc_is "the launch" 0
genv() {	# genv NAME: the server's global value, or "-NAME"
	t_tmux show-environment -g "$1" 2>/dev/null
}
check_eq "server: FORGE_TOKEN" "$(genv FORGE_TOKEN)" "FORGE_TOKEN=dev-token"
check_eq "server: ANTHROPIC_API_KEY" "$(genv ANTHROPIC_API_KEY)" \
    "ANTHROPIC_API_KEY=$KEY"
check_eq "server: the no-telemetry switch" \
    "$(genv CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC)" \
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"
check_eq "server: FACTORY_ROOT" "$(genv FACTORY_ROOT)" \
    "FACTORY_ROOT=$FACTORY_ROOT"
check_eq "server: a setting of .env" "$(genv GARDENER_SETTING)" \
    "GARDENER_SETTING=compost"
check "server: no GITHUB_TOKEN" sh -c "! tmux -L $(tmux_sock) show-environment -g GITHUB_TOKEN >/dev/null 2>&1"

# A gardener-style session started later in that server.
t_tmux new-session -d -s gardener "env >'$T/gardener.env'; sleep 30"
wait_for '[ -s "$T/gardener.env" ]' 10
for v in "FORGE_TOKEN=dev-token" "ANTHROPIC_API_KEY=$KEY" \
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"; do
	check "gardener sees ${v%%=*}" grep -qx "$v" "$T/gardener.env"
done
t_tmux kill-session -t =gardener

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
printf '%s\n' "$KEY" >"$T/key"	# the pattern off this test's own argv
check "no command line holds the key" \
    sh -c "! grep -lFf '$T/key' /proc/[0-9]*/cmdline 2>/dev/null | grep -q ."
check "the server names what it holds, for the wrappers" \
    sh -c "tmux -L $(tmux_sock) show-environment -g DISINTO_SERVER_ENV | grep -q GARDENER_SETTING"
check "the agent: not that list" sh -c "! grep -q '^DISINTO_SERVER_ENV=' '$T/agent.env'"
