#!/bin/sh
# The real agent CLI (Claude Code), by hand: dev-poll drives it in real
# tmux against the forge simulator, with its Messages API answered by
# tests/tools/anthropic-sim.py, so that the CLI makes real requests, runs
# real tool calls and fires its real hooks.  Not part of make test (CI
# runs the fake agent); run it where the CLI is installed, after make
# test-bins:
#
#   npm install @anthropic-ai/claude-code
#   CLAUDE_BIN=$PWD/node_modules/@anthropic-ai/claude-code-linux-x64/claude \
#       O=. sh tests/manual/real-cli.sh [CASE...]
#
# CASE: launch, auth, invalid, model, guard, dialog (default: all).  Each
# prints TAP lines and what the log and --status said.  As root the CLI
# needs IS_SANDBOX=1, which the script passes to it (AGENT_ENV_PASS).
set -u
: "${CLAUDE_BIN:?set CLAUDE_BIN to the claude executable}"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-.}
case $O in /*) ;; *) O=$TOP/$O ;; esac
export TOP O CLAUDE_BIN
if [ "${1:-}" != --one ]; then
	[ $# -gt 0 ] || set -- launch auth invalid model guard dialog
	for c in "$@"; do
		echo "# === case $c: $("$CLAUDE_BIN" --version 2>/dev/null)"
		sh "$0" --one "$c"
	done
	exit 0
fi
CASE=$2
. "$TOP/tests/integration/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "Add a greeting", "labels": ["backlog"], "body": "Add hello.txt with the word hello."}]' '[]' >"$T/case.json"
dev_sim "$T/case.json"
S=dev-$PROJ-1
PHASE=$RUN/dev-session-$PROJ-1.phase
WT=$RUN/$PROJ-worktree-1
KEY=sk-ant-api03-realcli-$$-Zq81LmN4pR8sT1vW3yB5dF6gH0jK

# The Messages API: the case's script.
api() {	# api SCRIPT_JSON
	printf '%s\n' "$1" >"$T/api.json"
	python3 "$TOP/tests/tools/anthropic-sim.py" --script "$T/api.json" \
	    --log "$T/api.log" --port-file "$T/api.port" 2>/dev/null &
	API_PID=$!
	wait_for '[ -s "$T/api.port" ]' 10
}
# The CLI's home: onboarding done, the key approved (unless "dialog"),
# the repository trusted (a worktree is trusted through it).
home() {	# home APPROVE(0|1)
	mkdir -p "$T/home/.claude"
	python3 - "$T/home/.claude.json" "$T/repo" "$KEY" "$1" <<'PY'
import json, sys
path, repo, key, approve = sys.argv[1:5]
d = {"hasCompletedOnboarding": True, "bypassPermissionsModeAccepted": True,
     "projects": {repo: {"hasTrustDialogAccepted": True}}}
if approve == "1":
    d["customApiKeyResponses"] = {"approved": [key[-20:]], "rejected": []}
json.dump(d, open(path, "w"))
PY
	cat >"$FACTORY_ROOT/.env" <<ENV
HOME=$T/home
ANTHROPIC_API_KEY=$KEY
ANTHROPIC_BASE_URL=http://127.0.0.1:$(cat "$T/api.port")
IS_SANDBOX=1
AGENT_ENV_PASS=IS_SANDBOX
ENV
	export AGENT_CMD="$CLAUDE_BIN --dangerously-skip-permissions"
}
status() {	# what --status says, indented
	"$O/dev-poll/dev-poll" --status "$P" 2>&1 | sed 's/^/#   status: /'
}
say_log() {
	sed 's/^/#   log: /' "$T/tick.log"
}
finish() {
	kill "$API_PID" 2>/dev/null
	check "no key tail in any log or run file" sh -c "! grep -rlF --exclude=.env '$(printf %s "$KEY" | tail -c 12)' '$FACTORY_ROOT' '$RUN' 2>/dev/null | grep -q ."
}
turns() {	# how many turns the API was asked
	grep -c '"turn": true' "$T/api.log" 2>/dev/null || echo 0
}

case $CASE in
launch)
	api "[{\"tool\": {\"name\": \"Bash\", \"input\": {\"command\": \"echo hello > hello.txt && printf 'PHASE:awaiting_ci\\\\n' > $PHASE\"}}}, {\"text\": \"done\"}]"
	home 1
	dp
	say_log
	rc_is "launch: the tick" 0
	lhas "launch: the prompt was delivered" "initial prompt sent to session $S"
	check "launch: the API got the prompt" wait_for "grep -q 'issue #1' '$T/api.log'" 30
	check "launch: the tool call ran" wait_for "[ -f '$WT/hello.txt' ]" 30
	check "launch: the phase written through the tool" \
	    wait_for "grep -q awaiting_ci '$PHASE'" 30
	check "launch: the PostToolUse hook marked the phase change" \
	    wait_for "[ -s '$RUN/phase-changed-$S.marker' ]" 10
	check "launch: the Stop hook marked the turn's end" \
	    wait_for "[ -s '$RUN/claude-idle-$S.ts' ]" 30
	git -C "$WT" add -A
	check_eq "launch: git add -A leaves .claude/ out" \
	    "$(git -C "$WT" status --porcelain | tr '\n' ' ')" "A  hello.txt "
	status
	finish ;;
auth | model | invalid)
	case $CASE in
	auth) api '[{"error": 401, "times": 50}]' ;;
	model) api '[{"error": 404, "type": "not_found_error", "message": "model: claude-nope", "times": 50}]' ;;
	invalid) api '[{"error": 400, "message": "messages: text content blocks must be non-empty", "times": 50}]' ;;
	esac
	home 1
	dp
	say_log
	rc_is "$CASE: the launch" 0
	check "$CASE: the API answered the error" wait_for "[ \$(grep -c '\"error\"' '$T/api.log' 2>/dev/null || echo 0) -ge 1 ]" 60
	# The CLI retries what it retries; then its StopFailure hook, or
	# the screen, says so.
	wait_for "[ -s '$RUN/api-error-$S' ] || grep -q failed '$PHASE'" 300
	echo "#   api-error record: $(tr '\n' ' ' <"$RUN/api-error-$S" 2>/dev/null)"
	echo "#   phase: $(tr '\n' ' ' <"$PHASE" 2>/dev/null)"
	echo "#   turns asked: $(turns)"
	t_tmux capture-pane -p -t "=$S" 2>/dev/null | grep -v '^ *$' | tail -8 | sed 's/^/#   screen: /'
	dp
	say_log
	case $CASE in
	invalid)
		# The CLI names a 400 by its cause when it knows it
		# (invalid_request: the issue's), else "unknown" (a pause).
		check "invalid: seen in the next tick (the issue's failure or a pause)" \
		    grep -q "session failed\|api_error\|paused: " "$T/tick.log" ;;
	*)
		check "$CASE: the project paused" test -s "$RUN/api-pause-$PROJ"
		lhas "$CASE: the log says paused" "paused: "
		check "$CASE: the issue not blocked" sh -c "! labels 1 | grep -q blocked" ;;
	esac
	echo "#   labels of #1: $(labels 1)"
	status
	finish ;;
guard)
	mkdir -p /var/tmp/realcli-victim-$$
	api "[{\"tool\": {\"name\": \"Bash\", \"input\": {\"command\": \"curl -s -X PATCH -d '{\\\"state\\\":\\\"closed\\\"}' -H \\\"Content-Type: application/json\\\" -H \\\"Authorization: token \$FORGE_TOKEN\\\" \\\"\$FORGE_API/issues/1\\\"\"}}}, {\"tool\": {\"name\": \"Bash\", \"input\": {\"command\": \"cd / && rm -rf var/tmp/realcli-victim-$$\"}}}, {\"text\": \"done\"}]"
	home 1
	dp
	rc_is "guard: the launch" 0
	wait_for "[ \$(grep -c 'tool_result' '$T/api.log' 2>/dev/null || echo 0) -ge 2 ]" 60
	grep -o '"user": "tool_result[^"]*' "$T/api.log" | sed 's/^/#   tool result: /'
	check "guard: the body-first close refused" \
	    grep -q "BLOCKED: closing issues and PRs" "$T/api.log"
	check_eq "guard: the issue stays open" \
	    "$(sim_state_get '[i["state"] for i in d["issues"] if i["number"] == 1][0]')" open
	check "guard: cd / && rm -rf of a relative path refused" \
	    grep -q "BLOCKED: 'rm -r var/tmp/realcli-victim" "$T/api.log"
	check "guard: the directory is still there" test -d /var/tmp/realcli-victim-$$
	rmdir /var/tmp/realcli-victim-$$ 2>/dev/null
	finish ;;
dialog)
	api '[{"text": "done"}]'
	home 0
	dp
	say_log
	rc_is "dialog: the launch fails" 1
	lhas "dialog: the API key dialog named" "API key confirmation dialog"
	lhas "dialog: its key masked" 'ANTHROPIC_API_KEY: sk-ant-.*\[REDACTED\]'
	finish ;;
esac
