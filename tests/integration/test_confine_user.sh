# An agent runs as a Unix user of its own (AGENT_SANDBOX=user), through
# sudo, where bubblewrap cannot run: launched by dev-poll, the agent's
# process is that user's; it writes its phase file, its commit and the
# hooks' marks, and dev-poll takes them as its claims (the PR opened on
# PHASE:awaiting_ci, the next prompt on the CI's result); the factory's
# .env and the run directory's root stay out of its reach.  Root only
# (the user is made with useradd when missing); sudo from .ci/install-deps.
. "$(dirname "$0")/lib/common.sh"
AG=${CONFINE_USER:-disinto-agent}
if [ "$(id -u)" -ne 0 ]; then
	echo "ok - agents as their own user # SKIP not root"
	exit 0
fi
if ! command -v sudo >/dev/null 2>&1; then
	echo "ok - agents as their own user # SKIP no sudo"
	exit 0
fi
if ! other_user "$AG"; then
	echo "ok - agents as their own user # SKIP $NO_USER"
	exit 0
fi
if ! as_user "$AG" test -x "$O/dev-poll/dev-poll" ||
    ! as_user "$AG" test -r "$TOP/tests/fake-agent"; then
	echo "ok - agents as their own user # SKIP $O or $TOP not readable by $AG"
	exit 0
fi
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "Add a greeting", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
AGID=$(id -g "$AG")
# The operator's part: the test tree passed through; the .env 0600.  The
# bare origin stands for the forge: the agent's to push to (a local
# push runs its receive-pack as the agent), the tools' git taking it as
# safe.
chmod 711 "$T"
chown -R "$AG:$AGID" "$T/origin.git"
export HOME=$T/home
mkdir -p "$HOME"
git config --global --add safe.directory "$T/origin.git"
echo 'SECRET_IN_ENV=hunter2' >>"$FACTORY_ROOT/.env"
chmod 600 "$FACTORY_ROOT/.env"
export AGENT_SANDBOX=user AGENT_USER=$AG
S=dev-$PROJ-1
WT=$RUN/$PROJ-worktree-1
SDIR=$RUN/sessions/active/$S
cat >"$T/probe.sh" <<PROBE
out=\$1
{
id -u
cat "$FACTORY_ROOT/.env" >/dev/null 2>&1 && echo env-readable || echo env-unreadable
( : >"$RUN/ci-status-$PROJ" ) 2>/dev/null && echo record-written || echo record-refused
ls "$RUN" >/dev/null 2>&1 && echo run-listed || echo run-unlisted
} >"\$out"
PROBE
chmod 644 "$T/probe.sh"
cat >"$T/script.json" <<JSON
[ [ {"tool": {"name": "Bash", "input": {"command": "sh $T/probe.sh {workdir}/probe.out"}}},
    {"commit": {"file": "hello.txt", "text": "hello\n", "message": "fix: Add a greeting (#1)"},
     "push": "fix/issue-1", "summary": "Adds hello.txt.", "phase": "PHASE:awaiting_ci"} ],
  {"phase": "PHASE:done"} ]
JSON
export AGENT_CMD="env FAKE_AGENT_SCRIPT=$T/script.json FAKE_AGENT_LOG=.agentlog $FAKE_AGENT"
dp
rc_is "launch" 0
lhas "the session runs as the agents' user" "session $S confined: sudo -n -H -u $AG "
wait_for "[ -s '$WT/probe.out' ]" 30
check_eq "the agent's process is the agents' user's" \
    "$(sed -n 1p "$WT/probe.out" 2>/dev/null)" "$(id -u "$AG")"
check "ps shows the agent as $AG" sh -c \
    "ps -eo user:32=,args= | grep -v '^root ' | grep -q '^$AG .*fake-agent'"
check_eq "the factory's .env is unreadable" "$(sed -n 2p "$WT/probe.out")" env-unreadable
check_eq "no record in the run directory's root" "$(sed -n 3p "$WT/probe.out")" record-refused
check_eq "the run directory cannot be listed" "$(sed -n 4p "$WT/probe.out")" run-unlisted
check "the planted record is not there" test ! -e "$RUN/ci-status-$PROJ"
check "as $AG: touch RUN/ci-status-P fails" sh -c \
    "! setpriv --reuid=$AG --regid=$AGID --init-groups touch '$RUN/ci-status-$PROJ' 2>/dev/null"
check "as $AG: .env unreadable" sh -c \
    "! setpriv --reuid=$AG --regid=$AGID --init-groups cat '$FACTORY_ROOT/.env' >/dev/null 2>&1"
# Its claims, its own files in its session directory, taken by dev-poll:
# the PR opened on PHASE:awaiting_ci.
wait_for "[ -s '$SDIR/dev-session-$PROJ-1.phase' ]" 30
check_eq "the phase file is the agent's" \
    "$(stat -c %U "$SDIR/dev-session-$PROJ-1.phase" 2>/dev/null)" "$AG"
wait_for "[ -s '$SDIR/claude-idle-$S.ts' ]" 30
check_eq "the Stop hook's mark is the agent's" \
    "$(stat -c %U "$SDIR/claude-idle-$S.ts" 2>/dev/null)" "$AG"
pr_of() {
	sim_state_get "[p['number'] for p in d['pulls'] if p['head']['ref'] == '$1'][:1]" |
	    tr -d '[] '
}
_k=0
while [ "$_k" -lt 20 ] && [ -z "$(pr_of fix/issue-1)" ]; do
	dp
	sleep 1
	_k=$((_k + 1))
done
if [ -n "$(pr_of fix/issue-1)" ]; then
	ok "dev-poll took PHASE:awaiting_ci: the PR is opened"
else
	fail "dev-poll took PHASE:awaiting_ci: the PR is opened" \
	    "$(tail -5 "$DEVLOG" | tr '\n' '|')"
fi
lnot "dev-poll refused none of its claims" "poll: refusing '$SDIR"
# The CI's result reaches the agent as its next prompt.
SHA=$(git --git-dir="$T/origin.git" rev-parse fix/issue-1 2>/dev/null)
sim_post /_admin/status "{\"sha\": \"$SHA\", \"state\": \"success\"}" >/dev/null
_k=0
while [ "$_k" -lt 20 ] && ! grep -q "prompt 2" "$WT/.agentlog/events.log" 2>/dev/null; do
	dp
	sleep 1
	_k=$((_k + 1))
done
check "the CI's result is its next prompt" grep -q "prompt 2" "$WT/.agentlog/events.log"
