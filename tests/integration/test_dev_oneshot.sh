# dev-poll --issue N [--force] against the simulator, a bare origin and
# the fake agent in real tmux, while the factory is paused: a closed or
# missing issue, a dry run, open dependencies (the tick's one notice),
# a launch, the agent slot held by it for any other issue, the session
# already running, its crash started again in the same worktree with the
# crash prompt, and --force past both the slot and the dependencies.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
dev_sim - <<'JSON'
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "alice", "token": "alice-token"}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "formula"}, {"id": 4, "name": "action"}],
 "issues": [
  {"number": 1, "title": "Blocker", "labels": ["backlog"]},
  {"number": 2, "title": "Waits", "labels": ["backlog"],
   "body": "Later.\n\n## Depends on\n- #1\n"},
  {"number": 3, "title": "Free", "labels": ["backlog"]},
  {"number": 4, "title": "Done already", "state": "closed"},
  {"number": 5, "title": "A formula", "labels": ["backlog", "formula"]},
  {"number": 6, "title": "An action", "labels": ["action"]}]}
JSON
rm -f "$FACTORY_ROOT/state/.dev-active"

# agent NAME: the fake agent logging its prompts to $T/agent-NAME.
agent() {
	mkdir -p "$T/agent-$1"
	AGENT_CMD="env FAKE_AGENT_SCRIPT=$T/script.json FAKE_AGENT_LOG=$T/agent-$1 $FAKE_AGENT"
}
out() {
	cat "$T/dp.out"
}
check_has() {	# NAME TEXT NEEDLE
	case $2 in *"$3"*) ok "$1" ;; *) fail "$1" "'$3' not in '$2'" ;; esac
}

dp
check_has "the tick is paused" "$(cat "$T/tick.log")" "dev not active"

dp --issue 4
rc_is "closed issue" 0
check_eq "closed issue: said" "$(out)" "issue #4 is closed: nothing to start"
dp --issue 99
rc_is "no such issue" 1
check_eq "no such issue: said" "$(out)" "issue #99: no such issue"

# The formula-label guard holds on every launch path, --issue --force
# included, as dev-agent.sh refused such issues.
for nl in 5:formula 6:action; do
	n=${nl%:*}
	dp --issue $n --force
	rc_is "#$n labelled: exit 0" 0
	check_eq "#$n labelled: said" "$(out)" \
	    "issue #$n: not started: its labels keep agents off it (see '$DEVLOG')"
	check_eq "#$n labelled: no forge write, no session" \
	    "$(writes) $(sessions)" "0 "
	lhas "#$n labelled: the refusal is logged with the label" \
	    "SKIP: issue #$n has the '${nl#*:}' label — no agent session for it"
done

dp --issue 3 --dry-run
rc_is "dry run" 0
check_eq "dry run: said (after its log lines)" "$(out | grep -v '^\[')" \
    "issue #3: session dev-$PROJ-3 started (dry-run: nothing done)"
lhas "dry run: the launch is logged" "dry-run: would start session dev-$PROJ-3"
check_eq "dry run: no forge write, no session" "$(writes) $(sessions)" "0 "

dp --issue 2
rc_is "open dependency" 0
check_eq "open dependency: said" "$(out)" \
    "issue #2: not started: dependencies are open (see '$DEVLOG'; --force overrides)"
check_eq "open dependency: the tick's notice, once" \
    "$(comments_with 2 'Unmet dependency')" 1
check_eq "open dependency: still on the backlog" "$(labels 2)" backlog
check_eq "open dependency: no session" "$(sessions)" ""

agent a
W=$(writes)
dp --issue 3
rc_is "launch" 0
check_eq "launch: said" "$(out)" "issue #3: session dev-$PROJ-3 started"
check_eq "launch: the session" "$(sessions)" "dev-$PROJ-3 "
check_eq "launch: claimed" "$(labels 3)" in-progress
check "launch: the initial prompt" grep -q '^## Issue #3: Free' \
    "$T/agent-a/prompt-1.txt"
check "launch: the phase file marks it started" \
    test -e "$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"

W=$(writes)
dp --issue 1
rc_is "slot busy" 0
check_eq "slot busy: said" "$(out)" \
    "issue #1: not started: the agent slot is busy (see '$DEVLOG'; --force overrides)"
lhas "slot busy: the holder is logged" "agent running \\(session dev-$PROJ-3\\)"
dp --issue 3
rc_is "running already" 0
check_eq "running already: said" "$(out)" \
    "issue #3: session dev-$PROJ-3 is running already"
check_eq "slot busy, running already: no forge write, no session" \
    "$(writes) $(sessions)" "$W dev-$PROJ-3 "

# The session dies in awaiting_ci: it is started again in its worktree,
# which keeps what the agent left there.
mkdir -p "$RUN/sessions/active/dev-$PROJ-3"
echo 'PHASE:awaiting_ci' >"$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
echo "work in progress" >"$RUN/$PROJ-worktree-3/wip.txt"
t_tmux kill-session -t "dev-$PROJ-3"
agent b
dp --issue 3
rc_is "crashed session" 0
check_eq "crashed session: said" "$(out)" \
    "issue #3: session dev-$PROJ-3 started again"
check_eq "crashed session: it lives" "$(sessions)" "dev-$PROJ-3 "
check "crashed session: the worktree is kept" \
    test -s "$RUN/$PROJ-worktree-3/wip.txt"
check "crashed session: the crash prompt" grep -q 'stopped before it reported' \
    "$T/agent-b/prompt-1.txt"

# --force: past the slot (dev-P-3 lives) and the open dependency.  Not
# past the Claude session lock: dev-P-3 waits for CI first, so its
# wrapper lets go of the lock.
mkdir -p "$RUN/sessions/active/dev-$PROJ-3"
echo 'PHASE:awaiting_ci' >"$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
agent c
dp --issue 2 --force
rc_is "--force" 0
check_eq "--force: said" "$(out)" "issue #2: session dev-$PROJ-2 started"
check_eq "--force: both sessions" "$(sessions)" "dev-$PROJ-2 dev-$PROJ-3 "
lhas "--force: the dependencies are not checked" \
    "#2: dependencies not checked \\(--force\\)"
check_eq "--force: no second dependency notice" \
    "$(comments_with 2 'Unmet dependency')" 1
check_eq "--force: claimed" "$(labels 2)" in-progress
check "--force: the initial prompt" grep -q '^## Issue #2: Waits' \
    "$T/agent-c/prompt-1.txt"

dp --issue 2 --json
rc_is "--json without --status" 2
dp --force
rc_is "--force without --issue" 2
