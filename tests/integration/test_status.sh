# --status and --status --json of every executable against a world of two
# projects: dev sessions in several phases (one alive, one gone while
# escalated, one with no phase yet, one live session without a phase
# file), review sessions running and awaiting changes, CI-fix counts,
# recorded failures, status lines and logs, a session's PR and CI
# record, the tools' metrics files (last tick and exit).  The output is compared with
# golden files (tests/fixtures/status.txt, status.json); the ages are made
# stable by setting the files' times back by whole minutes and, in the
# JSON, checked against the times then rounded to minutes.  The three
# executables print the same; nothing is written, the forge is never
# asked; a project file or --project chooses one project.
. "$(dirname "$0")/lib/common.sh"
t_setup
sim_start "$TOP/tests/fixtures/sim-basic.json" || { fail "simulator starts"; exit 1; }
RUN=$DISINTO_RUN_DIR
F=$FACTORY_ROOT
mkdir -p "$F/projects" "$F/dev" "$F/review" "$F/supervisor" "$F/state"
unset FORGE_REPO CODEBERG_REPO PROJECT_NAME FORGE_TOKEN
for p in harb:johba/harb other:johba/other; do
	cat >"$F/projects/${p%%:*}.toml" <<EOF
name = "${p%%:*}"
repo = "${p#*:}"
forge_url = "$SIM_URL"
EOF
done

# put FILE AGE TEXT: a run file written AGE ago ("125 minutes ago").
put() {
	mkdir -p "${1%/*}"
	printf '%b' "$3" >"$1"
	touch -d "$2" "$1"
}
put "$RUN/sessions/active/dev-harb-3/dev-session-harb-3.phase" '125 minutes ago' 'PHASE:awaiting_ci\n'
put "$RUN/sessions/active/dev-harb-5/dev-session-harb-5.phase" '3 hours ago' \
    'PHASE:escalate\nReason: which API version?\n'
put "$RUN/sessions/active/dev-harb-7/dev-session-harb-7.phase" '10 minutes ago' ''
put "$RUN/sessions/active/review-harb-12/review-session-harb-12.phase" '5 minutes ago' ''
put "$RUN/sessions/active/review-harb-13/review-session-harb-13.phase" '2880 minutes ago' \
    'PHASE:awaiting_changes\nSHA:0123456789abcdef0123456789abcdef01234567\n'
put "$RUN/sessions/active/dev-other-1/dev-session-other-1.phase" '40 minutes ago' 'PHASE:awaiting_review\n'
: >"$RUN/dev-escalation-notified-harb-5"
: >"$RUN/dev-renotify-harb-5"
printf '{"20": 2, "21": 4}' >"$F/dev/ci-fixes-harb.json"
printf 'FAILURES: 2\nNEXT: 4102444800\nREASON: %s\n' \
    "its comments cannot be read: response body over 8388608 bytes" \
    >"$RUN/dev-backoff-harb-4"
printf 'FAILURES: 1\nNEXT: 1714550400\nREASON: %s\n' \
    "'/tmp/harb-worktree-6' belongs to another user (uid 1001)" \
    >"$RUN/dev-backoff-harb-6"
cat >"$F/supervisor/escalations-harb.jsonl" <<'EOF'
{"ts":"2024-05-01T08:00:00Z","project":"harb","issue":4,"pr":0,"reason":"crashed"}
{"ts":"2024-05-01T09:00:00Z","project":"harb","issue":9,"pr":19,"reason":"idle_prompt"}
EOF
echo '[2024-05-01 10:00:00 UTC] dev-poll: #3: session running (backlog)' \
    >"$RUN/dev-agent-status-harb"
printf '%s\n' '[2024-05-01 10:05:00 UTC] poll: --- older ---' \
    '[2024-05-01 10:06:00 UTC] poll: agent running (session dev-harb-3)' \
    >"$F/dev/dev-agent-harb.log"
echo '[2024-05-01 10:03:00 UTC] review-poll: configuration loaded' \
    >"$RUN/harb-review-status"
echo '[2024-05-01 10:01:00 UTC] poll: dev not active — skipping' \
    >"$F/dev/dev-agent-other.log"
echo '[2024-05-01 10:10:00 UTC] supervisor: all clear' \
    >"$RUN/supervisor-status"
printf '%s\n' '[2024-05-01 10:10:00 UTC] checking project harb (johba/harb)' \
    '[2024-05-01 10:10:01 UTC] all clear' >"$F/supervisor/supervisor.log"
printf '%s\n\n' '[2024-05-01 10:03:05 UTC] --- poll done: 1 review(s) started ---' \
    >"$F/review/review.log"
# A session's PR and the CI state recorded for its head; a review's head.
printf 'PR: 20\n' >"$RUN/dev-state-harb-3"
printf 'SHA: %s\nSTATE: failure\nPIPELINE: 7\nATTEMPT: 1\n\nCI failed\n' \
    0123456789abcdef0123456789abcdef01234567 >"$RUN/ci-result-harb-3.txt"
printf 'SHA: fedcba9876543210fedcba9876543210fedcba98\n' \
    >"$RUN/harb-review-request-12"
# The last ticks: their metrics files, written 7 minutes ago.
mkdir -p "$F/metrics"
printf '%s\n' '# TYPE disinto_tick_exit_code gauge' \
    'disinto_tick_exit_code{tool="dev-poll",project="harb"} 1' \
    >"$F/metrics/dev-poll-harb.prom"
printf 'disinto_tick_exit_code 0\n' >"$F/metrics/supervisor-poll.prom"
touch -d '7 minutes ago' "$F/metrics/dev-poll-harb.prom" \
    "$F/metrics/supervisor-poll.prom"
# A status line of a session that is gone: marked as past.
echo '[2024-05-01 09:00:00 UTC] dev-poll: #2: session running (backlog)' \
    >"$RUN/dev-agent-status-other"
# Live sessions: dev-harb-3, dev-harb-7, dev-harb-9 (no phase file),
# review-harb-12, and one of a project that is not configured.
for s in dev-harb-3 dev-harb-7 dev-harb-9 review-harb-12 dev-gone-1; do
	t_tmux new-session -d -s "$s" sleep 600
done

listing() {
	(cd "$RUN" && stat -c '%n %Y' . && ls -lA --time-style=+%s . | sort)
	(cd "$F" && find . -type f | sort | xargs ls -la --time-style=+%s)
}
listing >"$T/before"

sed "s|@FACTORY@|$F|g; s|@SOCKET@|$DISINTO_TMUX_SOCKET|g" \
    "$TOP/tests/fixtures/status.txt" >"$T/want.txt"
for p in dev-poll review-poll supervisor-poll; do
	"$O/$p/$p" --status >"$T/$p.raw" 2>"$T/$p.err"
	check_eq "$p --status: exit 0" "$?" 0
	# A tick's time is the metrics file's: now, less its age.
	sed -E 's/^(.* tick: +)[0-9]{4}-[0-9-]+T[0-9:]+Z/\1@TIME@/' \
	    "$T/$p.raw" >"$T/$p.txt"
	if cmp -s "$T/want.txt" "$T/$p.txt"; then
		ok "$p --status: the golden text"
	else
		fail "$p --status: the golden text" \
		    "$(diff "$T/want.txt" "$T/$p.txt" | head -20 | tr '\n' '|')"
	fi
	check_eq "$p --status: nothing on stderr" "$(cat "$T/$p.err")" ""
done

# The JSON: every "since" plus "age_seconds" is "generated_at", the ages
# are those the files were given (to the minute); then rounded.
normalise() {
	python3 - "$1" <<'PY'
import json, sys, datetime
d = json.load(open(sys.argv[1]))
def t(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").timestamp()
now = t(d.pop("generated_at"))
def walk(o):
    if isinstance(o, dict):
        if "age_seconds" in o and o["age_seconds"] is not None:
            assert abs(t(o["since"]) + o["age_seconds"] - now) <= 1, o
            o["age_minutes"] = int(o.pop("age_seconds")) // 60
            o["since"] = "SINCE"
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(d)
print(json.dumps(d, indent=1, sort_keys=True, ensure_ascii=False))
PY
}
sed "s|@FACTORY@|$F|g; s|@SOCKET@|$DISINTO_TMUX_SOCKET|g" \
    "$TOP/tests/fixtures/status.json" >"$T/want.json"
for p in dev-poll review-poll supervisor-poll; do
	"$O/$p/$p" --status --json >"$T/$p.json" 2>"$T/$p.err"
	check_eq "$p --status --json: exit 0" "$?" 0
	if normalise "$T/$p.json" >"$T/$p.norm" 2>"$T/norm.err" &&
	    cmp -s "$T/want.json" "$T/$p.norm"; then
		ok "$p --status --json: the golden JSON"
	else
		fail "$p --status --json: the golden JSON" \
		    "$(cat "$T/norm.err"; diff "$T/want.json" "$T/$p.norm" | head -20 | tr '\n' '|')"
	fi
done

listing >"$T/after"
check "--status writes nothing" cmp -s "$T/before" "$T/after"
check_eq "--status asks no forge" "$(sim_log_count '*' '.')" 0

# --forge: a fresh read.  harb's simulator has PR #3 (fix/issue-1, no CI
# status: success) and the backlog #1, and #2 (priority) that depends on
# #1: #2 waits for #1 (open), #1 is the next ready issue.  dev-harb-1 has
# no PR recorded: the forge finds it by its branch.
put "$RUN/sessions/active/dev-harb-1/dev-session-harb-1.phase" '3 minutes ago' 'PHASE:awaiting_ci\n'
FORGE_TOKEN=dev-token "$O/dev-poll/dev-poll" --status --forge \
    "$F/projects/harb.toml" >"$T/forge.txt" 2>"$T/forge.err"
check_eq "--status --forge: exit 0" "$?" 0
check "--status --forge: the PR found by its branch, its CI now" grep -qE \
    '^    dev-harb-1 +PHASE:awaiting_ci +3m  gone  PR #3 open, CI success at 11111111$' \
    "$T/forge.txt"
check "--status --forge: the dependency a priority issue waits for" \
    grep -qx '                 #2 waits for #1 (open)' "$T/forge.txt"
check "--status --forge: the next ready issue" \
    grep -qx '                 next ready: #1 Add a README' "$T/forge.txt"
check "--status --forge: a PR the forge does not know is said" grep -qF \
    'the forge could not be read' "$T/forge.txt"
check "--status --forge: only GET requests" \
    test "$(sim_log_count '*' '.')" -gt 0 -a "$(sim_log_count GET '.')" = \
    "$(sim_log_count '*' '.')"
rm -f "$RUN/sessions/active/dev-harb-1/dev-session-harb-1.phase"

# One project: the project file given, or --project.
"$O/dev-poll/dev-poll" --status "$F/projects/other.toml" >"$T/one.txt"
check_eq "a project file: that project only" \
    "$(grep -c '^project ' "$T/one.txt") $(grep '^project ' "$T/one.txt")" \
    "1 project other (johba/other)"
"$O/supervisor-poll/supervisor-poll" --status --project other >"$T/one2.txt"
check "--project other: the same" cmp -s "$T/one.txt" "$T/one2.txt"
"$O/supervisor-poll/supervisor-poll" --status --project nosuch >"$T/none.txt" 2>&1
check_eq "--project nosuch: exit 2" "$?" 2
check "--project nosuch: said" grep -qF "no project called 'nosuch'" "$T/none.txt"

# A project file that does not load is shown with its error.
printf 'name = "bad"\nrepo = "o/bad"\n[ci]\nwoodpecker_repo_id = "x"\n' \
    >"$F/projects/bad.toml"
"$O/review-poll/review-poll" --status >"$T/bad.txt"
check_eq "a broken project file: exit 0" "$?" 0
check "a broken project file: its error" grep -qF \
    "  error:         $F/projects/bad.toml:4: [ci] woodpecker_repo_id: expected a whole number >= 0, got 'x'" \
    "$T/bad.txt"
rm -f "$F/projects/"*.toml
"$O/dev-poll/dev-poll" --status >"$T/none.txt"
check "no project at all: said" grep -qx 'no projects' "$T/none.txt"

# A parked escalation frees the slot; a session stopped by an API error
# or idle at its prompt says why.
cat >"$F/projects/esc.toml" <<TOML
name = "esc"
repo = "johba/esc"
forge_url = "$SIM_URL"
TOML
put "$RUN/sessions/active/dev-esc-4/dev-session-esc-4.phase" '2 hours ago' \
    'PHASE:escalate\nReason: which licence?\n'
: >"$RUN/dev-escalation-notified-esc-4"
printf 'ID: 0123\nAT: 1\nWORKTREE: /tmp/x\nREASON: which licence?\n' \
    >"$RUN/dev-escalation-parked-esc-4"
"$O/dev-poll/dev-poll" --status "$F/projects/esc.toml" >"$T/esc.txt" 2>&1
check "a parked escalation: the slot is free" grep -q 'backlog: *slot free' \
    "$T/esc.txt"
check "a parked escalation: said so" grep -qF \
    '#4 escalated 2h00m ago, waiting for a reply on the issue (parked: its agent ended, the slot is free)' \
    "$T/esc.txt"
rm -f "$RUN/dev-escalation-parked-esc-4"
"$O/dev-poll/dev-poll" --status "$F/projects/esc.toml" >"$T/esc.txt" 2>&1
check "an escalation not parked: the slot is busy" grep -q \
    'slot busy: dev-esc-4' "$T/esc.txt"
rm -f "$RUN/sessions/active/dev-esc-4/dev-session-esc-4.phase" "$RUN/dev-escalation-notified-esc-4"
put "$RUN/sessions/active/dev-esc-5/dev-session-esc-5.phase" '20 minutes ago' 'PHASE:awaiting_ci\n'
mkdir -p "$RUN/sessions/active/dev-esc-5"
printf 'ERROR: rate_limit\nAT: %s\nRESET: 0\nSOURCE: hook\n' \
    "$(($(date +%s) - 600))" >"$RUN/sessions/active/dev-esc-5/api-error-dev-esc-5"
put "$RUN/sessions/active/dev-esc-6/dev-session-esc-6.phase" '30 minutes ago' ''
mkdir -p "$RUN/sessions/active/dev-esc-6"
date +%s >"$RUN/sessions/active/dev-esc-6/claude-idle-dev-esc-6.ts"
put "$RUN/sessions/active/dev-esc-7/dev-session-esc-7.phase" '30 minutes ago' 'PHASE:awaiting_ci\n'
mkdir -p "$RUN/sessions/active/dev-esc-7"
date +%s >"$RUN/sessions/active/dev-esc-7/claude-idle-dev-esc-7.ts"
"$O/dev-poll/dev-poll" --status "$F/projects/esc.toml" >"$T/esc.txt" 2>&1
check "stopped by an API error: said" grep -q \
    'dev-esc-5 .*Stopped: API error rate_limit, 10m ago' "$T/esc.txt"
check "idle at its prompt with no phase: said" grep -q \
    'dev-esc-6 .*Stopped: idle at its prompt with no phase for [0-9][0-9]*s' "$T/esc.txt"
check "waiting in a phase at its prompt: not stopped" grep -q \
    'dev-esc-7 .*PHASE:awaiting_ci.*gone  no PR recorded$' "$T/esc.txt"
"$O/dev-poll/dev-poll" --status --json "$F/projects/esc.toml" >"$T/esc.json"
check "--json: why it is stopped" grep -q '"stopped":.*rate_limit' \
    "$T/esc.json"
rm -f "$RUN"/*esc*

# --status on a broken project file: said, nothing written.
printf 'name = "brk"\nrepo = "o/brk"\n[ci]\nwoodpecker_repo_id = "x"\n' \
    >"$T/brk.toml"
listing >"$T/before.brk"
"$O/dev-poll/dev-poll" --status "$T/brk.toml" >"$T/brk.txt" 2>&1
check_eq "--status of a broken project file: exit 2" "$?" 2
check "--status of a broken project file: its error" grep -qF \
    "$T/brk.toml:4: [ci] woodpecker_repo_id" "$T/brk.txt"
listing >"$T/after.brk"
check "--status of a broken project file: nothing written" \
    cmp -s "$T/before.brk" "$T/after.brk"
