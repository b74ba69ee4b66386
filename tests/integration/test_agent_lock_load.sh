# The Claude session lock under load: many projects' ticks at once, all
# wanting the one lock to start a session or to type into one.  A tick
# that gets the lock hands it to the session's wrapper without letting
# go of it (the descriptor passes over a socket), so no other waiter can
# win it in between: no launch is claimed and then given back because
# its session never got the lock ("claim, unclaim, exit 1").  A tick
# that does not get the lock within its wait claims nothing and exits 0.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init
export CLAUDE_SESSION_LOCK_WAIT=3 WOODPECKER_REPO_ID=0
N=${LOAD_PROJECTS:-8}
ROUNDS=${LOAD_ROUNDS:-14}
# The agent works a little while holding the lock, then waits for CI;
# CI passed (typed under the lock), it waits for the review.
cat >"$T/script.json" <<'JSON'
[[{"sleep": 0.4}, {"commit": {"file": "w.c", "text": "int w;\n"}},
  {"push": "fix/issue-1"}, {"phase": "PHASE:awaiting_ci"}],
 [{"sleep": 0.2}, {"phase": "PHASE:awaiting_review"}]]
JSON
export AGENT_CMD="env FAKE_AGENT_SCRIPT=$T/script.json $FAKE_AGENT"
mkdir -p "$FACTORY_ROOT/projects"
scen '[{"number": 1, "title": "Work", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
SIMS=
i=1
while [ "$i" -le "$N" ]; do
	git init -q --bare -b master "$T/o$i.git"
	git clone -q "$T/o$i.git" "$T/r$i" 2>/dev/null
	(cd "$T/r$i" && git checkout -q -b master 2>/dev/null &&
	 echo x >x && git add x && git commit -q -m init &&
	 git push -q origin master)
	sim_start "$T/case.json" --git-dir "$T/o$i.git" || exit 1
	SIMS="$SIMS $SIM_PID"
	SIM_PID=
	cat >"$FACTORY_ROOT/projects/p$i.toml" <<EOF
name = "p$i"
repo = "johba/harb"
forge_url = "$SIM_URL"
repo_root = "$T/r$i"
primary_branch = "master"
EOF
	i=$((i + 1))
done
stop_sims() {
	for p in $SIMS; do
		kill "$p" 2>/dev/null
	done
	t_cleanup
}
trap stop_sims EXIT

# reviewing: whether every session waits for its review ($left: how many
# do not).
reviewing() {
	left=0
	i=1
	while [ "$i" -le "$N" ]; do
		grep -q awaiting_review "$RUN/sessions/active/dev-p$i-1/dev-session-p$i-1.phase" \
		    2>/dev/null || left=$((left + 1))
		i=$((i + 1))
	done
	[ "$left" -eq 0 ]
}

# Rounds of every project's tick at once, until every session waits for
# its review (or the rounds are spent).
: >"$T/rcs"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	i=1
	ticks=
	while [ "$i" -le "$N" ]; do
		( "$O/dev-poll/dev-poll" "$FACTORY_ROOT/projects/p$i.toml" \
		      >"$T/out-$r-$i" 2>&1
		  echo "$r $i $?" >>"$T/rcs" ) &
		ticks="$ticks $!"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	wait $ticks
	reviewing && break
	r=$((r + 1))
done
echo "# $N projects, $r rounds, $(wc -l <"$T/rcs") ticks"
# A message a tick could not type while the lock was busy is in its
# session's mailbox; the session's wrapper types it once the lock is
# free, without a tick: wait for those.
wait_for reviewing 90
reviewing
echo "# delivered from mailboxes: $(cat "$FACTORY_ROOT"/dev/dev-agent-p*.log | grep -c 'delivered from its mailbox')"

check_eq "no tick failed" "$(awk '$3 != 0' "$T/rcs" | wc -l)" 0
check_eq "no launch was given back (claim, unclaim)" \
    "$(cat "$FACTORY_ROOT"/dev/dev-agent-p*.log | grep -c 'unclaiming issue')" 0
check_eq "no session missed the lock after its claim" \
    "$(cat "$FACTORY_ROOT"/dev/dev-agent-p*.log | grep -c 'cannot start session')" 0
check_eq "every session reached its review" "$left" 0
echo "# $(cat "$FACTORY_ROOT"/dev/dev-agent-p*.log | grep -c 'stayed busy') times a tick or a session waited its turn past the wait"
