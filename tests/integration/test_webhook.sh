#!/bin/sh
# The forge webhook receiver (`TOOL --webhook`, one delivery on stdin,
# the answer on stdout): a delivery signed with WEBHOOK_SECRET (Gitea's
# X-Gitea-Signature or Forgejo's X-Forgejo-Signature, the hex HMAC-SHA256
# of the JSON payload: services/webhook/deliver.go, also for a
# form-encoded delivery) for a project's repository wakes the tools its
# event concerns, and a status event marks its SHA for the CI memo
# (ci-changed-P); a bad or missing signature wakes nothing (401), nor a
# secret of blanks, another repository nothing (401, the same answer as
# a bad signature), an oversized body nothing (413), a GET nothing
# (405); each refusal's line names its cause.  A delivery taken in the
# last hour (its X-Gitea-Delivery ID, or its payload under another ID)
# is answered and ignored.  The tools are run from the receiver's
# directory: fakes here, which record how they were called.
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
# Every wake names the run directory whose recorded settings it takes.
W="--run-dir $DISINTO_RUN_DIR"
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

# request EVENT BODY [SECRET [HEADER [METHOD [LENGTH]]]]: a delivery as
# Gitea sends it (services/webhook/deliver.go, newDefaultRequest() and
# addDefaultHeaders(): a fresh ID under X-Gitea-Delivery, X-Gogs-Delivery
# and X-GitHub-Delivery) in $T/req.  WH_ID sets the ID; WH_FORM=1 sends it
# form-encoded (payload=..., signed over the JSON), WH_FORM=body signs
# the form body instead, WH_FORM=nopayload leaves the field out; WH_TYPE
# sets the Content-Type.
request() {
	python3 - "$1" "$2" "${3-s3cret}" "${4:-X-Gitea-Signature}" \
	    "${5:-POST}" "${6:-}" >"$T/req" <<'PY'
import hmac, hashlib, os, sys, urllib.parse, uuid
event, payload, secret, header, method, length = sys.argv[1:7]
form = os.environ.get("WH_FORM", "")
ident = os.environ.get("WH_ID") or str(uuid.uuid4())
payload = payload.encode()
body, ctype = payload, "application/json"
if form:
    body = urllib.parse.urlencode({"payload" if form != "nopayload" else
                                   "data": payload}).encode()
    ctype = "application/x-www-form-urlencoded"
ctype = os.environ.get("WH_TYPE", ctype)
sig = hmac.new(secret.encode(), body if form == "body" else payload,
               hashlib.sha256).hexdigest()
head = ["%s /hook HTTP/1.1" % method, "Host: localhost",
        "Content-Type: %s" % ctype,
        "Content-Length: %s" % (length or len(body)),
        "X-Gitea-Delivery: %s" % ident, "X-Gogs-Delivery: %s" % ident,
        "X-GitHub-Delivery: %s" % ident,
        "X-Gitea-Event: %s" % event, "X-Gitea-Event-Type: %s" % event]
if secret != "-":
    head.append("%s: %s" % (header, sig))
sys.stdout.buffer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
PY
}

# receive: $T/req through the receiver; its status code in $CODE, the
# answer in $T/resp, its lines in $T/last.err (and $T/receiver.err).
receive() {
	"$T/bin/receiver" --webhook <"$T/req" >"$T/resp" 2>"$T/last.err"
	cat "$T/last.err" >>"$T/receiver.err"
	CODE=$(head -1 "$T/resp" | cut -d' ' -f2)
}

# deliver ARGS...: request ARGS... and receive.
deliver() {
	request "$@"
	receive
}

# settle: a delivery that wakes dev-poll once (a new one each time), and
# wait for it, so that every wake started before it has been recorded.
SETTLES=0
settle() {
	SETTLES=$((SETTLES + 1))
	deliver pull_request '{"action": "closed", "number": 5, "settle": '$SETTLES', "repository": {"full_name": "johba/harb"}}'
	wait_for "grep -q 'webhook pull_request$' '$T/wakes'" 10
	grep -v 'webhook pull_request$' "$T/wakes" >"$T/wakes.now"
	: >"$T/wakes"
}

STATUS='{"sha": "'$SHA'", "state": "success", "repository": {"full_name": "johba/harb"}}'
deliver status "$STATUS"
check_eq "a signed status delivery: 204" "$CODE" 204
settle
check "status: dev-poll woken for the project" \
    grep -qx "dev-poll --wake $W -- $P webhook status" "$T/wakes.now"
check "status: review-poll woken for the project" \
    grep -qx "review-poll --wake $W -- $P webhook status" "$T/wakes.now"
check_eq "status: nothing else woken" "$(wc -l <"$T/wakes.now")" 2
check "status: the SHA is marked for the CI memo" \
    grep -q "^$SHA [0-9][0-9]*$" "$DISINTO_RUN_DIR/ci-changed-harb"

rm -f "$DISINTO_RUN_DIR/ci-changed-harb"
deliver status "$STATUS" wrong
check_eq "a wrong signature: 401" "$CODE" 401
check "a wrong signature: the line says so" \
    grep -q "^webhook: harb: refused (401): the signature does not match WEBHOOK_SECRET" "$T/last.err"
cp "$T/resp" "$T/resp.badsig"
deliver status "$STATUS" -
check_eq "no signature: 401" "$CODE" 401
check "no signature: the line says so" \
    grep -q "^webhook: harb: refused (401): no signature" "$T/last.err"
check "no signature: the same answer as a wrong one" cmp -s "$T/resp" "$T/resp.badsig"
settle
check_eq "a bad or missing signature wakes nothing" \
    "$(wc -l <"$T/wakes.now")" 0
check "a bad signature marks nothing" \
    test ! -e "$DISINTO_RUN_DIR/ci-changed-harb"

# Another repository is answered as a bad signature is: the receiver
# does not tell which repositories are its projects'.
deliver status '{"sha": "'$SHA'", "repository": {"full_name": "someone/else"}}'
check_eq "another repository: 401, as a bad signature" "$CODE" 401
check "another repository: the very answer of a bad signature" \
    cmp -s "$T/resp" "$T/resp.badsig"
check "another repository: the line names the cause" \
    grep -q "^webhook: refused (401, answered as a bad signature): the repository 'someone/else' is no project's" "$T/last.err"
deliver status '{"sha": "'$SHA'"}'
check_eq "no repository: 401" "$CODE" 401
check "no repository: the line names the cause" \
    grep -q "the delivery names no repository" "$T/last.err"
deliver status "$STATUS" s3cret X-Gitea-Signature POST 2000000
check_eq "a body over the limit: 413" "$CODE" 413
check "a body over the limit: the line says so" \
    grep -q "^webhook: refused (413): a body of 2000000 bytes" "$T/last.err"
deliver status "$STATUS" s3cret X-Gitea-Signature GET
check_eq "a GET: 405" "$CODE" 405
check "a GET: the line says so" \
    grep -q "^webhook: refused (405): a GET, not a POST" "$T/last.err"
deliver status 'not json'
check_eq "a payload that is not JSON: 400" "$CODE" 400
check "not JSON: the line says so" \
    grep -q "^webhook: refused (400): the payload is not JSON" "$T/last.err"
WH_TYPE=text/plain deliver status "$STATUS"
check_eq "another content type: 400" "$CODE" 400
check "another content type: the line says to choose JSON" \
    grep -q "^webhook: refused (400): the content type 'text/plain' .*choose application/json" "$T/last.err"
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
    grep -qx "dev-poll --wake $W -- $P webhook issue_comment" "$T/wakes.now"
# supervisor-poll takes no project file (it watches every project).
check "and supervisor-poll, with the wake it takes" \
    grep -qx "supervisor-poll --wake $W -- webhook issue_comment" \
    "$T/wakes.now"
check "a review wakes dev-poll (the repository's name in any case)" \
    grep -qx "dev-poll --wake $W -- $P webhook pull_request_review_rejected" \
    "$T/wakes.now"
check_eq "nothing else" "$(wc -l <"$T/wakes.now")" 3

# A form-encoded delivery (the forge's other content type): the
# signature is over the JSON payload it carries.
WH_FORM=1 deliver issue_comment '{"action": "created", "form": 1, "issue": {"number": 4, "pull_request": null}, "repository": {"full_name": "johba/harb"}}'
check_eq "a form-encoded delivery, signed: 204" "$CODE" 204
WH_FORM=body deliver issue_comment '{"action": "created", "form": 2, "issue": {"number": 4, "pull_request": null}, "repository": {"full_name": "johba/harb"}}'
check_eq "a form-encoded delivery signed over the form: 401" "$CODE" 401
check "signed over the form: the line says so" \
    grep -q "^webhook: harb: refused (401): the signature does not match" "$T/last.err"
WH_FORM=nopayload deliver issue_comment '{"action": "created", "form": 3, "repository": {"full_name": "johba/harb"}}'
check_eq "a form without its payload field: 400" "$CODE" 400
check "a form without its payload: the line says to choose JSON" \
    grep -q "^webhook: refused (400): a form-encoded delivery without one readable 'payload' field; choose the content type application/json" "$T/last.err"
settle
check "the signed form-encoded delivery wakes dev-poll" \
    grep -qx "dev-poll --wake $W -- $P webhook issue_comment" "$T/wakes.now"
check_eq "and nothing of the refused ones" "$(wc -l <"$T/wakes.now")" 2

# An issue labelled (the backlog grows) or opened: dev-poll, for the
# next launch; Gitea's event type of a label change, then the event name.
deliver issue_label '{"action": "label_updated", "number": 6, "issue": {"number": 6}, "repository": {"full_name": "johba/harb"}}'
check_eq "an issue labelled: 204" "$CODE" 204
deliver issues '{"action": "opened", "number": 7, "issue": {"number": 7}, "repository": {"full_name": "johba/harb"}}'
check_eq "an issue opened: 204" "$CODE" 204
settle
check "an issue labelled wakes dev-poll" \
    grep -qx "dev-poll --wake $W -- $P webhook issue_label" "$T/wakes.now"
check "an issue opened wakes dev-poll" \
    grep -qx "dev-poll --wake $W -- $P webhook issues" "$T/wakes.now"
check_eq "and nothing else" "$(wc -l <"$T/wakes.now")" 2

# A delivery replayed: answered each time, taken once.  Gitea's retries
# and a captured delivery sent again are one delivery.
STATUS2='{"sha": "'$SHA'", "state": "failure", "id": 77, "repository": {"full_name": "johba/harb"}}'
WH_ID=6f4c3a1e-2b7d-4e59-9a0c-1d2e3f405162 request status "$STATUS2"
cp "$T/req" "$T/req.captured"
codes=
i=0
while [ $i -lt 200 ]; do
	"$T/bin/receiver" --webhook <"$T/req.captured" >"$T/resp" \
	    2>>"$T/replay.err"
	read -r _ code _ <"$T/resp"
	codes="$codes $code"
	i=$((i + 1))
done
check_eq "replayed 200 times: each answered 204" \
    "$(echo $codes | tr ' ' '\n' | sort | uniq -c | sed 's/^ *//')" "200 204"
# Under another ID (the ID is not signed): still the same delivery.
WH_ID=0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f60 deliver status "$STATUS2"
check_eq "replayed under another ID: 204" "$CODE" 204
check "replayed under another ID: the line says so" \
    grep -q "^webhook: harb: delivery 0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f60 taken already" "$T/last.err"
settle
check_eq "replayed 201 times: dev-poll woken once" \
    "$(grep -c "^dev-poll --wake $W -- $P webhook status$" "$T/wakes.now")" 1
check_eq "and review-poll once" \
    "$(grep -c "^review-poll --wake $W -- $P webhook status$" "$T/wakes.now")" 1
check_eq "each replay said in a line" \
    "$(grep -c "^webhook: harb: delivery 6f4c3a1e-2b7d-4e59-9a0c-1d2e3f405162 taken already in the last hour" "$T/replay.err")" 199
check "the deliveries taken are kept in the run directory" \
    grep -q " 6f4c3a1e-2b7d-4e59-9a0c-1d2e3f405162$" "$DISINTO_RUN_DIR/webhook-seen-harb"

WEBHOOK_SECRET= deliver status "$STATUS"
check_eq "no secret set: every delivery refused (401)" "$CODE" 401
check "no secret set: the line says so" \
    grep -q "^webhook: harb: refused (401): WEBHOOK_SECRET is not set" "$T/last.err"
check "no secret set: the same answer as a bad signature" \
    cmp -s "$T/resp" "$T/resp.badsig"
# A secret of blanks is none: refused, even signed with the blanks.
WEBHOOK_SECRET='   ' deliver status "$STATUS" '   '
check_eq "a secret of blanks: refused (401), signed with it" "$CODE" 401
check "a secret of blanks: the line says so" \
    grep -q "^webhook: harb: refused (401): WEBHOOK_SECRET is not set (or only blanks)" "$T/last.err"
WEBHOOK_SECRET='   ' "$O/review-poll/review-poll" --check "$P" >"$T/check.out" 2>&1
check "a secret of blanks: --check says so" \
    grep -q "^warning: WEBHOOK_SECRET: only blanks: every webhook delivery is refused" "$T/check.out"
"$O/review-poll/review-poll" --check "$P" >"$T/check.out" 2>&1
check "a secret set: --check says nothing of it" \
    sh -c "! grep -q WEBHOOK_SECRET '$T/check.out'"
check "the secret never reaches the receiver's messages" \
    sh -c "! grep -q s3cret '$T/receiver.err' '$T/replay.err'"
