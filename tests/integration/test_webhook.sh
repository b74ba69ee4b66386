#!/bin/sh
# The forge webhook receiver (`TOOL --webhook`, one delivery on stdin,
# the answer on stdout): a delivery signed with WEBHOOK_SECRET (Gitea's
# X-Gitea-Signature or Forgejo's X-Forgejo-Signature, the hex HMAC-SHA256
# of the body: services/webhook/deliver.go) for a project's repository
# wakes the tools its event concerns, and a status event marks its SHA
# for the CI memo (ci-changed-P); a bad or missing signature wakes
# nothing (401), another repository nothing (204), an oversized body
# nothing (413), a GET nothing (405).  The tools are run from the
# receiver's directory: fakes here, which record how they were called.
. "$(dirname "$0")/lib/common.sh"
t_setup
mkdir -p "$T/bin" "$FACTORY_ROOT/projects" "$T/repo"
ln -s "$O/review-poll/review-poll" "$T/bin/receiver"
for tool in dev-poll review-poll supervisor-poll; do
	cat >"$T/bin/$tool" <<SH
#!/bin/sh
echo "$tool \$*" >>"$T/wakes"
SH
	chmod +x "$T/bin/$tool"
done
: >"$T/wakes"
P=$FACTORY_ROOT/projects/harb.toml
cat >"$P" <<TOML
name = "harb"
repo = "johba/harb"
forge_url = "http://127.0.0.1:9"
repo_root = "$T/repo"
primary_branch = "master"
TOML
export WEBHOOK_SECRET=s3cret FORGE_TOKEN=t
SHA=0123456789abcdef0123456789abcdef01234567

# deliver EVENT BODY [SECRET [HEADER [METHOD [LENGTH]]]]: one delivery
# through the receiver; its status code in $CODE.
deliver() {
	python3 - "$1" "$2" "${3-s3cret}" "${4:-X-Gitea-Signature}" \
	    "${5:-POST}" "${6:-}" >"$T/req" <<'PY'
import hmac, hashlib, sys
event, body, secret, header, method, length = sys.argv[1:7]
body = body.encode()
sig = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
head = ["%s /hook HTTP/1.1" % method, "Host: localhost",
        "Content-Type: application/json",
        "Content-Length: %s" % (length or len(body)),
        "X-Gitea-Event: %s" % event, "X-Gitea-Event-Type: %s" % event]
if secret != "-":
    head.append("%s: %s" % (header, sig))
sys.stdout.buffer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
PY
	"$T/bin/receiver" --webhook <"$T/req" >"$T/resp" 2>>"$T/receiver.err"
	CODE=$(head -1 "$T/resp" | cut -d' ' -f2)
}

# settle: a delivery that wakes dev-poll once, and wait for it, so that
# every wake started before it has been recorded.
settle() {
	deliver pull_request '{"action": "closed", "number": 5, "repository": {"full_name": "johba/harb"}}'
	wait_for "grep -q 'webhook pull_request$' '$T/wakes'" 10
	grep -v 'webhook pull_request$' "$T/wakes" >"$T/wakes.now"
	: >"$T/wakes"
}

STATUS='{"sha": "'$SHA'", "state": "success", "repository": {"full_name": "johba/harb"}}'
deliver status "$STATUS"
check_eq "a signed status delivery: 204" "$CODE" 204
settle
check "status: dev-poll woken for the project" \
    grep -qx "dev-poll --wake $P webhook status" "$T/wakes.now"
check "status: review-poll woken for the project" \
    grep -qx "review-poll --wake $P webhook status" "$T/wakes.now"
check_eq "status: nothing else woken" "$(wc -l <"$T/wakes.now")" 2
check "status: the SHA is marked for the CI memo" \
    grep -q "^$SHA [0-9][0-9]*$" "$DISINTO_RUN_DIR/ci-changed-harb"

rm -f "$DISINTO_RUN_DIR/ci-changed-harb"
deliver status "$STATUS" wrong
check_eq "a wrong signature: 401" "$CODE" 401
deliver status "$STATUS" -
check_eq "no signature: 401" "$CODE" 401
settle
check_eq "a bad or missing signature wakes nothing" \
    "$(wc -l <"$T/wakes.now")" 0
check "a bad signature marks nothing" \
    test ! -e "$DISINTO_RUN_DIR/ci-changed-harb"

deliver status '{"sha": "'$SHA'", "repository": {"full_name": "someone/else"}}'
check_eq "another repository: 204" "$CODE" 204
deliver status "$STATUS" s3cret X-Gitea-Signature POST 2000000
check_eq "a body over the limit: 413" "$CODE" 413
deliver status "$STATUS" s3cret X-Gitea-Signature GET
check_eq "a GET: 405" "$CODE" 405
deliver pull_request '{"action": "opened", "repository": {"full_name": "johba/harb"}}'
check_eq "a PR opened: 204" "$CODE" 204
deliver issue_comment '{"action": "created", "issue": {"number": 3, "pull_request": {"merged": false}}, "repository": {"full_name": "johba/harb"}}'
check_eq "a comment on a PR: 204" "$CODE" 204
settle
check_eq "another repository, an oversized body, a GET, a PR opened, a comment on a PR: nothing woken" \
    "$(wc -l <"$T/wakes.now")" 0
check "nor marked" test ! -e "$DISINTO_RUN_DIR/ci-changed-harb"

deliver issue_comment '{"action": "created", "issue": {"number": 3, "pull_request": null}, "repository": {"full_name": "johba/harb"}}' s3cret X-Forgejo-Signature
check_eq "a comment on an issue, Forgejo's signature: 204" "$CODE" 204
deliver pull_request_review_rejected '{"action": "reviewed", "number": 5, "repository": {"full_name": "JOHBA/harb"}}'
check_eq "a review: 204" "$CODE" 204
settle
check "a comment on an issue wakes dev-poll" \
    grep -qx "dev-poll --wake $P webhook issue_comment" "$T/wakes.now"
check "and supervisor-poll" \
    grep -qx "supervisor-poll --wake $P webhook issue_comment" "$T/wakes.now"
check "a review wakes dev-poll (the repository's name in any case)" \
    grep -qx "dev-poll --wake $P webhook pull_request_review_rejected" \
    "$T/wakes.now"
check_eq "nothing else" "$(wc -l <"$T/wakes.now")" 3

WEBHOOK_SECRET= deliver status "$STATUS"
check_eq "no secret set: every delivery refused (401)" "$CODE" 401
check "the secret never reaches the receiver's messages" \
    sh -c "! grep -q s3cret '$T/receiver.err'"
