#!/bin/sh
# The real agent CLI (Claude Code), by hand, from launch to a merged PR:
# dev-poll and review-poll drive it in real tmux against the forge
# simulator, its Messages API answered by tests/tools/anthropic-sim.py,
# so that the CLI makes real requests, runs real tool calls and fires
# its real hooks, in whatever confinement the session's wrapper sets up.
# Not part of make test (CI runs the fake agent).  After make test-bins:
#
#   npm install -g @anthropic-ai/claude-code     (or a local install)
#   CLAUDE_BIN=$(command -v claude) O=. sh tests/manual/confined-real-cli.sh
#
# The scripted model: the dev session commits hello.txt, pushes
# fix/issue-1 and writes PHASE:awaiting_ci; on "CI passed" it writes
# PHASE:awaiting_review; the review session writes an APPROVE verdict and
# PHASE:done; on the verdict the dev session writes PHASE:done.  Each
# path comes from the session's own prompt ({{PHASE_FILE}},
# {{REVIEW_OUTPUT_FILE}}: anthropic-sim.py fills them in).  The ticks are
# run here, one at a time, as cron would; the script prints TAP lines,
# the log lines of each tick and, at the end, which hooks ran (the
# events the tools recorded) and whether the sessions ran confined (the
# agent's view of the run directory and of its processes).
#
# As root the CLI needs IS_SANDBOX=1, passed to it (AGENT_ENV_PASS).
# KEEP_T=1 keeps the test directory for a look.
set -u
: "${CLAUDE_BIN:?set CLAUDE_BIN to the claude executable}"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-.}
case $O in /*) ;; *) O=$TOP/$O ;; esac
export TOP O CLAUDE_BIN
. "$TOP/tests/integration/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
echo "# $("$CLAUDE_BIN" --version 2>/dev/null)"
dev_sim - '[ci]' 'woodpecker_repo_id = 0' <<'JSON'
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true},
           {"login": "dev-agent", "token": "agent-token",
            "permission": "write"}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "blocked"}],
 "issues": [{"number": 1, "title": "Add a greeting", "labels": ["backlog"],
             "body": "Add hello.txt with the word hello."}],
 "pulls": [],
 "branch_protections": [{"branch_name": "master",
                         "enable_merge_whitelist": true,
                         "merge_whitelist_usernames": ["dev-bot"]}]}
JSON
export FORGE_AGENT_TOKEN=agent-token WOODPECKER_REPO_ID=0
# The agents reach only the origin they push to (not the whole test tree).
export AGENT_SANDBOX_RW=$T/origin.git
: >"$FACTORY_ROOT/state/.reviewer-active"
mkdir -p "$FACTORY_ROOT/review"
KEY=sk-ant-api03-confined-$$-Zq81LmN4pR8sT1vW3yB5dF6gH0jK

# The Messages API, for both sessions, in the order their turns come.
cat >"$T/api.json" <<'JSON'
[{"tool": {"name": "Bash", "input": {"command": "echo hello > hello.txt && git add hello.txt && git commit -qm 'fix: Add a greeting (#1)' && git push -q origin HEAD:fix/issue-1 && printf 'PHASE:awaiting_ci\\n' > '{{PHASE_FILE}}'"}}},
 {"text": "pushed; waiting for CI"},
 {"tool": {"name": "Bash", "input": {"command": "printf 'PHASE:awaiting_review\\n' > '{{PHASE_FILE}}'"}}},
 {"text": "CI passed; waiting for the review"},
 {"tool": {"name": "Bash", "input": {"command": "printf '%s\\n' '{\"verdict\": \"APPROVE\", \"verdict_reason\": \"small and correct\", \"review_markdown\": \"Adds hello.txt as asked.\"}' > '{{REVIEW_OUTPUT_FILE}}' && printf 'PHASE:done\\n' > '{{PHASE_FILE}}'"}}},
 {"text": "reviewed"},
 {"tool": {"name": "Bash", "input": {"command": "printf 'PHASE:done\\n' > '{{PHASE_FILE}}'"}}},
 {"text": "done"}]
JSON
python3 "$TOP/tests/tools/anthropic-sim.py" --script "$T/api.json" \
    --log "$T/api.log" --port-file "$T/api.port" 2>/dev/null &
API_PID=$!
trap 'kill "$API_PID" 2>/dev/null; t_cleanup' EXIT
wait_for '[ -s "$T/api.port" ]' 10

# The CLI's home: onboarding done, the key approved, the repository (and
# so its worktrees) trusted.
mkdir -p "$T/home/.claude"
python3 - "$T/home/.claude.json" "$T/repo" "$KEY" <<'PY'
import json, sys
path, repo, key = sys.argv[1:4]
json.dump({"hasCompletedOnboarding": True,
           "bypassPermissionsModeAccepted": True,
           "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
           "projects": {repo: {"hasTrustDialogAccepted": True}}},
          open(path, "w"))
PY
# Claude Code 2.1 keeps the bypass-permissions acceptance in the user's
# settings (it moves bypassPermissionsModeAccepted there at its start,
# which a confined CLI cannot: settings.json is read-only to it).
echo '{"skipDangerousModePermissionPrompt": true}' >"$T/home/.claude/settings.json"
cat >"$FACTORY_ROOT/.env" <<ENV
HOME=$T/home
ANTHROPIC_API_KEY=$KEY
ANTHROPIC_BASE_URL=http://127.0.0.1:$(cat "$T/api.port")
IS_SANDBOX=1
AGENT_ENV_PASS=IS_SANDBOX
ENV
export AGENT_CMD="$CLAUDE_BIN --dangerously-skip-permissions"
REVIEW=$O/review-poll/review-poll
say_log() {
	sed 's/^/#   log: /' "$T/tick.log"
}
turns() {
	grep -c '"turn": true' "$T/api.log" 2>/dev/null || echo 0
}
merged() {
	sim_state_get "[p['merged'] for p in d['pulls']][:1]" | tr -d '[] '
}
pr_open() {
	[ -n "$(sim_state_get "[p['number'] for p in d['pulls']][:1]" | tr -d '[] ')" ]
}

dp
say_log
rc_is "launch" 0
check "the dev session pushed its branch" wait_for \
    "git --git-dir='$T/origin.git' rev-parse -q --verify fix/issue-1" 120
SHA=$(git --git-dir="$T/origin.git" rev-parse fix/issue-1 2>/dev/null)
sim_post /_admin/status "{\"sha\": \"$SHA\", \"state\": \"success\"}" >/dev/null
# stuck_paste: Claude Code 2.1 (seen with 2.1.197) can leave a session's
# first prompt in its input box, shown as "[Pasted text #1 +N lines]":
# the Enter typed after the paste came while the CLI still took the
# paste in, yet the pane had changed, so the delivery was counted.
# Said here, and Enter pressed by hand, so that the run goes on.
stuck_paste() {
	for s in $(sessions); do
		if t_tmux capture-pane -p -t "=$s" 2>/dev/null |
		    grep -q '^❯ \[Pasted text #[0-9]* '; then
			echo "# delivery: $s shows its prompt unsent in the input box; Enter pressed by hand"
			t_tmux send-keys -t "=$s" Enter
		fi
	done
}
k=0
while [ $k -lt 40 ] && [ "$(merged)" != true ]; do
	stuck_paste
	dp
	grep -v 'pre-lock\|checking\|agent running' "$T/tick.log" |
	    sed 's/^/#   log: /'
	AGENT_CMD=$AGENT_CMD "$REVIEW" "$P" >/dev/null 2>&1
	sleep 2
	k=$((k + 1))
done
check "a PR was opened" pr_open
check_eq "the PR merged" "$(merged)" true
check_eq "approved by the review bot" \
    "$(sim_state_get "' '.join(r['user'] for p in d['pulls'] for r in p['reviews'] if r['state'] == 'APPROVED')")" \
    review-bot
echo "#   turns asked of the API: $(turns)"
grep -o '"user": "tool_result[^"]*' "$T/api.log" | cut -c1-200 |
    sed 's/^/#   tool result: /'
echo "#   the dev log's merge and wake lines:"
grep -E 'woken|merged successfully|confin|sandbox' "$DEVLOG" | cut -c1-200 |
    sed 's/^/#     /'
# What the hooks left (Stop: claude-idle, PostToolUse: phase-changed,
# SessionEnd: claude-exited, the session id), wherever the sessions keep
# them.
echo "#   hook marks: $(find "$RUN" -name 'claude-*' -o -name 'phase-changed*' -o -name '*.ts' 2>/dev/null |
    sed "s|^$RUN/||" | sort | tr '\n' ' ')"
kill "$API_PID" 2>/dev/null
check "no key tail in any log or run file" sh -c "! grep -rlF --exclude=.env '$(printf %s "$KEY" | tail -c 12)' '$FACTORY_ROOT' '$RUN' 2>/dev/null | grep -q ."
