# Bad configurations, as cron runs the tools: each tool exits 2 and
# writes why (file:line where there is one) to its log file and to its
# status file, because cron throws stderr away; it asks the forge nothing
# and changes nothing else in the run dir.  `--check` on each exits 2 with
# the same reason on stderr.  The log is found even when
# the project file cannot be read: by its `name =` line, else its name.
. "$(dirname "$0")/lib/common.sh"
t_setup
sim_start "$TOP/tests/fixtures/sim-basic.json" ||
    { fail "simulator starts"; exit 1; }
mkdir -p "$FACTORY_ROOT/state" "$FACTORY_ROOT/projects"
: >"$FACTORY_ROOT/state/.dev-active"
: >"$FACTORY_ROOT/state/.reviewer-active"
unset FORGE_REPO CODEBERG_REPO PROJECT_NAME DISINTO_FORMULAS_DIR
export FORGE_TOKEN=dev-token DISINTO_HTTP_TIMEOUT=2 DISINTO_HTTP_RETRIES=1
P=$T/cfg.toml

# project LINES...: the project file $P (name "cfg") with extra lines.
project() {
	{
		echo 'name = "cfg"'
		echo "forge_url = \"$SIM_URL\""
		printf '%s\n' "$@"
	} >"$P"
}

log_of() {	# TOOL: its log file
	case $1 in
	dev-poll) echo "$FACTORY_ROOT/dev/dev-agent-${2:-cfg}.log" ;;
	review-poll) echo "$FACTORY_ROOT/review/review.log" ;;
	supervisor-poll) echo "$FACTORY_ROOT/supervisor/supervisor.log" ;;
	esac
}

status_of() {	# TOOL [PROJECT]: its status file's name
	case $1 in
	dev-poll) echo "dev-agent-status-${2:-cfg}" ;;
	review-poll) echo "${2:-cfg}-review-status" ;;
	supervisor-poll) echo "supervisor-status" ;;
	esac
}

# refused NAME TOOL WANT [PROJECT] -- ARGS...: run TOOL ARGS, check the
# exit status, WANT on stderr, in the log and the status file, no
# request to the forge and no other file in the run dir.
refused() {
	_name=$1 _tool=$2 _want=$3 _proj=${4:-cfg}
	shift 5
	rm -rf "$DISINTO_RUN_DIR" "$FACTORY_ROOT/dev" "$FACTORY_ROOT/review" \
	    "$FACTORY_ROOT/supervisor"
	mkdir -p "$DISINTO_RUN_DIR"
	sim_post /_admin/log/reset '{}' >/dev/null || fail "log reset"
	"$O/$_tool/$_tool" "$@" >"$T/out" 2>"$T/err"
	check_eq "$_name: $_tool exits 2" "$?" 2
	check "$_name: $_tool says why on stderr" grep -qF -- "$_want" "$T/err"
	check "$_name: $_tool says why in its log" \
	    grep -qF -- "failing: $_want" "$(log_of "$_tool" "$_proj")"
	check "$_name: $_tool's status file says failing" grep -qF -- \
	    "$_tool: failing: $_want" \
	    "$DISINTO_RUN_DIR/$(status_of "$_tool" "$_proj")"
	check_eq "$_name: $_tool asked the forge nothing" \
	    "$(sim_log_count '*' '.')" 0
	check_eq "$_name: $_tool left only its status file" \
	    "$(ls -A "$DISINTO_RUN_DIR")" "$(status_of "$_tool" "$_proj")"
	# --check says the same, and only on stderr.
	rm -rf "$DISINTO_RUN_DIR" && mkdir -p "$DISINTO_RUN_DIR"
	"$O/$_tool/$_tool" --check "$@" >"$T/out" 2>"$T/err"
	check_eq "$_name: $_tool --check exits 2" "$?" 2
	check "$_name: $_tool --check says why on stderr" \
	    grep -qF -- "$_want" "$T/err"
	check_eq "$_name: $_tool --check asked the forge nothing" \
	    "$(sim_log_count '*' '.')" 0
}

# Each refused configuration, for the tools that take a project file.
for tool in dev-poll review-poll; do
	project 'primary_branch = "main"'
	refused "no repo" "$tool" "$P: no 'repo'" cfg -- "$P"
	project 'repo = "o/p?x=1#"'
	refused "repo not as Gitea names them" "$tool" \
	    "$P:3: repo: the repository name has characters other than" \
	    cfg -- "$P"
	project 'repo = "johba/harb"' 'primary_branch = "a..b"'
	refused "branch not as git names them" "$tool" \
	    "$P:4: primary_branch: contains '..', got 'a..b'" cfg -- "$P"
	project 'repo = "johba/harb"' 'x = 1'
	printf 'y = 2\000z = 3\n' >>"$P"
	refused "NUL byte in the project file" "$tool" \
	    "$P:5: NUL byte in the file" cfg -- "$P"
	project 'repo = "johba/harb"' '[ci]' 'woodpecker_repo_id = [1]'
	refused "a value of the wrong kind" "$tool" \
	    "$P:5: expected a single value, not an array" cfg -- "$P"
	printf '[ci\nname = "x"\n' >"$T/broken.toml"
	refused "unreadable project file, logged by its file name" "$tool" \
	    "$T/broken.toml:1: expected ']' at the end of a table header" \
	    broken -- "$T/broken.toml"
	project 'repo = "johba/harb"'
	printf 'FORGE_TOKEN=x\nA=abc\\' >"$FACTORY_ROOT/.env"
	refused "dangling backslash in .env" "$tool" \
	    "$FACTORY_ROOT/.env:2: backslash at the end of the file quotes nothing" \
	    cfg -- "$P"
	printf 'A=1\nB=$(id)\n' >"$FACTORY_ROOT/.env"
	refused "command in .env" "$tool" \
	    "$FACTORY_ROOT/.env:2: command substitution \$(...) needs a shell" \
	    cfg -- "$P"
	printf 'A=1\000B=2\n' >"$FACTORY_ROOT/.env"
	refused "NUL byte in .env" "$tool" \
	    "$FACTORY_ROOT/.env:1: NUL byte in the file" cfg -- "$P"
	rm -f "$FACTORY_ROOT/.env"
	# A bad argument (unknown option, operand) is no configuration of a
	# project: said on stderr only, no file (test_cli.sh).
done

# supervisor-poll reads every project file.
project 'repo = "johba/harb"' 'primary_branch = "-x"'
cp "$P" "$FACTORY_ROOT/projects/cfg.toml"
refused "bad branch in a project file" supervisor-poll \
    "$FACTORY_ROOT/projects/cfg.toml:4: primary_branch: starts with '-'" \
    cfg --
rm -f "$FACTORY_ROOT/projects/cfg.toml"
printf 'A="x\n' >"$FACTORY_ROOT/.env"
refused "unterminated quote in .env" supervisor-poll \
    "$FACTORY_ROOT/.env:1: unterminated double quote" cfg --
rm -f "$FACTORY_ROOT/.env"

# Fixed, the next tick says so in the status file and goes on.
project 'repo = "johba/harb"' 'primary_branch = "-x"'
"$O/dev-poll/dev-poll" "$P" >/dev/null 2>&1
project 'repo = "johba/harb"'
"$O/dev-poll/dev-poll" --dry-run "$P" >/dev/null 2>&1
check "dry-run: the failing status is left" \
    grep -q "failing:" "$DISINTO_RUN_DIR/dev-agent-status-cfg"
rm -f "$FACTORY_ROOT/state/.dev-active"
"$O/dev-poll/dev-poll" "$P" >/dev/null 2>&1
check_eq "fixed: exit 0" "$?" 0
check "fixed: the status no longer says failing" \
    grep -q "dev-poll: configuration loaded" \
    "$DISINTO_RUN_DIR/dev-agent-status-cfg"
# The next tick that runs to its end says so: no stale line stays.
mkdir -p "$FACTORY_ROOT/state" && touch "$FACTORY_ROOT/state/.dev-active"
"$O/dev-poll/dev-poll" "$P" >/dev/null 2>&1
check "a good tick after it: the status says tick ok" \
    grep -q "dev-poll: tick ok" "$DISINTO_RUN_DIR/dev-agent-status-cfg"
rm -f "$FACTORY_ROOT/state/.dev-active"
