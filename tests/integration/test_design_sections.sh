#!/bin/sh
# docs/DESIGN.md is the map the sources cite: every "DESIGN section N" in
# a source, header, test or script names a section "## N." of it, and the
# check catches a citation of a section that is not there.
. "$(dirname "$0")/lib/common.sh"
t_setup
D=$TOP/docs/DESIGN.md
check "docs/DESIGN.md is in the tree" test -s "$D"

# missing DESIGN FILES...: the cited section numbers with no heading.
missing() {
	_d=$1
	shift
	grep -ohE 'DESIGN section [0-9]+' "$@" 2>/dev/null |
	    awk '{print $3}' | sort -un | while read -r n; do
		grep -q "^## $n\. " "$_d" || echo "$n"
	done
}
cd "$TOP" || exit 1
FILES=$(git ls-files '*.c' '*.h' '*.sh' '*.py' 2>/dev/null | grep -v '^tests/integration/test_design_sections.sh$')
N=$(grep -lE 'DESIGN section [0-9]+' $FILES | wc -l)
check "at least ten files cite a section" test "$N" -ge 10
check_eq "every cited section exists" "$(missing "$D" $FILES | tr '\n' ' ')" ""
# The check itself: a citation of a section the map lacks is found.
printf '/* DESIGN section 99 */\n' >"$T/cites.c"
check_eq "a citation of a missing section is caught" \
    "$(missing "$D" "$T/cites.c")" 99
