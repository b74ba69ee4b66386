# Nothing secret is published, nor logged: an agent's pane full of the
# secrets dev-poll holds or passes on (the two forge tokens, the
# Woodpecker token, the API key of the agent CLI, a password and an age
# secret key from .env, a mirror's credentials), raw, URL-encoded and in
# base64 at every alignment, the raw ones wrapped by the terminal across
# two lines; the session fails with a token in its reason.  The
# diagnostic comment holds none of them in any form and points to the
# log, whose copy of the pane (joined again before masking, so the
# wrapped tokens are masked whole) holds none of them either.  A PR
# description the agent's summary quotes them in is masked too.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/dev.sh"
dev_init git
git_branch fix/issue-2 b.c >/dev/null
TOK=${T##*.}$$
DEV_TOK=dev-$TOK-0123456789abcdef
REV_TOK=rev-$TOK-fedcba9876543210
WP_TOK=wp-$TOK-00aa11bb22cc33dd
API_KEY=sk-ant-api03-$TOK-Zz9_Yy8-Xx7
DB_PW="p@ss/w0rd+$TOK&x=y"
MIRROR_PW=mirror-$TOK-pw
AGE_KEY=AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS
dev_sim - '[mirrors]' \
    "backup = \"https://mirror-bot:$MIRROR_PW@mirror.example/o/r.git\"" <<JSON
{"repo": "johba/harb",
 "users": [{"login": "dev-bot", "token": "$DEV_TOK", "admin": true},
           {"login": "review-bot", "token": "$REV_TOK", "admin": true}],
 "labels": [{"id": 1, "name": "backlog"}, {"id": 2, "name": "in-progress"},
            {"id": 3, "name": "blocked"}],
 "issues": [{"number": 1, "title": "One", "labels": ["in-progress"]},
            {"number": 2, "title": "Two", "labels": ["in-progress"]}]}
JSON
export FORGE_TOKEN=$DEV_TOK WOODPECKER_TOKEN=$WP_TOK ANTHROPIC_API_KEY=$API_KEY
cat >"$FACTORY_ROOT/.env" <<EOF
FORGE_REVIEW_TOKEN=$REV_TOK
MY_DB_PASSWORD='$DB_PW'
SOPS_AGE_KEY=$AGE_KEY
EOF
printf '%s\n' "$DEV_TOK" "$REV_TOK" "$WP_TOK" "$API_KEY" "$DB_PW" \
    "$MIRROR_PW" "$AGE_KEY" >"$T/secrets"

# The pane: each secret at the end of a line that wraps in an 80 column
# pane (12 of its characters on the first line), then its other forms.
python3 - "$T/secrets" >"$T/script.json" <<'PY'
import base64, json, sys, urllib.parse
steps = []
for v in open(sys.argv[1]).read().split("\n"):
    if not v:
        continue
    steps.append({"say": "x" * 68 + v})
    steps.append({"say": "encoded " + urllib.parse.quote(v, safe="")})
    for pre in ("", "a", "ab"):
        b = (pre + v + "!").encode()
        steps.append({"say": "b64 " + base64.b64encode(b).decode()})
        steps.append({"say": "b64url " + base64.urlsafe_b64encode(b).decode()})
steps[0]["on"] = "start"
print(json.dumps([steps]))
PY
t_tmux new-session -d -s "dev-$PROJ-1" -x 80 -y 50 \
    "env FAKE_AGENT_LOG=$T/agentlog FAKE_AGENT_SCRIPT=$T/script.json $FAKE_AGENT"
wait_for "t_tmux capture-pane -p -t dev-$PROJ-1 | grep -q b64url" 10
HEAD12=$(printf '%s' "$DEV_TOK" | cut -c1-12)
check "the pane wraps the long lines" \
    sh -c "tmux -L '$DISINTO_TMUX_SOCKET' capture-pane -p -S -200 \
    -t dev-$PROJ-1 | grep -q '^xxxx*$HEAD12\$'"
mkdir -p "$RUN/sessions/active/dev-$PROJ-1"
printf 'PHASE:failed\nReason: push with %s refused\n' "$DEV_TOK" \
    >"$RUN/sessions/active/dev-$PROJ-1/dev-session-$PROJ-1.phase"
dp
rc_is "failed session" 0
check_eq "one diagnostic comment" \
    "$(comments_with 1 'Session failure diagnostic')" 1
check_eq "it says what failed" \
    "$(comments_with 1 'push with [REDACTED] refused')" 1
check_eq "it points to the log" \
    "$(comments_with 1 "dev/dev-agent-$PROJ.log")" 1
check "the pane is in the log" grep -q "dev-$PROJ-1 pane .*b64url" "$DEVLOG"

# leaks FILE: the forms of the secrets that FILE holds: raw, URL-encoded,
# the base64 characters made of a value's bits alone (at each alignment,
# in both alphabets), and its first and last 8 characters (what a wrap
# not joined again would leave visible).
leaks() {
	python3 - "$T/secrets" "$1" <<'PY'
import base64, sys, urllib.parse
text = open(sys.argv[2], encoding="utf-8", errors="replace").read()
for v in open(sys.argv[1]).read().split("\n"):
    if not v:
        continue
    forms = {v, urllib.parse.quote(v, safe=""), v[:8], v[-8:]}
    for a in range(3):
        for enc in (base64.b64encode, base64.urlsafe_b64encode):
            e = enc(b"\0" * a + v.encode()).decode()
            forms.add(e[(8 * a + 5) // 6:8 * (a + len(v)) // 6])
    for f in sorted(forms):
        if f in text:
            print("%s: %r" % (v[:6], f))
PY
}
# An agent's PR summary quoting secrets: the PR's description is masked
# on its way to the forge.  (The tick above may have started issue 2's
# session already.)
t_tmux has-session -t "dev-$PROJ-2" 2>/dev/null ||
    t_tmux new-session -d -s "dev-$PROJ-2" -x 80 -y 50 \
	"env FAKE_AGENT_LOG=$T/agentlog2 $FAKE_AGENT"
check "issue 2's session runs" \
    wait_for "t_tmux capture-pane -p -t dev-$PROJ-2 | grep -q '❯'" 10
mkdir -p "$RUN/sessions/active/dev-$PROJ-2"
printf 'Adds b.c; pushed with %s and %s.\n' "$DEV_TOK" "$API_KEY" \
    >"$RUN/sessions/active/dev-$PROJ-2/dev-impl-summary-$PROJ-2.txt"
printf 'PHASE:awaiting_ci\n' >"$RUN/sessions/active/dev-$PROJ-2/dev-session-$PROJ-2.phase"
dp
check_eq "the PR was opened" "$(sim_log_count POST '/pulls$' 201)" 1
check_eq "its description has the summary, masked" \
    "$(sim_state_get "d['pulls'][0]['body'].count('pushed with [REDACTED] and [REDACTED].')")" 1

sim_state_get "'\\n'.join(c['body'] for i in d['issues'] for c in i.get('comments', [])) + '\\n'.join(p['body'] for p in d['pulls'])" \
    >"$T/comments.txt"
check_eq "the comments and PRs hold no secret in any form" \
    "$(leaks "$T/comments.txt")" ""
check_eq "the log holds no secret in any form" "$(leaks "$DEVLOG")" ""
check_eq "nor the escalation record" \
    "$(leaks "$FACTORY_ROOT/supervisor/escalations-$PROJ.jsonl")" ""
check "the wrapped token was masked whole" \
    grep -q "pane [0-9]*: xxxxx*\\[REDACTED\\]\$" "$DEVLOG"
