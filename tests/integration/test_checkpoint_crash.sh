# Protocol "checkpoint": a run that exits without a checkpoint (or with
# an invalid one), or is killed past its timeout, is a crash: the session
# is gone, dev-poll's recovery starts a fresh run in the same worktree,
# at most twice, then the issue fails.  The killed run's whole process
# group ends.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
. "$TOP/tests/integration/lib/checkpoint.sh"

# --- no checkpoint, an invalid one, none again: two recoveries, failed.
ck_setup '[{"number": 1, "title": "Crashy", "labels": ["backlog"]}]' git
ck_script '[
 {"say": "oops, no checkpoint"},
 {"checkpoint": "{\"status\": \"DONE\"}"},
 {"exit": 3}
]'
dp
ck_wait_run 1 || fail "run 1 ended"
dp
check "no checkpoint: a crash" grep -q 'without a valid checkpoint (no checkpoint)' "$T/tick.log"
check "recovery 1 of 2" grep -q 'recovery 1/2' "$T/tick.log"
ck_wait_run 2 || fail "run 2 ended"
check "the recovery is a fresh run" grep -q '^[0-9:]* run 2 new ' "$T/agentlog/events.log"
check "in the same worktree" sh -c "grep -q 'worktree' '$T/agentlog/prompt-2.txt'"
dp
check "an invalid checkpoint: a crash" grep -q "'session_id' is missing" "$T/tick.log"
check "recovery 2 of 2" grep -q 'recovery 2/2' "$T/tick.log"
wait_for '[ "$(ck_agents)" = 0 ] && grep -q "exit 3" "$T/agentlog/events.log"' 15
sleep 0.3
dp
check "then the issue fails" grep -q 'crashed' "$T/tick.log"
check_eq "three runs in all" "$(ck_runs)" 3
check_eq "labelled blocked" \
    "$(sim_state_get "'blocked' in [l if isinstance(l, str) else l['name'] for i in d['issues'] if i['number'] == 1 for l in i['labels']]")" true
sim_stop
t_cleanup

# --- a run past its timeout: its process group killed, recovered.
CK_TOML='run_timeout_seconds = 2'
ck_setup '[{"number": 1, "title": "Slow", "labels": ["backlog"]}]' git
ck_script '[
 [{"say": "thinking for an hour"}, {"tool": {"name": "Bash", "input": {"command": "sleep 7'"$$"' & echo $! >'"$T"'/child.pid; wait"}}}],
 [{"commit": {"file": "a.c", "text": "a\n", "message": "a"}, "push": "fix/issue-1"},
  {"checkpoint": {"status": "DONE", "summary": "Done in time."}}]
]'
dp
wait_for "[ -s '$T/child.pid' ]" 10 || fail "the run's child started"
dp
check_eq "within its time the run goes on" "$(ck_agents)" 1
check_eq "no recovery yet" "$(grep -c recovery "$T/tick.log")" 0
sleep 2.5
# A loaded machine may lose a tick to the forge's timeouts: a few tries.
i=0
while [ $i -lt 5 ]; do
	dp
	grep -q 'passed its timeout (2 s)' "$T/tick.log" && break
	sleep 1
	i=$((i + 1))
done
check "past its timeout the run is killed" grep -q 'passed its timeout (2 s)' "$T/tick.log"
# Gone, or a zombie no one reaped yet (PID 1 of a container may not).
# (By its command line: the PID it wrote is its own PID namespace's.)
check "the child in its group too" sh -c "! pgrep -x -f 'sleep 7$$' >/dev/null"
check "and the session recovered" grep -q 'recovery 1/2' "$T/tick.log"
ck_wait_run 2 || fail "the recovery run ended"
dp
check_eq "the recovery's DONE: awaiting_ci" "$(ck_phase 1)" "PHASE:awaiting_ci"
