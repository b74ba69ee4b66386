# The executables' command lines (every option, --help, README.md's
# command-line section, docs/CONFIG.md's settings table), configuration errors and exit codes.
set -u
O=${O:-.}
TOP=${TOP:-$(pwd)}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export FACTORY_ROOT="$T/factory" DISINTO_RUN_DIR="$T/run"
mkdir -p "$FACTORY_ROOT" "$DISINTO_RUN_DIR"
unset FORGE_TOKEN CODEBERG_TOKEN FORGE_REPO CODEBERG_REPO PROJECT_NAME

expect() {	# name want-status want-stderr-substring cmd...
	name=$1 want=$2 text=$3
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "not ok - $name (exit $got, want $want)"
		sed 's/^/#   /' "$T/err"
	elif [ -n "$text" ] && ! grep -qF -- "$text" "$T/err"; then
		echo "not ok - $name (stderr lacks '$text')"
		sed 's/^/#   /' "$T/err"
	else
		echo "ok - $name"
	fi
}

# nofiles NAME WANT-STDERR CMD...: a bad argument exits 2, says why on
# stderr and creates no file at all: no log, status, metrics, lock or
# run file (a typo must not leave a metrics file that alerts forever).
nofiles() {
	name=$1 text=$2
	shift 2
	rm -rf "$FACTORY_ROOT" "$DISINTO_RUN_DIR"
	mkdir -p "$FACTORY_ROOT/state" "$DISINTO_RUN_DIR"
	: >"$FACTORY_ROOT/state/.dev-active"
	: >"$FACTORY_ROOT/state/.review-active"
	: >"$FACTORY_ROOT/state/.supervisor-active"
	expect "$name" 2 "$text" "$@"
	left=$(cd "$FACTORY_ROOT" && find . "$DISINTO_RUN_DIR" -type f ! -path './state/*' | tr '\n' ' ')
	if [ -z "$left" ]; then
		echo "ok - $name: no file created"
	else
		echo "not ok - $name: no file created (got $left)"
	fi
}

printf 'name = "demo"\nrepo = "o/demo"\n[ci]\nstale_minutes = "x"\n' \
    >"$T/bad.toml"
printf 'not = "a project"\n' >"$T/x.sh"
for p in dev-poll review-poll; do
	nofiles "$p: bad argument: unknown option" "unknown option '--bogus'" \
	    "$O/$p/$p" --bogus "$T/bad.toml"
	nofiles "$p: bad argument: a missing file" "$T/none.toml: cannot read" \
	    "$O/$p/$p" "$T/none.toml"
	nofiles "$p: bad argument: a number for a file" "42: cannot read" \
	    "$O/$p/$p" 42
	nofiles "$p: bad argument: not a project file" "$T/x.sh: not a project file" \
	    "$O/$p/$p" "$T/x.sh"
	nofiles "$p: bad argument: a directory" "$T: not a file" \
	    "$O/$p/$p" "$T"
	nofiles "$p: bad argument: two projects" "unexpected argument" \
	    "$O/$p/$p" "$T/bad.toml" "$T/bad.toml"
done
nofiles "supervisor-poll: bad argument: an operand" "unexpected argument '42'" \
    "$O/supervisor-poll/supervisor-poll" 42
nofiles "supervisor-poll: bad argument: unknown option" "unknown option '--bogus'" \
    "$O/supervisor-poll/supervisor-poll" --bogus
rm -rf "$FACTORY_ROOT/state"
printf 'name = "demo"\nrepo = "o/demo"\nforge_url = "http://127.0.0.1:1"\n' \
    >"$T/good.toml"
for p in dev-poll review-poll; do
	expect "$p: unknown option" 2 "unknown option '--bogus'" \
	    "$O/$p/$p" --bogus
	expect "$p: two projects" 2 "unexpected argument" \
	    "$O/$p/$p" "$T/good.toml" "$T/good.toml"
	expect "$p: bad project file names file:line" 2 \
	    "$T/bad.toml:4: [ci] stale_minutes: expected a whole number >= 1, got 'x'" \
	    "$O/$p/$p" "$T/bad.toml"
	expect "$p: missing project file" 2 "$T/none.toml: cannot read" \
	    "$O/$p/$p" "$T/none.toml"
	expect "$p: inactive exits 0" 0 "" "$O/$p/$p" "$T/good.toml"
	expect "$p: -h" 0 "" "$O/$p/$p" -h
done
# --help fits one screen (24 lines of 80 columns) and names the man pages
# that list the settings.
for p in dev-poll review-poll supervisor-poll; do
	"$O/$p/$p" --help >"$T/help"
	size=$(awk '{ if (length($0) > w) w = length($0) } END { print NR, w }' "$T/help")
	if [ "${size% *}" -le 24 ] && [ "${size#* }" -le 80 ]; then
		echo "ok - $p --help fits one screen ($size)"
	else
		echo "not ok - $p --help fits one screen ($size: lines, widest)"
	fi
	if grep -qx "more: man 8 $p, man 5 disinto-c" "$T/help"; then
		echo "ok - $p --help names its man pages"
	else
		echo "not ok - $p --help names its man pages"
	fi
	if grep -q '^  --webhook ' "$T/help" &&
	    grep -q '^  --tmux-server ' "$T/help"; then
		echo "ok - $p --help lists the modes --webhook and --tmux-server"
	else
		echo "not ok - $p --help lists the modes --webhook and --tmux-server"
	fi
done
for p in dev-poll review-poll supervisor-poll; do
	v=$("$O/$p/$p" --version)
	case $v in
	"$p "[0-9]*" (commit "[0-9a-f]*")" | "$p "[0-9]*" (built outside git)")
		echo "ok - $p --version: $v" ;;
	*)	echo "not ok - $p --version: '$v'" ;;
	esac
done
# Built from this git checkout, it names one of its commits.
if [ -e "$TOP/.git" ] && command -v git >/dev/null; then
	c=$("$O/dev-poll/dev-poll" --version | sed -n 's/.*(commit \([0-9a-f]*\).*/\1/p')
	if [ -n "$c" ] && git -C "$TOP" cat-file -e "$c^{commit}" 2>/dev/null
	then
		echo "ok - --version names a commit of this repository"
	else
		echo "not ok - --version names a commit of this repository ('$c')"
	fi
fi
printf 'FORGE_REPO=o/demo\nbroken\n' >"$FACTORY_ROOT/.env"
expect "bad .env names file:line" 2 \
    "$FACTORY_ROOT/.env:2: 'broken' is a command" \
    "$O/dev-poll/dev-poll" "$T/good.toml"
rm -f "$FACTORY_ROOT/.env"

"$O/dev-poll/dev-poll" "$T/good.toml"
if grep -q 'poll: dev not active' "$FACTORY_ROOT/dev/dev-agent-demo.log"; then
	echo "ok - inactive guard logged in dev/dev-agent-demo.log"
else
	echo "not ok - inactive guard logged in dev/dev-agent-demo.log"
fi

for ex in "$TOP"/projects/*.toml.example; do
	# The log is named after the example's project.
	name=$(sed -n 's/^name *= *"\([^"]*\)".*/\1/p' "$ex" | head -1)
	log=$FACTORY_ROOT/dev/dev-agent-$name.log
	rm -f "$log"
	# Copied as projects/*.toml.example says (PROJECT_TOML ends in .toml).
	cp "$ex" "$T/$(basename "$ex" .example)"
	expect "example $(basename "$ex") loads" 0 "" \
	    "$O/dev-poll/dev-poll" -v "$T/$(basename "$ex" .example)"
	if [ -z "$name" ] || [ ! -s "$log" ]; then
		echo "not ok - example $(basename "$ex") logged its tick"
	elif grep -q -e warning -e ignored "$log"; then
		echo "not ok - example $(basename "$ex") has no unknown keys"
	else
		echo "ok - example $(basename "$ex") has no unknown keys"
	fi
done

# The options: each tool's own, combinations that do not go together.
expect "dev-poll: --pr is review-poll's" 2 "unknown option '--pr'" \
    "$O/dev-poll/dev-poll" --pr 3
expect "review-poll: --issue is dev-poll's" 2 "unknown option '--issue'" \
    "$O/review-poll/review-poll" --issue 3
expect "supervisor-poll: --force is not its" 2 "unknown option '--force'" \
    "$O/supervisor-poll/supervisor-poll" --force
expect "--issue needs a number" 2 "--issue: expected a number from 1 to 2^53-1, got 'x'" \
    "$O/dev-poll/dev-poll" --issue x "$T/good.toml"
expect "--issue=0 is no issue" 2 "--issue: expected a number from 1 to 2^53-1, got '0'" \
    "$O/dev-poll/dev-poll" --issue=0 "$T/good.toml"
expect "--issue=-3 is no issue" 2 "--issue: expected a number from 1 to 2^53-1, got '-3'" \
    "$O/dev-poll/dev-poll" --issue=-3 "$T/good.toml"
expect "--issue above 2^53 is no issue" 2 \
    "--issue: expected a number from 1 to 2^53-1, got '9007199254740993'" \
    "$O/dev-poll/dev-poll" --issue 9007199254740993 "$T/good.toml"
expect "--pr above 2^53 is no PR" 2 \
    "--pr: expected a number from 1 to 2^53-1, got '99999999999999999999'" \
    "$O/review-poll/review-poll" --pr 99999999999999999999 "$T/good.toml"
expect "--pr needs its value" 2 "--pr needs N" \
    "$O/review-poll/review-poll" --pr
expect "--project needs its value" 2 "--project needs NAME" \
    "$O/supervisor-poll/supervisor-poll" --project
expect "--force alone" 2 "--force goes with --pr" \
    "$O/review-poll/review-poll" --force "$T/good.toml"
expect "--json alone" 2 "--json goes with --status" \
    "$O/dev-poll/dev-poll" --json
expect "--status with --issue" 2 "--status runs nothing: not with --issue" \
    "$O/dev-poll/dev-poll" --status --issue 3
expect "--dry-run takes no value" 2 "--dry-run takes no value" \
    "$O/dev-poll/dev-poll" --dry-run=yes

# --help lists every option of the tool, each in README.md's command-line
# section, and every setting of docs/CONFIG.md's table (nothing is cut off).
awk '/^## / { on = ($0 == "## Command line") } on' "$TOP/README.md" \
    >"$T/readme-cli"
sed -n 's/^| `\([A-Z_]*\)`.*/\1/p' "$TOP/docs/CONFIG.md" >"$T/readme-vars"
for p in dev-poll review-poll supervisor-poll; do
	"$O/$p/$p" --help >"$T/help"
	sed -n '/^options:/,/^$/p' "$T/help" | grep -o -- '--[a-z-]*' |
	    sort -u >"$T/opts"
	missing=
	for o in $(cat "$T/opts"); do
		grep -q -- "\`$o" "$T/readme-cli" || missing="$missing $o"
	done
	if [ -s "$T/opts" ] && [ -z "$missing" ]; then
		echo "ok - $p --help: its $(wc -l <"$T/opts") options are in README.md"
	else
		echo "not ok - $p --help: options missing from README.md:$missing"
	fi
	grep -q -- "usage: $p " "$T/help" &&
	    echo "ok - $p --help: the usage" || echo "not ok - $p --help: the usage"
	# The settings moved from --help to the man page it names.
	missing=
	for v in $(cat "$T/readme-vars"); do
		grep -q "^\.It Ev $v\( \|$\)" "$TOP/disinto-c.5" ||
		    missing="$missing $v"
	done
	if [ -s "$T/readme-vars" ] && [ -z "$missing" ]; then
		echo "ok - $p --help: every setting is in disinto-c(5)"
	else
		echo "not ok - $p --help: settings missing from disinto-c(5):$missing"
	fi
done
