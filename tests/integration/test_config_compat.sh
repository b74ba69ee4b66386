# Configuration the bash scripts accepted is accepted, with the same
# values: each .env construct gives what `set -a; . ./.env` gives (bash
# runs it here), each project file construct what tomllib gives (as
# load-project.sh exported it: lists joined by blanks, true/false in
# lower case).  What needs a command, or what tomllib refuses, is refused
# with file:line.  Then the layers: the environment, .env over it, the
# project file over both; keys the tools do not use are logged with -v.
. "$(dirname "$0")/lib/common.sh"
t_setup
CT=$O/tests/tools/conf-tool
cd "$T" || exit 1
ENVI="env -i HOME=/home/op PATH=/usr/bin:/bin E1=a__b E2="

# env_same NAME VAR TEXT: the .env TEXT gives VAR bash's value.
env_same() {
	printf '%b' "$3" >"$T/f.env"
	want=$($ENVI bash -c 'set -a; . ./f.env; printenv "$1"' sh "$2" \
	    2>"$T/bash.err"; echo x)
	if [ -s "$T/bash.err" ]; then
		fail ".env $1" "bash: $(cat "$T/bash.err")"
		return
	fi
	got=$($ENVI "$CT" env "$T/f.env" "$2" 2>&1; echo x)
	check_eq ".env $1" "$got" "$want"
}

# env_refused NAME LINE TEXT: the .env TEXT is refused at LINE.
env_refused() {
	printf '%b' "$3" >"$T/f.env"
	if $ENVI "$CT" env "$T/f.env" A >"$T/out" 2>&1; then
		fail ".env refuses $1" "accepted"
	else
		check ".env refuses $1 at f.env:$2" \
		    grep -q "^$T/f.env:$2: " "$T/out"
	fi
}

env_same "plain" A 'A=1\n'
env_same "export" A 'export A=two\n'
env_same "single quotes" A "A='x \$y \"z\" \\\\n'\n"
env_same "double quotes and escapes" A 'A="q \\"x\\" \\$y \\\\ \\a $HOME"\n'
env_same "quoted pieces joined" A "A=a'b c'\"d\"\n"
env_same "comments" A '# c\n\n  A=b#c # trailing comment\n#B=2\n'
env_same "\$VAR of the environment" A 'A=$E1.\n'
env_same "\${VAR}" A 'A=${E1}x\n'
env_same "\${VAR:-x} unset" A 'A=${UNSET:-def}\n'
env_same "\${VAR:-x} empty" A 'A=${E2:-def}\n'
env_same "\${VAR-x} empty" A 'A=${E2-def}\n'
env_same "\${VAR:+x}" A 'A=${E1:+set}\n'
env_same "\${VAR:=x}" A 'A=${U:=d}$U\n'
env_same "nested default" A 'A=${UNSET:-${E1:-z}}\n'
env_same "quoted default" A 'A=${UNSET:-"a b"}c\n'
env_same "earlier lines" A 'B=1\nA=$B$B\n'
env_same "several on a line" A 'B=1 A=$B\n'
env_same "export expands first" A 'B=1\nexport B=2 A=$B\n'
env_same "';' between" A 'A=1;B=2;A=$A$B\n'
env_same "+=" A 'A=1\nA+=2\n'
env_same "quotes across lines" A 'A="l1\nl2"\n'
env_same "line continuation" A 'A=a\\\nb\n'
env_same "a continuation joining two lines" A 'A=abc\\\nB=2\n'
env_same "tilde" A 'A=~/x:~/y\n'
env_same "\$'...'" A "A=\$'a\\\\tb\\\\x41'\n"
env_same "CRLF kept as bash keeps it" A 'A=x\r\n'
env_same "a lone \$" A 'A=a$ B=$/\n'
env_same "no trailing newline" A 'A=last'

env_refused "\$(...)" 2 'B=1\nA=$(id)\n'
env_refused "backticks" 1 'A=`id`\n'
env_refused "a redirection" 1 'A=1 >/dev/null\n'
env_refused "a command" 3 'A=1\n\nrm -rf /\n'
env_refused "a dangling backslash" 2 'B=1\nA=abc\\'
env_refused "a continuation into the end" 2 'B=1\nA=abc\\\n'
env_refused "a NUL byte" 2 'B=1\nA=a\0b\n'
env_refused "arithmetic" 1 'A=$((1+2))\n'

# toml_same NAME KEY TEXT: the project file TEXT gives KEY tomllib's value.
toml_same() {
	printf '%b' "$3" >"$T/f.toml"
	want=$(python3 -c '
import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
for k in sys.argv[2].split("."):
    d = d[k]
def text(v):
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, list):
        return " ".join(str(x) for x in v)
    return str(v)
print(text(d))' "$T/f.toml" "$2" 2>"$T/py.err"; echo x)
	if [ -s "$T/py.err" ]; then
		fail "toml $1" "tomllib: $(tail -1 "$T/py.err")"
		return
	fi
	got=$("$CT" toml "$T/f.toml" "$2" 2>&1; echo x)
	check_eq "toml $1" "$got" "$want"
}

# toml_refused NAME LINE TEXT: tomllib and the tools refuse TEXT, at LINE.
toml_refused() {
	printf '%b' "$3" >"$T/f.toml"
	if python3 -c 'import sys, tomllib; tomllib.load(open(sys.argv[1], "rb"))' \
	    "$T/f.toml" 2>/dev/null; then
		fail "toml refuses $1" "tomllib accepts it"
	elif "$CT" toml "$T/f.toml" name >"$T/out" 2>&1; then
		fail "toml refuses $1" "accepted"
	else
		check "toml refuses $1 at f.toml:$2" \
		    grep -q "^$T/f.toml:$2: " "$T/out"
	fi
}

toml_same "basic string" name 'name = "harb"\n'
toml_same "literal string" name "name = 'x \\\\y'\n"
toml_same "quoted id" ci.woodpecker_repo_id '[ci]\nwoodpecker_repo_id = "7"\n'
toml_same "integer with _" ci.stale_minutes '[ci]\nstale_minutes = 1_000\n'
toml_same "hex integer" x 'x = 0xff\n'
toml_same "boolean" monitoring.check_prs '[monitoring]\ncheck_prs = false\n'
toml_same "multi-line array" services.containers \
    '[services]\ncontainers = [\n  "a", # first\n\n  "b",\n]\n'
toml_same "inline table" ci.woodpecker_repo_id \
    'ci = { woodpecker_repo_id = 7, stale_minutes = 5 }\n'
toml_same "dotted key" ci.stale_minutes 'ci.stale_minutes = 5\n'
toml_same "multi-line string" d 'd = """\nline 1\n  line \\\n   2"""\n'
toml_same "multi-line literal" d "d = '''\nraw \\\\n\n'''\n"
toml_same "unicode escape" name 'name = "caf\\u00e9"\n'
toml_same "CRLF" name 'name = "x"\r\n[ci]\r\nstale_minutes = 1\r\n'
toml_same "sections the tools do not use" name \
    'name = "x"\n[services.db]\nimage = "pg"\n[[steps]]\nid = 1\n[[steps]]\nid = 2\n'
toml_same "a line over 199 bytes" repo_root \
    "repo_root = \"/$(printf '%0300d' 0)\"\n"
toml_same "a formula" name \
    'name = "review"\n[context]\nfiles = ["AGENTS.md"]\n[[steps]]\nid = "review"\ndescription = """\nRead the diff.\n\n## Verdict\n"""\n'

toml_refused "a key twice" 3 'name = "a"\n\nname = "b"\n'
toml_refused "a table twice" 3 '[ci]\n\n[ci]\n'
toml_refused "a NUL byte" 2 'name = "a"\nx = 1\0\n'
toml_refused "invalid UTF-8" 2 'name = "a"\nx = "\377"\n'
toml_refused "an unterminated string" 2 'a = 1\nname = "x\n'
toml_refused "a bare word" 1 'name = harb\n'

# The layers, through the whole configuration: .env over the
# environment, the project file over both, FACTORY_ROOT and
# DISINTO_RUN_DIR of the environment over .env.
cat >"$FACTORY_ROOT/.env" <<'EOF'
export FORGE_URL=http://from-dotenv
CODEBERG_TOKEN="tok"  # legacy name
DISINTO_RUN_DIR=/not/this
CLAUDE_MODEL=opus
PROJECT_REPO_ROOT=${FACTORY_ROOT}/clones/$PROJECT_NAME
EOF
printf 'name = "p"\nrepo = "o/p"\n[ci]\nwoodpecker_repo_id = "7"\n' \
    >"$T/p.toml"
FORGE_URL=http://from-env CLAUDE_TIMEOUT=9 PROJECT_NAME=envname \
    "$CT" load "$T/p.toml" FORGE_URL FORGE_TOKEN DISINTO_RUN_DIR \
    PROJECT_NAME PROJECT_REPO_ROOT WOODPECKER_REPO_ID AGENT_CMD \
    >"$T/layers" 2>&1
check_eq "layers" "$(cat "$T/layers")" "FORGE_URL=http://from-dotenv
FORGE_TOKEN=tok
DISINTO_RUN_DIR=$DISINTO_RUN_DIR
PROJECT_NAME=p
PROJECT_REPO_ROOT=$FACTORY_ROOT/clones/envname
WOODPECKER_REPO_ID=7
AGENT_CMD=claude --dangerously-skip-permissions --model opus"
printf 'forge_url = "http://from-project"\nrepo = "o/p"\n' >"$T/p.toml"
check_eq "the project file wins for its keys" \
    "$("$CT" load "$T/p.toml" FORGE_URL)" "FORGE_URL=http://from-project"
rm -f "$FACTORY_ROOT/.env"

# Keys the tools do not use: accepted, logged only with -v.
mkdir -p "$FACTORY_ROOT/dev"
printf 'name = "p"\nrepo = "o/p"\n[services.db]\nimage = "pg"\n' >"$T/p.toml"
"$O/dev-poll/dev-poll" "$T/p.toml" >/dev/null 2>&1
check_eq "unused key: exit 0" "$?" 0
check "unused key: not logged without -v" \
    sh -c "! grep -q ignored '$FACTORY_ROOT/dev/dev-agent-p.log'"
"$O/dev-poll/dev-poll" -v "$T/p.toml" >/dev/null 2>"$T/err"
check "unused key: logged with -v" grep -qF \
    "$T/p.toml:4: ignored 'services.db.image' (not used by these tools)" \
    "$FACTORY_ROOT/dev/dev-agent-p.log"

# .env.enc is decrypted with sops, found on the PATH lib/env.sh builds
# ($HOME/.local/bin here, under cron's PATH), and read instead of .env.
mkdir -p "$T/home/.local/bin"
cat >"$T/home/.local/bin/sops" <<EOF
#!/bin/sh
: >"$T/sops-ran"
[ "\$*" = "-d --output-type dotenv $FACTORY_ROOT/.env.enc" ] || exit 1
[ -e "$T/sops-fails" ] && exit 1
printf 'FORGE_REPO=o/enc\nFORGE_TOKEN=from-sops\n'
EOF
chmod +x "$T/home/.local/bin/sops"
: >"$FACTORY_ROOT/.env.enc"
printf 'FORGE_REPO=o/plain\n' >"$FACTORY_ROOT/.env"
cron() {
	env -i HOME="$T/home" PATH=/usr/bin:/bin FACTORY_ROOT="$FACTORY_ROOT" \
	    DISINTO_RUN_DIR="$DISINTO_RUN_DIR" "$@"
}
cron "$O/dev-poll/dev-poll" >/dev/null 2>&1
check_eq ".env.enc: exit 0" "$?" 0
check ".env.enc: sops found on the PATH of lib/env.sh" test -e "$T/sops-ran"
check ".env.enc: its FORGE_REPO used, not .env's" \
    grep -q 'dev not active' "$FACTORY_ROOT/dev/dev-agent-enc.log"
: >"$T/sops-fails"
cron "$O/supervisor-poll/supervisor-poll" >/dev/null 2>&1
check ".env.enc that cannot be decrypted: a warning in the log" grep -qF \
    "warning: cannot decrypt '$FACTORY_ROOT/.env.enc': secrets not loaded" \
    "$FACTORY_ROOT/supervisor/supervisor.log"
rm -f "$T/sops-ran"
cron env DISINTO_CONTAINER=1 FORGE_REPO=o/ctr "$O/dev-poll/dev-poll" \
    >/dev/null 2>&1
check "DISINTO_CONTAINER=1: neither .env.enc nor .env is read" \
    sh -c "test ! -e '$T/sops-ran' && grep -q 'dev not active' \
	'$FACTORY_ROOT/dev/dev-agent-ctr.log'"
rm -f "$FACTORY_ROOT/.env.enc" "$FACTORY_ROOT/.env"
