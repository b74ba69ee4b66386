# The fault matrix (POSIX sh; sourced by the world scripts world-*.sh of
# this directory, which tests/integration/faults/run starts).
#
# A world is one tool's tick on a prepared forge and run directory.  Its
# script defines
#   w_init     once: the test directory (t_setup, usually through a
#              library's *_init), git repositories, run files, the
#              simulator on the world's scenario, the project file, and
#              W_CMD, the tick: the tool and its arguments (no blanks
#              inside one), and W_AGENTS, "SESSION=LOGDIR ...": the fake
#              agents whose prompts count
#   w_start    per run, on the world's files restored and the simulator
#              reset to the state w_init left: the agents' tmux sessions
# then calls fm_main.  The world runs once without a fault (three ticks;
# the endpoints of the first tick's requests, from the simulator's log,
# are the rows of the matrix), then once per cell: every request to the
# endpoint gets the fault during the first tick, two clean ticks follow,
# and the result must equal the run without a fault (the forge state
# without ids and times, the live sessions, the prompts each agent got),
# with nothing duplicated, no session on merged work, and the exit status
# the README gives (fm.py's verdict says which).
#
# Environment: FM_RESULTS (file the cells are appended to, tab-separated),
# FM_MODE (all: every cell; sample: FM_SAMPLE cells of the world, picked
# with the seed FM_SEED), FM_FILTER (only cells whose "world endpoint
# fault" contains it), FM_LIMIT (seconds a tick may take, 60), FM_SHOW (print the run
# without a fault: its dumps and output).

FM_DIR=$TOP/tests/integration/faults
FMPY="python3 $FM_DIR/fm.py"
# The fault modes of the simulator, in the table's order: 500, 502 then
# success, timeout before the answer (never handled), timeout after the
# forge applied the write, a truncated body, invalid JSON, wrong types,
# 404.
FM_FAULTS="500 502once hang stall truncate badjson wrongtype 404"
FM_LIMIT=${FM_LIMIT:-60}
# Client settings: a timeout of one second (the smallest the settings
# take), two attempts, and the simulator holding a hung or stalled answer
# past it.
FM_DELAY=1.5
export DISINTO_HTTP_TIMEOUT=1 DISINTO_HTTP_CONNECT_TIMEOUT=1
export DISINTO_HTTP_RETRIES=2 DISINTO_HTTP_BACKOFF_MS=10

fm_cleanup() {
	t_cleanup
	[ -z "${FM:-}" ] || rm -rf "$FM"
}

# fm_setup: the matrix's own directory $FM, outside the world's $T.
fm_setup() {
	FM=$(mktemp -d "${TMPDIR:-/tmp}/disinto-fm.XXXXXX") || exit 1
	export FM
	trap fm_cleanup EXIT
}

# fm_snapshot: the prepared world ($T) becomes the template of every run.
fm_snapshot() {
	mkdir -p "$FM/tpl"
	cp -a "$T/." "$FM/tpl/"
}

# fm_restore [ENDPOINT FAULT]: the world as prepared, no tmux session,
# the simulator reset to its scenario (with the fault of a cell).
fm_restore() {
	tmux -L "$DISINTO_TMUX_SOCKET" kill-server 2>/dev/null
	find "$T" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
	cp -a "$FM/tpl/." "$T/"
	$FMPY reset "$SIM_URL" ${1:+"$1" "$2" "$FM_DELAY"} ||
	    fail "$W_NAME: the simulator is reset${1:+ with the fault $1 x $2}"
}

# fm_agents SESSION=LOGDIR...: a fake agent in each tmux session (its
# prompts saved in LOGDIR), started together, each waited for until it
# shows its prompt.
fm_agents() {
	for _a in "$@"; do
		mkdir -p "${_a#*=}"
		t_tmux new-session -d -s "${_a%%=*}" -x 200 -y 50 -c "$T" \
		    "env FAKE_AGENT_LOG=${_a#*=} $FAKE_AGENT"
	done
	for _a in "$@"; do
		wait_for "t_tmux capture-pane -p -t '${_a%%=*}' | grep -q '❯'" 10 ||
		    fail "$W_NAME: agent ${_a%%=*} ready"
	done
}

# fm_tick N: one tick of the tool under a time limit; its status in
# $FM_RC; a hang or a sanitizer report is noted in $FM_WHY.
fm_tick() {
	# shellcheck disable=SC2086
	timeout -k 5 "$FM_LIMIT" $W_CMD >"$FM/out.$1" 2>&1
	FM_RC=$?
	if [ "$FM_RC" -eq 124 ] || [ "$FM_RC" -eq 137 ]; then
		FM_WHY="${FM_WHY}tick $1 hung (killed after ${FM_LIMIT} s); "
	fi
	if grep -qE 'Sanitizer|runtime error:' "$FM/out.$1"; then
		FM_WHY="${FM_WHY}tick $1: $(grep -m1 -E 'Sanitizer|runtime error:' "$FM/out.$1" | cut -c1-120); "
	fi
}

# fm_state NAME [LOG]: the normalised world into $FM/NAME.json; with LOG,
# the request log into $FM/LOG.json and the faults cleared before.
fm_state() {
	$FMPY snap "$SIM_URL" "$DISINTO_TMUX_SOCKET" "$W_AGENTS" \
	    "$FM/$1.json" ${2:+"$FM/$2.json"}
}

# fm_baseline: the world without a fault; the endpoints of its first tick
# in $FM/endpoints.  Returns 1 when the world itself does not work.
fm_baseline() {
	FM_WHY=
	fm_restore
	w_start
	fm_state b0
	fm_tick 1
	BRC1=$FM_RC
	fm_state b1 log1
	fm_tick 2
	fm_tick 3
	BRC3=$FM_RC
	fm_state b3
	$FMPY endpoints "$FM/log1.json" >"$FM/endpoints"
	if [ -n "${FM_SHOW:-}" ]; then
		sed 's/^/# b1 /' "$FM/b1.json"
		sed 's/^/# b3 /' "$FM/b3.json"
		sed 's/^/# out /' "$FM/out.1" "$FM/out.2" "$FM/out.3"
	fi
	if [ -n "$FM_WHY" ] || [ "$BRC1" -ne 0 ] || [ "$BRC3" -ne 0 ]; then
		fail "$W_NAME: the world works without faults" \
		    "exit $BRC1, then $BRC3; ${FM_WHY}$(tail -3 "$FM/out.1" | tr '\n' '|')"
		return 1
	fi
	ok "$W_NAME: the world works without faults ($(wc -l <"$FM/endpoints") endpoints)"
	sed 's/^/#   /' "$FM/endpoints"
}

# fm_cell ENDPOINT FAULT: one cell; an ok / not ok line, and a line in
# $FM_RESULTS.
fm_cell() {
	FM_WHY=
	fm_restore "$1" "$2"
	w_start
	fm_tick 1
	_rc1=$FM_RC
	fm_state g1 log
	fm_tick 2
	_rc2=$FM_RC
	fm_state g2
	fm_tick 3
	_rc3=$FM_RC
	_v=$($FMPY verdict "$SIM_URL" "$DISINTO_TMUX_SOCKET" "$W_AGENTS" \
	    "$FM" "$2" "$1" "$_rc1" "$_rc2" "$_rc3" "$BRC1" "$BRC3")
	[ -z "$FM_WHY" ] || _v="${FM_WHY}${_v#ok}"
	printf '%s\t%s\t%s\t%s\n' "$W_NAME" "$1" "$2" "$_v" >>"$FM_RESULTS"
	case $_v in
	ok) ok "$W_NAME: $1 x $2" ;;
	"not hit") ok "$W_NAME: $1 x $2 (not requested under the fault)" ;;
	*) fail "$W_NAME: $1 x $2" "$_v" ;;
	esac
}

# fm_cells: the cells of this run, "ENDPOINT<tab>FAULT" a line.
fm_cells() {
	while IFS= read -r _ep; do
		for _f in $FM_FAULTS; do
			case "$W_NAME $_ep $_f" in
			*"${FM_FILTER:-}"*) printf '%s\t%s\n' "$_ep" "$_f" ;;
			esac
		done
	done <"$FM/endpoints" >"$FM/cells"
	if [ "${FM_MODE:-all}" = sample ]; then
		$FMPY pick "${FM_SEED:-0}" "${FM_SAMPLE:-1}" "$W_NAME" \
		    <"$FM/cells"
	else
		cat "$FM/cells"
	fi
}

fm_main() {
	: "${FM_RESULTS:=/dev/null}"
	w_init
	fm_setup
	sim_post /_admin/checkpoint '{}' >/dev/null ||
	    fail "$W_NAME: the simulator keeps the prepared state"
	fm_snapshot
	fm_baseline || return 0
	fm_cells >"$FM/run"
	_tab=$(printf '\t')
	while IFS=$_tab read -r _ep _f; do
		fm_cell "$_ep" "$_f" </dev/null
	done <"$FM/run"
}
