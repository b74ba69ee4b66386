# The factory's checkout is pulled at a launch, as bash's dev-agent.sh
# and review-pr.sh did ("git pull --ff-only origin main"): upstream's
# new commit arrives with the next launch, once per tick.  Never when
# the checkout has local changes, never across a script the executables
# replaced (install-factory's filter); a pull that
# cannot happen is said in the log and fails nothing.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
scen '[{"number": 1, "title": "One", "labels": ["backlog"]},
       {"number": 2, "title": "Two", "labels": ["backlog"]},
       {"number": 3, "title": "Three", "labels": ["backlog"]},
       {"number": 4, "title": "Four", "labels": ["backlog"]}]' '[]' \
    >"$T/case.json"
dev_sim "$T/case.json"
F=$FACTORY_ROOT
UP=$T/upstream.git
WORK=$T/upstream-work
git init -q --bare -b main "$UP"
git clone -q "$UP" "$WORK" 2>/dev/null
mkdir -p "$WORK/dev" "$WORK/formulas"
echo "#!/bin/sh" >"$WORK/dev/dev-poll.sh"
echo "v1" >"$WORK/formulas/note.md"
git -C "$WORK" add -A && git -C "$WORK" commit -qm v1 && git -C "$WORK" push -q origin HEAD:main
# The factory: a clone of upstream, its run-time files beside it.
git -C "$F" init -q -b main
git -C "$F" remote add origin "$UP"
git -C "$F" fetch -q origin && git -C "$F" reset -q --hard origin/main
upstream() {	# upstream FILE TEXT: a new upstream commit
	echo "$2" >"$WORK/$1"
	git -C "$WORK" commit -qam "$1: $2" && git -C "$WORK" push -q origin HEAD:main
}
launch_next() {	# a tick that launches an issue (the last session ended)
	t_tmux kill-server 2>/dev/null || :
	dp
}

upstream formulas/note.md v2
launch_next
rc_is "a launch" 0
check_eq "the factory has upstream's commit" \
    "$(git -C "$F" rev-parse HEAD)" "$(git -C "$WORK" rev-parse HEAD)"
lhas "pulled, said so" "factory $F: pulled [0-9a-f]{12}\.\.[0-9a-f]{12}"
check_eq "once per tick" "$(grep -c 'factory .*: pulled' "$T/tick.log")" 1

upstream formulas/note.md v3
echo "local edit" >>"$F/formulas/note.md"
launch_next
rc_is "local changes: the tick" 0
lhas "local changes: not pulled, said why" "not pulled: it has local changes"
check "local changes: kept" grep -q "local edit" "$F/formulas/note.md"
check_eq "local changes: HEAD stays" "$(git -C "$F" show HEAD:formulas/note.md)" v2
git -C "$F" checkout -q -- formulas/note.md

# A script the executables replaced (install-factory's attribute line).
mkdir -p "$F/.git/info"
echo "/dev/dev-poll.sh filter=disinto-c" >>"$F/.git/info/attributes"
upstream dev/dev-poll.sh "#!/bin/sh # v2"
launch_next
rc_is "a replaced script: the tick" 0
lhas "a replaced script: not pulled, said why" \
    "changes 'dev/dev-poll.sh', which the executables replaced"
check_eq "a replaced script: HEAD stays" \
    "$(git -C "$F" show HEAD:formulas/note.md)" v2
rm -f "$F/.git/info/attributes"

# No such branch upstream: said, nothing fails.
git -C "$F" remote set-url origin "$T/nowhere.git"
launch_next
rc_is "no upstream: the tick" 0
lhas "no upstream: not pulled, said why" "not pulled: 'git fetch origin main' failed"
