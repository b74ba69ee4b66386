# supervisor-poll's host clean-up as upstream did it, without a shell:
# on a memory crisis the page cache is dropped ("sudo -n sysctl" when sudo
# is installed, else root writes the kernel switch under the proc
# directory); on disk pressure "docker system prune -f" runs when docker
# is installed (through "sudo -n").  Each is switchable
# (SUPERVISOR_DROP_CACHES, SUPERVISOR_DOCKER_PRUNE) and skipped with one
# log line when switched off or not permitted.  sudo and docker are fakes
# in $HOME/.local/bin, first on the PATH the tools build; the fake sudo
# never runs anything but the fake docker.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/supervisor.sh"
sup_setup "$TOP/tests/fixtures/supervisor-escalate.json"
export HOME=$T/home SUPERVISOR_FIX_CMD=
BIN=$HOME/.local/bin
mkdir -p "$BIN" "$T/proc/sys/vm"
fake_sudo() {	# fake_sudo EXIT MESSAGE: sudo that records its words
	cat >"$BIN/sudo" <<EOF
#!/bin/sh
echo "\$*" >>"$T/sudo.calls"
[ "$1" = 0 ] || { echo "$2" >&2; exit $1; }
[ "\$1" = -n ] || exit 9
shift
[ "\$*" != "docker system prune -f" ] || exec "$BIN/docker" system prune -f
exit 0
EOF
	chmod +x "$BIN/sudo"
}
cat >"$BIN/docker" <<EOF
#!/bin/sh
echo "\$*" >>"$T/docker.calls"
rm -f "$T/disk/filler"
echo "Total reclaimed space: 900kB"
EOF
chmod +x "$BIN/docker"
printf 'MemTotal: 16000000 kB\nMemAvailable: 300000 kB\n' >"$T/meminfo"

# --- dropping caches ------------------------------------------------------------
# The stall: switched off (as every other test runs), a crisis only alerts.
sup_run
check_eq "off: exit 0" "$SUP_RC" 0
check "off: one line says so" sup_log_has \
    "not dropping the caches: SUPERVISOR_DROP_CACHES is off"
check "off: no sudo" test ! -e "$T/sudo.calls"

export SUPERVISOR_DROP_CACHES=true
: >"$SUP_LOG"
fake_sudo 0
sup_run
check_eq "sudo: exit 0" "$SUP_RC" 0
check_eq "sudo: the caches are dropped with sudo -n sysctl" \
    "$(cat "$T/sudo.calls")" "-n sysctl -q -w vm.drop_caches=3"
check "sudo: the fix is logged" sup_log_has "fixed: dropped the filesystem caches"

: >"$SUP_LOG"
rm -f "$T/sudo.calls"
fake_sudo 1 "sudo: a password is required"
sup_run
check_eq "sudo refused: exit 0" "$SUP_RC" 0
check_eq "sudo refused: one log line" "$(sup_log_count 'dropping the caches')" 1
check "sudo refused: it says why" sup_log_has \
    "dropping the caches (sudo -n sysctl) skipped: not permitted or failed (exit 1): sudo: a password is required"
check "sudo refused: nothing claimed fixed" sh -c \
    "! grep -q 'dropped the filesystem caches' '$SUP_LOG'"
rm -f "$BIN/sudo"

# Without sudo, root writes the switch itself (only where the machine has
# no sudo of its own: a real one would drop this host's caches).
if ! command -v sudo >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	: >"$T/proc/sys/vm/drop_caches"
	: >"$SUP_LOG"
	sup_run
	check_eq "root, no sudo: 3 written to the switch" \
	    "$(cat "$T/proc/sys/vm/drop_caches")" 3
	check "root, no sudo: the fix is logged" sup_log_has \
	    "fixed: dropped the filesystem caches"
fi
printf 'MemTotal: 16000000 kB\nMemAvailable: 9000000 kB\n' >"$T/meminfo"

# --- docker prune on disk pressure ----------------------------------------------
# A small file system of its own, 90% full (mounting needs root).
mkdir -p "$T/disk"
if mount -t tmpfs -o size=1m tmpfs "$T/disk" 2>/dev/null; then
	trap 'umount "$T/disk" 2>/dev/null; t_cleanup' EXIT
	head -c 900000 /dev/zero >"$T/disk/filler"
	export DISINTO_DISK_PATH=$T/disk
	: >"$SUP_LOG"
	rm -f "$T/sudo.calls"
	sup_run
	check "prune off: one line says so" sup_log_has \
	    "not pruning docker: SUPERVISOR_DOCKER_PRUNE is off"
	check "prune off: P1 stays" sup_log_has "P1: disk still"
	check "prune off: docker not run" test ! -e "$T/docker.calls"

	export SUPERVISOR_DOCKER_PRUNE=true
	fake_sudo 1 "sudo: a password is required"
	: >"$SUP_LOG"
	sup_run
	check_eq "prune refused: exit 0" "$SUP_RC" 0
	check "prune refused: one line" sup_log_has \
	    "docker prune skipped: not permitted or failed (exit 1): sudo: a password is required"
	check "prune refused: docker not run" test ! -e "$T/docker.calls"

	fake_sudo 0
	: >"$SUP_LOG"
	sup_run
	check_eq "prune: exit 0" "$SUP_RC" 0
	check_eq "prune: docker system prune -f through sudo -n" \
	    "$(tail -1 "$T/sudo.calls") / $(cat "$T/docker.calls")" \
	    "-n docker system prune -f / system prune -f"
	check "prune: logged as a fix" sup_log_has \
	    "fixed: docker prune (docker system prune -f)"
	check "prune: disk recovered, no P1" sh -c \
	    "grep -q 'disk recovered' '$SUP_LOG' && ! grep -q 'P1: disk still' '$SUP_LOG'"
else
	echo "# no tmpfs could be mounted (not root?): disk pressure not tested"
fi
