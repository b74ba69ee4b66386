# What stops a dev-poll tick before it schedules anything: the active
# guard, the tick lock, the agent slot (a live session, a phase file in
# progress, a legacy agent's lock), the memory guard, a bad project file;
# and --dry-run, which takes no side effect.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
dev_sim - <<'JSON'
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"}],
 "issues": [{"number": 1, "title": "Ready work", "labels": ["backlog"]},
            {"number": 2, "title": "Other work"}],
 "pulls": [{"number": 3, "title": "fix: other (#2)", "files": ["a.c"],
            "head": {"ref": "fix/issue-2", "sha": "3333333333333333333333333333333333333333"},
            "reviews": [{"user": "review-bot", "state": "APPROVED",
                         "commit_id": "3333333333333333333333333333333333333333"}]}],
 "statuses": {"3333333333333333333333333333333333333333": {"state": "failure"}}}
JSON
# Legacy mode makes a launch visible without tmux: the "agent" records
# the issue number it was started with.
printf '#!/bin/sh\necho "$1" >>"%s/launched"\n' "$T" >"$T/agent.sh"
chmod +x "$T/agent.sh"
export DEV_AGENT_CMD="$T/agent.sh" AGENT_SANDBOX=unconfined-trust-agent

reset_log() {
	sim_post /_admin/log/reset '{}' >/dev/null
}

# Inactive.
rm "$FACTORY_ROOT/state/.dev-active"
dp
rc_is "inactive" 0
check_eq "inactive: no request" "$(requests)" 0
lhas "inactive: logged" 'dev not active'
: >"$FACTORY_ROOT/state/.dev-active"

# The tick lock held by another tick.
sh -c 'exec 9>"$1"; flock 9; exec sleep 30' holder "$RUN/dev-poll-$PROJ.lock" &
HOLDER=$!
wait_for '! flock -n "$RUN/dev-poll-$PROJ.lock" true' 5
dp
rc_is "lock held" 0
check_eq "lock held: no request" "$(requests)" 0
check_eq "lock held: quiet on stdout and stderr" "$(cat "$T/dp.out")" ""
check "lock held: the holder's file left alone" test -e "$RUN/dev-poll-$PROJ.lock"
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null

# A live dev session of this project holds the slot; another project's
# session and a non-dev session do not.
unset DEV_AGENT_CMD AGENT_SANDBOX
t_tmux new-session -d -s "dev-$PROJ-x-4" sleep 60
t_tmux new-session -d -s "review-$PROJ-3" sleep 60
t_tmux new-session -d -s "dev-$PROJ-7" sleep 60
dp
rc_is "session running" 0
lhas "session running: logged" "agent running \(session dev-$PROJ-7\)"
check_eq "session running: nothing scheduled" "$(requests 'labels=')" 0
check "session running: no launch" test ! -e "$T/launched"
t_tmux kill-session -t "dev-$PROJ-7"
reset_log

mkdir -p "$RUN/sessions/active/dev-$PROJ-9"
echo "PHASE:awaiting_review" >"$RUN/sessions/active/dev-$PROJ-9/dev-session-$PROJ-9.phase"
dp
lhas "a phase in progress holds the slot" "agent running \(#9 in PHASE:awaiting_review\)"
echo "PHASE:done" >"$RUN/sessions/active/dev-$PROJ-9/dev-session-$PROJ-9.phase"
mem 1500
dp
lnot "a finished phase does not" "agent running"
rc_is "low memory" 0
lhas "low memory: logged as upstream" 'SKIP: only 1500MB available \(need 2000MB\)'
check_eq "low memory: nothing scheduled" "$(requests 'labels=')" 0
# #9 is no issue of the forge: a 404 could be a passing fault, so the
# session ends on the second tick that finds it gone.
lhas "done, no such issue: looked at again" \
    "#9: done, but the issue is not there — looked at again next tick"
check "done, no such issue: the phase file stays" \
    test -e "$RUN/sessions/active/dev-$PROJ-9/dev-session-$PROJ-9.phase"
dp
lhas "done, no such issue twice: cleaned up" "#9: done — cleaning up"
check "done, no such issue twice: the phase file went" \
    test ! -e "$RUN/sessions/active/dev-$PROJ-9/dev-session-$PROJ-9.phase"
rm -f "$RUN/sessions/active/dev-$PROJ-9/dev-session-$PROJ-9.phase"

# Legacy mode judges the slot by the PID in dev-agent-P.lock only.
export DEV_AGENT_CMD="$T/agent.sh" AGENT_SANDBOX=unconfined-trust-agent

sleep 30 &
LIVE=$!
echo "$LIVE" >"$RUN/dev-agent-$PROJ.lock"
mem 8000
reset_log
dp
rc_is "legacy agent running" 0
lhas "legacy agent running: logged with its PID" "agent running \(PID $LIVE\)"
check_eq "legacy agent running: nothing scheduled" "$(requests 'labels=')" 0
kill "$LIVE"
wait "$LIVE" 2>/dev/null

# Memory: unreadable.
echo "$LIVE" >"$RUN/dev-agent-$PROJ.lock"
DISINTO_MEMINFO=$T/nonexistent dp
rc_is "unreadable meminfo" 1
lhas "unreadable meminfo: logged" "cannot read MemAvailable from '$T/nonexistent'"
lhas "stale legacy lock noticed" "removing stale dev-agent lock \(PID $LIVE\)"
check "stale legacy lock removed" test ! -e "$RUN/dev-agent-$PROJ.lock"
check "unreadable meminfo: no launch" test ! -e "$T/launched"

# Bad project file.
printf 'name = "%s"\nrepo = "johba/harb\n' "$PROJ" >"$T/bad.toml"
"$O/dev-poll/dev-poll" "$T/bad.toml" >"$T/out" 2>"$T/err"
check_eq "bad project file exits 2" "$?" 2
check "bad project file: file:line on stderr" grep -q "$T/bad.toml:2:" "$T/err"

# Dry run: every side effect logged, none taken.
sim_post /_admin/status '{"sha": "3333333333333333333333333333333333333333", "state": "success"}' >/dev/null
reset_log
dp --dry-run
rc_is "dry run" 0
lhas "dry run: the merge is logged" 'dry-run: would merge PR #3'
lhas "dry run: the follow-ups are logged" "dry-run: would close #2"
check_eq "dry run: no forge write" "$(writes)" 0
check_eq "dry run: PR still open" "$(sim_state_get 'd["pulls"][0]["merged"]')" false

# Without the guards the same world launches: the guards were the cause.
# (PR 3's CI failed: priority 1.5 gives its issue a CI fix attempt.)  The
# CI-fix counts start as an empty file, as upstream's newer main leaves
# them before any count: no count yet.
: >"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json"
sim_post /_admin/status '{"sha": "3333333333333333333333333333333333333333", "state": "failure"}' >/dev/null
dp
rc_is "control tick" 0
lhas "control tick launches" 'started dev-agent PID [0-9]+ for issue #2 \(stuck PR\)'
wait_for '[ -s "$T/launched" ]' 5
check_eq "legacy agent started with the issue number" "$(cat "$T/launched" 2>/dev/null)" 2
check_eq "the attempt was counted first" \
    "$(pyjson 'd' <"$FACTORY_ROOT/dev/ci-fixes-$PROJ.json")" '{"3": 1}'
# A tick that held the lock removes its file as it lets go: no lock file
# naming a PID that is gone (upstream's supervisor preflight lists them).
check "the tick's lock file is gone with it" test ! -e "$RUN/dev-poll-$PROJ.lock"
