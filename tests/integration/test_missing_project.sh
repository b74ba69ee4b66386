# A project file that does not exist, run the way cron runs the tools
# (env -i, a factory with a .env and one good project): a typo in the
# crontab line (a misspelt file, a bare "42") exits 2 with the missing
# file named on stderr (cron mails it) and writes nothing, neither in the
# factory (log, metrics, dev/) nor in the run directory.  bash's
# lib/load-project.sh ignored the missing file and ran on .env's project
# instead; the README's command-line section says why this does not.  A
# project file that exists but is broken still logs under its name.
. "$(dirname "$0")/lib/common.sh"
t_setup
H=$T/home
mkdir -p "$H" "$FACTORY_ROOT/projects" "$FACTORY_ROOT/state"
cat >"$FACTORY_ROOT/.env" <<ENV
FORGE_TOKEN=dev-token
FORGE_REVIEW_TOKEN=review-token
PROJECT_NAME=other
FORGE_REPO=johba/other
ENV
cat >"$FACTORY_ROOT/projects/harb.toml" <<TOML
name = "harb"
repo = "johba/harb"
forge_url = "http://127.0.0.1:9"
repo_root = "$T/repo"
primary_branch = "master"
TOML
: >"$FACTORY_ROOT/state/.dev-active"
: >"$FACTORY_ROOT/state/.reviewer-active"

# cron TOOL ARGS...: the tool with cron's environment, from the factory;
# stderr in $T/err, the exit status in $RC.
cron() {
	_c_tool=$1
	shift
	(cd "$FACTORY_ROOT" && env -i PATH=/usr/bin:/bin HOME="$H" \
	    FACTORY_ROOT="$FACTORY_ROOT" DISINTO_RUN_DIR="$DISINTO_RUN_DIR" \
	    "$O/$_c_tool/$_c_tool" "$@") >"$T/out" 2>"$T/err"
	RC=$?
}

# tree: every path under the factory and the run directory.
tree() {
	find "$FACTORY_ROOT" "$DISINTO_RUN_DIR" | sort
}

tree >"$T/before"
for tool in dev-poll review-poll; do
	for arg in projects/hrab.toml 42 "$FACTORY_ROOT/projects/none.toml"; do
		cron "$tool" "$arg"
		check_eq "$tool $arg: exit 2" "$RC" 2
		check_eq "$tool $arg: the missing file named on stderr" \
		    "$(head -n 1 "$T/err")" \
		    "$tool: $arg: cannot read: No such file or directory"
		tree >"$T/after"
		check_eq "$tool $arg: no file written" \
		    "$(diff "$T/before" "$T/after")" ""
	done
done
cron dev-poll --dry-run projects/hrab.toml
check_eq "a dry run: exit 2" "$RC" 2
tree >"$T/after"
check_eq "a dry run: no file written" "$(diff "$T/before" "$T/after")" ""

# The check can fail: a broken project file that exists is logged and
# its status file written under its name.
printf 'name = "harb"\nrepo = \n' >"$FACTORY_ROOT/projects/harb.toml"
cron dev-poll projects/harb.toml
check_eq "a broken project file: exit 2" "$RC" 2
check "a broken project file: its log says why" \
    grep -q 'failing: ' "$FACTORY_ROOT/dev/dev-agent-harb.log"
check "a broken project file: its metrics say so" \
    test -s "$FACTORY_ROOT/metrics/dev-poll-harb.prom"
