# The tools stand back from a live bash dev-agent.sh N / review-pr.sh R
# (upstream's best-practices files tell the fix command to run them by
# hand): their PID files (dev-agent-P.lock, P-review.lock) held by a
# live run of the script make the tick take no action on that issue or
# PR: no merge of its PR, no launch, no --issue, no review tick; each
# said in the log.  A PID that is gone is ignored, and said.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
SHA=$(git_branch fix/issue-2 src.c)
scen '[{"number": 1, "title": "Next", "labels": ["backlog"]},
       {"number": 2, "title": "Bash works on it", "labels": ["in-progress"]}]' \
    "[{\"number\": 5, \"title\": \"fix: Bash works on it (#2)\",
       \"files\": [\"src.c\"], \"head\": {\"ref\": \"fix/issue-2\", \"sha\": \"$SHA\"},
       \"reviews\": [{\"user\": \"review-bot\", \"state\": \"APPROVED\",
                     \"commit_id\": \"$SHA\"}]}]" \
    "\"statuses\": {\"$SHA\": {\"state\": \"success\"}}" >"$T/case.json"
dev_sim "$T/case.json"
DEVLOCK=$RUN/dev-agent-$PROJ.lock
REVLOCK=$RUN/$PROJ-review.lock

# bash_run SCRIPT N LOCK: a live run of upstream's SCRIPT for N, its PID
# in LOCK as the script writes it.  Its PID in $BASH_PID.
bash_run() {
	mkdir -p "$T/factory-bash"
	printf 'trap "exit 0" TERM\nwhile :; do sleep 1; done\n' \
	    >"$T/factory-bash/$1"
	sh "$T/factory-bash/$1" "$2" &
	BASH_PID=$!
	echo "$BASH_PID" >"$3"
}
bash_end() {
	kill "$BASH_PID" 2>/dev/null
	wait "$BASH_PID" 2>/dev/null
}
trap 'bash_end; t_cleanup' EXIT

bash_run dev-agent.sh 2 "$DEVLOCK"
dp
rc_is "bash dev-agent.sh 2 lives: the tick" 0
lhas "standing back, said with the pid and the lock" \
    "standing back from #2: bash dev-agent.sh \(pid $BASH_PID\) holds $DEVLOCK"
check_eq "its approved, green PR is not merged" \
    "$(sim_state_get '[p["merged"] for p in d["pulls"]][0]')" false
check_eq "no forge write at all: #1 waits (one agent per project)" \
    "$(writes)" 0
lhas "the agent slot is bash's" "agent running: bash dev-agent.sh \\(pid $BASH_PID\\)"
dp --issue 2 --force
rc_is "--issue 2 --force" 0
check_eq "--issue 2: said" "$(cat "$T/dp.out")" \
    "issue #2: not started: bash dev-agent.sh (pid $BASH_PID) works on it"
check "no session for #2" sh -c \
    "! tmux -L $(tmux_sock) has-session -t dev-$PROJ-2 2>/dev/null"
check_eq "the lock is bash's still" "$(cat "$DEVLOCK")" "$BASH_PID"

# Another program's PID in the file (a PID reused): not bash's run.
sleep 60 &
OTHER=$!
echo "$OTHER" >"$DEVLOCK"
dp --dry-run
lnot "another program: no standing back" "standing back"
kill "$OTHER"
wait "$OTHER" 2>/dev/null

# The run is over, its file left behind: ignored, and said; the PR
# is merged.
echo "$BASH_PID" >"$DEVLOCK"
bash_end
dp
rc_is "a dead pid: the tick" 0
lhas "a dead pid: said and ignored" \
    "$DEVLOCK names pid $BASH_PID, which is gone: ignored"
check_eq "a dead pid: the PR is merged" \
    "$(sim_state_get '[p["merged"] for p in d["pulls"]][0]')" true
rm -f "$DEVLOCK"

# review-pr.sh 5 by hand: review-poll's tick stands back whole (the
# lock serialised bash's reviews), and leaves bash's PID in its file.
: >"$FACTORY_ROOT/state/.reviewer-active"
REVLOG=$FACTORY_ROOT/review/review.log
rp() {
	"$O/review-poll/review-poll" "$@" "$P" >"$T/rp.out" 2>&1
	RP_RC=$?
}
bash_run review-pr.sh 5 "$REVLOCK"
rp
check_eq "bash review-pr.sh 5 lives: the tick (exit status)" "$RP_RC" 0
check "standing back from the PR, said" grep -q \
    "standing back from #5: bash review-pr.sh (pid $BASH_PID) holds $REVLOCK" \
    "$REVLOG"
check_eq "its PID stays in the lock" "$(cat "$REVLOCK")" "$BASH_PID"
rp --pr 5
check_eq "--pr 5 (exit status)" "$RP_RC" 0
check_eq "--pr 5: said" "$(cat "$T/rp.out")" \
    "PR #5: not reviewed now: bash review-pr.sh (pid $BASH_PID) reviews #5"
check "no review session" sh -c \
    "! tmux -L $(tmux_sock) has-session -t review-$PROJ-5 2>/dev/null"
bash_end
rp --dry-run
# A dry run logs to stderr only.
check "a dead pid: said and ignored" grep -q \
    "$REVLOCK names pid $BASH_PID, which is gone: ignored" "$T/rp.out"
