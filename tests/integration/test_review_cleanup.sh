# review-poll's guards and housekeeping: the active flag, broken review
# settings in the project file, --dry-run (every side effect logged, none taken), the
# tick lock, the memory guard (no launch, collection still done), the cap
# on review sessions alive (an orphan session counts), the cleanup of
# review sessions whose PR closed, that waited for changes past 4 hours
# or whose phase is unknown, and of sessions without run files; an agent
# that goes away without a review is started once more per try, 3 tries.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
rv_setup
TT="$O/tests/tools/tmux-tool -L $(tmux_sock) -T $T"
LOG=$FACTORY_ROOT/review/review.log
# Review agents that never finish; three of them work at once, so no
# Claude session lock is shared between them.
echo '[[{"say": "reviewing"}]]' >"$T/idle-agent.json"
export AGENT_CMD="$FAKE_AGENT --script $T/idle-agent.json"
export CLAUDE_SESSION_LOCK=

for n in 1 2 3 4 5 7; do
	eval "S$n=\$(rv_branch fix/issue-$n f$n.c 'f$n')"
done
python3 - "$T" "$S1" "$S2" "$S3" "$S4" "$S5" "$S7" <<'PY'
import json, sys
t, shas = sys.argv[1], sys.argv[2:]
nums = [1, 2, 3, 4, 5, 7]
json.dump([{"number": 10 + n, "title": "fix: f%d (#%d)" % (n, n),
            "head": {"ref": "fix/issue-%d" % n}, "files": ["f%d.c" % n],
            "body": "Fixes #%d" % n} for n in nums],
          open(t + "/pulls.json", "w"))
json.dump({s: {"state": "success"} for s in shas},
          open(t + "/statuses.json", "w"))
PY
rv_scenario "$T/scenario.json"
sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
    { fail "simulator starts"; exit 1; }

# run_files: the run files of reviews (not locks, status, try counts,
# the bots' logins or the tick's settings record).
run_files() {
	(cd "$DISINTO_RUN_DIR" &&
	    { ls | grep -vx sessions; ls sessions/active 2>/dev/null |
		sed 's,^,sessions/active/,'; } |
	    grep -v -e '\.lock$' -e -review-status -e -review-tries- \
		-e '^forge-logins$' -e '\.settings$' |
	    tr '\n' ' ')
}

# Orphans: sessions without run files, #14's PR closed, #15's open.
for n in 14 15; do
	$TT new "review-$P-$n" "$T" "$FAKE_AGENT" >/dev/null
done
sim_post /_admin/item '{"number": 14, "state": "closed"}' >/dev/null

# A review of #17 that finished while no tick ran: its run files only
# (its launch record, then the agent's phase and output).
printf 'SHA:%s\nPREV:\nAT:%s\n' "$S7" "$(($(date +%s) - 60))" \
    >"$DISINTO_RUN_DIR/$P-review-request-17"
mkdir -p "$DISINTO_RUN_DIR/sessions/active/review-$P-17"
echo PHASE:done >"$DISINTO_RUN_DIR/sessions/active/review-$P-17/review-session-$P-17.phase"
echo '{"verdict": "APPROVE", "verdict_reason": "ok", "review_markdown": "fine"}' \
    >"$DISINTO_RUN_DIR/sessions/active/review-$P-17/$P-review-output-17.json"

# Inactive: nothing at all.
rm "$FACTORY_ROOT/state/.reviewer-active"
rv_tick
check_eq "inactive: exit 0" "$RV_RC" 0
check_has "inactive: logged" "$(cat "$LOG")" "reviewer not active"
check_eq "inactive: no request" "$(sim_get /_admin/log | pyjson 'len(d)')" 0
: >"$FACTORY_ROOT/state/.reviewer-active"

# Broken review settings ([review] of the project file) are a
# configuration error, logged where the operator looks.
printf 'name = "%s"\nrepo = "johba/harb"\n[review]\nmax_diff_bytes = "lots"\n' \
    "$P" >"$T/bad.toml"
BEFORE=$(run_files)
rv_tick "$T/bad.toml"
check_eq "bad settings: exit 2" "$RV_RC" 2
WANT="$T/bad.toml:4: [review] max_diff_bytes: expected a whole number from 1000 to 1000000, got 'lots'"
check "bad settings: the message names file and line" \
    grep -qF "$WANT" "$T/tick.out"
check "bad settings: the message is in review.log" grep -qF "$WANT" "$LOG"
check "bad settings: the status file says failing" \
    grep -qF "review-poll: failing: $WANT" "$DISINTO_RUN_DIR/$P-review-status"
rm -f "$DISINTO_RUN_DIR/$P-review-status"
check_eq "bad settings: no request" "$(sim_get /_admin/log | pyjson 'len(d)')" 0
check_eq "bad settings: run files untouched" "$(run_files)" "$BEFORE"

# --dry-run: logs what it would do, does nothing.
BEFORE=$(run_files)
LOGSIZE=$(wc -c <"$LOG")
: >"$T/tick.out"
rv_tick --dry-run
check_eq "dry-run: exit 0" "$RV_RC" 0
check_eq "dry-run: no write on the forge" "$(write_requests)" 0
check_eq "dry-run: run files untouched" "$(run_files)" "$BEFORE"
check_eq "dry-run: no new session" "$(sessions)" \
    "review-harb-14 review-harb-15 "
check_eq "dry-run: no worktree" "$(git -C "$T/repo" worktree list | wc -l)" 1
check_eq "dry-run: nothing logged to the file" "$(wc -c <"$LOG")" "$LOGSIZE"
# Its log lines are on stderr.
D=$(cat "$T/tick.out")
check_has "dry-run: would post the finished review" "$D" \
    "dry-run: would comment on #17"
check_has "dry-run: would submit its formal review" "$D" \
    "dry-run: would submit a APPROVED review of #17"
check_has "dry-run: would kill the orphan of a closed PR" "$D" \
    "dry-run: would kill session review-harb-14"
check_has "dry-run: would start reviews" "$D" \
    "dry-run: would start session review-harb-13"
check_has "dry-run: would inject the prompt" "$D" \
    "dry-run: would inject"

# Another tick holds the lock: nothing happens.
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(30)' "$DISINTO_RUN_DIR/$P-review.lock" "$T/locked" &
FLOCK_PID=$!
wait_for '[ -e "$T/locked" ]' 5
rv_tick
check_eq "locked: exit 0" "$RV_RC" 0
check_has "locked: logged" "$(cat "$LOG")" "another review-poll holds"
check_eq "locked: no write" "$(write_requests)" 0
kill "$FLOCK_PID" 2>/dev/null
wait "$FLOCK_PID" 2>/dev/null

# Low memory: the finished review is posted, nothing is started.
printf 'MemAvailable: 1024000 kB\n' >"$T/meminfo"
rv_tick
check_eq "low memory: exit 0" "$RV_RC" 0
check_has "low memory: logged" "$(cat "$LOG")" "skip: 1000 MB available"
check_eq "low memory: the finished review was posted" \
    "$(rv_reviews 17)" "review-bot APPROVED $S7 False"
check_eq "low memory: its run files are gone" \
    "$(ls "$DISINTO_RUN_DIR" | grep -c -- '-17')" 0
check_eq "orphan of a closed PR killed, live one kept" "$(sessions)" \
    "review-harb-15 "

# Memory back: #15 has a live session already, and it counts: two
# reviews start, the third waits (at most 3 review sessions alive).
printf 'MemAvailable: 4096000 kB\n' >"$T/meminfo"
rv_tick
check_eq "launch tick: exit 0" "$RV_RC" 0
check_eq "two reviews start beside the orphan" "$(sessions)" \
    "review-harb-12 review-harb-13 review-harb-15 "
check "the cap is logged" grep -q \
    "hit max reviews (3): 3 review session(s) running" \
    "$FACTORY_ROOT/review/review.log"
REVIEW_MAX_REVIEWS_PER_TICK=4 rv_tick
check_eq "with room for four: the third starts" "$(sessions)" \
    "review-harb-11 review-harb-12 review-harb-13 review-harb-15 "

# Now #11 closes, #12 asked for changes and no push came for over 4 h,
# #13's phase file says something unknown; #12 and #13 got the approval
# of a person whose verdicts count (FORGE_REVIEWERS) meanwhile.
export FORGE_REVIEWERS=alice
sim_post /_admin/item '{"number": 11, "state": "closed"}' >/dev/null
for n in 12 13; do
	SIM_TOKEN=alice-token sim_post "/api/v1/repos/johba/harb/pulls/$n/reviews" \
	    '{"event": "APPROVED", "body": "fine"}' >/dev/null
done
echo review-harb-11 >"$DISINTO_RUN_DIR/review-injected-$P-11"
mkdir -p "$DISINTO_RUN_DIR/sessions/active/review-$P-12"
printf 'PHASE:awaiting_changes\nSHA:%s\n' "$S2" \
    >"$DISINTO_RUN_DIR/sessions/active/review-$P-12/review-session-$P-12.phase"
touch -d '4 hours ago 1 minute ago' "$DISINTO_RUN_DIR/sessions/active/review-$P-12/review-session-$P-12.phase"
mkdir -p "$DISINTO_RUN_DIR/sessions/active/review-$P-13"
echo PHASE:review_complete >"$DISINTO_RUN_DIR/sessions/active/review-$P-13/review-session-$P-13.phase"
rv_tick
check_eq "cleanup tick: exit 0" "$RV_RC" 0
check_eq "sessions of the closed, idle and unknown reviews killed" \
    "$(sessions)" "review-harb-15 "
check_eq "their run files removed (and #11's injection record)" \
    "$(run_files)" ""
check_eq "their worktrees removed" \
    "$(git -C "$T/repo" worktree list | wc -l)" 1
L=$(cat "$LOG")
check_has "closed PR logged" "$L" \
    "cleanup: review of pr #11 (pr no longer open)"
check_has "idle review logged" "$L" "cleanup: review of pr #12 (idle for 24"
check_has "unknown phase logged" "$L" \
    "cleanup: review of pr #13 (phase 'PHASE:review_complete')"

# A review agent that goes away without a review is started once more;
# the second time its review is reported as an error, once.
S8=$(rv_branch fix/issue-8 f8.c "f8")
sim_post /_admin/status "{\"sha\": \"$S8\", \"state\": \"success\"}" >/dev/null
N8=$(SIM_TOKEN=dev-token sim_post /api/v1/repos/johba/harb/pulls \
    '{"title": "fix: f8 (#8)", "head": "fix/issue-8", "base": "master", "body": "Fixes #8"}' |
    pyjson 'd["number"]')
echo '[[{"sleep": 0.5}, {"exit": 3}]]' >"$T/crash-agent.json"
export AGENT_CMD="$FAKE_AGENT --script $T/crash-agent.json"
gone() {
	wait_for "! t_tmux has-session -t review-$P-$N8" 10
}
rv_tick
# The log, not the session list: the agent may be gone by now.
check_has "crashing agent: started" "$(cat "$LOG")" \
    "pr #$N8: review session review-$P-$N8 started"
gone
rv_tick
check_eq "crash: exit 0" "$RV_RC" 0
check_has "crash: started once more" "$(cat "$LOG")" \
    "pr #$N8: the review agent exited without a review, starting it once more"
check_eq "crash: no comment yet" "$(rv_comments "$N8")" "[]"
check_eq "crash: marked as retried" \
    "$(grep RETRIED "$DISINTO_RUN_DIR/$P-review-request-$N8")" RETRIED:1
gone
rv_tick
C8=$(rv_comments "$N8")
check_has "second crash: error comment" "$C8" "<!-- review-error: $S8 -->"
check_has "second crash: says why" "$C8" "no output file; the agent exited"
check_eq "second crash: the next try (2 of 3) starts at once" \
    "$(sed -n 's/^TRIES: //p' "$DISINTO_RUN_DIR/$P-review-tries-$N8")" 2
# Each later tick is one more try (crash, restart, crash), until 3.
for i in 1 2 3 4 5 6; do
	gone
	rv_tick
done
check_eq "crashing agent: 3 tries, each started once more" \
    "$(grep -c "pr #$N8: the review agent exited without a review" \
	"$FACTORY_ROOT/review/review.log")" 3
check "then left until a new push" grep -q \
    "pr #$N8: $(printf %.7s "$S8") tried 3 times without a usable review" \
    "$FACTORY_ROOT/review/review.log"
check_eq "one error comment in all, no session left" \
    "$(rv_comments "$N8" | pyjson 'len(d)') $(sessions)" "1 review-harb-15 "
