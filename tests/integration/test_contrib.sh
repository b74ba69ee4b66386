# The service files under contrib/: the systemd units (installed by "make
# install-systemd" with DESTDIR, PREFIX and BINDIR honoured, then checked
# by "systemd-analyze verify" against the built executables, and their
# schedules against the crontab lines' offsets; the tmux unit's command
# starts a server that carries the factory's .env), and the Nomad job
# specifications (loaded with python3: periodic block, overlap rule,
# placement constraints, host volume, raw_exec tasks).
. "$(dirname "$0")/lib/common.sh"
t_setup

UNITS="disinto-dev-poll@.service disinto-dev-poll@.timer
disinto-review-poll@.service disinto-review-poll@.timer
disinto-supervisor-poll.service disinto-supervisor-poll.timer
disinto-tmux.service disinto-webhook.socket disinto-webhook@.service"

# The make of the tree, without the flags of a make that may have started
# this test (make check passes O, CFLAGS and a jobserver down).
tmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" "$@"
}

# verify_quiet FILE...: systemd-analyze verify succeeds and prints nothing
# (it reports unknown keys and unsafe settings on stderr yet exits 0).
verify_quiet() {
	_v_out=$(cd "$(dirname "$1")" && systemd-analyze verify "$@" 2>&1)
	_v_rc=$?
	[ "$_v_rc" -eq 0 ] && [ -z "$_v_out" ] && return 0
	printf '%s\n' "$_v_out" | sed 's/^/#   /'
	return 1
}

# minutes SPEC: the minutes of the next six elapses of a calendar spec.
minutes() {
	TZ=UTC systemd-analyze calendar --iterations=6 "$1" 2>/dev/null |
	    sed -n 's/.* [0-9][0-9]:\([0-9][0-9]\):[0-9][0-9] .*/\1/p' |
	    sort -n | tr '\n' ' '
}

# --- systemd ---------------------------------------------------------------

mkdir -p "$T/bin"
for p in dev-poll review-poll supervisor-poll; do
	ln -s "$O/$p/$p" "$T/bin/$p"
done
SD=$T/root/opt/disinto/lib/systemd/system
if tmake install-systemd DESTDIR="$T/root" PREFIX=/opt/disinto \
    BINDIR="$T/bin" >"$T/install.out" 2>&1; then
	ok "make install-systemd runs"
else
	fail "make install-systemd runs" "$(tr '\n' ' ' <"$T/install.out")"
fi
got=$(cd "$SD" 2>/dev/null && ls | sort | tr '\n' ' ')
want=$(printf '%s\n' $UNITS | sort | tr '\n' ' ')
check_eq "every unit installed under DESTDIR/PREFIX/lib/systemd/system" \
    "$got" "$want"
check_eq "ExecStart points into BINDIR" \
    "$(grep -h '^ExecStart=' "$SD"/disinto-*-poll*.service | grep -vc "^ExecStart=$T/bin/")" 0
check "no placeholder left" sh -c "! grep -q @BINDIR@ '$SD'/*"
check_eq "units are 0644" \
    "$(find "$SD" -type f ! -perm 0644 | wc -l | tr -d ' ')" 0

for u in dev-poll@ review-poll@ supervisor-poll; do
	check_eq "$u service is a oneshot" \
	    "$(grep -c '^Type=oneshot$' "$SD/disinto-$u.service")" 1
	check_eq "$u service waits for the tmux unit" \
	    "$(grep -c '^Requires=disinto-tmux.service$' "$SD/disinto-$u.service")" 1
	check_eq "$u service keeps /tmp shared (no PrivateTmp)" \
	    "$(grep -c '^PrivateTmp=' "$SD/disinto-$u.service")" 0
	check_eq "$u service logs to the journal" \
	    "$(grep -c '^Environment=DISINTO_LOG=stderr$' "$SD/disinto-$u.service")" 1
	check_eq "$u timer is persistent" \
	    "$(grep -c '^Persistent=true$' "$SD/disinto-$u.timer")" 1
done
check_eq "the dev service leaves its detached children running" \
    "$(grep -c '^KillMode=process$' "$SD/disinto-dev-poll@.service")" 1
check_eq "the webhook socket hands each connection to a new service" \
    "$(grep -c '^Accept=yes$' "$SD/disinto-webhook.socket")" 1
check_eq "the webhook service runs the receiver on the connection" \
    "$(grep -c "^ExecStart=$T/bin/dev-poll --webhook$" \
    "$SD/disinto-webhook@.service")" 1
check_eq "the webhook service leaves the ticks it woke running" \
    "$(grep -c '^KillMode=process$' "$SD/disinto-webhook@.service")" 1
check_eq "the dev service takes the project from the instance name" \
    "$(grep -c '^ExecStart=.*/dev-poll ${FACTORY_ROOT}/projects/%i.toml$' \
    "$SD/disinto-dev-poll@.service")" 1

if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "# systemd-analyze not found: unit verification and schedules skipped"
else
	if verify_quiet "$SD/disinto-dev-poll@demo.service" \
	    "$SD/disinto-dev-poll@demo.timer" \
	    "$SD/disinto-review-poll@demo.service" \
	    "$SD/disinto-review-poll@demo.timer" \
	    "$SD/disinto-supervisor-poll.service" \
	    "$SD/disinto-supervisor-poll.timer" "$SD/disinto-tmux.service" \
	    "$SD/disinto-webhook.socket" "$SD/disinto-webhook@1.service"; then
		ok "systemd-analyze verify passes every unit"
	else
		fail "systemd-analyze verify passes every unit"
	fi
	# The check must be able to fail: an unknown directive, and an
	# ExecStart that does not exist.
	mkdir -p "$T/bad1" "$T/bad2"
	cp "$SD"/* "$T/bad1/"
	echo "ProtectEverything=yes" >>"$T/bad1/disinto-supervisor-poll.service"
	if verify_quiet "$T/bad1/disinto-supervisor-poll.service" >/dev/null
	then
		fail "verify reports an unknown directive"
	else
		ok "verify reports an unknown directive"
	fi
	tmake install-systemd DESTDIR="$T/bad2" PREFIX=/ BINDIR=/nonexistent \
	    >/dev/null 2>&1
	if verify_quiet "$T/bad2/lib/systemd/system/disinto-supervisor-poll.service" \
	    >/dev/null; then
		fail "verify refuses a missing executable"
	else
		ok "verify refuses a missing executable"
	fi

	for t in supervisor-poll:0 review-poll@:3 dev-poll@:6; do
		u=${t%:*}
		m=${t#*:}
		spec=$(sed -n 's/^OnCalendar=//p' "$SD/disinto-$u.timer")
		want=$(for i in 0 1 2 3 4 5; do echo $((i * 10 + m)); done |
		    awk '{ printf "%02d\n", $1 }' | sort -n | tr '\n' ' ')
		check_eq "$u timer fires at :0$m and every 10 minutes" \
		    "$(minutes "$spec")" "$want"
	done
fi

# The tmux unit's ExecStart (BINDIR substituted), run as systemd runs it
# (an empty environment but the unit's FACTORY_ROOT): the server it
# starts carries the non-secret part of the factory's .env, read as the
# tools read it (export lines, ${VAR}), and no token: a session started
# in it later sees none, whatever .env holds; a second start leaves the
# running server and its sessions alone.
TU=$SD/disinto-tmux.service
check_eq "the tmux unit is a oneshot that remains" \
    "$(grep -c -e '^Type=oneshot$' -e '^RemainAfterExit=yes$' "$TU")" 2
EXEC=$(sed -n 's/^ExecStart=//p' "$TU")
check_eq "the tmux unit starts the server with dev-poll --tmux-server" \
    "$EXEC" "$T/bin/dev-poll --tmux-server"
mkdir -p "$T/factory" "$T/home"
TOK=tok-$$-${T##*.}
cat >"$T/factory/.env" <<ENV
export FORGE_TOKEN=$TOK
PART=abc
DERIVED=\${PART}-def
GITHUB_TOKEN=gh-$TOK
DISINTO_TMUX_SOCKET=$DISINTO_TMUX_SOCKET
ENV
# tmux_env NAME: NAME as a session started in the server now sees it.
tmux_env() {
	rm -f "$T/session.env"
	t_tmux new-session -d -s "probe$1" "env >$T/session.env.tmp; mv $T/session.env.tmp $T/session.env"
	wait_for "[ -e '$T/session.env' ]" 10 >/dev/null
	sed -n "s/^$1=//p" "$T/session.env"
}
# shellcheck disable=SC2086  # ExecStart's words, as systemd splits them
(cd "$T/home" && env -i PATH=/usr/bin:/bin HOME="$T/home" \
    FACTORY_ROOT="$T/factory" $EXEC) >"$T/tmux-unit.out" 2>&1
check_eq "the unit's command exits 0" "$?" 0
check "a server runs on the socket" t_tmux list-sessions -F x
check_eq "a session in it sees no FORGE_TOKEN from .env" \
    "$(tmux_env FORGE_TOKEN)" ""
check_eq "a session in it sees .env's \${VAR} expanded" "$(tmux_env DERIVED)" \
    "abc-def"
check_eq "a session in it sees FACTORY_ROOT" "$(tmux_env FACTORY_ROOT)" \
    "$T/factory"
check_eq "GITHUB_TOKEN is left out" "$(tmux_env GITHUB_TOKEN)" ""
check_eq "the server's global environment holds no token" \
    "$(t_tmux show-environment -g | grep -c -e "$TOK")" 0
t_tmux new-session -d -s keep "sleep 600"
printf 'export PART=other\nDISINTO_TMUX_SOCKET=%s\n' \
    "$DISINTO_TMUX_SOCKET" >"$T/factory/.env"
# shellcheck disable=SC2086
(cd "$T/home" && env -i PATH=/usr/bin:/bin HOME="$T/home" \
    FACTORY_ROOT="$T/factory" $EXEC) >>"$T/tmux-unit.out" 2>&1
check_eq "a second start exits 0" "$?" 0
check "a second start leaves the running sessions" t_tmux has-session -t keep
check_eq "a second start leaves the server's environment" \
    "$(tmux_env PART)" "abc"
check_eq "a bad .env: exit 2" "$(printf 'BAD LINE\n' >"$T/factory/.env";
    env -i PATH=/usr/bin:/bin HOME="$T/home" FACTORY_ROOT="$T/factory" \
    $EXEC >/dev/null 2>&1; echo $?)" 2
t_tmux kill-server 2>/dev/null

# --- Nomad -----------------------------------------------------------------

# nomad_check DIR: check every job specification in DIR; prints one line
# per problem and exits 1 when there is any.
nomad_check() {
	python3 - "$1" <<'EOF'
import glob, json, os, re, sys

OFFSET = {"supervisor-poll": 0, "review-poll": 3, "dev-poll": 6}
problems = []
placed = {}


def bad(path, msg):
    problems.append("%s: %s" % (os.path.basename(path), msg))


def check_periodic(path, job, tool):
    p = job.get("Periodic") or {}
    if p.get("Enabled") is not True or p.get("SpecType") != "cron":
        bad(path, "Periodic must be an enabled cron spec")
    if p.get("ProhibitOverlap") is not True:
        bad(path, "Periodic.ProhibitOverlap must be true")
    f = str(p.get("Spec", "")).split()
    want = ",".join(str(OFFSET[tool] + 10 * i) for i in range(6))
    if len(f) != 5 or f[0] != want or f[1:] != ["*"] * 4:
        bad(path, "Spec %r: want %r" % (p.get("Spec"), want + " * * * *"))


def check_task(path, group, tool):
    tasks = group.get("Tasks") or []
    if len(tasks) != 1 or tasks[0].get("Driver") != "raw_exec":
        bad(path, "want one raw_exec task")
        return None
    t = tasks[0]
    cmd = (t.get("Config") or {}).get("command", "")
    if not cmd.startswith("/") or os.path.basename(cmd) != tool:
        bad(path, "command %r is not an absolute path to %s" % (cmd, tool))
    if not (t.get("Env") or {}).get("FACTORY_ROOT"):
        bad(path, "FACTORY_ROOT not set")
    run = (t.get("Env") or {}).get("DISINTO_RUN_DIR")
    # The host's own run directory, shared with the agents and the other
    # ticks (the user's default one when not set): never one of the
    # allocation's directories.
    if run is not None and (not run.startswith("/") or "NOMAD" in run or
                            "alloc" in run):
        bad(path, "DISINTO_RUN_DIR %r is not a host directory" % run)
    return (t.get("Config") or {}).get("args") or []


def check_volume(path, group):
    vols = group.get("Volumes") or {}
    if not any(v.get("Type") == "host" and v.get("Source")
               for v in vols.values()):
        bad(path, "the factory host volume is missing")


def check_placement(path, job, tool, args):
    cons = job.get("Constraints") or []
    if tool == "supervisor-poll":
        # Every project of the host's factory, or one (--project).
        if args and (len(args) != 2 or args[0] != "--project" or
                     not args[1]):
            bad(path, "supervisor-poll args %r: none, or --project NAME"
                % args)
        if not any(c.get("LTarget") == "${node.unique.name}" and
                   c.get("Operand") == "=" and c.get("RTarget")
                   for c in cons):
            bad(path, "no per-host constraint on ${node.unique.name}")
        return
    proj = [c.get("RTarget") for c in cons
            if c.get("LTarget") == "${meta.disinto_projects}" and
            c.get("Operand") == "set_contains"]
    if len(proj) != 1 or not proj[0]:
        bad(path, "want one set_contains constraint naming the project")
        return
    if len(args) != 1 or not args[0].endswith("/projects/%s.toml" % proj[0]):
        bad(path, "args %r do not name projects/%s.toml" % (args, proj[0]))
    placed.setdefault(proj[0], set()).add(json.dumps(cons, sort_keys=True))


def check(path):
    with open(path) as fh:
        job = json.load(fh).get("Job")
    if not isinstance(job, dict):
        return bad(path, "no Job object")
    tool = next((k for k in OFFSET if job.get("ID", "").startswith(
        "disinto-" + k)), None)
    if tool is None:
        return bad(path, "ID %r names no tool" % job.get("ID"))
    if job.get("Type") != "batch":
        bad(path, "Type must be batch")
    check_periodic(path, job, tool)
    groups = job.get("TaskGroups") or []
    if len(groups) != 1 or groups[0].get("Count", 1) != 1:
        return bad(path, "want one task group of one")
    check_volume(path, groups[0])
    args = check_task(path, groups[0], tool)
    if args is not None:
        check_placement(path, job, tool, args)


files = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))
if not files:
    problems.append("no job specifications")
for path in files:
    try:
        check(path)
    except (OSError, ValueError, AttributeError) as e:
        bad(path, "cannot load: %s" % e)
for proj, cons in placed.items():
    if len(cons) != 1:
        problems.append("the tools of %s are placed differently" % proj)
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
}

NOMAD=$TOP/contrib/nomad
check_eq "Nomad jobs for dev, review and supervisor" \
    "$(ls "$NOMAD" | sed -n 's/^disinto-\([a-z]*\)-poll-.*\.json$/\1/p' | sort | tr '\n' ' ')" \
    "dev review supervisor "
if out=$(nomad_check "$NOMAD" 2>&1); then
	ok "Nomad jobs: periodic, no overlap, placed per project and host"
else
	fail "Nomad jobs: periodic, no overlap, placed per project and host" \
	    "$(printf '%s' "$out" | tr '\n' ';')"
fi

# The checker must catch each rule broken.
nomad_mutant() {
	rm -rf "$T/nomad"
	mkdir -p "$T/nomad"
	cp "$NOMAD"/*.json "$T/nomad/"
	python3 -c "
import json, sys
p = sys.argv[1]
d = json.load(open(p))
j = d['Job']
$2
json.dump(d, open(p, 'w'))
" "$T/nomad/$1"
	if nomad_check "$T/nomad" >/dev/null 2>&1; then
		fail "Nomad check catches: $3"
	else
		ok "Nomad check catches: $3"
	fi
}
nomad_mutant disinto-dev-poll-myproject.json \
    "j['Periodic']['ProhibitOverlap'] = False" "overlap allowed"
nomad_mutant disinto-review-poll-myproject.json \
    "j['Periodic']['Spec'] = '*/10 * * * *'" "wrong offset"
nomad_mutant disinto-dev-poll-myproject.json \
    "j['Constraints'][0]['RTarget'] = 'other'" "constraint on another project"
nomad_mutant disinto-dev-poll-myproject.json \
    "j['Constraints'].append({'LTarget': '\${node.unique.name}', 'Operand': '=', 'RTarget': 'host-b'})" \
    "a project's tools placed differently"
nomad_mutant disinto-supervisor-poll-host-a.json \
    "j['Constraints'] = []" "supervisor not pinned to a host"
nomad_mutant disinto-dev-poll-myproject.json \
    "j['TaskGroups'][0]['Volumes'] = {}" "no factory volume"
nomad_mutant disinto-review-poll-myproject.json \
    "j['TaskGroups'][0]['Tasks'][0]['Env']['DISINTO_RUN_DIR'] = '\${NOMAD_TASK_DIR}/run'" \
    "a run directory of the allocation"
nomad_mutant disinto-dev-poll-myproject.json \
    "j['TaskGroups'][0]['Tasks'][0]['Driver'] = 'docker'" "not raw_exec"

# docs/OPERATING.md's "More than one host" (the README's links there) says
# how a host checks its projects alone and that the run directory is the
# host's.
sed -n '/^## More than one host/,/^## /p' "$TOP/docs/OPERATING.md" >"$T/hosts.md"
check "docs/OPERATING.md: supervisor-poll --project in More than one host" \
    grep -q -- '--project NAME' "$T/hosts.md"
check "docs/OPERATING.md: host-local run directories in More than one host" \
    grep -qF 'the same `DISINTO_RUN_DIR` in each' "$T/hosts.md"
nomad_mutant disinto-supervisor-poll-host-a.json \
    "j['TaskGroups'][0]['Tasks'][0]['Config']['args'] = ['harb']" \
    "a supervisor given a project file"
