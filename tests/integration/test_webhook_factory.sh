#!/bin/sh
# The webhook receiver of a factory after `make install-factory`: the
# receiver is the factory's `dev/dev-poll.sh --webhook` (the launcher of
# the executable beside it), run with a bare environment, called directly
# and through `bash`; a signed delivery wakes the tools the event
# concerns, found beside their scripts in the factory (each logs its
# wake in its own log).  A tool that cannot be started is a failure
# heard: the answer is 500 (the forge lists the delivery as failed) and
# that tool's log says so.
. "$(dirname "$0")/lib/common.sh"
t_setup
unset MAKEFLAGS MFLAGS MAKELEVEL
F=$FACTORY_ROOT
mkdir -p "$F/dev" "$F/review" "$F/supervisor" "$F/projects" "$F/lib" \
    "$F/state" "$T/repo" "$T/home"
: >"$F/lib/env.sh"	# what makes it a factory to the derived FACTORY_ROOT
for s in dev/dev-poll.sh review/review-poll.sh supervisor/supervisor-poll.sh; do
	printf '#!/usr/bin/env bash\necho "bash %s ran" >>"$(dirname "$0")/../bash-ran"\n' \
	    "$s" >"$F/$s"
	chmod +x "$F/$s"
done
git -C "$F" init -q -b main
git -C "$F" add -A
git -C "$F" -c user.name=u -c user.email=u@localhost commit -q -m factory
cat >"$F/projects/harb.toml" <<TOML
name = "harb"
repo = "johba/harb"
forge_url = "http://127.0.0.1:9"
repo_root = "$T/repo"
primary_branch = "master"
TOML
printf 'WEBHOOK_SECRET=s3cret\nFORGE_TOKEN=t\nDISINTO_RUN_DIR=%s\n' \
    "$DISINTO_RUN_DIR" >"$F/.env"
if make --no-print-directory -C "$TOP" O="$O" install-factory FACTORY="$F" \
    >"$T/install.out" 2>&1; then
	ok "make install-factory"
else
	fail "make install-factory" "$(tail -3 "$T/install.out" | tr '\n' '|')"
fi
DEVLOG=$F/dev/dev-agent-harb.log
REVLOG=$F/review/review.log

# deliver HOW EVENT BODY: one signed delivery to the factory's receiver,
# run as HOW ("direct" or "bash") under a bare environment; the status
# code in $CODE.
deliver() {
	python3 - "$2" "$3" >"$T/req" <<'PY'
import hmac, hashlib, sys
event, body = sys.argv[1:3]
body = body.encode()
sig = hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
head = ["POST /hook HTTP/1.1", "Host: localhost",
        "Content-Type: application/json",
        "Content-Length: %d" % len(body),
        "X-Gitea-Event: %s" % event, "X-Gitea-Event-Type: %s" % event,
        "X-Gitea-Signature: %s" % sig]
sys.stdout.buffer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
PY
	if [ "$1" = bash ]; then
		set -- bash "$F/dev/dev-poll.sh"
	else
		set -- "$F/dev/dev-poll.sh"
	fi
	env -i PATH=/usr/bin:/bin HOME="$T/home" "$@" --webhook <"$T/req" \
	    >"$T/resp" 2>>"$T/receiver.err"
	CODE=$(head -1 "$T/resp" | cut -d' ' -f2)
}

STATUS='{"sha": "0123456789abcdef0123456789abcdef01234567", "state": "success", "repository": {"full_name": "johba/harb"}}'
deliver direct status "$STATUS"
check_eq "a signed status delivery to the installed factory: 204" "$CODE" 204
check "dev-poll is woken (its log has the wake)" \
    wait_for "grep -q 'wake (webhook status)' '$DEVLOG'" 10
check "review-poll is woken (its log has the wake)" \
    wait_for "grep -q 'wake (webhook status)' '$REVLOG'" 10
check "no tool failed to start" \
    sh -c "! grep -q 'cannot start' '$T/receiver.err'"

COMMENT='{"action": "created", "issue": {"number": 3}, "comment": {"id": 9}, "repository": {"full_name": "johba/harb"}}'
deliver bash issue_comment "$COMMENT"
check_eq "bash dev/dev-poll.sh --webhook: 204" "$CODE" 204
check "through bash, dev-poll is woken" \
    wait_for "grep -q 'wake (webhook issue_comment)' '$DEVLOG'" 10
# supervisor-poll takes no project file: its wake is one it accepts.
check "supervisor-poll is woken (its log has the wake)" \
    wait_for "grep -q 'wake (' '$F/supervisor/supervisor.log'" 10
check "the bash scripts never ran" test ! -e "$F/bash-ran"

# review-poll cannot be started: 500, and its log says so.
rm -f "$F/review/review-poll"
chmod -x "$F/review/review-poll.sh"
# another status (the same body again would be taken for a replay)
deliver direct status "$(echo "$STATUS" | sed 's/"success"/"failure"/')"
check_eq "a wake that cannot be started: 500" "$CODE" 500
check "the journal names it" grep -q "cannot start 'review-poll'" "$T/receiver.err"
check "review-poll's log says so" \
    grep -q "webhook: harb: cannot start 'review-poll' for a delivery" "$REVLOG"
check "dev-poll is still woken" \
    wait_for "[ \$(grep -c 'wake (webhook status)' '$DEVLOG') -ge 2 ]" 10
