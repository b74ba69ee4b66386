# The manual pages --help names are where man finds them after `make
# install-factory`: in the factory (.disinto-c/man, kept out of git
# status), which the installed executables' --help names; `make
# uninstall-factory` removes them.
. "$(dirname "$0")/lib/common.sh"
t_setup
MAKE="make --no-print-directory -C $TOP O=$O"
F=$FACTORY_ROOT
mkdir -p "$F/dev" "$F/review" "$F/supervisor" "$F/state"
for s in dev/dev-poll.sh review/review-poll.sh supervisor/supervisor-poll.sh; do
	printf '#!/bin/bash\necho bash\n' >"$F/$s"
	chmod 755 "$F/$s"
done
git -C "$F" init -q -b master
git -C "$F" add -A
git -C "$F" -c user.name=t -c user.email=t@t commit -q -m factory

if $MAKE install-factory FACTORY="$F" >"$T/install.out" 2>&1; then
	ok "make install-factory"
else
	fail "make install-factory" "$(tail -3 "$T/install.out" | tr '\n' '|')"
fi
M=$(cd "$F" && pwd -P)/.disinto-c/man
for p in man8/dev-poll.8 man8/review-poll.8 man8/supervisor-poll.8 \
    man5/disinto-c.5; do
	check "install-factory: $p in the factory" test -f "$M/$p"
done
check_eq "install-factory: git status stays empty" \
    "$(git -C "$F" status --porcelain)" ""
for p in dev/dev-poll supervisor/supervisor-poll; do
	(unset FACTORY_ROOT; "$F/$p.sh" --help) >"$T/help"
	check "${p#*/} --help names the factory's pages" grep -qxF \
	    "more: man -M $M 8 ${p#*/} (and 5 disinto-c)" "$T/help"
done
if command -v man >/dev/null 2>&1; then
	check "man finds the page --help names" \
	    sh -c "MANPAGER=cat man -M '$M' 8 dev-poll 2>/dev/null | grep -q dev-poll"
fi

if $MAKE uninstall-factory FACTORY="$F" >"$T/uninstall.out" 2>&1; then
	ok "make uninstall-factory"
else
	fail "make uninstall-factory" "$(tail -3 "$T/uninstall.out" | tr '\n' '|')"
fi
check "uninstall-factory: the pages are gone" test ! -e "$M"
