# A fresh clone builds and installs: "make install DESTDIR=..." puts the
# three executables and the four manual pages under PREFIX, and "make
# install-systemd" the units; the installed executables run, and man -l
# shows the installed pages.  The clone is of the files git would commit
# (tracked, and untracked but not ignored), so nothing built in the
# working tree helps it.
. "$(dirname "$0")/lib/common.sh"
t_setup

# The make of the clone, without the flags of a make that may have
# started this test (make check passes O, CFLAGS and a jobserver down).
cmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u O make -s -C "$T/clone" "$@"
}

if ! git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	echo "# not a git checkout: fresh-clone install skipped"
	exit 0
fi
mkdir -p "$T/clone"
(cd "$TOP" && { git ls-files; git ls-files --others --exclude-standard; } |
    sort -u | while read -r f; do [ -e "$f" ] && echo "$f"; done |
    tar -cf - -T -) | tar -xf - -C "$T/clone"
check "the clone has no build output" test ! -e "$T/clone/dev-poll/dev-poll"
if cmake -j2 CFLAGS=-O0 >"$T/build.out" 2>&1; then
	ok "the clone builds"
else
	fail "the clone builds" "$(tail -5 "$T/build.out" | tr '\n' ' ')"
fi
D=$T/dest
if cmake install DESTDIR="$D" PREFIX=/usr/local >"$T/install.out" 2>&1 &&
    cmake install-systemd DESTDIR="$D" PREFIX=/usr/local \
    >>"$T/install.out" 2>&1; then
	ok "make install and make install-systemd run"
else
	fail "make install and make install-systemd run" \
	    "$(tail -5 "$T/install.out" | tr '\n' ' ')"
fi
(cd "$D" && find . -type f | sort) >"$T/files"
cat >"$T/want" <<'LIST'
./usr/local/bin/dev-poll
./usr/local/bin/review-poll
./usr/local/bin/supervisor-poll
./usr/local/lib/systemd/system/disinto-dev-poll@.service
./usr/local/lib/systemd/system/disinto-dev-poll@.timer
./usr/local/lib/systemd/system/disinto-review-poll@.service
./usr/local/lib/systemd/system/disinto-review-poll@.timer
./usr/local/lib/systemd/system/disinto-supervisor-poll.service
./usr/local/lib/systemd/system/disinto-supervisor-poll.timer
./usr/local/lib/systemd/system/disinto-tmux.service
./usr/local/lib/systemd/system/disinto-webhook.socket
./usr/local/lib/systemd/system/disinto-webhook@.service
./usr/local/share/man/man5/disinto-c.5
./usr/local/share/man/man8/dev-poll.8
./usr/local/share/man/man8/review-poll.8
./usr/local/share/man/man8/supervisor-poll.8
LIST
if cmp -s "$T/files" "$T/want"; then
	ok "every file in place, nothing else"
else
	fail "every file in place, nothing else" \
	    "$(diff "$T/want" "$T/files" | grep '^[<>]' | tr '\n' ' ')"
fi
for p in dev-poll review-poll supervisor-poll; do
	check "installed $p runs" sh -c "'$D/usr/local/bin/$p' --version |
	    grep -q '^$p '"
done
check_eq "executables 0755, pages and units 0644" \
    "$(find "$D" -type f \( -path '*/bin/*' ! -perm 0755 -o \
    ! -path '*/bin/*' ! -perm 0644 \) | wc -l | tr -d ' ')" 0
check_eq "ExecStart names the installed executables" \
    "$(grep -h '^ExecStart=' "$D"/usr/local/lib/systemd/system/*-poll*.service |
    grep -vc '^ExecStart=/usr/local/bin/')" 0
if command -v man >/dev/null 2>&1; then
	for f in man8/dev-poll.8 man8/review-poll.8 man8/supervisor-poll.8 \
	    man5/disinto-c.5; do
		check "man -l shows the installed $f" sh -c "MANPAGER=cat \
		    man -l '$D/usr/local/share/man/$f' 2>/dev/null |
		    grep -q '^NAME'"
	done
fi

# The crontab example of the installed dev-poll(8) works after "make
# install": cron runs its line with sh, a bare environment and the
# crontab's assignments.  The page's paths are this install's
# (/usr/local/bin: $PREFIX/bin; /home/disinto/disinto: the factory).
PREFIX=$T/prefix
if cmake install PREFIX="$PREFIX" >>"$T/install.out" 2>&1; then
	ok "make install PREFIX=... runs"
else
	fail "make install PREFIX=... runs" "$(tail -3 "$T/install.out")"
fi
# The basic world without a ready issue: the tick merges and runs once
# more (the next launch), and this bare factory has no agent to launch.
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for i in d["issues"]:
    i["labels"] = [l for l in i["labels"] if l != "backlog"]
json.dump(d, open(sys.argv[2], "w"))' "$TOP/tests/fixtures/sim-basic.json" "$T/world.json"
sim_start "$T/world.json" || fail "the simulator starts"
F=$T/home/disinto/disinto
mkdir -p "$F/projects" "$F/state" "$T/home" "$T/cronrun"
chmod 700 "$T/cronrun"
cat >"$F/.env" <<ENV
FORGE_URL=$SIM_URL
FORGE_TOKEN=dev-token
FORGE_REVIEW_TOKEN=review-token
FORGE_BOT_USERNAMES=review-bot
DISINTO_RUN_DIR=$T/cronrun
DISINTO_TMUX_SOCKET=$DISINTO_TMUX_SOCKET
DISINTO_HTTP_TIMEOUT=2
ENV
git init -q -b master "$T/repo"
cat >"$F/projects/harb.toml" <<TOML
name = "harb"
repo = "johba/harb"
repo_root = "$T/repo"
primary_branch = "master"
TOML
: >"$F/state/.dev-active"
# The example, from the installed page: its assignments and its command.
sed -n '/^The crontab of a project/,/^\.Ed/p' \
    "$PREFIX/share/man/man8/dev-poll.8" | sed -n '/^\.Bd -literal/,/^\.Ed/p' |
    grep -v '^\.' |
    sed -e "s|/usr/local/bin/|$PREFIX/bin/|" \
    -e "s|/home/disinto/disinto|$F|" >"$T/crontab"
check_eq "the example sets FACTORY_ROOT" \
    "$(grep -c '^FACTORY_ROOT=' "$T/crontab")" 1
# cron: NAME=value lines are the environment, the rest is the schedule
# (5 fields) and the command, which sh runs.
cron_env=$(grep -E '^[A-Z_]+=' "$T/crontab")
cron_cmd=$(grep -vE '^[A-Z_]+=' "$T/crontab" | grep . |
    sed -E 's/^([^ ]+ +){5}//')
check "the example names the installed dev-poll" \
    sh -c "printf '%s' '$cron_cmd' | grep -q '^$PREFIX/bin/dev-poll '"
# shellcheck disable=SC2086
env -i HOME="$T/home" PATH=/usr/bin:/bin $cron_env sh -c "$cron_cmd" \
    >"$T/cron.out" 2>&1
check_eq "the example's tick: exit 0" "$?" 0
check "the example's tick polls (the log shows the poll)" \
    grep -q 'poll: ' "$F/dev/dev-agent-harb.log"
check "the example's tick is not skipped" \
    sh -c "! grep -q 'not active' '$F/dev/dev-agent-harb.log'"
check_eq "the example's tick: nothing on stderr" "$(cat "$T/cron.out")" ""

# Without FACTORY_ROOT the installed executable derives $PREFIX, which is
# no factory: it refuses, says so and creates nothing there.
env -i HOME="$T/home" PATH=/usr/bin:/bin DISINTO_RUN_DIR="$T/cronrun" \
    "$PREFIX/bin/dev-poll" "$F/projects/harb.toml" >"$T/cron.out" 2>&1
check_eq "without FACTORY_ROOT: exit 2" "$?" 2
check_eq "without FACTORY_ROOT: it says where it looked and what to set" \
    "$(cat "$T/cron.out")" \
    "dev-poll: FACTORY_ROOT is not set, and '$PREFIX' (the parent of the executable's directory) is no factory (no state/, no lib/env.sh): set FACTORY_ROOT"
check "without FACTORY_ROOT: no dev/ or metrics/ in the prefix" \
    test ! -e "$PREFIX/dev" -a ! -e "$PREFIX/metrics"
