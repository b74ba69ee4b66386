# CI's end seen without a webhook (DESIGN section 13, "CI final"; the
# CI watcher of common/tick/ciwake.h): the forge here sends no status
# webhook, as Forgejo never does (its modules/webhook/type.go has no
# "status" event) and Gitea only from 1.23 (HookEventStatus in
# modules/webhook/type.go, delivered by services/webhook/notifier.go's
# CreateCommitStatus), and Woodpecker sends none.  A tick that finds a
# session waiting on CI starts one watcher for its head; when CI turns
# final in the simulator the watcher wakes dev-poll, whose woken tick
# tells the agent, with no tick run by the test after that point.  One
# watcher per head over several ticks; a new head replaces it; its looks
# stay within the budget (one request per interval: counted in the
# simulator's log); it ends when the session is cleaned, by the tick's
# signal or by seeing the session's files gone.  The interval is
# DISINTO_TEST_CI_WATCH_S (1 s here; 15 s, the budget, by default).
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
SHA1=$(git_branch fix/issue-1 a.c)
SHA2=$(git_branch fix/issue-2 b.c)
SHA3=$(git_branch fix/issue-3 c.c)
SHA4=$(git_branch fix/issue-4 d.c)
dev_sim - '[ci]' 'woodpecker_repo_id = 1' <<JSON
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "blocked"}],
 "issues": [
  {"number": 1, "title": "One", "labels": ["in-progress"]},
  {"number": 2, "title": "Two", "labels": ["in-progress"]},
  {"number": 3, "title": "Three", "labels": ["in-progress"]},
  {"number": 4, "title": "Four", "labels": ["in-progress"]}],
 "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": []}}
JSON
export WOODPECKER_REPO_ID=1 WOODPECKER_TOKEN=wp-token
export DISINTO_WAKE=true DISINTO_TEST_CI_WATCH_S=1
I=1

# agent N: a fake agent in session dev-proj-N, its prompts in $T/al-N.
agent() {
	mkdir -p "$T/al-$1"
	t_tmux new-session -d -s "dev-$PROJ-$1" -x 200 -y 50 \
	    "env FAKE_AGENT_LOG=$T/al-$1 $FAKE_AGENT"
	wait_for "t_tmux capture-pane -p -t dev-$PROJ-$1 | grep -q '❯'" 10
}
# waiting N: session N says its PR waits for CI.
waiting() {
	mkdir -p "$RUN/sessions/active/dev-$PROJ-$1"
	echo "Adds a file." \
	    >"$RUN/sessions/active/dev-$PROJ-$1/dev-impl-summary-$PROJ-$1.txt"
	echo 'PHASE:awaiting_ci' \
	    >"$RUN/sessions/active/dev-$PROJ-$1/dev-session-$PROJ-$1.phase"
}
# watchers N: how many watchers of issue N run (their command lines
# read by the shell alone, so that no reader is counted).
watchers() {
	_n=0
	for _p in /proc/[0-9]*; do
		_c=$( { tr '\0' ' ' <"$_p/cmdline"; } 2>/dev/null) || continue
		case $_c in
		*"--ci-watch $P $1 "*) _n=$((_n + 1)) ;;
		esac
	done
	echo "$_n"
}
# record N KEY: the watcher record's value of KEY.
record() {
	sed -n "s/^$2: //p" "$RUN/ci-watch-$PROJ-$1" 2>/dev/null
}
# pipeline SHA STATUS [BRANCH]: CI runs for SHA (its pipeline's number).
pipeline() {
	sim_post /_admin/pipeline "{\"commit\": \"$1\", \"status\": \"$2\", \"branch\": \"${3:-fix/issue-1}\", \"steps\": [{\"name\": \"test\", \"state\": \"$2\", \"exit_code\": 0}]}" |
	    pyjson 'd["number"]'
}
# s7 SHA: its first 7 characters, as the logs name it.
s7() {
	echo "$1" | cut -c1-7
}
now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# --- a session waits on CI: its tick opens the PR and starts a watcher.
agent 1
waiting 1
dp
rc_is "awaiting_ci, CI not started" 0
lhas "the tick starts a watcher" "#1: CI pending at $(s7 $SHA1) on PR #[0-9]+ — watcher started"
PR1=$(sim_state_get "[p['number'] for p in d['pulls'] if p['head']['ref'] == 'fix/issue-1'][0]")
check "the watcher runs" wait_for "[ \"\$(record 1 SHA)\" = $SHA1 ]" 10
check_eq "its record names the PR" "$(record 1 PR)" "$PR1"
check "it logs its start" grep -q "ci-watch: #1: watching CI of $(s7 $SHA1) on PR #$PR1, every 1 s" "$DEVLOG"
WPID=$(record 1 PID)

# Several ticks: still one watcher, the same one.
dp
dp
dp
check_eq "one watcher for the head over four ticks" "$(watchers 1)" 1
check_eq "the same watcher" "$(record 1 PID)" "$WPID"
check_eq "started once" "$(grep -c 'watcher started' "$DEVLOG")" 1
check_eq "nothing told while CI runs" "$(prompts "$T/al-1")" 0
"$O/dev-poll/dev-poll" --status "$P" >"$T/status.out" 2>&1
check "--status shows the watcher beside the session" \
    grep -q "dev-$PROJ-1 .*CI watched (pid $WPID)" "$T/status.out"
"$O/dev-poll/dev-poll" --status --json "$P" >"$T/status.json" 2>&1
check_eq "--status --json: its PID" \
    "$(pyjson '[s.get("ci_watch") for p in d["projects"] for s in p["sessions"] if s["session"] == "dev-proj-1"][0]' <"$T/status.json")" "$WPID"

# --- a new head: the old head's watcher is stopped, one for the new one.
(cd "$T/repo" && git checkout -q fix/issue-1 && echo more >>a.c &&
 git commit -q -am more && git push -q origin fix/issue-1 &&
 git checkout -q master)
SHA1B=$(git -C "$T/repo" rev-parse fix/issue-1)
dp
lhas "the old head's watcher is stopped" "#1: the CI watcher of $(s7 $SHA1) \\(pid $WPID\\) is stopped"
check "a watcher of the new head runs" wait_for "[ \"\$(record 1 SHA)\" = $SHA1B ]" 10
check "the old one is gone" wait_for "! kill -0 $WPID" 10
check_eq "still one watcher" "$(watchers 1)" 1
WPID=$(record 1 PID)

# --- the budget: with its head's pipeline running, each look is one
# request (the pipeline list); over a window the requests stay within
# window / interval + 1, and there are some.
N1=$(pipeline "$SHA1B" running)
sleep 1
T0=$(now_ms)
sim_post /_admin/log/reset '{}' >/dev/null
sleep 6
sim_get /_admin/log >"$T/window.json"
T1=$(now_ms)
REQS=$(pyjson 'len(d)' <"$T/window.json")
LISTS=$(pyjson 'len([e for e in d if e["path"].startswith("/api/repos/1/pipelines?")])' <"$T/window.json")
MAX=$(((T1 - T0) / (I * 1000) + 1))
echo "# $REQS requests in $((T1 - T0)) ms (at most $MAX)"
check "the watcher looks" test "$REQS" -ge 2
check "at most one request per interval" test "$REQS" -le "$MAX"
check_eq "each look is one read of the pipeline list" "$LISTS" "$REQS"

# --- CI turns final: the watcher wakes dev-poll, which tells the agent.
# No tick is run by the test from here on.
sim_post /_admin/pipeline "{\"number\": $N1, \"status\": \"success\"}" >/dev/null
check "the agent is told CI passed" \
    wait_for "grep -q 'CI passed on PR #$PR1' '$T/al-1/prompt-1.txt'" 30
check "the watcher says why it woke the tool" \
    grep -q "ci-watch: #1: ci final PR#$PR1 $(s7 $SHA1B): woke the tool" "$DEVLOG"
check "the woken tick says who woke it" \
    grep -q "woken: ci final PR#$PR1" "$DEVLOG"
check "the watcher has ended" wait_for "! kill -0 $WPID" 10
check "its files are gone" \
    sh -c "! test -e '$RUN/ci-watch-$PROJ-1' && ! test -e '$RUN/ci-watch-$PROJ-1.lock'"
check_eq "the verdict is recorded" \
    "$(sed -n 's/^STATE: //p' "$RUN/ci-result-$PROJ-1.txt")" success

# --- a failure is told the same way.
agent 2
waiting 2
dp
check "a watcher for #2" wait_for "[ \"\$(record 2 SHA)\" = $SHA2 ]" 10
pipeline "$SHA2" failure fix/issue-2 >/dev/null
check "the agent is told CI failed" \
    wait_for "grep -q 'CI failed on PR' '$T/al-2/prompt-1.txt' 2>/dev/null" 30
check "the watcher of #2 has ended" wait_for "[ \"\$(watchers 2)\" = 0 ]" 10

# --- the session cleaned by a tick: its watcher is stopped at once.
agent 3
waiting 3
dp
check "a watcher for #3" wait_for "[ \"\$(record 3 SHA)\" = $SHA3 ]" 10
W3=$(record 3 PID)
PR3=$(sim_state_get "[p['number'] for p in d['pulls'] if p['head']['ref'] == 'fix/issue-3'][0]")
sim_post /_admin/item "{\"number\": $PR3, \"state\": \"closed\"}" >/dev/null
dp
check "the session is cleaned" test ! -e "$RUN/sessions/active/dev-$PROJ-3"
check "its watcher is gone" wait_for "! kill -0 $W3" 10
check "it was stopped" grep -q "ci-watch: #3: stopped — watcher of" "$DEVLOG"

# --- the session's files gone behind the tick's back: the watcher sees
# it before its next look and ends.
agent 4
waiting 4
dp
check "a watcher for #4" wait_for "[ \"\$(record 4 SHA)\" = $SHA4 ]" 10
W4=$(record 4 PID)
rm -rf "$RUN/sessions/active/dev-$PROJ-4"
check "the watcher of #4 ends" wait_for "! kill -0 $W4" 10
check "it saw the phase file gone" \
    grep -q "ci-watch: #4: the session's phase file is gone" "$DEVLOG"

# --- wakes off: no watcher.
t_tmux kill-session -t "dev-$PROJ-4" 2>/dev/null
agent 4
waiting 4
DISINTO_WAKE=false dp
lnot "DISINTO_WAKE=false starts no watcher" "watcher started"
check_eq "none runs" "$(watchers 4)" 0

check "no sanitizer report from a watcher" \
    sh -c "! grep -qE 'Sanitizer|runtime error:' '$DEVLOG'"
check "no watcher is left" sh -c "! ls '$RUN'/ci-watch-* 2>/dev/null | grep -q ."
