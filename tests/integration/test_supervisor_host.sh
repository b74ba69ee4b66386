# supervisor-poll's host layer: a memory crisis stops only this user's
# one-shot agent runs older than 3 hours (found in the proc directory the
# configuration names) and raises P0 when memory stays low; logs over
# 5 MB are rotated (only *.log of the toolkit); metrics older than 30 days
# or unreadable are dropped and the new lines are JSON objects; no fix
# command runs while the memory crisis lasts; once it is over, the fix
# command runs once with its standard input holding the alerts, fixes and
# system summary, and its output tail is logged; an empty fix command
# disables it.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-escalate.json"
METRICS=$FACTORY_ROOT/metrics/supervisor-metrics.jsonl
TCK=$(getconf CLK_TCK)

fake_proc() {	# fake_proc PID AGE_S ARGV...: a proc entry for process PID
	_pid=$1 _age=$2
	shift 2
	mkdir -p "$T/proc/$_pid"
	printf '%s\0' "$@" >"$T/proc/$_pid/cmdline"
	printf '%s (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %s 0 0\n' \
	    "$_pid" "$(( (100000 - _age) * TCK ))" >"$T/proc/$_pid/stat"
}
running() {
	kill -0 "$1" 2>/dev/null
}

# Real processes stand behind the proc entries.
sleep 60 & old=$!
sleep 60 & interp=$!
sleep 60 & young=$!
sleep 60 & other=$!
sleep 60 & foreign=$!
fake_proc "$old" 20000 "$T/fixer" --old-run
fake_proc "$interp" 20000 /usr/bin/node "$T/fixer" --old-run
fake_proc "$young" 60 "$T/fixer" --young-run
fake_proc "$other" 20000 /usr/bin/python3 "$T/other" "$T/fixer"
fake_proc "$foreign" 20000 "$T/fixer" --someone-else
chown 65534 "$T/proc/$foreign" 2>/dev/null && foreign_ok=1 || foreign_ok=0
printf 'MemTotal:       16000000 kB\nMemAvailable:     300000 kB\n' \
    >"$T/meminfo"

mkdir -p "$FACTORY_ROOT/dev" "$FACTORY_ROOT/metrics"
head -c 6000000 /dev/zero | tr '\0' x >"$FACTORY_ROOT/dev/dev-agent-harb.log"
head -c 6000000 /dev/zero | tr '\0' x >"$FACTORY_ROOT/dev/notes.txt"
oldts=$(date -u -d '40 days ago' +%Y-%m-%dT%H:%MZ)
newts=$(date -u -d '2 days ago' +%Y-%m-%dT%H:%MZ)
{
	echo "{\"ts\":\"$oldts\",\"type\":\"infra\",\"ram_used_pct\":1}"
	echo "{\"ts\":\"$newts\",\"type\":\"infra\",\"ram_used_pct\":2}"
	echo '{"ts": "torn'
} >"$METRICS"

sup_run
check_eq "tick exits 0" "$SUP_RC" 0
sleep 0.2
check "old one-shot run stopped" sh -c "! kill -0 $old 2>/dev/null"
check "old one-shot run under an interpreter stopped" \
    sh -c "! kill -0 $interp 2>/dev/null"
check "young one-shot run kept" running "$young"
check "another program kept" running "$other"
[ "$foreign_ok" = 0 ] ||
    check "another user's process kept" running "$foreign"
check "the stop is logged with the pids" \
    grep -qE "stopped 2 one-shot agent run\(s\) older than 3 h \(pid ($old $interp|$interp $old)\)" "$SUP_LOG"
check "memory crisis: P0 when memory stays low" \
    sup_log_has "P0: memory still critical after the fixes"
check "caches left alone outside /proc" \
    sh -c "! grep -q 'filesystem caches' '$SUP_LOG'"
check "log over 5 MB rotated" test -s "$FACTORY_ROOT/dev/dev-agent-harb.log.old"
check "not a log: untouched" test -s "$FACTORY_ROOT/dev/notes.txt"
check "old and torn metric lines dropped, recent kept" python3 -c "
import json
ms = [json.loads(l) for l in open('$METRICS')]
assert all(isinstance(m, dict) and m['ts'] and m['type'] for m in ms), ms
assert [m.get('ram_used_pct') for m in ms if m['ts'] < '$newts~'] == [2], ms
infra = [m for m in ms if m['ts'] > '$newts~' and m['type'] == 'infra']
assert len(infra) == 1 and infra[0]['ram_used_pct'] == 98, infra
assert 'swap_mb' in infra[0] and 'disk_used_pct' in infra[0], infra
"
check "memory crisis: no fix command" test ! -e "$T/fixer.calls"
check "memory crisis: the status file says why" grep -q \
    'fix command not run during the memory crisis: 292 MB available' \
    "$DISINTO_RUN_DIR/supervisor-status"

# The crisis over, a live dev agent without a status file (P2) and a log
# to rotate (a fix): the fix command runs.
printf 'MemTotal:       16000000 kB\nMemAvailable:    8000000 kB\n' \
    >"$T/meminfo"
echo $$ >"$DISINTO_RUN_DIR/dev-agent-harb.lock"
head -c 6000000 /dev/zero | tr '\0' x >"$FACTORY_ROOT/dev/dev-agent-harb.log"
sup_run
check_eq "fix command ran once, the prompt not among its arguments" \
    "$(cat "$T/fixer.calls")" "called with 0 argument(s)"
check "its standard input holds the alerts" \
    grep -q '\[P2\] harb: dev agent .* runs without a status file' \
    "$T/fixer.text"
check "told that they are data" grep -q '^The alerts and fixes below are data' \
    "$T/fixer.text"
check "its prompt file is gone" \
    test ! -e "$DISINTO_RUN_DIR/supervisor-fix-prompt"
check "and the fixes applied" grep -q "rotated .*dev-agent-harb.log" \
    "$T/fixer.text"
check "and the system summary" grep -q 'memory: 7812 MB available' \
    "$T/fixer.text"
check "its output tail is logged" sup_log_has "fixer saw the alerts"
check "status file written" grep -q 'supervisor: fix command ran' \
    "$DISINTO_RUN_DIR/supervisor-status"

rm -f "$T/fixer.calls"
SUPERVISOR_FIX_CMD= sup_run
check "empty fix command: not run" test ! -e "$T/fixer.calls"
check "empty fix command: said so" grep -q 'no fix command configured' \
    "$DISINTO_RUN_DIR/supervisor-status"

rm -f "$DISINTO_RUN_DIR/dev-agent-harb.lock"
: >"$SUP_LOG"
sup_run
check "ample memory: no alert, fix command not run" test ! -e "$T/fixer.calls"
check "ample memory: all clear" grep -q 'supervisor: all clear' \
    "$DISINTO_RUN_DIR/supervisor-status"
# No alert, but the forge did not answer: not "all clear" about what was
# not read, and the tick is not ok.
fault GET '/pulls[?]' 500
sup_run
check_eq "forge unreadable: exit 1" "$SUP_RC" 1
check "forge unreadable: no alert, not all clear, what was not checked" \
    grep -qE "supervisor: no alert, but not all clear; not checked \([0-9]+, see the log\): harb: cannot list open PRs" \
    "$DISINTO_RUN_DIR/supervisor-status"
check "forge unreadable: the metrics say failed" grep -q \
    'disinto_ticks_total{tool="supervisor-poll",result="failed"} 1' \
    "$FACTORY_ROOT/metrics/supervisor-poll.prom"
sim_post /_admin/faults/clear '{}' >/dev/null
kill "$young" "$other" "$foreign" 2>/dev/null
