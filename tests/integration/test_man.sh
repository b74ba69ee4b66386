# The manual pages: dev-poll.8, review-poll.8, supervisor-poll.8 and
# disinto-c.5 are clean under "mandoc -Tlint" (errors and warnings; of the
# style notes only "referenced manual not found", which depends on the
# pages installed here, is let through), every option an executable's
# --help lists is in its page (so an option added without its
# documentation fails here), disinto-c.5's list of settings is the one the
# settings table generates ("make man" rewrites it), and man -l renders
# each page.
. "$(dirname "$0")/lib/common.sh"
t_setup
PAGES="dev-poll/dev-poll.8 review-poll/review-poll.8
supervisor-poll/supervisor-poll.8 disinto-c.5"

if ! command -v mandoc >/dev/null 2>&1; then
	echo "# mandoc not found: lint skipped"
else
	for p in $PAGES; do
		out=$(mandoc -Tlint "$TOP/$p" 2>&1 |
		    grep -v -e 'STYLE: referenced manual not found' \
		    -e 'outdated mandoc.db')
		if [ -z "$out" ]; then
			ok "mandoc -Tlint $p"
		else
			fail "mandoc -Tlint $p" "$(printf '%s' "$out" | tr '\n' ';')"
		fi
	done
	# The lint is not a check that cannot fail.
	printf '.Dd x\n.Dt X 8\n.Os\n.Sh NAME\n.Nm x\n.Nd y\n.Sh DESCRIPTION\n.Bl\n' \
	    >"$T/bad.8"
	check "mandoc -Tlint refuses a broken page" \
	    sh -c "mandoc -Tlint '$T/bad.8' 2>&1 | grep -q ERROR"
fi

# missing PAGE OPTS: the options of the file OPTS ("-n, --dry-run" or
# "--issue" lines) that PAGE does not document ("Fl n", "Fl -dry-run").
missing() {
	_m=
	while read -r _first _second; do
		for _o in $_first $_second; do
			_o=${_o%,}
			grep -qE "(^|[ .])Fl ${_o#-}( |\$)" "$1" || _m="$_m $_o"
		done
	done <"$2"
	echo "$_m"
}

for prog in dev-poll review-poll supervisor-poll; do
	page=$TOP/$prog/$prog.8
	"$O/$prog/$prog" --help | sed -n '/^options:/,/^$/p' |
	    grep -oE '^  (-[A-Za-z], )?--[a-z-]+' >"$T/opts-$prog"
	check "$prog --help lists options" test -s "$T/opts-$prog"
	check_eq "$prog.8 documents every option" \
	    "$(missing "$page" "$T/opts-$prog")" ""
	check "$prog.8 has the sections" sh -c "for s in SYNOPSIS DESCRIPTION \
	    ENVIRONMENT FILES 'EXIT STATUS' EXAMPLES 'SEE ALSO'; do \
	    grep -q \"^\\.Sh \$s\$\" '$page' || exit 1; done"
done
# The check catches an option missing from a page.
sed '/Fl -force/d; s/Fl n , //' "$TOP/dev-poll/dev-poll.8" >"$T/dev-poll.8"
check_eq "the option check catches undocumented options" \
    "$(missing "$T/dev-poll.8" "$T/opts-dev-poll")" " -n --force"

sed -n '/^\.\\" config-table begin/,/^\.\\" config-table end/p' \
    "$TOP/disinto-c.5" | sed '1d;$d' >"$T/page"
"$O/tests/tools/conf-tool" man >"$T/table"
check "the generated list names the settings" \
    grep -q '^\.It Ev FORGE_TOKEN Pq legacy Ev CODEBERG_TOKEN$' "$T/table"
if cmp -s "$T/page" "$T/table"; then
	ok "disinto-c.5's list of settings is current"
else
	fail "disinto-c.5's list of settings is current" \
	    "run make man ($(diff "$T/page" "$T/table" | head -3 | tr '\n' ' '))"
fi

if command -v man >/dev/null 2>&1; then
	for p in $PAGES; do
		name=$(basename "$p" | sed 's/\.[58]$//')
		MANPAGER=cat MANWIDTH=80 man -l "$TOP/$p" >"$T/shown" 2>/dev/null
		check "man -l $p shows the page" \
		    grep -qi "^ *$name - \|^ *$name — " "$T/shown"
	done
else
	echo "# man not found: man -l skipped"
fi
