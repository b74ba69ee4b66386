# A mirror whose URL holds credentials (https://user:password@host/...):
# after a merge dev-poll pushes the primary branch to it with the
# credentials in git's environment (an Authorization header for that URL
# alone), never on git's command line, where any local user reads them,
# nor in the log.  The mirror is a git smart-HTTP server (git
# http-backend) that refuses a push without the right Basic credentials.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
SHA=$(git_branch fix/issue-1 src.c)
PW="pw-$$-${T##*.}/x"
PW_ENC=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$PW")
git init -q --bare -b master "$T/mirrors/mirror.git"

# The mirror: every request needs Basic mirror-bot:$PW.
cat >"$T/githttp.py" <<'PY'
import base64, http.server, os, subprocess, sys
root, want, portfile = sys.argv[1], sys.argv[2], sys.argv[3]
auth = "Basic " + base64.b64encode(want.encode()).decode()

class H(http.server.BaseHTTPRequestHandler):
    def do(self):
        if self.headers.get("Authorization") != auth:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="mirror"')
            self.end_headers()
            return
        path, _, query = self.path.partition("?")
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        env = dict(os.environ, GIT_PROJECT_ROOT=root, GIT_HTTP_EXPORT_ALL="1",
                   PATH_INFO=path, QUERY_STRING=query, REMOTE_USER="mirror-bot",
                   REQUEST_METHOD=self.command,
                   CONTENT_TYPE=self.headers.get("Content-Type") or "",
                   CONTENT_LENGTH=str(len(body)))
        out = subprocess.run(["git", "http-backend"], input=body, env=env,
                             stdout=subprocess.PIPE).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode().split("\r\n"):
            k, _, v = line.partition(": ")
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k:
                headers.append((k, v))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)
    do_GET = do_POST = do

    def log_message(self, *a):
        pass

s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(portfile, "w").write(str(s.server_port))
s.serve_forever()
PY
python3 "$T/githttp.py" "$T/mirrors" "mirror-bot:$PW" "$T/mirror.port" \
    >"$T/githttp.out" 2>&1 &
GITHTTP=$!
trap 'kill $GITHTTP 2>/dev/null; t_cleanup' EXIT
wait_for '[ -s "$T/mirror.port" ]' 10 || fail "the mirror server started"
MURL=http://127.0.0.1:$(cat "$T/mirror.port")/mirror.git

# Every git dev-poll runs is logged with its command line first.
H=$T/home
mkdir -p "$H/.local/bin"
cat >"$H/.local/bin/git" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$T/git.argv"
case "\$*" in *" push "*) env >"$T/git-push.env" ;; esac
exec /usr/bin/git "\$@"
EOF
# The factory's .env: bash's git children had every variable of it.
printf 'export GIT_MIRROR_NOTE="from .env"\n' >"$FACTORY_ROOT/.env"
chmod +x "$H/.local/bin/git"

dev_sim - '[ci]' 'woodpecker_repo_id = 1' '[mirrors]' \
    "backup = \"http://mirror-bot:$PW_ENC@${MURL#http://}\"" <<JSON
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "dev-token", "admin": true},
           {"login": "review-bot", "token": "review-token", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"}],
 "issues": [{"number": 1, "title": "Add a parser", "labels": ["in-progress"]}],
 "pulls": [
  {"number": 3, "title": "fix: Add a parser (#1)", "body": "Fixes #1",
   "head": {"ref": "fix/issue-1", "sha": "$SHA"}, "files": ["src.c"],
   "reviews": [{"user": "review-bot", "state": "APPROVED", "commit_id": "$SHA"}]}],
 "woodpecker": {"repo_id": 1, "token": "wp-token", "pipelines": [
   {"number": 1, "commit": "$SHA", "status": "success"}]}}
JSON
check "without the credentials the mirror refuses" \
    sh -c "! GIT_TERMINAL_PROMPT=0 /usr/bin/git ls-remote '$MURL' >/dev/null 2>&1"
HOME=$H dp
rc_is "merge" 0
check_eq "merged" "$(sim_state_get '[p["merged"] for p in d["pulls"]][0]')" true
NEW=$(git -C "$T/repo" rev-parse master)
if wait_for '[ "$(git --git-dir="$T/mirrors/mirror.git" rev-parse master 2>/dev/null)" = "$NEW" ]' 10; then
	ok "the mirror got the primary branch, with its credentials"
else
	fail "the mirror got the primary branch, with its credentials" \
	    "$(tail -3 "$T/githttp.out")"
fi
check "git pushed to the URL without credentials" \
    grep -qx -- "-C $T/repo push $MURL master --tags" "$T/git.argv"
check_eq "no git command line held the password" \
    "$(grep -c -F -e "$PW" -e "$PW_ENC" "$T/git.argv")" 0
check_eq "nor did the log" "$(grep -c -F -e "$PW" -e "$PW_ENC" "$DEVLOG")" 0
lhas "the push is logged by the mirror's name" 'mirror: pushed to backup'
# The push ran in the environment lib/env.sh gave bash's children.
check "the push has .env's variables" grep -qx 'GIT_MIRROR_NOTE=from .env' \
    "$T/git-push.env"
check "and FACTORY_ROOT" grep -qx "FACTORY_ROOT=$FACTORY_ROOT" "$T/git-push.env"
check "and the project's name" grep -qx "PROJECT_NAME=$PROJ" "$T/git-push.env"
check "and the no-telemetry switch" grep -qx \
    'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1' "$T/git-push.env"
