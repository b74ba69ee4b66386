# The tools wake each other where one learns what another must do
# (DESIGN section 13), with no tick run by this test but the first wake
# and one scheduled supervisor-poll tick (DISINTO_WAKE=true here only):
#   dev-poll wakes review-poll when a PR waits in awaiting_review with CI
#   passed, and the review starts in that woken tick;
#   review-poll wakes dev-poll after its verdict, which merges;
#   the merging tick runs the clean-up and the next issue's launch itself;
#   dev-poll wakes supervisor-poll when it posts an escalation's notice;
#   supervisor-poll wakes dev-poll when it keeps a reply for a parked
#   conversation, which resumes it;
#   an issue_comment delivery to the webhook receiver wakes
#   supervisor-poll.
# Conditions are polled with generous bounds; nothing asserts a time.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/lib/checkpoint.sh"
dev_init git
scen '[{"number": 1, "title": "First", "labels": ["backlog"], "body": "x"},
 {"number": 2, "title": "Second", "labels": ["backlog"], "body": "y"}]' \
    '[]' >"$T/case.json"
dev_sim "$T/case.json"
ck_sup_setup
mkdir -p "$FACTORY_ROOT/review"
: >"$FACTORY_ROOT/state/.reviewer-active"
REVLOG=$FACTORY_ROOT/review/review.log
# The woken ticks read the secrets and the test's settings from the
# factory's .env, as in a factory; no CI is configured: CI passes at once.
cat >"$FACTORY_ROOT/.env" <<ENV
FORGE_TOKEN=dev-token
FORGE_REVIEW_TOKEN=review-token
FORGE_AGENT_TOKEN=agent-token
FORGE_BOT_USERNAMES=review-bot
WOODPECKER_REPO_ID=0
DISINTO_PROC_DIR=$T/proc
DISINTO_DISK_PATH=$T
DISINTO_MEMINFO=$T/meminfo
DISINTO_REVIEW_POLL=$T/review-poll
SUPERVISOR_FIX_CMD=
ENV
export DISINTO_WAKE=true WOODPECKER_REPO_ID=0

# One agent command for every session: the review agent's script in a
# review worktree (P-review-R), else the dev script of the issue whose
# worktree it runs in ($T/dev-N.json), logging under $T/agent-N.
cat >"$T/agent" <<SH
#!/bin/sh
case \$(pwd) in
*-review-*) s=$T/review.json l=$T/agent-review ;;
*) n=\${PWD##*-}; s=$T/dev-\$n.json l=$T/agent-\$n ;;
esac
FAKE_AGENT_SCRIPT=\$s FAKE_AGENT_LOG=\$l exec python3 "$FAKE_AGENT" "\$@"
SH
chmod +x "$T/agent"
export AGENT_CMD="$T/agent"
cat >"$T/review.json" <<'JSON'
[ [{"capture": "REVIEW_OUTPUT_FILE=(?P<out>[^\\s]+)"},
   {"write": "{out}", "text": "{\"verdict\": \"APPROVE\", \"verdict_reason\": \"fine\", \"review_markdown\": \"### Summary\\nFine.\"}"},
   {"phase": "PHASE:done"}] ]
JSON
cat >"$T/dev-1.json" <<'JSON'
[[{"commit": {"file": "one.c", "text": "one\n", "message": "one"}},
  {"push": "fix/issue-1"},
  {"phase": "PHASE:awaiting_ci"}],
 [{"phase": "PHASE:awaiting_review"}],
 [{"say": "thanks"}]]
JSON
cat >"$T/dev-2.json" <<'JSON'
[[{"phase": "PHASE:escalate", "reason": "postgres or sqlite?", "stop": true}],
 [{"say": "resumed"}]]
JSON

# idle LOCK: no tick holds the tick lock LOCK of the run directory.
idle() {
	flock -n "$RUN/$1" true 2>/dev/null
}
# after FILE FIRST THEN: a line matching THEN follows the first line
# matching FIRST in FILE.
after() {
	awk -v a="$2" -v b="$3" '$0 ~ a { on = 1 } on && $0 ~ b { f = 1 }
	    END { exit !f }' "$1"
}
# waitlog NAME FILE REGEX: ok when a line of FILE matches REGEX in time.
waitlog() {
	if wait_for "grep -qE -- '$3' '$2'" 120; then
		ok "$1"
	else
		fail "$1" "no /$3/ in: $(tail -8 "$2" 2>/dev/null | tr '\n' '|')"
	fi
}

# --- launch to merge, then the next launch: every step by a wake ----------
"$O/dev-poll/dev-poll" --wake "$P" "test start" >/dev/null 2>&1
waitlog "dev-poll wakes review-poll: awaiting_review with CI passed" \
    "$DEVLOG" 'woke review-poll for proj: PR #[0-9]+ ready for review'
waitlog "review-poll's woken tick says who woke it" \
    "$REVLOG" 'woken: PR #[0-9]+ ready for review \(issue #1\) \(pass 1\)'
waitlog "...and starts the review" "$REVLOG" 'review-proj-[0-9]+: started'
check "the review started in a tick dev-poll woke (no scheduled one)" \
    after "$REVLOG" 'woken: PR #[0-9]+ ready for review' ': started'
check_eq "every review-poll tick was woken" \
    "$(grep -c 'Poll start' "$REVLOG")" "$(grep -c 'woken: ' "$REVLOG")"
waitlog "review-poll wakes dev-poll after its verdict" \
    "$REVLOG" 'woke dev-poll for proj: verdict on PR #[0-9]+'
waitlog "dev-poll's tick says the verdict woke it" \
    "$DEVLOG" 'woken: verdict on PR #[0-9]+'
waitlog "dev-poll merges" "$DEVLOG" 'PR #[0-9]+ merged successfully'
waitlog "the merging tick notes a wake for itself" \
    "$DEVLOG" 'merged: the clean-up and the next launch: this tick runs once more'
waitlog "#2 is launched" "$DEVLOG" 'launch.*#2|#2.*launch'
wait_for "idle dev-poll-$PROJ.lock" 60
# The merge's pass to the end of its tick ("tick: N passes").
awk '/merged successfully/ { on = 1 } on { print }
    on && /tick: [0-9]+ passes/ { exit }' "$DEVLOG" >"$T/merging.log"
# (The wake's reason is the last one written: a hook's may replace it.)
check "the merging tick runs another pass" \
    grep -qE 'woken: .* \(pass [2-9]\)' "$T/merging.log"
check "the merging tick cleans #1 up" \
    grep -q '#1: done — cleaning up' "$T/merging.log"
check "...and launches #2" grep -qE 'launch.*#2|#2.*launch' "$T/merging.log"
check_eq "...with no other tick in between" \
    "$(grep -c '(pass 1)' "$T/merging.log")" 0
check_eq "#1 is closed" \
    "$(sim_state_get "[i['state'] for i in d['issues'] if i['number'] == 1][0]")" \
    closed

# --- #2 escalates: dev-poll posts the notice and wakes supervisor-poll ----
waitlog "dev-poll posts the escalation notice" "$DEVLOG" \
    'proj: #2: posted the escalation comment'
waitlog "...and wakes supervisor-poll" "$DEVLOG" \
    'woke supervisor-poll for proj: escalation notice posted'
# (A wake of supervisor-poll, a tool of every project, carries no
# reason: its first tick is the one dev-poll woke, none was scheduled.)
waitlog "supervisor-poll is woken" "$SUP_LOG" 'woken: .*\(pass 1\)'
check "...after dev-poll woke it" expr \
    "$(grep -m1 'woken: ' "$SUP_LOG" | cut -c2-20)" \>= \
    "$(grep -m1 'woke supervisor-poll' "$DEVLOG" | cut -c2-20)"
check_eq "one notice" "$(ck_notices 2)" 1
wait_for "test -s '$RUN/dev-escalation-parked-$PROJ-2'" 60 ||
    fail "the conversation of #2 is parked" "$(tail -5 "$DEVLOG" | tr '\n' '|')"
wait_for "idle dev-poll-$PROJ.lock && idle supervisor-poll.lock" 60

# --- a reply supervisor-poll keeps wakes dev-poll, which resumes #2 -------
echo '[[{"say": "resumed"}]]' >"$T/dev-2.json"
ck_reply 2 "Use sqlite."
ck_sup
check_eq "the scheduled supervisor-poll tick" "$SUP_RC" 0
check "supervisor-poll kept the reply" \
    grep -q "passed @alice's reply to the parked conversation" "$SUP_LOG"
check "...and woke dev-poll" \
    grep -q 'woke dev-poll for proj: escalation reply kept' "$SUP_LOG"
waitlog "dev-poll's woken tick says why" "$DEVLOG" \
    'woken: escalation reply kept \(pass 1\)'
waitlog "...and resumes the conversation" "$DEVLOG" \
    '#2: a reply to the escalation waits — resuming'
waitlog "the agent is resumed" "$T/agent-2/events.log" 'resume fake-agent'
wait_for "grep -qF 'Use sqlite.' '$T/agent-2/prompt-1.txt'" 60
check "the reply reached the resumed conversation" \
    grep -qF 'Use sqlite.' "$T/agent-2/prompt-1.txt"
wait_for "idle dev-poll-$PROJ.lock && idle supervisor-poll.lock" 60

# --- an issue_comment delivery wakes supervisor-poll ----------------------
export WEBHOOK_SECRET=s3cret
woken=$(grep -c 'woken: ' "$SUP_LOG")
python3 - >"$T/req" <<'PY'
import hmac, hashlib, sys
body = b'{"action": "created", "issue": {"number": 2, "pull_request": null}, "repository": {"full_name": "johba/harb"}}'
sig = hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
head = ["POST /hook HTTP/1.1", "Host: localhost",
        "Content-Type: application/json", "Content-Length: %d" % len(body),
        "X-Gitea-Event: issue_comment", "X-Gitea-Event-Type: issue_comment",
        "X-Gitea-Signature: %s" % sig]
sys.stdout.buffer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
PY
"$O/dev-poll/dev-poll" --webhook <"$T/req" >"$T/resp" 2>"$T/receiver.err"
check_eq "the delivery is answered 204" \
    "$(head -1 "$T/resp" | cut -d' ' -f2)" 204
check "the receiver woke supervisor-poll" \
    grep -q 'issue_comment woke supervisor-poll' "$T/receiver.err"
if wait_for "[ \$(grep -c 'woken: ' '$SUP_LOG') -gt $woken ]" 120; then
	ok "supervisor-poll runs a tick the delivery woke"
else
	fail "supervisor-poll runs a tick the delivery woke" \
	    "$(tail -5 "$SUP_LOG" | tr '\n' '|')"
fi
wait_for "idle dev-poll-$PROJ.lock && idle supervisor-poll.lock" 60
wait_for "idle $PROJ-review.lock" 60
