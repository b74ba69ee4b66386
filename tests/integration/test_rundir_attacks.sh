# Run-directory attacks: in place of every run file the three tools read
# or write (phase files, ci-result, dev-notice, counters, review phase,
# output and request files, injection records, locks, status files,
# markers, escalation state, the project file), a symlink to a file, a
# symlink to a directory, a dangling symlink, a FIFO, a directory and a
# socket.  For each: the tick ends (under a timeout), nothing outside the
# run directory changes (the symlinks' targets, the file a dangling one
# names), nothing from the target reaches the log, and the tick's log says
# once that the file was refused.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
SHA1=$(git_branch fix/issue-1 a.c)
SHA2=$(git_branch fix/issue-2 b.c)
dev_sim - '[ci]' 'woodpecker_repo_id = 0' <<JSON
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true},
           {"login": "alice", "token": "alice-token"}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "blocked"}],
 "issues": [{"number": 1, "title": "One", "labels": ["in-progress"]},
            {"number": 2, "title": "Two", "labels": ["in-progress"]},
            {"number": 3, "title": "Three", "labels": ["in-progress"]},
            {"number": 4, "title": "Four", "labels": ["in-progress"],
             "comments": [{"user": "alice", "body": "an answer",
                           "created_at": "2030-01-01T00:00:00Z"}]}],
 "pulls": [{"number": 9, "title": "fix: One (#1)", "body": "Fixes #1",
            "head": {"ref": "fix/issue-1"},
            "reviews": [{"user": "review-bot", "state": "REQUEST_CHANGES",
                         "commit_id": "$SHA1", "body": "needs work"}]},
           {"number": 10, "title": "fix: Two (#2)", "body": "Fixes #2",
            "head": {"ref": "fix/issue-2"}}]}
JSON
export FORGE_REVIEW_TOKEN=review-token WOODPECKER_REPO_ID=0
: >"$FACTORY_ROOT/state/.reviewer-active"
mkdir -p "$FACTORY_ROOT/review" "$FACTORY_ROOT/supervisor" \
    "$FACTORY_ROOT/projects" "$T/proc"
printf '100000.00 200000.00\n' >"$T/proc/uptime"
printf 'SwapTotal: 0 kB\nSwapFree: 0 kB\n' >>"$T/meminfo"
export DISINTO_PROC_DIR=$T/proc DISINTO_DISK_PATH=$T SUPERVISOR_FIX_CMD=
export DISINTO_REVIEW_POLL=/bin/true
cp "$P" "$FACTORY_ROOT/projects/$PROJ.toml"
RV=$FACTORY_ROOT/review/review.log
SV=$FACTORY_ROOT/supervisor/supervisor.log
OUT=$T/outside
mkdir -p "$OUT/vdir"

# Agents that live through the whole test.
agent() {	# agent SESSION
	mkdir -p "$T/al-$1"
	t_tmux has-session -t "=$1" 2>/dev/null && return
	t_tmux new-session -d -s "$1" -x 200 -y 50 \
	    "env FAKE_AGENT_LOG=$T/al-$1 $FAKE_AGENT"
}

# world TOOL: the run files of a busy project, as the tools left them.
world() {
	rm -rf "$RUN"/*[!0-9a-z]* "$RUN"/*.lock 2>/dev/null
	find "$RUN" -mindepth 1 -maxdepth 1 ! -name "$PROJ-worktree-*" \
	    ! -name "$PROJ-review-[0-9]*" -exec rm -rf {} + 2>/dev/null
	for s in 1 2 3 4; do agent "dev-$PROJ-$s"; done
	agent "review-$PROJ-10"
	# dev: 1 waits for CI (its result recorded), 2 is done (its PR not
	# merged), 3 idles at its prompt without a phase, 4 escalated.
	mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
	echo PHASE:awaiting_ci >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
	printf 'SHA: %s\nSTATE: success\n' "$SHA1" \
	    >"$RUN/ci-result-$PROJ-1.txt"
	mkdir -p "$RUN/sessions/active/dev-$PROJ-2"
	echo PHASE:done >"$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase"
	mkdir -p "$RUN/sessions/active/dev-$PROJ-3"
	: >"$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
	: >"$RUN/sessions/active/dev-$PROJ-3/claude-idle-dev-$PROJ-3.ts"
	mkdir -p "$RUN/sessions/active/dev-$PROJ-4"
	printf 'PHASE:escalate\nReason: which one?\n' \
	    >"$RUN/sessions/active/dev-$PROJ-4/dev-session-$PROJ-4.phase"
	touch -d '7 hours ago' "$RUN/sessions/active/dev-$PROJ-4/dev-session-$PROJ-4.phase"
	echo "a reply" >"$RUN/dev-escalation-reply"
	# A legacy dev-agent (this shell) holds the slot, with its status.
	echo "$$" >"$RUN/dev-agent-$PROJ.lock"
	echo "[x] dev-poll: running" >"$RUN/dev-agent-status-$PROJ"
	# review: the review of #10 is written, waiting to be posted.
	mkdir -p "$RUN/sessions/active/review-$PROJ-10"
	echo PHASE:done >"$RUN/sessions/active/review-$PROJ-10/review-session-$PROJ-10.phase"
	printf 'SHA: %s\nAT: %s\n' "$SHA2" "$(($(date +%s) - 60))" \
	    >"$RUN/$PROJ-review-request-10"
	echo '{"verdict": "APPROVE", "verdict_reason": "ok", "review_markdown": "fine"}' \
	    >"$RUN/sessions/active/review-$PROJ-10/$PROJ-review-output-10.json"
	# review-poll routes the verdict of #9 to the session of #1.
	mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
	[ "$1" != review ] ||
	    echo PHASE:awaiting_review >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
	# outside the run directory: what the symlinks point at.
	echo precious >"$OUT/victim"
	rm -rf "$OUT/nowhere" "$OUT/vdir"/*
}

# plant KIND PATH
plant() {
	rm -rf "$2"
	case $1 in
	link) ln -s "$OUT/victim" "$2" ;;
	linkdir) ln -s "$OUT/vdir" "$2" ;;
	dangling) ln -s "$OUT/nowhere" "$2" ;;
	fifo) mkfifo "$2" ;;
	dir) mkdir "$2" ;;
	socket) python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$2" ;;
	esac
}

# tick TOOL: one tick of TOOL under a timeout; $TICK_RC, its log lines in
# $T/tick.log, its output in $T/tick.out.
tick() {
	case $1 in
	dev) _log=$DEVLOG; set -- "$O/dev-poll/dev-poll" "$P" ;;
	review) _log=$RV; set -- "$O/review-poll/review-poll" "$P" ;;
	supervisor) _log=$SV; set -- "$O/supervisor-poll/supervisor-poll" ;;
	esac
	_before=0
	[ ! -f "$_log" ] || _before=$(wc -l <"$_log")
	timeout 30 "$@" >"$T/tick.out" 2>&1
	TICK_RC=$?
	tail -n +"$((_before + 1))" "$_log" >"$T/tick.log" 2>/dev/null
}

# attack TOOL NAME: plant each kind at $RUN/NAME in turn, tick TOOL.
attack() {
	for kind in link linkdir dangling fifo dir socket; do
		world "$1"
		plant "$kind" "$RUN/$2"
		tick "$1"
		_why=
		[ "$TICK_RC" -ne 124 ] || _why="the tick hung;"
		grep -qE 'Sanitizer|runtime error' "$T/tick.out" &&
		    _why="$_why sanitizer: $(head -c 300 "$T/tick.out");"
		[ "$(cat "$OUT/victim")" = precious ] ||
		    _why="$_why the symlink's target was written;"
		[ -z "$(ls -A "$OUT/vdir")" ] ||
		    _why="$_why a file appeared in the linked directory;"
		[ ! -e "$OUT/nowhere" ] ||
		    _why="$_why the dangling symlink's target was created;"
		! grep -q precious "$T/tick.log" ||
		    _why="$_why the target's text reached the log;"
		_n=$(grep -cF "refusing '$RUN/$2'" "$T/tick.log")
		[ "$_n" -eq 1 ] ||
		    _why="$_why $_n refusal lines: $(tail -3 "$T/tick.log" | tr '\n' '|');"
		if [ -z "$_why" ]; then
			ok "$1: $kind as $2"
		else
			fail "$1: $kind as $2" "$_why"
		fi
		rm -rf "$RUN/$2"
	done
}

attack dev "dev-poll-$PROJ.lock"
attack dev "sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
attack dev "ci-result-$PROJ-1.txt"
attack dev "dev-notice-$PROJ-2"
attack dev "sessions/active/dev-$PROJ-3/claude-idle-dev-$PROJ-3.ts"
attack review "$PROJ-review.lock"
attack review "sessions/active/review-$PROJ-10/review-session-$PROJ-10.phase"
attack review "sessions/active/review-$PROJ-10/$PROJ-review-output-10.json"
attack review "$PROJ-review-request-10"
attack review "review-injected-$PROJ-9"
attack supervisor supervisor-poll.lock
attack supervisor supervisor-status
attack supervisor "dev-agent-$PROJ.lock"
attack supervisor "dev-agent-status-$PROJ"
attack supervisor "dev-escalation-notified-$PROJ-4"
attack supervisor "dev-renotify-$PROJ-4"
attack supervisor dev-escalation-reply
attack supervisor "sessions/active/dev-$PROJ-3/claude-idle-dev-$PROJ-3.ts"

# The project file given as the argument, or found in projects/: the
# tool stops with a configuration error naming it (exit 2) and does not
# hang on a FIFO.  (A project file is read before the log is open.)
attack_toml() {	# TOOL
	case $1 in
	supervisor) _toml=$FACTORY_ROOT/projects/$PROJ.toml ;;
	*) _toml=$P ;;
	esac
	cp "$_toml" "$T/saved.toml"
	for kind in link linkdir dangling fifo dir socket; do
		world "$1"
		plant "$kind" "$_toml"
		tick "$1"
		_why=
		[ "$TICK_RC" -ne 124 ] || _why="the tick hung;"
		[ "$(cat "$OUT/victim")" = precious ] ||
		    _why="$_why the symlink's target was written;"
		[ ! -e "$OUT/nowhere" ] ||
		    _why="$_why the dangling symlink's target was created;"
		# One line on stderr (cron mails it); the log, when open
		# already, has at most one refusal.
		_n=$(grep -cF "$_toml" "$T/tick.out")
		[ "$_n" -eq 1 ] ||
		    _why="$_why $_n lines name it: $(tail -3 "$T/tick.out" | tr '\n' '|');"
		[ "$(grep -cF "refusing '$_toml'" "$T/tick.log")" -le 1 ] ||
		    _why="$_why refused more than once;"
		[ "$TICK_RC" -eq 2 ] || _why="$_why exit status $TICK_RC;"
		if [ -z "$_why" ]; then
			ok "$1: $kind as the project file"
		else
			fail "$1: $kind as the project file" "$_why"
		fi
		rm -rf "$_toml"
		cp "$T/saved.toml" "$_toml"
	done
}

attack_toml dev
attack_toml review
attack_toml supervisor
