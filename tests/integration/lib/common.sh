# Shared helpers for the integration scripts (POSIX sh; source it).  The
# helpers of one executable's scripts are in dev.sh, review.sh and
# supervisor.sh next to it, sourced after this one.  (tests/run runs the
# scripts in tests/integration, not the libraries here.)
#
#   . "$(dirname "$0")/lib/common.sh"
#   t_setup
#   sim_start "$TOP/tests/fixtures/sim-basic.json"
#   check_eq "issue count" "$(sim_state_get 'len(d["issues"])')" 2
#
# t_setup makes $T (removed on exit, with the simulator and the private tmux
# server), exports DISINTO_RUN_DIR=$T/run, FACTORY_ROOT=$T/factory and
# DISINTO_TMUX_SOCKET, and turns supervisor-poll's docker prune and cache
# dropping off (SUPERVISOR_DOCKER_PRUNE, SUPERVISOR_DROP_CACHES), and
# exports the Claude session lock CLAUDE_SESSION_LOCK (in $T;
# CLAUDE_SESSION_LOCK_WAIT 5 s unless set) and DISINTO_WAKE=false unless
# set (the hooks start no tick behind the test's back).  sim_start exports SIM_URL, FORGE_URL and
# WOODPECKER_SERVER.  Binaries live under $O (exported by tests/run; "."
# means the repository top $TOP), e.g. "$O/dev-poll/dev-poll".
# other_user, as_user and shared_run_dir stand for the other users of the
# host (root only; a test prints "# skip: ..." without them).  KEEP_T=1
# keeps $T after the test, for a look.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
O=${O:-.}
case $O in /*) ;; *) O=$TOP/$O ;; esac
export TOP O
SIMREQ="python3 $TOP/tests/forge-sim/simreq.py"
FAKE_AGENT=$TOP/tests/fake-agent
export FAKE_AGENT

# Outcome lines, as tests/run counts them.
ok() {
	echo "ok - $1"
}

fail() {
	echo "not ok - $1"
	[ $# -lt 2 ] || echo "#   $2"
}

# check NAME CMD...: ok when CMD exits 0 (its output is discarded).
check() {
	_c_name=$1
	shift
	if "$@" >/dev/null 2>&1; then
		ok "$_c_name"
	else
		fail "$_c_name" "command failed: $*"
	fi
}

# check_eq NAME GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1" "got '$2', want '$3'"
	fi
}

# wait_for CMD TIMEOUT: evaluate the shell text CMD every 0.1 s until it
# succeeds (returns 0) or TIMEOUT seconds pass (returns 1).
wait_for() {
	_w_left=$(( ${2:-10} * 10 ))
	while [ "$_w_left" -gt 0 ]; do
		if eval "$1" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
		_w_left=$((_w_left - 1))
	done
	return 1
}

# contract_check: every request the tools sent the simulator in this test
# ($T/sim.log) is one the real servers read whole (tests/forge-contract.py);
# a "not ok" line for each one that is not.  A test whose tools send
# requests off the contract on purpose sets FORGE_CONTRACT=off.
contract_check() {
	[ "${FORGE_CONTRACT:-on}" != off ] && [ -s "$T/sim.log" ] || return 0
	[ -f "$T/sim.earlier.log" ] || : >"$T/sim.earlier.log"
	python3 "$TOP/tests/forge-contract.py" "$T/sim.earlier.log" \
	    "$T/sim.log" >"$T/contract.out" 2>&1 && return 0
	sed 's/^/not ok - forge contract: /' "$T/contract.out" | head -20
}

t_cleanup() {
	[ -z "${KEEP_T:-}" ] || { echo "# kept $T"; return; }
	if [ -n "${SIM_PID:-}" ]; then
		kill "$SIM_PID" 2>/dev/null
		wait "$SIM_PID" 2>/dev/null
		SIM_PID=
	fi
	[ -z "${T:-}" ] || contract_check
	if [ -n "${DISINTO_TMUX_SOCKET:-}" ]; then
		tmux -L "$DISINTO_TMUX_SOCKET" kill-server 2>/dev/null
		# tmux leaves its socket behind when the server is killed.
		rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$DISINTO_TMUX_SOCKET"
	fi
	[ -z "${T:-}" ] || rm -rf "$T"
}

t_setup() {
	# Run files the tests write stand for the factory's own: never
	# writable by group or others (the tools would not trust them).
	umask 022
	T=$(mktemp -d "${TMPDIR:-/tmp}/disinto-test.XXXXXX") || exit 1
	export T
	trap t_cleanup EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	unset TMUX TMUX_PANE
	# No test reaches the real model API (the API error's probe).
	unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL ANTHROPIC_AUTH_TOKEN
	DISINTO_RUN_DIR=$T/run
	FACTORY_ROOT=$T/factory
	mkdir -p "$DISINTO_RUN_DIR" "$FACTORY_ROOT"
	export DISINTO_RUN_DIR FACTORY_ROOT
	# The host's own clean-up (docker prune, dropping caches) stays off
	# unless a test turns it on with fakes in $HOME/.local/bin.
	SUPERVISOR_DOCKER_PRUNE=false SUPERVISOR_DROP_CACHES=false
	export SUPERVISOR_DOCKER_PRUNE SUPERVISOR_DROP_CACHES
	# The Claude session lock of this test alone, not the machine's.
	CLAUDE_SESSION_LOCK=$T/claude-session.lock
	CLAUDE_SESSION_LOCK_WAIT=${CLAUDE_SESSION_LOCK_WAIT:-5}
	export CLAUDE_SESSION_LOCK CLAUDE_SESSION_LOCK_WAIT
	# The tests run the ticks they mean: the agents' hooks run, but
	# start no tick (test_wake.sh turns it on).
	DISINTO_WAKE=${DISINTO_WAKE:-false}
	export DISINTO_WAKE
	# Agents run confined (bubblewrap, as root too); they reach the
	# test's tree (the bare origin they push to, the fake agent's logs
	# and scripts) as an operator's addition would, and still not the
	# run directory, the tmux socket or the factory's secrets.
	# A test's later t_setup (a new $T) moves it along, unless the
	# caller chose it.
	if [ -z "${AGENT_SANDBOX_RW+x}" ] || [ "${T_RW_OURS:-}" = 1 ]; then
		AGENT_SANDBOX_RW=$T
		T_RW_OURS=1
	fi
	export AGENT_SANDBOX_RW
	tmux_sock >/dev/null
}

# tmux_sock: print the private tmux socket name of this test (made on the
# first call and exported as DISINTO_TMUX_SOCKET).
tmux_sock() {
	if [ -z "${DISINTO_TMUX_SOCKET:-}" ]; then
		DISINTO_TMUX_SOCKET=disinto-test-$$-${T##*.}
		export DISINTO_TMUX_SOCKET
	fi
	echo "$DISINTO_TMUX_SOCKET"
}

# t_tmux ARGS...: tmux on the private server.  The server keeps the
# environment it was started with; give a later session other values with
# "new-session -e VAR=value".
t_tmux() {
	tmux -L "$(tmux_sock)" "$@"
}

# sim_start SCENARIO_JSON [--git-dir DIR] [--dialect D] [--woodpecker V]
# [--page-cap N]: start the simulator, logging to $T/sim.log; returns 1
# if it did not come up within 10 s.  The servers it answers as come from
# FORGE_SIM_DIALECT (gitea, gitea-1.23, forgejo), FORGE_SIM_WOODPECKER (2, 3) and
# FORGE_SIM_PAGE_CAP when set (make test-dialects sets them), unless the
# arguments say otherwise.
sim_start() {
	_s_scen=$1
	shift
	sim_ci_changed
	rm -f "$T/sim.port"
	# The requests of an earlier simulator are kept for contract_check.
	[ ! -s "$T/sim.log" ] || cat "$T/sim.log" >>"$T/sim.earlier.log"
	: >"$T/sim.log"
	python3 "$TOP/tests/forge-sim/forge-sim.py" --scenario "$_s_scen" \
	    --port-file "$T/sim.port" --log "$T/sim.log" \
	    ${FORGE_SIM_DIALECT:+--dialect "$FORGE_SIM_DIALECT"} \
	    ${FORGE_SIM_WOODPECKER:+--woodpecker "$FORGE_SIM_WOODPECKER"} \
	    ${FORGE_SIM_PAGE_CAP:+--page-cap "$FORGE_SIM_PAGE_CAP"} "$@" \
	    >"$T/sim.out" 2>&1 &
	SIM_PID=$!
	if ! wait_for '[ -s "$T/sim.port" ]' 10; then
		echo "# forge-sim did not start:"
		sed 's/^/#   /' "$T/sim.out"
		return 1
	fi
	SIM_PORT=$(cat "$T/sim.port")
	SIM_URL=http://127.0.0.1:$SIM_PORT
	FORGE_URL=$SIM_URL
	WOODPECKER_SERVER=$SIM_URL
	export SIM_PID SIM_PORT SIM_URL FORGE_URL WOODPECKER_SERVER
}

sim_stop() {
	if [ -n "${SIM_PID:-}" ]; then
		kill "$SIM_PID" 2>/dev/null
		wait "$SIM_PID" 2>/dev/null
		SIM_PID=
	fi
}

# sim_get PATH / sim_post PATH JSON / sim_req METHOD PATH [JSON]: print the
# response body; exit status 0 for 2xx.  $SIM_TOKEN, when set, is sent as
# the Gitea token; $SIM_WP_TOKEN as the Woodpecker bearer token.
sim_req() {
	case $2 in
	/_admin/status | /_admin/reset) sim_ci_changed ;;
	esac
	$SIMREQ ${SIM_TOKEN:+-t "$SIM_TOKEN"} \
	    ${SIM_WP_TOKEN:+-w "$SIM_WP_TOKEN"} "$1" "$SIM_URL$2" ${3+"$3"}
}

sim_get() {
	sim_req GET "$1"
}

# sim_ci_changed: a test changed commit statuses behind the tools' back
# (a new scenario, a status set, a reset): forget the statuses the tools
# remember where no Woodpecker is set up (ci-status-P), as a forge's
# status webhook would have them read again (ci-changed-P).
sim_ci_changed() {
	rm -f "${DISINTO_RUN_DIR:-/nonexistent}"/ci-status-*
}

sim_post() {
	sim_req POST "$1" "$2"
}

# sim_status METHOD PATH [JSON]: print only the HTTP status code.
sim_status() {
	$SIMREQ -s ${SIM_TOKEN:+-t "$SIM_TOKEN"} \
	    ${SIM_WP_TOKEN:+-w "$SIM_WP_TOKEN"} "$1" "$SIM_URL$2" ${3+"$3"}
}

# sim_log_count METHOD PATH_REGEX [STATUS]: number of logged API requests
# with that method ("*" = any) whose path (with query) matches the regex.
sim_log_count() {
	$SIMREQ --log-count "$SIM_URL" "$1" "$2" ${3+"$3"}
}

# sim_state_get EXPR: evaluate a Python expression on the simulator state
# (`d`), e.g. sim_state_get '[i["state"] for i in d["issues"]]'.
sim_state_get() {
	sim_get /_admin/state | pyjson "$1"
}

# pyjson EXPR: evaluate EXPR with `d` = the JSON on stdin; strings print
# raw, anything else as JSON.
pyjson() {
	$SIMREQ --json "$1"
}

# fault JSON | fault METHOD PATH_REGEX MODE [DELAY]: make the simulator
# misbehave ({"method", "path", "mode", "count", "delay"}; the second
# form for good, count 0).  Not being able to set it is a failure.
fault() {
	if [ $# -eq 1 ]; then
		_f_json=$1
	else
		_f_json="{\"method\": \"$1\", \"path\": \"$2\", \"mode\": \"$3\", \"count\": 0, \"delay\": ${4:-0}}"
	fi
	sim_post /_admin/fault "$_f_json" >/dev/null ||
	    fail "simulator fault set" "$_f_json"
}

# faults_clear: the simulator behaves again.
faults_clear() {
	sim_post /_admin/faults/clear '{}' >/dev/null
}

# prompts DIR: how many prompts the fake agent logging to DIR received.
prompts() {
	ls "$1" 2>/dev/null | grep -c '^prompt-'
}

# labels N: issue N's label names, sorted, comma-separated.
labels() {
	sim_state_get "','.join(sorted([l if isinstance(l, str) else l['name'] for i in d['issues'] if i['number'] == $1 for l in i['labels']]))"
}

# sessions: the tmux sessions of the private server, sorted, on one line.
sessions() {
	t_tmux list-sessions -F '#{session_name}' 2>/dev/null | sort | tr '\n' ' '
}

# other_user NAME: make sure the local user NAME exists, standing for
# another user of the host (created without a home when missing, which
# takes root).  0, or 1 with the reason in $NO_USER ("# skip: ..." is the
# caller's to print).
other_user() {
	NO_USER=
	id -u "$1" >/dev/null 2>&1 && return 0
	if [ "$(id -u)" -ne 0 ]; then
		NO_USER="not root: cannot create the local user $1"
	elif ! command -v useradd >/dev/null 2>&1; then
		NO_USER="no useradd: cannot create the local user $1"
	else
		useradd -M -r -d /nonexistent -s /usr/sbin/nologin "$1" \
		    >/dev/null 2>&1
		# Another test may have made it meanwhile.
		id -u "$1" >/dev/null 2>&1 && return 0
		NO_USER="useradd $1 failed"
	fi
	return 1
}

# as_user NAME CMD...: run CMD as the local user NAME (root only).
as_user() {
	_a_user=$1
	shift
	setpriv --reuid="$_a_user" --regid="$_a_user" --init-groups "$@"
}

# shared_run_dir: the run directory becomes $T/shared, sticky and
# writable by everyone as /tmp is (DISINTO_RUN_DIR=/tmp), and $T may be
# passed through by other users to reach it.
shared_run_dir() {
	chmod 711 "$T"
	mkdir -p "$T/shared"
	chmod 1777 "$T/shared"
	DISINTO_RUN_DIR=$T/shared
	RUN=$DISINTO_RUN_DIR
	export DISINTO_RUN_DIR RUN
}
