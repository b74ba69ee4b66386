# Dry runs write to stderr only: on a world with work for every tool (a
# launchable backlog issue, a PR to review, an escalation past its
# timeout), a dry run of each tool and of each one-shot reads the forge,
# says on stderr what it would do, and leaves the run directory and the
# factory's dev/ review/ supervisor/ metrics/ state/ trees as they were
# (names, sizes, mtimes): no status file, log, metrics, run file, lock or
# state.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
SHA=$(git_branch fix/issue-3 three.c)
PRBODY='Fixes #3'
scen '[{"number": 1, "title": "Launch me", "labels": ["backlog"],
        "body": "do it"},
       {"number": 3, "title": "Three", "labels": []},
       {"number": 9, "title": "Nine", "labels": []}]' \
    "[{\"number\": 11, \"title\": \"fix: three (#3)\", \"user\": \"alice\",
       \"body\": \"$PRBODY\", \"files\": [\"three.c\"],
       \"head\": {\"ref\": \"fix/issue-3\", \"sha\": \"$SHA\"}}]" \
    "\"statuses\": {\"$SHA\": {\"state\": \"success\"}}" >"$T/case.json"
dev_sim "$T/case.json"
mkdir -p "$FACTORY_ROOT/projects" "$FACTORY_ROOT/review" \
    "$FACTORY_ROOT/supervisor" "$FACTORY_ROOT/metrics"
cp "$P" "$FACTORY_ROOT/projects/$PROJ.toml"
: >"$FACTORY_ROOT/state/.reviewer-active"
export SUPERVISOR_FIX_CMD=/bin/true DISINTO_PROC_DIR=$T/proc
mkdir -p "$T/proc"
printf '100000.00 200000.00\n' >"$T/proc/uptime"
# escalated: an escalation of #9 past its 24-hour timeout, whose session
# is gone (the supervisor would block #9); with "gone", none.
escalated() {
	rm -f "$RUN/sessions/active/dev-$PROJ-9/dev-session-$PROJ-9.phase"
	[ "$1" = gone ] && return
	mkdir -p "$RUN/sessions/active/dev-$PROJ-9"
	printf 'PHASE:escalate\nReason: which API?\n' \
	    >"$RUN/sessions/active/dev-$PROJ-9/dev-session-$PROJ-9.phase"
	touch -d '30 hours ago' "$RUN/sessions/active/dev-$PROJ-9/dev-session-$PROJ-9.phase"
}

# snap: every file and directory of the trees a tick may write, a file
# with its size and mtime (ns), and the worktrees of the clone.  (A tick
# lock taken and removed again is not a file left behind.)  The files a
# live session's own wrapper and hooks write (agent-S.state, the hooks'
# markers) change on the agent's time, not the tick's: left out.
snap() {
	find "$RUN" "$FACTORY_ROOT/dev" "$FACTORY_ROOT/review" \
	    "$FACTORY_ROOT/supervisor" "$FACTORY_ROOT/metrics" \
	    "$FACTORY_ROOT/state" \( -type d -printf '%p/\n' \) -o \
	    \( ! -name 'agent-*.state' ! -name 'claude-*' \
	    ! -name 'phase-changed-*' -printf '%p %y %s %T@\n' \) \
	    2>/dev/null | sort
	git -C "$T/repo" worktree list --porcelain
}

# dry NAME TOOL ARGS...: a dry run of TOOL; it exits 0, changes none of
# the trees, writes nothing on the forge, reads it, says "would" on
# stderr and prints nothing on stdout it should not.
dry() {
	_name=$1
	_tool=$2
	shift 2
	snap >"$T/before"
	sim_post /_admin/log/reset '{}' >/dev/null
	# The mtimes would not show a file rewritten in the same tick.
	sleep 0.01
	"$O/$_tool/$_tool" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	snap >"$T/after"
	check_eq "$_name: exit 0" "$RC" 0
	check_eq "$_name: no file created, replaced or removed" \
	    "$(diff "$T/before" "$T/after" | grep '^[<>]' | head -5)" ""
	check_eq "$_name: no write on the forge" \
	    "$(sim_log_count '(POST|PATCH|DELETE|PUT)' '.')" 0
	check "$_name: the forge was read" \
	    test "$(sim_log_count GET '.')" -gt 0
	check "$_name: stderr says what it would do" \
	    grep -q 'dry-run: would ' "$T/err"
	if grep -qE 'Sanitizer|runtime error:' "$T/err"; then
		fail "$_name: no sanitizer report" "$(head -3 "$T/err")"
	fi
}

# A tick of each tool, before any real run: nothing exists yet.
dry "dev-poll --dry-run" dev-poll --dry-run "$P"
check "dev-poll --dry-run: it would claim the backlog issue" \
    grep -q "dry-run: would add label 'in-progress' to #1" "$T/err"
check "dev-poll --dry-run: its log lines are timestamped on stderr" \
    grep -qE '^\[[0-9-]{10} [0-9:]{8} UTC\] ' "$T/err"
check "dev-poll --dry-run: no log file" test ! -e "$DEVLOG"
dry "review-poll --dry-run" review-poll --dry-run "$P"
check "review-poll --dry-run: it would start the review" \
    grep -q "dry-run: would start session review-$PROJ-11" "$T/err"
escalated
dry "supervisor-poll --dry-run" supervisor-poll --dry-run
escalated gone
check "supervisor-poll --dry-run: it would act on the escalation" \
    grep -q "dry-run: would .*#9" "$T/err"

# The one-shots.
dry "dev-poll --dry-run --issue 1" dev-poll --dry-run --issue 1 "$P"
check "dev-poll --dry-run --issue: it would start the session" \
    grep -q "dry-run: would start session dev-$PROJ-1" "$T/err"
check "dev-poll --dry-run --issue: no log file" test ! -e "$DEVLOG"
dry "review-poll --dry-run --pr 11" review-poll --dry-run --pr 11 "$P"
check "review-poll --dry-run --pr: no log file" \
    test ! -e "$FACTORY_ROOT/review/review.log"

# After a real tick of each, the files exist: a dry run leaves them as
# they are (the status line, the log, the metrics, the records).
"$O/dev-poll/dev-poll" "$P" >/dev/null 2>&1
"$O/review-poll/review-poll" "$P" >/dev/null 2>&1
check "a real tick writes the dev log" test -s "$DEVLOG"
check "a real tick writes the metrics" test -s "$FACTORY_ROOT/metrics/dev-poll-$PROJ.prom"
sim_stop
scen '[{"number": 2, "title": "Launch me", "labels": ["backlog"],
        "body": "do it"},
       {"number": 4, "title": "Four", "labels": []},
       {"number": 9, "title": "Nine", "labels": []}]' \
    "[{\"number\": 12, \"title\": \"fix: four (#4)\", \"user\": \"alice\",
       \"body\": \"Fixes #4\", \"files\": [\"three.c\"],
       \"head\": {\"ref\": \"fix/issue-3\", \"sha\": \"$SHA\"}}]" \
    "\"statuses\": {\"$SHA\": {\"state\": \"success\"}}" >"$T/case2.json"
dev_sim "$T/case2.json"
cp "$P" "$FACTORY_ROOT/projects/$PROJ.toml"
t_tmux kill-server 2>/dev/null
dry "dev-poll -n, files there" dev-poll -n "$P"
dry "review-poll -n, files there" review-poll -n "$P"
escalated
dry "supervisor-poll -n, files there" supervisor-poll -n
check "supervisor-poll -n: it would act on the escalation" \
    grep -q "dry-run: would .*#9" "$T/err"
escalated gone

