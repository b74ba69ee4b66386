# A launch that fails after the claim gives the issue back: a worktree
# that cannot be made (repo_root is no repository) and an agent that exits
# before it is ready both end with in-progress removed and backlog
# restored, no session left and exit 1; the next tick tries again.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "Ready", "labels": ["backlog"]}]' '[]' >"$T/case.json"
mkdir -p "$T/norepo"
dev_sim "$T/case.json"
sed -i "s|^repo_root = .*|repo_root = \"$T/norepo\"|" "$P"

dp
rc_is "failed worktree" 1
lhas "failed worktree: the fetch failed" "fetch origin master' failed"
lhas "failed worktree: unclaimed" 'unclaiming issue #1'
check_eq "failed worktree: labels given back" "$(labels 1)" backlog
check_eq "failed worktree: claim, then unclaim" \
    "$(sim_get /_admin/log | pyjson '[e["method"] + " " + e["path"].split("/issues/1/")[1] for e in d if e["method"] != "GET"]')" \
    '["POST labels", "DELETE labels/1", "DELETE labels/2", "POST labels"]'
check "failed worktree: no session" sh -c "! tmux -L $(tmux_sock) has-session -t dev-$PROJ-1 2>/dev/null"
check "failed worktree: no worktree" test ! -e "$RUN/$PROJ-worktree-1"
dp
rc_is "failed worktree, next tick retries" 1
check_eq "failed worktree: labels given back again" "$(labels 1)" backlog

# The agent exits before showing its prompt.
sed -i "s|^repo_root = .*|repo_root = \"$T/repo\"|" "$P"
sim_post /_admin/log/reset '{}' >/dev/null
AGENT_CMD=false dp
rc_is "agent never ready" 1
lhas "agent never ready: logged" "cannot start session dev-$PROJ-1: session 'dev-$PROJ-1' exited before it was ready"
lhas "agent never ready: unclaimed" 'unclaiming issue #1'
check_eq "agent never ready: labels given back" "$(labels 1)" backlog
check "agent never ready: worktree removed" test ! -e "$RUN/$PROJ-worktree-1"
check_eq "agent never ready: git forgot the worktree" \
    "$(git -C "$T/repo" worktree list | wc -l)" 1
