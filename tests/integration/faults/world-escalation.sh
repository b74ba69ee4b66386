# Fault matrix world: supervisor-poll's tick with three escalated dev
# sessions: #5 escalated just now (one notice on the issue), #6 was
# notified an hour ago and a person answered (the reply is typed into
# the session once), #8 escalated 25 hours ago (blocked, a diagnostic,
# the session stopped); with the rest of the tick's checks around them.
. "$TOP/tests/integration/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
. "$TOP/tests/integration/faults/lib.sh"
W_NAME=escalation

w_init() {
	sup_setup "$TOP/tests/fixtures/supervisor-escalate.json"
	# #6's notice is posted and answered before the matrix starts.
	sup_agent dev-harb-6
	sup_phase 6 'PHASE:escalate\nReason: what name?\n' '1 hour ago'
	sup_run
	[ "$SUP_RC" -eq 0 ] || fail "$W_NAME: #6 notified" "exit $SUP_RC"
	sim_post /_admin/comment \
	    '{"issue": 6, "user": "alice", "body": "Call it harbour."}' \
	    >/dev/null
	t_tmux kill-server 2>/dev/null
	sup_phase 5 'PHASE:escalate\nReason: which database?\n'
	sup_phase 8 'PHASE:escalate\nReason: need creds\n' '25 hours ago'
	W_CMD=$SUP
	W_AGENTS="dev-harb-5=$T/agent-dev-harb-5 dev-harb-6=$T/agent-dev-harb-6
	    dev-harb-8=$T/agent-dev-harb-8"
}

w_start() {
	# shellcheck disable=SC2086
	fm_agents $W_AGENTS
}

fm_main
