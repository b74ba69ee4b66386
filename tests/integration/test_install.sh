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
