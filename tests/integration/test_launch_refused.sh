#!/bin/sh
# A launch dev-poll refuses before anything is claimed: a dev agent with
# no forge token of its own (FORGE_AGENT_TOKEN unset; the dev bot's
# merges), an agent that cannot be confined (no bubblewrap to run), a
# legacy DEV_AGENT_CMD (a command of the operator's that runs
# unconfined).  Each is heard: the tick exits 1 with the reason on
# stderr (cron's mail) and in the log, --status shows it, --check names
# it; the issue keeps its labels and no session or worktree is made.
# The operator's opt-outs, named for what they trust
# (AGENT_TRUST_DEV_BOT_TOKEN=true, AGENT_SANDBOX=unconfined-trust-agent),
# let the launch go on.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start

no_session() { ! t_tmux has-session -t "=dev-$PROJ-1" 2>/dev/null; }
no_worktree() { [ ! -e "$RUN/$PROJ-worktree-1" ]; }

# refused NAME WORDS: the tick refused the launch for WORDS, heard.
refused() {
	rc_is "$1: the tick fails" 1
	check "$1: the reason on stderr" grep -qF "no dev agent is launched: $2" "$T/dp.out"
	check "$1: the reason in the log" \
	    grep -qF "ERROR: no dev agent is launched: $2" "$T/tick.log"
	check_eq "$1: nothing written to the forge" "$(writes)" 0
	check_eq "$1: the issue keeps its labels" "$(labels 1)" backlog
	check "$1: no session" no_session
	check "$1: no worktree" no_worktree
	"$O/dev-poll/dev-poll" --status "$P" >"$T/status.out" 2>&1
	check "$1: --status shows it" grep -qF "no dev agent is launched: $2" "$T/status.out"
}

# No token of the agents' own.
unset FORGE_AGENT_TOKEN
dp
refused "no FORGE_AGENT_TOKEN" "FORGE_AGENT_TOKEN is unset"
"$O/dev-poll/dev-poll" --check "$P" >"$T/check.out" 2>&1
check_eq "no FORGE_AGENT_TOKEN: --check exits 2" "$?" 2
check "no FORGE_AGENT_TOKEN: --check names the opt-out" \
    grep -q "FORGE_AGENT_TOKEN.*AGENT_TRUST_DEV_BOT_TOKEN" "$T/check.out"

# The operator trusts the agents with the dev bot's token: it launches,
# and the log says which token the agent got.
export AGENT_TRUST_DEV_BOT_TOKEN=true
dp
rc_is "trusted with the dev bot's token: launched" 0
check "trusted with the dev bot's token: the session runs" \
    t_tmux has-session -t "=dev-$PROJ-1"
lhas "trusted: the log says the agent got the dev bot's token" \
    "the dev agent gets FORGE_TOKEN, the dev bot's"
t_tmux kill-server 2>/dev/null
git -C "$T/repo" worktree remove --force "$RUN/$PROJ-worktree-1" 2>/dev/null
rm -rf "$RUN/$PROJ-worktree-1"
unset AGENT_TRUST_DEV_BOT_TOKEN
export FORGE_AGENT_TOKEN=agent-token

# No confinement can run: bubblewrap missing, no AGENT_USER.
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
export AGENT_SANDBOX_BWRAP=$T/no-such-bwrap
unset AGENT_USER
dp
refused "no bubblewrap" "the agent cannot be confined"
lhas "no bubblewrap: the opt-out is named" "AGENT_SANDBOX=unconfined-trust-agent"
"$O/dev-poll/dev-poll" --check "$P" >"$T/check.out" 2>&1
check_eq "no bubblewrap: --check exits 1" "$?" 1
check "no bubblewrap: --check says why" \
    grep -q "the agent cannot be confined" "$T/check.out"
unset AGENT_SANDBOX_BWRAP

# Legacy mode: the operator's command runs unconfined, so only trusted.
legacy_agent
unset AGENT_SANDBOX
dp
refused "legacy DEV_AGENT_CMD" "DEV_AGENT_CMD (legacy mode)"
check_eq "legacy: not started" "$(cat "$T/launched" 2>/dev/null)" ""
export AGENT_SANDBOX=unconfined-trust-agent
dp
check_eq "legacy, trusted: started" "$(launched)" 1
legacy_stop
