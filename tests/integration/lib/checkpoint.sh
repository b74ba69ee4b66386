# Helpers for the integration scripts of protocol "checkpoint"
# (tests/integration/test_checkpoint_*.sh); source after lib/common.sh
# and lib/dev.sh.
#
#   ck_setup ISSUES_JSON [git]  dev_init, the simulator (with Woodpecker)
#                              and a project with [agent] protocol =
#                              "checkpoint"; the dev agent's script is
#                              $T/script.json, its log $T/agentlog
#   ck_script JSON             the dev agent's script (one entry per run)
#   ck_runs                    runs the dev agent started so far
#   ck_wait_run N              wait until run N of the dev agent ended
#   ck_agents                  agent processes alive now
#   ck_dir N                   the session directory of issue N

# ck_setup ISSUES [git]
ck_setup() {
	dev_init "${2:-}"
	scen "$1" '[]' '"woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": []}' >"$T/case.json"
	dev_sim "$T/case.json" '[ci]' 'woodpecker_repo_id = 1' '' '[agent]' \
	    'protocol = "checkpoint"' "${CK_TOML:-}"
	export WOODPECKER_REPO_ID=1 WOODPECKER_TOKEN=wp-token
}

ck_script() {
	printf '%s\n' "$1" >"$T/script.json"
}

ck_runs() {
	grep -c '^[0-9:]* run [0-9]* \(new\|resume\)' "$T/agentlog/events.log" \
	    2>/dev/null || echo 0
}

# ck_wait_run N [SECONDS]: run N wrote its end (or exited), and no
# process of it is left.
ck_wait_run() {
	wait_for "grep -q '^[0-9:]* run $1 end' '$T/agentlog/events.log'" \
	    "${2:-15}" || return 1
	wait_for '[ "$(ck_agents)" = 0 ]' 5
}

# ck_agents: one-shot fake agents running under this test's directory.
ck_agents() {
	_k_n=0
	for _k_p in $(pgrep -f "$FAKE_AGENT" 2>/dev/null); do
		if tr '\0' '\n' <"/proc/$_k_p/environ" 2>/dev/null |
		    grep -q "^FAKE_AGENT_LOG=$T/"; then
			_k_n=$((_k_n + 1))
		fi
	done
	echo "$_k_n"
}

ck_dir() {
	echo "$RUN/checkpoint-dev-$PROJ-$1"
}

# ck_phase N: the first line of issue N's phase file.
ck_phase() {
	head -1 "$RUN/sessions/active/dev-$PROJ-$1/dev-session-$PROJ-$1.phase" 2>/dev/null
}

# ck_sup_setup: supervisor-poll for the project (its file under
# projects/, no fixer, a stand-in review-poll, fixtures for /proc).
ck_sup_setup() {
	mkdir -p "$FACTORY_ROOT/projects" "$T/proc"
	cp "$P" "$FACTORY_ROOT/projects/$PROJ.toml"
	printf '100000.00 200000.00\n' >"$T/proc/uptime"
	printf '#!/bin/sh\nexit 0\n' >"$T/review-poll"
	chmod +x "$T/review-poll"
	export DISINTO_PROC_DIR=$T/proc DISINTO_DISK_PATH=$T \
	    SUPERVISOR_FIX_CMD= DISINTO_REVIEW_POLL=$T/review-poll
	SUP_LOG=$FACTORY_ROOT/supervisor/supervisor.log
}

# ck_sup: one supervisor-poll tick; its status in $SUP_RC.
ck_sup() {
	"$O/supervisor-poll/supervisor-poll" >"$T/sup.out" 2>&1
	SUP_RC=$?
	if grep -qE 'Sanitizer|runtime error' "$T/sup.out"; then
		fail "supervisor-poll ran clean" "$(head -c 2000 "$T/sup.out")"
	fi
}

# ck_reply N TEXT: a person (alice) comments on issue N.
ck_reply() {
	sim_post /_admin/comment "{\"issue\": $1, \"user\": \"alice\", \"body\": \"$2\"}" >/dev/null
}

# ck_notices N: escalation notices on issue N.
ck_notices() {
	comments_with "$1" "<!-- escalation: $PROJ-$1 -->"
}
