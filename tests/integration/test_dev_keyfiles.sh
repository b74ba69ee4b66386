# A key file that is there but cannot be read (a FIFO planted in the run
# directory, which the file helpers refuse) is unknown, not absent: the
# reaction keyed on it is skipped with one log line a tick, never sent
# again every tick.  ci-result keys "CI passed", dev-notice keys "PR not
# merged yet".  Once the file can be read again the reaction runs, once.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
S1=1111111111111111111111111111111111111111
S2=2222222222222222222222222222222222222222
scen '[{"number": 1, "title": "One", "labels": ["in-progress"]},
       {"number": 2, "title": "Two", "labels": ["in-progress"]}]' \
    "[{\"number\": 9, \"title\": \"fix: One (#1)\", \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"$S1\"}},
      {\"number\": 10, \"title\": \"fix: Two (#2)\", \"head\": {\"ref\": \"fix/issue-2\", \"sha\": \"$S2\"}}]" \
    >"$T/case.json"
case_start "$T/case.json" '[ci]' 'woodpecker_repo_id = 0'

agent() {	# N PHASE
	mkdir -p "$T/al-$1"
	t_tmux new-session -d -s "dev-$PROJ-$1" -x 200 -y 50 \
	    "env FAKE_AGENT_LOG=$T/al-$1 $FAKE_AGENT"
	wait_for "t_tmux capture-pane -p -t dev-$PROJ-$1 | grep -q '❯'" 10
	mkdir -p "$RUN/sessions/active/dev-$PROJ-$1"
	echo "$2" >"$RUN/sessions/active/dev-$PROJ-$1/dev-session-$PROJ-$1.phase"
}
agent 1 PHASE:awaiting_ci
agent 2 PHASE:done
mkfifo "$RUN/ci-result-$PROJ-1.txt" "$RUN/dev-notice-$PROJ-2"

# The defect on the code before: an unreadable key read as "nothing sent
# yet", so "CI passed" and "not merged yet" were typed in every tick.
for n in 1 2 3; do
	dp
	check_eq "tick $n: ci-result unknown, said once" \
	    "$(grep -c "cannot read '$RUN/ci-result-$PROJ-1.txt' — the CI reaction waits" "$T/tick.log")" 1
	check_eq "tick $n: dev-notice unknown, said once" \
	    "$(grep -c "#2: cannot read '$RUN/dev-notice-$PROJ-2' — done notice skipped" "$T/tick.log")" 1
done
sleep 0.5
check_eq "nothing typed into #1" "$(prompts "$T/al-1")" 0
check_eq "nothing typed into #2" "$(prompts "$T/al-2")" 0
check "the FIFOs are left alone" test -p "$RUN/ci-result-$PROJ-1.txt"

rm -f "$RUN/ci-result-$PROJ-1.txt" "$RUN/dev-notice-$PROJ-2"
dp
dp
wait_for '[ -f "$T/al-1/prompt-1.txt" ] && [ -f "$T/al-2/prompt-1.txt" ]' 10
sleep 0.5
check_eq "readable again: CI passed once" "$(prompts "$T/al-1")" 1
check "readable again: it is CI passed" grep -q 'CI passed on PR #9' "$T/al-1/prompt-1.txt"
check_eq "readable again: not merged yet once" "$(prompts "$T/al-2")" 1
check "readable again: it is not merged yet" grep -q 'PR #10 is not merged yet' "$T/al-2/prompt-1.txt"
