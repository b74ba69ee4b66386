# One bad issue never stalls the backlog.  Three ready backlog issues,
# oldest first: #1's worktree path was taken first by another local user
# (a directory of theirs where dev-poll makes the worktree), #2 has more
# than 8 MiB of comments (any forge user can add them; the forge's
# answer is over the body cap), #3 is fine.  One tick backs #1 and #2
# off (nothing claimed, a record each, one log line each) and launches
# #3.  Until their waits are over the ticks pass them over; once over
# they are tried again: #1, whose path is free now, is launched and its
# record forgotten, #2 fails again and waits twice as long.  A failure
# that is not the issue's (the forge refuses the claim) is no back-off.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
export WOODPECKER_REPO_ID=0
BIG=$T/big-comments.json
python3 - "$BIG" <<'PY'
import json, sys
body = "x" * (1024 * 1024)
json.dump([{"user": "alice", "body": "%d %s" % (i, body),
            "created_at": "2024-02-03T10:%02d:00Z" % i} for i in range(9)],
          open(sys.argv[1], "w"))
PY
scen "[{\"number\": 1, \"title\": \"Squatted\", \"labels\": [\"backlog\"]},
       {\"number\": 2, \"title\": \"Chatty\", \"labels\": [\"backlog\"],
        \"comments\": $(cat "$BIG")},
       {\"number\": 3, \"title\": \"Fine\", \"labels\": [\"backlog\"]}]" \
    '[]' >"$T/case.json"
case_start
WT1=$RUN/$PROJ-worktree-1
OTHER=$(id -u nobody 2>/dev/null)
SQUAT=0
if [ -n "$OTHER" ] && [ "$OTHER" != "$(id -u)" ] && mkdir "$WT1" &&
    echo theirs >"$WT1/file" && chown -R nobody "$WT1" 2>/dev/null; then
	SQUAT=1
else
	rm -rf "$WT1"
	echo "# no directory of another user can be made here (not root," \
	    "or no user 'nobody'): #1 is a plain backlog issue"
fi
skip_unless_squat() {	# NAME: ok with a SKIP note when #1 is not squatted
	[ "$SQUAT" = 1 ] && return 1
	echo "ok - $1 # SKIP no directory of another user can be made"
	return 0
}

# --- one tick: #1 and #2 backed off, #3 launched -------------------------
dp
rc_is "the tick" 0
check "#3 launched in the same tick" t_tmux has-session -t "=dev-$PROJ-3"
check_eq "#3 claimed" "$(labels 3)" in-progress
check_eq "#2: nothing claimed" "$(labels 2)" backlog
lhas "#2: why, in one line" \
    "#2: cannot be launched: its comments cannot be read: response body over [0-9]+ bytes from 'GET [^']*/repos/johba/harb/issues/2/comments' — backed off until [0-9T:-]+Z \\(1 failure in a row\\); going on with the next issue"
check_eq "#2: its record" \
    "$(sed -n 's/^FAILURES: //p' "$RUN/dev-backoff-$PROJ-2")" 1
NEXT2=$(sed -n 's/^NEXT: //p' "$RUN/dev-backoff-$PROJ-2")
NOW=$(date +%s)
check "#2: backed off for 10 minutes" \
    test "$NEXT2" -gt $((NOW + 540)) -a "$NEXT2" -le $((NOW + 600))
if ! skip_unless_squat "#1: backed off, nothing claimed"; then
	check_eq "#1: nothing claimed" "$(labels 1)" backlog
	lhas "#1: why, in one line" \
	    "#1: cannot be launched: '$WT1' belongs to another user \\(uid $OTHER\\) — backed off until"
	check "#1: their directory is left alone" test -f "$WT1/file"
	check_eq "#1: its record" \
	    "$(sed -n 's/^FAILURES: //p' "$RUN/dev-backoff-$PROJ-1")" 1
fi
check_eq "the only forge writes are #3's claim" \
    "$(sim_get /_admin/log | pyjson '[e["path"].split("/repos/johba/harb")[1] for e in d if e["method"] != "GET"]')" \
    '["/issues/3/labels", "/issues/3/labels/1"]'
"$O/dev-poll/dev-poll" --status "$P" >"$T/status.out" 2>&1
check "--status: #2 backed off, until when, why" grep -qE \
    "^ .* #2 until [0-9T:-]+Z \\(1 failure: its comments cannot be read: response body over" \
    "$T/status.out"
"$O/dev-poll/dev-poll" --status --json "$P" >"$T/status.json" 2>&1
check_eq "--status --json: #2's failures" \
    "$(pyjson '[b["failures"] for p in d["projects"] for b in p["backoffs"] if b["issue"] == 2]' <"$T/status.json")" \
    '[1]'

# --- #3's session ends (the issue closed by a person); the next ticks
# pass #1 and #2 over while they wait.
t_tmux kill-session -t "=dev-$PROJ-3"
rm -f "$RUN/sessions/active/dev-$PROJ-3/dev-session-$PROJ-3.phase"
sim_post /_admin/item '{"number": 3, "state": "closed"}' >/dev/null
W=$(writes)
dp
rc_is "a tick while both wait" 0
lhas "#2 passed over, said why" \
    "#2: launch backed off until [0-9T:-]+Z \\(1 failure: its comments cannot be read"
check_eq "nothing claimed while they wait" "$(writes)" "$W"
check "no session while they wait" sh -c \
    "! tmux -L $(tmux_sock) list-sessions 2>/dev/null | grep -q dev-$PROJ"

# --- the waits are over: #1 (free now) is launched, #2 fails again ------
[ "$SQUAT" = 1 ] && rm -rf "$WT1"
for n in 1 2; do
	[ -e "$RUN/dev-backoff-$PROJ-$n" ] &&
	    sed -i 's/^NEXT: .*/NEXT: 1/' "$RUN/dev-backoff-$PROJ-$n"
done
dp
rc_is "the tick after the waits" 0
check "#1 launched after its wait" t_tmux has-session -t "=dev-$PROJ-1"
check_eq "#1 claimed" "$(labels 1)" in-progress
check "#1: its record is forgotten" test ! -e "$RUN/dev-backoff-$PROJ-1"
t_tmux kill-session -t "=dev-$PROJ-1"
rm -f "$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
sim_post /_admin/item '{"number": 1, "state": "closed"}' >/dev/null
dp
rc_is "#2 tried again" 0
check_eq "#2: two failures in a row" \
    "$(sed -n 's/^FAILURES: //p' "$RUN/dev-backoff-$PROJ-2")" 2
NEXT2=$(sed -n 's/^NEXT: //p' "$RUN/dev-backoff-$PROJ-2")
NOW=$(date +%s)
check "#2: now backed off for 20 minutes" \
    test "$NEXT2" -gt $((NOW + 1140)) -a "$NEXT2" -le $((NOW + 1200))
check_eq "#2: still not claimed" "$(labels 2)" backlog

# --- a failure that is not the issue's: the forge refuses the claim ----
scen '[{"number": 5, "title": "Five", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
fault POST '/issues/5/labels$' 500
dp
rc_is "the forge refuses the claim" 1
check "no back-off for the forge's failure" test ! -e "$RUN/dev-backoff-$PROJ-5"
faults_clear
dp
rc_is "then the launch" 0
check "#5 launched at once" t_tmux has-session -t "=dev-$PROJ-5"
