# A real factory, as an operator has one, run unchanged: the steps of
# README.md's "Installing in place of the bash scripts" in their order.
# The factory is a git clone of a repository made of
# tests/fixtures/factory (upstream's shape: its own review formula, a
# project file with [services], a multi-line array and a quoted id, a
# .env with export, quotes, comments and ${VAR}, the three bash poll
# scripts, no dev-*.md templates).
#
# 1. `make install-factory` puts the executables beside the bash scripts
#    and a launcher of each in the script's place; the checkout stays
#    clean; --version names the commit.
# 2. An edited formulas/dev-initial.md in the factory overrides the
#    compiled-in template.
# 3. The README's crontab lines, run as cron runs them (`sh -c` of the
#    line, `env -i PATH=/usr/bin:/bin HOME=...` plus the crontab's own
#    variables), drive the whole loop against the simulator with the fake
#    agent in real tmux, found only as ~/.local/bin/claude: launch, PR,
#    CI, review (with the factory's formula in its prompt), merge,
#    cleanup.  A bad configuration first: exit 2, the reason in the log,
#    nothing done on the forge or in the run directory.  Then `bash
#    dev/dev-poll.sh ...` (upstream's container loop and README) ticks.
# 4. `git pull` of an upstream commit that changes a replaced script
#    succeeds, and the executables stay.
# 5. `make uninstall-factory` gives the bash scripts back: `git status
#    --porcelain` is empty.  The same without git, from the backups.
#
# The agent environment check at the end (marked) is the agents' side of
# the same factory: what a session sees of .env and the project.
. "$(dirname "$0")/lib/common.sh"
t_setup
unset MAKEFLAGS MFLAGS MAKELEVEL
export GIT_AUTHOR_NAME=upstream GIT_AUTHOR_EMAIL=upstream@localhost
export GIT_COMMITTER_NAME=upstream GIT_COMMITTER_EMAIL=upstream@localhost
FIX=$TOP/tests/fixtures/factory
F=$FACTORY_ROOT
RUN=$DISINTO_RUN_DIR
H=$T/home
P=demo
MAKE="make --no-print-directory -C $TOP O=$O"
PROGS="dev/dev-poll.sh:dev-poll review/review-poll.sh:review-poll
supervisor/supervisor-poll.sh:supervisor-poll"
# installed ROOT SCRIPT:PROG: the executable PROG is beside SCRIPT, and
# SCRIPT is the launcher that execs it with its arguments.
installed() {
	_i_s=$1/${2%%:*}
	_i_p=${2#*:}
	cmp -s "${_i_s%/*}/$_i_p" "$O/$_i_p/$_i_p" &&
	    [ "$(head -1 "$_i_s")" = '#!/bin/sh' ] &&
	    grep -qxF "exec \"\$d/$_i_p\" \"\$@\"" "$_i_s"
}

# The crontab of README.md's install section: its variable lines and its
# commands (the schedule's five fields cut off; the example project is
# this factory's).
CRONTAB=$(awk '/^ *```cron/ { on = 1; next } /^ *```/ { on = 0 }
    on { sub(/^ +/, ""); print }' "$TOP/README.md")
cron_line() {	# cron_line SCRIPT: the command of the line running SCRIPT
	printf '%s\n' "$CRONTAB" | grep -v '^[A-Z_]*=' | grep -F "/$1" |
	    sed -E 's/^([^ ]+ +){5}//; s/myproject/'"$P"'/g'
}
DEV_LINE=$(cron_line dev/dev-poll.sh)
REVIEW_LINE=$(cron_line review/review-poll.sh)
SUP_LINE=$(cron_line supervisor/supervisor-poll.sh)
[ -n "$DEV_LINE" ] && [ -n "$REVIEW_LINE" ] && [ -n "$SUP_LINE" ] ||
    { fail "README.md has the crontab lines" "$CRONTAB"; exit 1; }
check_eq "README's crontab sets FACTORY_ROOT" \
    "$(printf '%s\n' "$CRONTAB" | grep -c '^FACTORY_ROOT=')" 1
check_eq "README's crontab: one line per executable" \
    "$(printf '%s\n' "$DEV_LINE" "$REVIEW_LINE" "$SUP_LINE" | grep -c .)" 3

# cron LINE: run a crontab command as cron does: `sh -c` under cron's
# environment, with the crontab's variables (FACTORY_ROOT as in the
# README; the run directory, tmux socket and memory figures of this
# test).  Exit status in $CRON_RC, output in $T/cron.out.
cron() {
	env -i PATH=/usr/bin:/bin HOME="$H" SHELL=/bin/sh \
	    LOGNAME="$(id -un)" FACTORY_ROOT="$F" DISINTO_RUN_DIR="$RUN" \
	    DISINTO_TMUX_SOCKET="$DISINTO_TMUX_SOCKET" \
	    DISINTO_MEMINFO="$T/meminfo" /bin/sh -c "$1" >"$T/cron.out" 2>&1
	CRON_RC=$?
	if grep -qE 'Sanitizer|runtime error:' "$T/cron.out"; then
		fail "'$1' ran without a sanitizer report" \
		    "$(head -5 "$T/cron.out" | tr '\n' '|')"
	fi
}
phase() {
	head -1 "$RUN/sessions/active/dev-$P-1/dev-session-$P-1.phase" 2>/dev/null
}
forge() {	# python expression over the simulator state d
	sim_get /_admin/state | pyjson "$1"
}
die() {
	fail "$1" "$(tail -5 "$F/dev/dev-agent-$P.log" "$F/review/review.log" \
	    2>/dev/null | tr '\n' '|')"
	exit 1
}

# The upstream factory and the operator's clone of it.
mkdir -p "$T/upstream"
cp -R "$FIX/." "$T/upstream/"
mv "$T/upstream/gitignore" "$T/upstream/.gitignore"
mv "$T/upstream/state/gitignore" "$T/upstream/state/.gitignore"
git -C "$T/upstream" init -q -b main
git -C "$T/upstream" add -A
git -C "$T/upstream" commit -q -m "the factory"
rmdir "$F"
git clone -q "$T/upstream" "$F" || die "clone the factory"

# The project: a bare origin and the clone the factory works in, the
# forge and CI simulator with one backlog issue.
git init -q --bare -b master "$T/origin.git"
git clone -q "$T/origin.git" "$T/repo" 2>/dev/null
(cd "$T/repo" && git checkout -q -b master && echo "# demo" >README.md &&
 git add README.md && git commit -q -m initial && git push -q origin master) ||
    die "project repository"
cat >"$T/scenario.json" <<'JSON'
{"repo": "johba/demo",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"}],
 "issues": [{"number": 1, "title": "Add a greeting", "labels": ["backlog"],
             "body": "Add hello.txt saying hello."}],
 "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": []}}
JSON
sim_start "$T/scenario.json" --git-dir "$T/origin.git" || die "simulator"

# The operator's own files, from the examples (ignored by the checkout,
# as upstream's .gitignore has it), and the switches that turn the dev
# and review agents on.
sed "s|@WOODPECKER_SERVER@|$SIM_URL|" "$F/.env.example" >"$F/.env"
# What disinto-c asks beyond bash: the agents' own forge token, and the
# paths outside its worktree a confined agent writes (the stand-in's log,
# the bare origin it pushes to).
printf 'FORGE_AGENT_TOKEN=agent-token\nAGENT_SANDBOX_RW=%s:%s\n' \
    "$T/agent" "$T/origin.git" >>"$F/.env"
sed "s|@FORGE_URL@|$SIM_URL|; s|@REPO_ROOT@|$T/repo|" \
    "$F/projects/demo.toml.example" >"$F/projects/$P.toml"
: >"$F/state/.dev-active"
: >"$F/state/.reviewer-active"
printf 'MemTotal: 16000000 kB\nMemAvailable: 8000000 kB\n' >"$T/meminfo"
check_eq "the operator's files are not in git status" \
    "$(git -C "$F" status --porcelain)" ""

# The agent CLI only in ~/.local/bin: the fake agent, with the script of
# the session's kind (a review worktree is named P-review-R), recording
# how it was found and what environment it got.
mkdir -p "$H/.local/bin" "$T/agent"
cat >"$H/.local/bin/claude" <<EOF
#!/bin/sh
case \$(pwd) in
*/$P-review-*) kind=review ;;
*) kind=dev ;;
esac
echo "\$0" >"$T/agent/argv0-\$kind"
env >"$T/agent/env-\$kind"
FAKE_AGENT_SCRIPT=$T/agent/\$kind-script.json
FAKE_AGENT_LOG=$T/agent/\$kind
export FAKE_AGENT_SCRIPT FAKE_AGENT_LOG
exec python3 "$FAKE_AGENT" "\$@"
EOF
chmod 755 "$H/.local/bin/claude"
cat >"$T/agent/dev-script.json" <<'JSON'
[ {"commit": {"file": "hello.txt", "text": "hello\n",
              "message": "fix: Add a greeting (#1)"},
   "push": "fix/issue-1", "summary": "Adds hello.txt.",
   "phase": "PHASE:awaiting_ci"},
  {"phase": "PHASE:awaiting_review"},
  {"phase": "PHASE:done"} ]
JSON
cat >"$T/agent/review-script.json" <<'JSON'
[ [{"capture": "REVIEW_OUTPUT_FILE=(?P<out>[^\\s]+)"},
   {"write": "{out}", "text": "{\"verdict\": \"APPROVE\", \"verdict_reason\": \"small and correct\", \"review_markdown\": \"### Summary\\nAdds hello.txt as asked.\"}"},
   {"phase": "PHASE:done"}] ]
JSON
check "no claude on cron's PATH (found only through ~/.local/bin)" \
    env -i PATH=/usr/bin:/bin sh -c '! command -v claude'

# Step 1: install.
if $MAKE install-factory FACTORY="$F" >"$T/install.out" 2>&1; then
	ok "make install-factory"
else
	fail "make install-factory" "$(tail -3 "$T/install.out" | tr '\n' '|')"
fi
for pair in $PROGS; do
	check "${pair%%:*} launches the executable ${pair#*:} beside it" \
	    installed "$F" "$pair"
done
check_eq "after install-factory, git status is empty" \
    "$(git -C "$F" status --porcelain)" ""
commit=
! git -C "$TOP" rev-parse -q HEAD >/dev/null 2>&1 ||
    commit=$(git -C "$TOP" rev-parse --short=12 HEAD)
for pair in $PROGS; do
	v=$("$F/${pair%%:*}" --version 2>&1)
	case $v in
	"${pair#*:} "[0-9]*" (commit $commit"*")" | \
	"${pair#*:} "[0-9]*" (built outside git)")
		ok "${pair%%:*} --version: $v" ;;
	*)	fail "${pair%%:*} --version names the version and commit" \
		    "got '$v', commit '$commit'" ;;
	esac
done
check "install-factory printed what it installed" \
    grep -q "installed $F/dev/dev-poll.sh: dev-poll " "$T/install.out"
check "install-factory recognised upstream at 2394908" \
    grep -q "^upstream: 2394908 " "$T/install.out"
check_eq "and recorded it where the tools read it" \
    "$(cat "$F/.disinto-c/upstream" 2>&1)" 2394908

# A factory that develops itself (repo_root is the factory): its agents'
# worktrees are linked worktrees of the factory's clone, and there the
# scripts are git's, not the executables, and an edit commits.
git -C "$F" worktree add -q "$T/selfdev" -b selfdev
check "a linked worktree holds the bash script, not the executable" \
    sh -c "git -C '$F' show HEAD:dev/dev-poll.sh | cmp -s - '$T/selfdev/dev/dev-poll.sh'"
echo "# an agent's edit" >>"$T/selfdev/dev/dev-poll.sh"
check_eq "the agent's edit shows in its worktree" \
    "$(git -C "$T/selfdev" status --porcelain)" " M dev/dev-poll.sh"
git -C "$T/selfdev" commit -qam "edit the script"
check_eq "the edit is committed" \
    "$(git -C "$T/selfdev" show HEAD:dev/dev-poll.sh | tail -1)" "# an agent's edit"
check "the factory's own checkout still runs the executable" \
    installed "$F" dev/dev-poll.sh:dev-poll
check_eq "and its git status is still empty" \
    "$(git -C "$F" status --porcelain)" ""
git -C "$F" worktree remove --force "$T/selfdev"
git -C "$F" branch -qD selfdev

# Step 2: the operator's own dev-initial.md, from the compiled-in one.
cp "$TOP/formulas/dev-initial.md" "$F/formulas/dev-initial.md"
{ echo "FACTORY-EDITED-PROMPT for #{{ISSUE}}."; echo
  cat "$TOP/formulas/dev-initial.md"; } >"$F/formulas/dev-initial.md"

# A bad configuration: exit 2, the reason with file:line in the log
# file, nothing done on the forge or in the run directory (but the
# status file saying why).
cp "$F/.env" "$T/env.good"
printf 'DEMO_BAD=$(id -u)\n' >>"$F/.env"
bad=$(wc -l <"$F/.env")
cron "$DEV_LINE"
check_eq "a bad .env: dev-poll exits 2" "$CRON_RC" 2
check "a bad .env: the reason is in dev-poll's log" \
    grep -qF "$F/.env:$bad: " "$F/dev/dev-agent-$P.log"
cron "$REVIEW_LINE"
check_eq "a bad .env: review-poll exits 2" "$CRON_RC" 2
check "a bad .env: the reason is in review-poll's log" \
    grep -qF "$F/.env:$bad: " "$F/review/review.log"
cron "$SUP_LINE"
check_eq "a bad .env: supervisor-poll exits 2" "$CRON_RC" 2
check "a bad .env: the reason is in supervisor-poll's log" \
    grep -qF "$F/.env:$bad: " "$F/supervisor/supervisor.log"
cp "$T/env.good" "$F/.env"
cp "$F/projects/$P.toml" "$T/toml.good"
printf '[ci]\nstale_minutes = 5\n' >>"$F/projects/$P.toml"
bad=$(wc -l <"$F/projects/$P.toml")
cron "$DEV_LINE"
check_eq "a bad project file: dev-poll exits 2" "$CRON_RC" 2
check "a bad project file: the reason is in dev-poll's log" \
    grep -qF "$F/projects/$P.toml:$((bad - 1)): " "$F/dev/dev-agent-$P.log"
cp "$T/toml.good" "$F/projects/$P.toml"
check_eq "bad configurations: no request reached the forge" \
    "$(sim_get /_admin/log | pyjson 'len(d)')" 0
n=0
for f in "$RUN"/* "$RUN"/.[!.]*; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	grep -qE ": failing: $F/[^:]+:[0-9]+: " "$f" ||
	    fail "bad configurations: only status files in the run directory" \
	    "${f##*/}: $(head -c 200 "$f")"
done
check_eq "bad configurations: the run directory holds the three status files (failing: file:line)" \
    "$n" 3
check_eq "bad configurations: no tmux session" "$(sessions)" ""

# Step 3: the crontab lines drive the loop.
cron "$DEV_LINE"
check_eq "dev-poll tick 1 (launch): exit 0" "$CRON_RC" 0
wait_for '[ "$(phase)" = PHASE:awaiting_ci ]' 30 ||
    die "the dev agent did not push and write PHASE:awaiting_ci"
ok "the dev agent ran, pushed and wrote PHASE:awaiting_ci"
check_eq "the dev agent was found as ~/.local/bin/claude" \
    "$(cat "$T/agent/argv0-dev")" "$H/.local/bin/claude"
check "the dev session got the factory's edited dev-initial.md" \
    grep -qx 'FACTORY-EDITED-PROMPT for #1.' "$T/agent/dev/prompt-1.txt"
check "the dev session got the compiled-in phase protocol" \
    grep -qF "$(sed -n '/[a-z]/{p;q;}' "$TOP/formulas/dev-phase-protocol.md" |
	sed 's/{{[A-Z_]*}}.*//')" "$T/agent/dev/prompt-1.txt"

cron "$DEV_LINE"
check_eq "dev-poll tick 2 (PR): exit 0" "$CRON_RC" 0
PR=$(forge "[p['number'] for p in d['pulls']][0]" 2>/dev/null)
[ -n "$PR" ] || die "dev-poll opened no PR"
SHA=$(git --git-dir="$T/origin.git" rev-parse fix/issue-1)
sim_post /_admin/pipeline "{\"commit\": \"$SHA\", \"status\": \"success\", \"branch\": \"fix/issue-1\", \"steps\": [{\"name\": \"test\", \"state\": \"success\", \"exit_code\": 0}]}" >/dev/null
cron "$DEV_LINE"
check_eq "dev-poll tick 3 (CI passed): exit 0" "$CRON_RC" 0
wait_for '[ "$(phase)" = PHASE:awaiting_review ]' 30 ||
    die "the dev session was not told CI passed"
ok "CI passed reached the dev session"

cron "$REVIEW_LINE"
check_eq "review-poll tick 1 (review agent): exit 0" "$CRON_RC" 0
# The review agent's Stop hook wakes review-poll (wakes are on in a
# factory run the way cron runs it), which may post the review before the
# next scheduled tick: either is the agent's end.
review_done() {
	grep -q done "$RUN/sessions/active/review-$P-$PR/review-session-$P-$PR.phase" 2>/dev/null ||
	    [ "$(forge "[r['state'] for p in d['pulls'] for r in p['reviews']]")" = '["APPROVED"]' ]
}
wait_for review_done 30 ||
    die "the review agent did not finish"
check_eq "the review agent was found as ~/.local/bin/claude" \
    "$(cat "$T/agent/argv0-review")" "$H/.local/bin/claude"
check "the review prompt holds the factory's formula" \
    grep -q 'FACTORY-FORMULA-MARKER: check the change' \
    "$T/agent/review/prompt-1.txt"
check "the review prompt holds the formula's [[steps]] as written" \
    grep -qx '\[\[steps\]\]' "$T/agent/review/prompt-1.txt"
cron "$REVIEW_LINE"
check_eq "review-poll tick 2 (post, route): exit 0" "$CRON_RC" 0
check_eq "the review is posted" \
    "$(forge "[r['state'] + ' by ' + r['user'] for p in d['pulls'] for r in p['reviews']]")" \
    '["APPROVED by review-bot"]'
# The dev agent's hooks wake dev-poll, which may merge and clean up
# before the next scheduled tick: either shows the verdict arrived.
verdict_done() {
	[ "$(phase)" = PHASE:done ] ||
	    [ "$(forge "[p['merged'] for p in d['pulls'] if p['number'] == $PR][0]")" = true ]
}
wait_for verdict_done 30 ||
    die "the verdict did not reach the dev session"
ok "the verdict reached the dev session"

cron "$DEV_LINE"
check_eq "dev-poll tick 4 (merge): exit 0" "$CRON_RC" 0
cron "$DEV_LINE"
check_eq "dev-poll tick 5 (cleanup): exit 0" "$CRON_RC" 0
check_eq "the PR is merged" \
    "$(forge "[p['merged'] for p in d['pulls'] if p['number'] == $PR][0]")" \
    true
check_eq "the issue is closed" \
    "$(forge "[i['state'] for i in d['issues'] if i['number'] == 1][0]")" \
    closed
check_eq "the sessions are gone" "$(sessions)" ""
check "the worktree is removed" test ! -e "$RUN/$P-worktree-1"
check_eq "no run file of the issue is left" \
    "$(ls "$RUN" | grep -c -- "-$P-1" || :)" 0
cron "$SUP_LINE"
check_eq "supervisor-poll: exit 0" "$CRON_RC" 0
check "supervisor-poll logged to the factory" \
    test -s "$F/supervisor/supervisor.log"
check "the bash scripts never ran" \
    test ! -e "$F/state/bash-stand-in.log"
# Upstream's README and BOOTSTRAP.md check a first run with `bash
# supervisor/supervisor-poll.sh`, and its container loop runs `bash
# dev/dev-poll.sh` every round: bash runs the launcher.
cron "cd '$F' && bash dev/dev-poll.sh '$F/projects/$P.toml'"
check_eq "bash dev/dev-poll.sh PROJECT_TOML: exit 0" "$CRON_RC" 0
check "bash dev/dev-poll.sh: the tick polls" \
    sh -c "tail -3 '$F/dev/dev-agent-$P.log' | grep -q 'poll: '"
cron "bash '$F/supervisor/supervisor-poll.sh'"
check_eq "bash supervisor/supervisor-poll.sh: exit 0" "$CRON_RC" 0
cron "cd '$F/review' && bash review-poll.sh '$F/projects/$P.toml'"
check_eq "bash review-poll.sh from its directory: exit 0" "$CRON_RC" 0
check "bash: the bash scripts never ran" \
    test ! -e "$F/state/bash-stand-in.log"
rm "$F/formulas/dev-initial.md"
check_eq "after the loop, git status is empty" \
    "$(git -C "$F" status --porcelain)" ""

# Step 4: upstream changes one of the replaced scripts; the factory pulls.
printf 'echo "a new line"\n' >>"$T/upstream/dev/dev-poll.sh"
echo "news" >"$T/upstream/NEWS"
git -C "$T/upstream" add -A
git -C "$T/upstream" commit -q -m "dev-poll.sh changed upstream"
if git -C "$F" pull -q >"$T/pull.out" 2>&1; then
	ok "git pull of a change to a replaced script succeeds"
else
	fail "git pull of a change to a replaced script succeeds" \
	    "$(tr '\n' '|' <"$T/pull.out")"
fi
check_eq "the factory is at upstream's commit" \
    "$(git -C "$F" rev-parse HEAD)" "$(git -C "$T/upstream" rev-parse HEAD)"
for pair in $PROGS; do
	check "after the pull, ${pair%%:*} still launches the executable" \
	    installed "$F" "$pair"
done
check_eq "after the pull, git status is empty" \
    "$(git -C "$F" status --porcelain)" ""
cron "$DEV_LINE"
check_eq "after the pull, a dev-poll tick: exit 0" "$CRON_RC" 0
check "after the pull, the bash scripts never ran" \
    test ! -e "$F/state/bash-stand-in.log"
# Installing again (an upgrade) keeps all of it.
$MAKE install-factory FACTORY="$F" >"$T/install.out" 2>&1
check_eq "install-factory again: git status is empty" \
    "$(git -C "$F" status --porcelain)" ""

# Step 5: roll back.
if $MAKE uninstall-factory FACTORY="$F" >"$T/uninstall.out" 2>&1; then
	ok "make uninstall-factory"
else
	fail "make uninstall-factory" \
	    "$(tail -3 "$T/uninstall.out" | tr '\n' '|')"
fi
check_eq "after uninstall-factory, git status --porcelain is empty" \
    "$(git -C "$F" status --porcelain)" ""
check "uninstall-factory removes the record of the upstream" \
    test ! -e "$F/.disinto-c/upstream"
for pair in $PROGS; do
	check "${pair%%:*} is upstream's newest bash script again" \
	    sh -c "git -C '$F' show 'HEAD:${pair%%:*}' | cmp - '$F/${pair%%:*}'"
done
check "the changed script is back with upstream's change" \
    grep -q 'a new line' "$F/dev/dev-poll.sh"
check "the executables beside the scripts are gone" sh -c \
    "[ ! -e '$F/dev/dev-poll' ] && [ ! -e '$F/review/review-poll' ] &&
    [ ! -e '$F/supervisor/supervisor-poll' ]"
check_eq "and their lines in .git/info/exclude" \
    "$(grep -c -e '-poll$' "$F/.git/info/exclude")" 0
check_eq "no trace in the git directory" \
    "$(ls "$F/.git" | grep -c disinto-c; git -C "$F" config --get-regexp 'filter\.disinto' | wc -l)" \
    "$(printf '0\n0')"

# A factory that is not a git checkout: the backups.
cp -R "$T/upstream" "$T/plain"
rm -rf "$T/plain/.git" "$T/plain/supervisor"
snapshot() {
	(cd "$T/plain" && find . -printf '%m %s %p\n' | sort && cat */*.sh)
}
before=$(snapshot)
$MAKE install-factory FACTORY="$T/plain" >"$T/install.out" 2>&1
check_eq "no git: install-factory" "$?" 0
check "a factory without supervisor/ is no upstream it knows: said" \
    grep -q "^upstream: not recognised" "$T/install.out"
check "and nothing recorded" test ! -e "$T/plain/.disinto-c/upstream"
for pair in $PROGS; do
	check "no git: ${pair%%:*} launches the executable" \
	    installed "$T/plain" "$pair"
done
$MAKE install-factory FACTORY="$T/plain" >"$T/install.out" 2>&1
$MAKE uninstall-factory FACTORY="$T/plain" >"$T/uninstall.out" 2>&1
check_eq "no git: uninstall-factory" "$?" 0
check_eq "no git: installing twice, then uninstalling leaves it as it was" \
    "$(snapshot)" "$before"

# A factory at upstream's newer main (tests/fixtures/factory-main): the
# supervisor is supervisor-run.sh, dev-agent.sh drives one-shot runs.
cp -R "$TOP/tests/fixtures/factory-main" "$T/main"
before=$(cd "$T/main" && find . -printf '%m %s %p\n' | sort)
$MAKE install-factory FACTORY="$T/main" >"$T/install.out" 2>&1
check_eq "upstream main: install-factory" "$?" 0
check "upstream main: recognised and said" \
    grep -q "^upstream: main " "$T/install.out"
check_eq "upstream main: recorded where the tools read it" \
    "$(cat "$T/main/.disinto-c/upstream" 2>&1)" main
check_eq "upstream main: not taken for 2394908" \
    "$(grep -c '^upstream: 2394908' "$T/install.out")" 0
$MAKE install-factory FACTORY="$T/main" >"$T/install.out" 2>&1
check_eq "upstream main: installing again (supervisor-poll.sh ours now), still main" \
    "$(cat "$T/main/.disinto-c/upstream" 2>&1)" main
rm -f "$T/main/lib/agent-sdk.sh"
printf '#!/usr/bin/env bash\n' >"$T/main/dev/dev-agent.sh"
$MAKE install-factory FACTORY="$T/main" >"$T/install.out" 2>&1
check "a dev-agent.sh without one-shot runs is not main" \
    grep -q "^upstream: not recognised" "$T/install.out"
check "and the record of the earlier install goes" \
    test ! -e "$T/main/.disinto-c/upstream"
cp -p "$TOP/tests/fixtures/factory-main/dev/dev-agent.sh" "$T/main/dev/"
: >"$T/main/lib/agent-sdk.sh"
$MAKE install-factory FACTORY="$T/main" >"$T/install.out" 2>&1
$MAKE uninstall-factory FACTORY="$T/main" >"$T/uninstall.out" 2>&1
check_eq "upstream main: uninstall-factory" "$?" 0
check_eq "upstream main: uninstalling leaves it as it was, record gone" \
    "$(cd "$T/main" && find . -printf '%m %s %p\n' | sort)" "$before"

# The agent environment (the agents' side of this factory): a dev session
# sees the project, the .env variable AGENT_ENV_PASS names (one that only
# .env sets) and its token, and not the review bot's or Woodpecker's.
for want in "FORGE_TOKEN=agent-token" \
    "FORGE_API=$SIM_URL/api/v1/repos/johba/demo" "PROJECT_NAME=$P" \
    "PROJECT_TOML=$F/projects/$P.toml" "FACTORY_ROOT=$F" \
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1" \
    "DEMO_DOTENV_ONLY=from .env: review-bot at $H"; do
	check_eq "[agent environment] the dev agent sees ${want%%=*}" \
	    "$(grep "^${want%%=*}=" "$T/agent/env-dev" | head -1)" "$want"
done
# A review agent writes its verdict; review-poll posts it with the token.
check_eq "[agent environment] the review agent holds no review token" \
    "$(grep -c '^FORGE_REVIEW_TOKEN=' "$T/agent/env-review")" 0
check_eq "[agent environment] the dev agent lacks the other tokens" \
    "$(grep -c -e '^FORGE_REVIEW_TOKEN=' -e '^WOODPECKER_TOKEN=' \
	"$T/agent/env-dev")" 0
check_eq "[agent environment] the review agent lacks the dev token" \
    "$(grep -c -e '^FORGE_TOKEN=' -e '^WOODPECKER_TOKEN=' \
	"$T/agent/env-review")" 0
