# An agent runs confined (bubblewrap): launched by dev-poll as every
# session is, it runs a probe through its Bash tool, as a prompt-injected
# agent would, and finds the factory's .env hidden, the run directory
# empty but for its own worktree and session directory, another
# worktree, the tmux server and the tools' processes out of reach, its
# global settings read-only; while its hooks still write their marks in
# its session directory and the wrapper, outside, wakes the tool.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
command -v bwrap >/dev/null 2>&1 || { echo "ok - skipped: no bwrap"; exit 0; }
dev_init git
scen '[{"number": 1, "title": "Add a parser", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
case_start
# A HOME of the test's own: the agent CLI's configuration in it.
HOME=$T/home
PYENV_ROOT=${PYENV_ROOT:-/root/.pyenv}
export HOME PYENV_ROOT
mkdir -p "$HOME/.claude"
echo '{}' >"$HOME/.claude/settings.json"
echo 'SECRET_IN_ENV=hunter2' >>"$FACTORY_ROOT/.env"
mkdir -p "$RUN/$PROJ-worktree-99"
echo other >"$RUN/$PROJ-worktree-99/file"
export AGENT_SANDBOX=bwrap DISINTO_WAKE=true
cat >"$T/probe.sh" <<PROBE
out=\$1
{
grep -q hunter2 "$FACTORY_ROOT/.env" 2>/dev/null && echo env-visible || echo env-hidden
[ -e "$RUN/$PROJ-worktree-99/file" ] && echo worktree-visible || echo worktree-hidden
ls -A "$RUN" | tr '\n' ' '; echo
tmux -L "$DISINTO_TMUX_SOCKET" list-sessions >/dev/null 2>&1 && echo tmux-reachable || echo tmux-unreachable
cat /proc/$$/environ >/dev/null 2>&1 && echo proc-visible || echo proc-hidden
( : >>"\$HOME/.claude/settings.json" ) 2>/dev/null && echo settings-writable || echo settings-readonly
( : >"$FACTORY_ROOT/planted" ) 2>/dev/null && echo factory-writable || echo factory-readonly
( : >"$RUN/ci-status-$PROJ" ) 2>/dev/null && echo record-written || echo record-refused
( : >"\$(dirname "\$out")/wrote-worktree" ) 2>/dev/null && echo worktree-writable || echo worktree-readonly
} >"\$out"
PROBE
cat >"$T/script.json" <<'JSON'
[[{"tool": {"name": "Bash", "input": {"command": "sh PROBE {workdir}/probe.out"}}}]]
JSON
sed -i "s|PROBE|$T/probe.sh|" "$T/script.json"
S=dev-$PROJ-1
WT=$RUN/$PROJ-worktree-1
SDIR=$RUN/sessions/active/$S
dp
rc_is "launch" 0
lhas "the session is confined by bubblewrap" "session $S confined: bwrap "
wait_for "[ -s '$WT/probe.out' ]" 20
P_OUT=$(cat "$WT/probe.out" 2>/dev/null)
has() { check "$1" sh -c "printf '%s\n' \"\$P_OUT\" | grep -qx -- '$2'"; }
export P_OUT
has "the factory's .env is hidden" env-hidden
has "another worktree is out of reach" worktree-hidden
has "the tmux server is out of reach" tmux-unreachable
has "the tools' processes are not in its /proc" proc-hidden
has "its global settings are read-only" settings-readonly
has "the factory is read-only" factory-readonly
has "no tool's record can be written" record-refused
has "its worktree is its to write" worktree-writable
check_eq "the run directory shows only its own places" \
    "$(printf '%s\n' "$P_OUT" | sed -n 3p | tr ' ' '\n' | grep -v '^$' | sort | tr '\n' ' ')" \
    "$PROJ-worktree-1 sessions "
check "the planted record is not there" test ! -e "$RUN/ci-status-$PROJ"
check "the factory file was not planted" test ! -e "$FACTORY_ROOT/planted"
check_eq "the settings are unchanged" "$(cat "$HOME/.claude/settings.json")" "{}"
# The hooks ran inside and wrote their mark in the session directory;
# the wrapper, outside, woke the tool.
wait_for "[ -s '$SDIR/claude-idle-$S.ts' ]" 20
check "the Stop hook's mark in the session directory" test -s "$SDIR/claude-idle-$S.ts"
wait_for "grep -q 'its stop mark wakes the tool' '$FACTORY_ROOT/dev/dev-agent-$PROJ.log'" 20
check "the wrapper wakes the tool" grep -q "session $S: its stop mark wakes the tool" "$FACTORY_ROOT/dev/dev-agent-$PROJ.log"

