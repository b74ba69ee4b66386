# Review sessions do not pile up.  They used to start 3 per tick and stay
# until a 4-hour idle limit, so agents that never finish accumulated tick
# after tick.  Now, as review-pr.sh ran them: at most max_reviews (3)
# review sessions alive per project, counted before launching; an agent
# that writes no phase within 600 s (idle_timeout) or is back at its
# prompt without one (its Stop hook's marker: idle_prompt) is stopped, its
# output (if any) posted, else its try counted as failed; one that went
# away (its session gone, or its SessionEnd hook's marker there) is
# started once more without a new try.  P-review-status follows each step
# in review-pr.sh's words.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
rv_setup
# Reviews here work at once: no Claude session lock (test_agent_lock has
# it).
export CLAUDE_SESSION_LOCK=
LOG=$FACTORY_ROOT/review/review.log
RUN=$DISINTO_RUN_DIR
STATUS=$RUN/$P-review-status
# Review agents that never finish.
echo '[[{"say": "reviewing"}]]' >"$T/idle-agent.json"
export AGENT_CMD="$FAKE_AGENT --script $T/idle-agent.json"

for n in 1 2 3 4 5; do
	eval "S$n=\$(rv_branch fix/issue-$n f$n.c 'f$n')"
done
python3 - "$T" "$S1" "$S2" "$S3" "$S4" "$S5" <<'PY'
import json, sys
t, shas = sys.argv[1], sys.argv[2:]
body = ('OUTPUT<<{"verdict": "APPROVE", "verdict_reason": "ok", '
        '"review_markdown": "fine"}>>OUTPUT')
json.dump([{"number": 10 + n, "title": "fix: f%d (#%d)" % (n, n),
            "head": {"ref": "fix/issue-%d" % n}, "files": ["f%d.c" % n],
            "body": body if n == 1 else "Fixes #%d" % n}
           for n in range(1, 6)], open(t + "/pulls.json", "w"))
json.dump({s: {"state": "success"} for s in shas},
          open(t + "/statuses.json", "w"))
PY
rv_scenario "$T/scenario.json"
sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
    { fail "simulator starts"; exit 1; }
tries() {
	sed -n 's/^TRIES: //p' "$RUN/$P-review-tries-$1" 2>/dev/null
}
backdate() {	# backdate PR AGE: the review's launch moved into the past
	_b_at=$(date -d "$2" +%s)
	touch -d "@$_b_at" "$RUN/sessions/active/review-$P-$1/review-session-$P-$1.phase"
	sed -i "s/^AT:.*/AT:$_b_at/" "$RUN/$P-review-request-$1"
}

# --- at most 3 alive -----------------------------------------------------------
rv_tick
check_eq "tick 1: three reviews" "$(sessions)" \
    "review-harb-13 review-harb-14 review-harb-15 "
check_eq "tick 1: the status file names them" "$(sed 's/^\[[^]]*\] //' "$STATUS")" \
    "review-poll: waiting for review of PR #13, #14, #15"
check "each launch step is in the log, in review-pr.sh's words" \
    sh -c "grep -oE 'pr #15: (fetching|preparing|waiting)[a-z ]*' '$LOG' | tr '\n' '|' | grep -q \
    'pr #15: fetching metadata|pr #15: fetching diff|pr #15: preparing review session|pr #15: waiting for review|'"
rv_tick
rv_tick
check_eq "ticks 2 and 3: still three (no pile-up)" "$(sessions)" \
    "review-harb-13 review-harb-14 review-harb-15 "
check "the cap is logged" grep -q \
    "hit max reviews (3): 3 review session(s) running" "$LOG"
check_eq "nothing posted meanwhile" "$(rv_comments 15)" "[]"

# --- 600 s without a phase: stopped, a failed try ------------------------------
backdate 15 '11 minutes ago'
rv_tick
check_has "timed out: error comment" "$(rv_comments 15)" \
    "no PHASE:done within 600 s (idle_timeout)"
check "timed out: logged" grep -q "pr #15: the review agent is timed out: stopped" "$LOG"
check_eq "timed out: its slot went to its second try" "$(tries 15)" 2
check_eq "still three alive" "$(sessions)" \
    "review-harb-13 review-harb-14 review-harb-15 "

# --- back at its prompt without a phase (Stop hook) ------------------------------
backdate 14 '3 minutes ago'
touch -d '1 minute ago' "$RUN/sessions/active/review-$P-14/claude-idle-review-$P-14.ts"
rv_tick
check_has "idle at its prompt: error comment" "$(rv_comments 14)" \
    "stopped at its prompt without writing PHASE:done (idle_prompt)"
# The second try's own turn may have ended since (its Stop hook): a
# marker there is the new session's, not the one a minute old.
M14=$RUN/sessions/active/review-$P-14/claude-idle-review-$P-14.ts
check_eq "idle: its marker went with the session, a second try runs" \
    "$([ ! -e "$M14" ] || [ $(($(date +%s) - $(stat -c %Y "$M14"))) -lt 50 ] && echo gone) $(tries 14)" "gone 2"

# --- gone: started once more, no new try ----------------------------------------
touch "$RUN/sessions/active/review-$P-13/claude-exited-review-$P-13.ts"
rv_tick
check "SessionEnd marker: started once more" grep -q \
    "pr #13: the review agent exited without a review, starting it once more" "$LOG"
check_eq "the restart is no new try" "$(tries 13)" 1
check_eq "no comment for it" "$(rv_comments 13)" "[]"
check "the restarted session runs" t_tmux has-session -t "review-$P-13"
check_eq "its exit marker is gone" "$(ls "$RUN" | grep -c claude-exited)" 0
t_tmux kill-session -t "review-$P-13"
rv_tick
check_has "gone again: now an error" "$(rv_comments 13)" \
    "no output file; the agent exited"
check_eq "and its second try" "$(tries 13)" 2

# --- output written, no phase, stopped: the review is posted --------------------
t_tmux kill-server 2>/dev/null
rm -rf "$RUN"/sessions/active/review-*
rm -f "$RUN"/$P-review-request-*
for n in 12 13 14 15; do
	sim_post /_admin/item "{\"number\": $n, \"draft\": true}" >/dev/null
done
cat >"$T/no-phase-agent.json" <<JSON
[ [{"capture": "(?s)OUTPUT<<(?P<payload>.*?)>>OUTPUT"},
   {"capture": "REVIEW_OUTPUT_FILE=(?P<out>[^\\\\s]+)"},
   {"write": "{out}", "text": "{payload}"}] ]
JSON
export AGENT_CMD="$FAKE_AGENT --script $T/no-phase-agent.json"
rv_tick
check "one review in flight: review-pr.sh's status line" grep -qE \
    '^\[[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} UTC\] PR #11: waiting for review$' \
    "$STATUS"
wait_for "[ -s '$RUN/sessions/active/review-$P-11/$P-review-output-11.json' ]" 10
backdate 11 '3 minutes ago'
touch -d '1 minute ago' "$RUN/sessions/active/review-$P-11/claude-idle-review-$P-11.ts"
rv_tick
check_eq "output without a phase: the review is posted" "$(rv_reviews 11)" \
    "review-bot APPROVED $S1 False"
check_eq "no error comment for it" "$(rv_comments 11 | pyjson 'len(d)')" 1
check "posting is a status step" grep -q "pr #11: posting review" "$LOG"
check_eq "the status file at the end: nothing running" \
    "$(sed 's/^\[[^]]*\] //' "$STATUS")" \
    "review-poll: no review running (1 posted this tick)"
