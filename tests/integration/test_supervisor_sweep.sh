# supervisor-poll's sweeps: orphaned dev sessions (issue closed, PR closed
# or merged, idle 30 min without a PR) are stopped with their worktree and
# phase file; sessions in escalate, awaiting_ci or awaiting_review are
# never touched; worktrees older than 2 hours that no session, phase or
# process uses are removed through git; a dead legacy dev-agent lock goes.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-sweep.json"
RUN=$DISINTO_RUN_DIR
alive() {
	t_tmux has-session -t "$1" 2>/dev/null
}
gone() {
	! t_tmux has-session -t "$1" 2>/dev/null
}
idle() {	# idle ISSUE AGE: the agent stopped at its prompt AGE ago
	mkdir -p "$RUN/sessions/active/dev-harb-$1"	# as a launch makes it
	touch -d "$2" "$RUN/sessions/active/dev-harb-$1/claude-idle-dev-harb-$1.ts"
}
worktree() {	# worktree NAME AGE: a git worktree of the clone in the run dir
	git -C "$T/repo" worktree add -q --detach "$RUN/$1" >/dev/null 2>&1 ||
	    fail "worktree $1"
	touch -d "$2" "$RUN/$1"
}

for n in 60 61 62 63 64 65 66 67 68 95; do
	sup_agent "dev-harb-$n"
done
idle 62 '40 minutes ago'
idle 63 '5 minutes ago'
idle 65 '40 minutes ago'
idle 66 '40 minutes ago'
idle 67 '40 minutes ago'
sup_phase 64 'PHASE:awaiting_ci\n'
sup_phase 65 'PHASE:escalate\nReason: x\n'
sup_phase 66 'PHASE:awaiting_review\n'
sup_phase 62 ''
touch -d '40 minutes ago' "$RUN/sessions/active/dev-harb-62/dev-session-harb-62.phase"
worktree harb-worktree-60 '10 minutes ago'
worktree harb-worktree-90 '3 hours ago'
worktree harb-worktree-91 '3 hours ago'
sup_phase 91 'PHASE:awaiting_ci\n'
worktree harb-worktree-92 '3 hours ago'
mkdir -p "$T/proc/4242"
ln -s "$RUN/harb-worktree-92/sub" "$T/proc/4242/cwd"
worktree harb-review-93 '3 hours ago'
worktree harb-worktree-94 '10 minutes ago'
worktree harb-worktree-95 '3 hours ago'
dead=$(sh -c 'echo $$')
echo "$dead" >"$RUN/dev-agent-harb.lock"

sup_run
check_eq "tick exits 0" "$SUP_RC" 0
check "closed issue: session stopped" gone dev-harb-60
check "closed issue: worktree removed" test ! -e "$RUN/harb-worktree-60"
check "merged PR: session stopped" gone dev-harb-61
check "idle 40 min without a PR: session stopped" gone dev-harb-62
check "idle 40 min without a PR: phase file removed" \
    test ! -e "$RUN/sessions/active/dev-harb-62/dev-session-harb-62.phase"
check "reasons logged" sup_log_has \
    "cleaned up the orphaned session dev-harb-61 (its PR #161 is closed or merged)"
check "busy agent without a PR kept" alive dev-harb-63
check "agent that never stopped at its prompt (no idle marker) kept" alive dev-harb-68
check "awaiting_ci kept although its issue is closed" alive dev-harb-64
check "escalate kept" alive dev-harb-65
check "awaiting_review kept" alive dev-harb-66
check "open PR kept" alive dev-harb-67
check "protected phase files kept" test -e "$RUN/sessions/active/dev-harb-64/dev-session-harb-64.phase"
check "stale unused worktree removed" test ! -e "$RUN/harb-worktree-90"
check "stale unused review worktree removed" test ! -e "$RUN/harb-review-93"
check "worktree of a waiting phase kept" test -d "$RUN/harb-worktree-91"
check "worktree a process works in kept" test -d "$RUN/harb-worktree-92"
check "fresh worktree kept" test -d "$RUN/harb-worktree-94"
check "worktree of a live session kept" test -d "$RUN/harb-worktree-95"
check "git knows the removals" sh -c \
    "! git -C '$T/repo' worktree list | grep -qE 'worktree-90|review-93'"
check "dead legacy lock removed" test ! -e "$RUN/dev-agent-harb.lock"
check_eq "no forge writes" "$(sim_log_count '(POST|PATCH|DELETE)' '^/api/v1/')" 0

n=$(sup_log_count "cleaned up the orphaned")
sup_run
check_eq "second tick: nothing more to clean" \
    "$(sup_log_count "cleaned up the orphaned")" "$n"
check "second tick: busy agent still kept" alive dev-harb-63
