# The markers agent protocol ([agent] protocol = "markers", seeds/004)
# over the simulator, with the fake agent in marker mode in real tmux:
# the loop from a backlog issue to a merge through a CI failure (its
# injection lost once, re-sent once on the next tick, never again), a
# review verdict delivered through prompt.txt; a stale status.json
# handled as stuck; and, through the seam itself (agent-tool), the ready
# marker's timeout, one typing per process, at most one re-send, and two
# racing injections typing once.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
dev_sim - '[ci]' 'woodpecker_repo_id = 1' '[agent]' 'protocol = "markers"' <<'JSON'
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "blocked"}],
 "issues": [{"number": 1, "title": "Add a greeting", "labels": ["backlog"],
             "body": "Add hello.txt."},
            {"number": 2, "title": "Second", "labels": []}],
 "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": []}}
JSON
export FORGE_REVIEW_TOKEN=review-token AGENT_MARKER_ACK_TIMEOUT=30
S=dev-$PROJ-1
SDIR=$RUN/sessions/active/$S
AL=$T/agentlog
cat >"$T/script.json" <<'JSON'
[ {"commit": {"file": "hello.txt", "text": "helo\n", "message": "add hello"},
   "push": "fix/issue-1", "summary": "Adds hello.txt.",
   "phase": "PHASE:awaiting_ci"},
  {"commit": {"file": "hello.txt", "text": "hello\n", "message": "fix typo"},
   "push": "fix/issue-1", "phase": "PHASE:awaiting_ci"},
  {"phase": "PHASE:awaiting_review"},
  {"phase": "PHASE:done"} ]
JSON
# The second request to read prompt.txt (the CI failure) is lost.
export AGENT_CMD="env FAKE_AGENT_SCRIPT=$T/script.json FAKE_AGENT_LOG=$AL FAKE_AGENT_MARKERS=lose=2 $FAKE_AGENT"
events() {
	grep -c "$1" "$AL/events.log" 2>/dev/null || true
}
phase() {
	head -1 "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase" 2>/dev/null
}
# Put the session's delivery record N seconds back (its "AT:" line).
backdate_delivery() {
	f=$RUN/agent-$S.delivery
	awk -v n="$1" '/^AT: /{ $2 = $2 - n } { print }' "$f" >"$f.new" &&
	    mv "$f.new" "$f"
}
pipeline() {	# SHA STATUS
	sim_post /_admin/pipeline "{\"commit\": \"$1\", \"status\": \"$2\", \"branch\": \"fix/issue-1\", \"steps\": [{\"name\": \"test\", \"state\": \"$2\", \"exit_code\": $3, \"log\": [\"FAIL: greeting_test expected hello\"]}]}" >/dev/null
}

# Launch: the handshake, then the prompt through prompt.txt.
dp
rc_is "launch" 0
lhas "launched" "initial prompt sent to session $S"
check "session directory" test -d "$SDIR/markers"
check_eq "session directory private" "$(stat -c %a "$SDIR")" 700
check_eq "ready marker asked for once" "$(events 'marker ready')" 1
check_eq "system prompt acknowledged" "$(events 'marker system')" 1
check "system prompt written" grep -q "status.json" "$SDIR/system_prompt.txt"
check_eq "first prompt acknowledged" "$(events 'marker prompt 1')" 1
check "the prompt went through prompt.txt" grep -q "Add a greeting" "$AL/prompt-1.txt"
check_eq "the pane got one short instruction, not the prompt" \
    "$(t_tmux capture-pane -p -S - -t "$S" | grep -c 'Add a greeting')" 0
wait_for '[ "$(phase)" = PHASE:awaiting_ci ]' 10
check_eq "status.json completed" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["state"])' "$SDIR/status.json")" completed

# --status shows the agent's report.
"$O/dev-poll/dev-poll" --status "$P" >"$T/status.out" 2>&1
check "--status shows the progress" grep -q "progress: completed 100% writing_output" "$T/status.out"
"$O/dev-poll/dev-poll" --status --json "$P" >"$T/status.json" 2>&1
check_eq "--status --json has it" \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([s["progress"]["state"] for p in d["projects"] for s in p["sessions"]])' "$T/status.json")" "['completed']"

# The PR; CI fails.
dp
SHA1=$(git --git-dir="$T/origin.git" rev-parse fix/issue-1)
PR=$(sim_state_get "[p['number'] for p in d['pulls']][0]")
pipeline "$SHA1" failure 1
dp
rc_is "a lost ack is no failure" 0
# Not confirmed: queued for the session's wrapper, which types it again
# once the ack wait passed (or a tick does, whichever looks first).
lhas "not confirmed: queued" "queued for $S \\(not confirmed\\)"
check_eq "the lost request" "$(events 'marker lost 2')" 1
check_eq "nothing processed yet" "$(prompts "$AL")" 1
check "the failure waits in prompt.txt" grep -q "greeting_test" "$SDIR/prompt.txt"
# A tick waits a few seconds for an ack, no longer: the next one reads
# it, and types the request again only once the ack wait (30 s) passed.
# The wait's passing is the delivery record's time put back, not a sleep:
# a loaded machine neither passes it early nor slows the test.
dp
rc_is "within the ack wait" 0
lnot "within the ack wait: not re-sent" "re-sent"
check_eq "within the ack wait: no new request" "$(grep -c 'marker \(prompt\|lost\)' "$AL/events.log")" 2
backdate_delivery 31
dp
wait_for "grep -q 'prompt.txt re-sent' '$DEVLOG'" 30
check "re-sent once the ack wait passed" grep -q "prompt.txt re-sent" "$DEVLOG"
wait_for '[ "$(events "marker prompt 3")" -ge 1 ]' 10
check_eq "delivered once" "$(events 'marker prompt 3')" 1
wait_for '[ "$(prompts "$AL")" -ge 2 ]' 10
check "the CI failure reached the agent" grep -q "greeting_test" "$AL/prompt-2.txt"
wait_for '[ "$(git --git-dir="$T/origin.git" rev-parse fix/issue-1)" != "$SHA1" ]' 10
dp
lnot "not re-sent again" "re-sent"
check_eq "no third request" "$(grep -c 'marker \(prompt\|lost\)' "$AL/events.log")" 3
check_eq "one re-send in the log" "$(grep -c 're-sent' "$DEVLOG")" 1

# CI green: "CI passed" through prompt.txt; the review's verdict too.
SHA2=$(git --git-dir="$T/origin.git" rev-parse fix/issue-1)
pipeline "$SHA2" success 0
dp
wait_for '[ "$(phase)" = PHASE:awaiting_review ]' 10
check "CI passed delivered" grep -q "CI passed" "$AL/prompt-3.txt"
mkdir -p "$T/rl" "$FACTORY_ROOT/review"
: >"$FACTORY_ROOT/state/.reviewer-active"
cat >"$T/review.json" <<'JSON'
[ [{"capture": "REVIEW_OUTPUT_FILE=(?P<out>[^\\s]+)"},
   {"write": "{out}", "text": "{\"verdict\": \"APPROVE\", \"verdict_reason\": \"fine\", \"review_markdown\": \"### Summary\\nok\"}"},
   {"phase": "PHASE:done"}] ]
JSON
RCMD="env FAKE_AGENT_SCRIPT=$T/review.json FAKE_AGENT_LOG=$T/rl $FAKE_AGENT"
AGENT_CMD=$RCMD "$O/review-poll/review-poll" "$P" >/dev/null 2>&1
check "the review agent took its prompt by marker" grep -q "marker prompt 1" "$T/rl/events.log"
wait_for "grep -q done '$RUN/sessions/active/review-$PROJ-$PR/review-session-$PROJ-$PR.phase'" 10
AGENT_CMD=$RCMD "$O/review-poll/review-poll" "$P" >/dev/null 2>&1
wait_for '[ "$(phase)" = PHASE:done ]' 10
check "the verdict reached the dev agent by marker" grep -q "reviewer approved" "$AL/prompt-4.txt"
check "the review session's directory is gone" test ! -e "$RUN/sessions/active/review-$PROJ-$PR"
dp
dp
check_eq "merged" "$(sim_state_get "[p['merged'] for p in d['pulls']][0]")" true
check_eq "issue closed" "$(sim_state_get "[i['state'] for i in d['issues'] if i['number'] == 1][0]")" closed
check "session ended" sh -c "! tmux -L $DISINTO_TMUX_SOCKET has-session -t $S 2>/dev/null"
check "session directory removed" test ! -e "$SDIR"

# A stale status.json: the agent says it works but has not updated it
# within CLAUDE_TIMEOUT.  Handled as stuck: killed and recovered.
SIM_TOKEN=dev-token sim_post /api/v1/repos/johba/harb/issues/2/labels '{"labels": [1]}' >/dev/null
cat >"$T/stale.json" <<'JSON'
[ {"status": {"state": "processing", "progress": 30,
              "updated_at": "2020-01-01T00:00:00Z"}, "no_complete": true} ]
JSON
mkdir -p "$T/al2"
S2=dev-$PROJ-2
export AGENT_CMD="env FAKE_AGENT_SCRIPT=$T/stale.json FAKE_AGENT_LOG=$T/al2 $FAKE_AGENT"
dp
lhas "issue 2 launched" "initial prompt sent to session $S2"
wait_for "[ -f '$RUN/sessions/active/$S2/status.json' ]" 10
wait_for "grep -q 2020 '$RUN/sessions/active/$S2/status.json'" 10
CLAUDE_TIMEOUT=3600 dp
lhas "stale: recovered" "#2: the agent's progress report did not change within CLAUDE_TIMEOUT"
check_eq "stale: one recovery counted" "$(cat "$RUN/dev-recoveries-$PROJ-2" 2>/dev/null)" 1
check "stale: a new session" tmux -L "$DISINTO_TMUX_SOCKET" has-session -t "$S2"
mkdir -p "$FACTORY_ROOT/projects" "$T/proc"
cp "$P" "$FACTORY_ROOT/projects/$PROJ.toml"
printf '100000.00 200000.00\n' >"$T/proc/uptime"
DISINTO_PROC_DIR=$T/proc DISINTO_DISK_PATH=$T SUPERVISOR_FIX_CMD= \
    DISINTO_REVIEW_POLL=/bin/true "$O/supervisor-poll/supervisor-poll" \
    >"$T/sup.out" 2>&1
check "the supervisor's metrics carry the agent's report" \
    grep -q '"type":"agent".*"session":"dev-proj-2"' "$FACTORY_ROOT/metrics/supervisor-metrics.jsonl"

# The seam itself, through agent-tool (the tmux server keeps its first
# environment: the fake agents' variables go on their command lines).
AT="$O/tests/tools/agent-tool -P markers -R $RUN -L $DISINTO_TMUX_SOCKET -r 10 -a 2"
mkdir -p "$T/w" "$T/al3" "$T/al4" "$T/al5"
FA="$FAKE_AGENT"
# No ready marker: the start fails within the wait, and leaves nothing.
if $O/tests/tools/agent-tool -P markers -R "$RUN" -L "$DISINTO_TMUX_SOCKET" -r 3 start m-ready "$T/w" env FAKE_AGENT_LOG="$T/al3" FAKE_AGENT_MARKERS=no-ready "$FA" 2>"$T/at.err"; then
	fail "no ready marker: start fails"
else
	ok "no ready marker: start fails"
fi
check "no ready marker: said so" grep -q "ready.marker within 3 s" "$T/at.err"
check "no ready marker: asked again" [ "$(grep -c 'marker ready' "$T/al3/events.log")" -ge 1 ]
check "no ready marker: session killed" sh -c "! tmux -L $DISINTO_TMUX_SOCKET has-session -t m-ready 2>/dev/null"
check "no ready marker: directory removed" test ! -e "$RUN/sessions/active/m-ready"

# An agent that exits at once: said so, without waiting out the wait.
echo '[{"on": "start", "exit": 3}]' >"$T/exit.json"
if $AT start m-exit "$T/w" env FAKE_AGENT_SCRIPT="$T/exit.json" "$FA" 2>"$T/at.err"; then
	fail "agent exits: start fails"
else
	ok "agent exits: start fails"
fi
check "agent exits: said so" grep -q "m-exit' exited before it was ready" "$T/at.err"
check "agent exits: directory removed" test ! -e "$RUN/sessions/active/m-exit"

# Both requests lost: typed once per process, twice in all, never again.
$AT start m-lost "$T/w" env FAKE_AGENT_LOG="$T/al4" FAKE_AGENT_MARKERS=lose=1:2 "$FA"
rc_is "start with markers" $?
echo "do the thing" >"$T/msg"
$AT inject m-lost "$T/msg" "$T/msg" 2>/dev/null
check_eq "lost: not delivered" $? 3
check_eq "lost: typed once in one process" "$(grep -c 'marker lost' "$T/al4/events.log")" 1
$AT inject m-lost "$T/msg" 2>/dev/null
check_eq "lost twice: given up" $? 1
$AT inject m-lost "$T/msg" 2>/dev/null
check_eq "lost twice: still given up" $? 1
check_eq "lost: typed twice in all" "$(grep -c 'marker lost' "$T/al4/events.log")" 2
check_eq "lost: nothing processed" "$(prompts "$T/al4")" 0
$AT kill m-lost
check "kill removes the directory" test ! -e "$RUN/sessions/active/m-lost"

# Two racing injections of one message: typed once.
cat >"$T/slow.json" <<'JSON'
[ {"sleep": 3} ]
JSON
$AT start m-race "$T/w" env FAKE_AGENT_LOG="$T/al5" FAKE_AGENT_SCRIPT="$T/slow.json" "$FA"
echo "the CI result" >"$T/ci"
$AT inject m-race "$T/ci" & R1=$!
$AT inject m-race "$T/ci" & R2=$!
wait $R1
E1=$?
wait $R2
E2=$?
check_eq "race: both see it delivered" "$E1 $E2" "0 0"
check_eq "race: typed once" "$(grep -c 'marker prompt' "$T/al5/events.log")" 1
check_eq "race: one prompt" "$(prompts "$T/al5")" 1
check_eq "progress while it works" "$($AT progress m-race)" "processing 10 reading_prompt"
$AT kill m-race
