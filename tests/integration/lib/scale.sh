# Helpers for the scale worlds (tests/tools/scale-world.py) that `make
# bench` and test_scale_decisions.sh run all three executables on; source
# after lib/common.sh.
#
#   scale_init                the test directory and the environment
#   scale_world ISSUES PRS    write $T/scale-ISSUES-PRS.json, start the
#                             simulator on it, write the project file $P
#                             (SCALE_CI=forge: no Woodpecker, 7 in 8
#                             heads' forge status final)
#   scale_reset               the world as generated: simulator state and
#                             log, run files and logs
#   scale_tick TOOL           one tick of TOOL (dev-poll, review-poll,
#                             supervisor-poll) at -v: exit status in
#                             $SC_RC, stderr in $T/TOOL.err, peak RSS in kB
#                             in $SC_RSS (when /usr/bin/time exists)
#   scale_decisions TOOL      what the tick decided: the forge writes it
#                             asked for (method, path, body) and its log
#                             lines without time stamps and figures

SC_TIME=
[ -x /usr/bin/time ] && SC_TIME=/usr/bin/time

scale_init() {
	t_setup
	mkdir -p "$T/repo" "$T/proc" "$FACTORY_ROOT/state" \
	    "$FACTORY_ROOT/dev" "$FACTORY_ROOT/projects"
	: >"$FACTORY_ROOT/state/.dev-active"
	: >"$FACTORY_ROOT/state/.reviewer-active"
	printf 'MemTotal:       16000000 kB\nMemAvailable:    8000000 kB\n' \
	    >"$T/meminfo"
	printf 'SwapTotal:       2000000 kB\nSwapFree:        2000000 kB\n' \
	    >>"$T/meminfo"
	printf '100000.00 200000.00\n' >"$T/proc/uptime"
	git init -q -b master "$T/repo" &&
	    git -C "$T/repo" -c user.name=t -c user.email=t@localhost \
		commit -q --allow-empty -m init
	export FORGE_AGENT_TOKEN=agent-token	# the agents' own user
	export FORGE_TOKEN=dev-token FORGE_REVIEW_TOKEN=review-token \
	    FORGE_BOT_USERNAMES=review-bot WOODPECKER_TOKEN=wp-token \
	    DISINTO_FORMULAS_DIR=$TOP/formulas DISINTO_MEMINFO=$T/meminfo \
	    DISINTO_PROC_DIR=$T/proc DISINTO_DISK_PATH=$T \
	    DISINTO_HTTP_TIMEOUT=10 DISINTO_HTTP_RETRIES=2 \
	    DISINTO_HTTP_BACKOFF_MS=10 SUPERVISOR_FIX_CMD= \
	    DISINTO_REVIEW_POLL=/bin/true
	unset FORGE_REPO CODEBERG_REPO PROJECT_NAME WOODPECKER_REPO_ID \
	    CLAUDE_MODEL DEV_AGENT_CMD AGENT_READY_PATTERN
	# Nothing is launched in these worlds; a launch would fail loudly.
	export AGENT_CMD=/bin/false
}

scale_world() {
	python3 "$TOP/tests/tools/scale-world.py" "$1" "$2" \
	    "$T/scale-$1-$2.json" "${SC_NOW:-$(date +%s)}" || return 1
	sim_stop
	sim_start "$T/scale-$1-$2.json" || return 1
	P=$FACTORY_ROOT/projects/harb.toml
	cat >"$P" <<TOML
name = "harb"
repo = "johba/harb"
forge_url = "$SIM_URL"
repo_root = "$T/repo"
primary_branch = "master"
TOML
	# SCALE_CI=forge: no Woodpecker, CI from the forge's commit status.
	[ "${SCALE_CI:-}" = forge ] ||
	    printf '[ci]\nwoodpecker_repo_id = 1\n' >>"$P"
	export P
}

scale_reset() {
	sim_post /_admin/reset '{}' >/dev/null
	rm -rf "$DISINTO_RUN_DIR" "$FACTORY_ROOT/dev" "$FACTORY_ROOT/review" \
	    "$FACTORY_ROOT/supervisor"
	mkdir -p "$DISINTO_RUN_DIR" "$FACTORY_ROOT/dev"
}

scale_tick() {
	SC_RSS=
	# The supervisor finds the project under $FACTORY_ROOT/projects.
	_sc_arg=$P
	[ "$1" != supervisor-poll ] || _sc_arg=
	if [ -n "$SC_TIME" ]; then
		$SC_TIME -f %M -o "$T/time.out" "$O/$1/$1" -v $_sc_arg \
		    >/dev/null 2>"$T/$1.err"
		SC_RC=$?
		SC_RSS=$(tail -1 "$T/time.out")
	else
		"$O/$1/$1" -v $_sc_arg >/dev/null 2>"$T/$1.err"
		SC_RC=$?
	fi
}

scale_decisions() {
	sim_get /_admin/log |
	    pyjson '"\n".join("%s %s %s" % (e["method"], e["path"], __import__("json").dumps(e["body"], sort_keys=True)) for e in d if e["method"] != "GET")'
	# Time stamps, figures, ages and the test directory vary by run.
	sed -e 's/^\[[^]]*\] //' -e "s|$T|T|g" \
	    -e 's/open [0-9]* days/open N days/g' "$T/$1.err" |
	    grep -vE 'tick: |peak rss|[0-9]+ ms\b|requests'
}
