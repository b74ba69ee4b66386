# A merge whose session cannot be told alive or not (tmux did not answer):
# the after-merge steps are not all done, so the PR stays remembered
# (dev-state-P-N) and the next tick, which can tell, gives the session
# its PHASE:done.  Forgetting it then left the session in
# PHASE:awaiting_review for good: its PR no longer open, no phase
# reaction and no look at a remembered PR would ever end it.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
unset WOODPECKER_REPO_ID
S3=3333333333333333333333333333333333333333
scen '[{"number": 1, "title": "One", "labels": ["in-progress"]}]' \
    "[{\"number\": 3, \"title\": \"fix: One (#1)\", \"files\": [\"a.c\"],
       \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"$S3\"},
       \"reviews\": [{\"user\": \"review-bot\", \"state\": \"APPROVED\", \"commit_id\": \"$S3\"}]}]" \
    "\"statuses\": {\"$S3\": {\"state\": \"success\"}}" >"$T/case.json"
case_start
SDIR=$RUN/sessions/active/dev-$PROJ-1
PHASE=$SDIR/dev-session-$PROJ-1.phase
t_tmux new-session -d -s "dev-$PROJ-1" -x 200 -y 50 "env FAKE_AGENT_LOG=$T/al $FAKE_AGENT"
wait_for "t_tmux capture-pane -p -t dev-$PROJ-1 | grep -q '❯'" 10
mkdir -p "$SDIR"
echo PHASE:awaiting_review >"$PHASE"

# tmux that cannot say whether a session lives (has-session exits 2),
# first on the tools' PATH ($HOME/.local/bin comes first there).
mkdir -p "$T/home/.local/bin"
REAL_TMUX=$(command -v tmux)
cat >"$T/home/.local/bin/tmux" <<SH
#!/bin/sh
for a in "\$@"; do [ "\$a" = has-session ] && exit 2; done
exec "$REAL_TMUX" "\$@"
SH
chmod +x "$T/home/.local/bin/tmux"
OLD_HOME=$HOME
export HOME="$T/home"
dp
export HOME="$OLD_HOME"
check_eq "merged" "$(sim_state_get '[p["merged"] for p in d["pulls"]][0]')" true
lhas "said: a later tick tells it" "cannot tell whether session dev-$PROJ-1 lives"
check "the PR stays remembered" test -f "$RUN/dev-state-$PROJ-1"
check_eq "the phase not told yet" "$(head -1 "$PHASE")" PHASE:awaiting_review

# tmux answers again: the next tick finds the remembered PR merged and
# tells the session.
dp
rc_is "next tick" 0
wait_for "[ \"\$(head -1 '$PHASE' 2>/dev/null)\" != PHASE:awaiting_review ]" 10
check "the session is told PHASE:done (or ended)" \
    sh -c "[ ! -f '$PHASE' ] || head -1 '$PHASE' | grep -q PHASE:done"
check "the PR is forgotten once told" test ! -f "$RUN/dev-state-$PROJ-1"
