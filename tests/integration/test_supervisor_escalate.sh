# supervisor-poll and escalated dev sessions: one notice over many ticks
# (found again on the forge when the run files are lost), the first reply
# by a person injected once (bot and token-owner comments ignored), the
# 6-hour reminder once, the 24-hour timeout (blocked, diagnostic, session
# stopped), a gone session only logged, and --dry-run touching nothing.
# These sessions have no hooks, so no Claude session id is kept: they
# cannot be parked and wait as they are (parking: test_escalation_park.sh
# and test_supervisor_reply_file.sh).
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-escalate.json"
RUN=$DISINTO_RUN_DIR

comments() {	# comments ISSUE PYEXPR-over-c: count matching comments
	sim_state_get "len([c for i in d['issues'] if i['number'] == $1
	    for c in i.get('comments', []) if $2])"
}

# --- notice, once --------------------------------------------------------
sup_agent dev-harb-5
sup_phase 5 'PHASE:escalate\nReason: which database, postgres or sqlite?\n'
sup_run
check_eq "tick exits 0" "$SUP_RC" 0
sup_run
sup_run
check_eq "one notice over three ticks" \
    "$(sim_log_count POST '/issues/5/comments$')" 1
check_eq "the notice carries the marker and the reason" \
    "$(comments 5 "'<!-- escalation: harb-5 -->' in c['body'] and
    'postgres or sqlite' in c['body'] and c['user'] == 'dev-bot'")" 1
check "notice id remembered" test -s "$RUN/dev-escalation-notified-harb-5"
rm -f "$RUN/dev-escalation-notified-harb-5"
sup_run
check_eq "lost run file: the notice is found on the forge, not reposted" \
    "$(sim_log_count POST '/issues/5/comments$')" 1
check "lost run file rebuilt" test -s "$RUN/dev-escalation-notified-harb-5"

# --- replies ---------------------------------------------------------------
sim_post /_admin/comment '{"issue": 5, "user": "review-bot",
    "body": "I am a bot, use mongo"}' >/dev/null
sim_post /_admin/comment '{"issue": 5, "user": "dev-bot",
    "body": "token owner talking"}' >/dev/null
sup_run
check "bot and token-owner comments are not replies" \
    test ! -e "$T/agent-dev-harb-5/prompt-1.txt"
sim_post /_admin/comment '{"issue": 5, "user": "alice",
    "body": "Use sqlite; keep $(it) simple."}' >/dev/null
sup_run
wait_for '[ -f "$T/agent-dev-harb-5/prompt-1.txt" ]' 10
check "the human reply is injected" \
    grep -qF 'Use sqlite; keep $(it) simple.' "$T/agent-dev-harb-5/prompt-1.txt"
check "with the continuation instructions and the phase file" \
    grep -qF "$RUN/sessions/active/dev-harb-5/dev-session-harb-5.phase" "$T/agent-dev-harb-5/prompt-1.txt"
check "the reply's author is named" \
    grep -qF '@alice' "$T/agent-dev-harb-5/prompt-1.txt"
check "injected reply remembered" test -s "$RUN/dev-escalation-injected-harb-5"
sim_post /_admin/comment '{"issue": 5, "user": "alice",
    "body": "and one more thing"}' >/dev/null
sup_run
sup_run
sleep 0.5
check "injected once; later comments are not replies" \
    test ! -e "$T/agent-dev-harb-5/prompt-2.txt"
check_eq "no comment posted after the notice" \
    "$(sim_log_count POST '/issues/5/comments$')" 1

# --- 6 hours: one reminder -------------------------------------------------
sup_agent dev-harb-6
sup_phase 6 'PHASE:escalate\nReason: what name?\n' '7 hours ago'
sup_run
sup_run
check_eq "6 h: notice and one reminder over two ticks" \
    "$(sim_log_count POST '/issues/6/comments$')" 2
check_eq "the reminder carries its marker" \
    "$(comments 6 "'<!-- escalation-renotify: harb-6 -->' in c['body']")" 1
check "reminder marker file" test -s "$RUN/dev-renotify-harb-6"
check "session 6 untouched" t_tmux has-session -t dev-harb-6

# --- a session that is gone ------------------------------------------------
sup_phase 7 'PHASE:escalate\nReason: lost\n' '7 hours ago'
sup_run
check "gone session logged" \
    sup_log_has "#7 escalated, but session dev-harb-7 is gone"
check_eq "gone session: no notice, no reminder" \
    "$(sim_log_count POST '/issues/7/comments$')" 0

# --- 24 hours: blocked, diagnostic, session stopped --------------------------
sup_agent dev-harb-8
sup_phase 8 'PHASE:escalate\nReason: need creds\n' '25 hours ago'
sup_run
check_eq "24 h: labelled blocked, in-progress dropped" "$(labels 8)" blocked
check_eq "24 h: diagnostic posted" \
    "$(comments 8 "'<!-- escalation-timeout: harb-8 -->' in c['body'] and
    'need creds' in c['body']")" 1
check_eq "24 h: under upstream's diagnostic heading and table" \
    "$(comments 8 "'### Session failure diagnostic\\n\\n| Field | Value |' in c['body'] and
    '| Exit reason | \`escalate_timeout (24h)\` |' in c['body']")" 1
check "24 h: session stopped" sh -c "! tmux -L $(tmux_sock) has-session -t dev-harb-8 2>/dev/null"
check "24 h: phase file removed" test ! -e "$RUN/sessions/active/dev-harb-8/dev-session-harb-8.phase"
n8=$(sim_log_count '*' '/issues/8/(comments|labels)')
sup_run
check_eq "24 h: second tick changes nothing" \
    "$(sim_log_count '*' '/issues/8/(comments|labels)')" "$n8"
check_eq "24 h: only the label and the comments were written" \
    "$(sim_log_count POST '/issues/8/comments$')" 2

# --- dry run -----------------------------------------------------------------
sup_agent dev-harb-9
sup_phase 9 'PHASE:escalate\nReason: dry\n' '30 hours ago'
sim_post /_admin/log/reset '{}' >/dev/null
sup_run --dry-run
check_eq "dry run: no forge write" \
    "$(sim_log_count '(POST|PATCH|DELETE|PUT)' '.')" 0
check "dry run: the would-be comment is logged" \
    grep -qF "dry-run: would comment on #9" "$T/sup.out"
check "dry run: session 9 lives" t_tmux has-session -t dev-harb-9
check "dry run: no run file written" \
    test ! -e "$RUN/dev-escalation-notified-harb-9"
check "dry run: phase file kept" test -e "$RUN/sessions/active/dev-harb-9/dev-session-harb-9.phase"

# --- a refused notice fails the tick, named in supervisor-status -------------
fault POST '/issues/9/comments$' 500
sup_run
check_eq "notice refused: exit 1" "$SUP_RC" 1
check "notice refused: said in supervisor-status" grep -q \
    'supervisor-poll: tick failed: 1 write failed, the first: cannot comment on #9$' \
    "$RUN/supervisor-status"
faults_clear
sup_run
check_eq "notice posted then: exit 0" "$SUP_RC" 0
check_eq "notice posted then: once, with its marker" \
    "$(comments 9 "'<!-- disinto: escalation harb-9 ' in c['body']")" 1
