# README.md's configuration table is the one the settings table of
# common/config/config.c generates (`make readme` rewrites it): a setting added,
# renamed or given another default without `make readme` fails here.
. "$(dirname "$0")/lib/common.sh"
t_setup
sed -n '/^<!-- config-table begin/,/^<!-- config-table end/p' \
    "$TOP/README.md" | sed '1d;$d' >"$T/readme"
"$O/tests/tools/conf-tool" doc >"$T/table"
check "the generated table is not empty" \
    grep -q '^| `FORGE_TOKEN` (legacy `CODEBERG_TOKEN`) |' "$T/table"
if cmp -s "$T/readme" "$T/table"; then
	ok "README.md's configuration table is current"
else
	fail "README.md's configuration table is current" \
	    "run make readme ($(diff "$T/readme" "$T/table" | head -3 | tr '\n' ' '))"
fi
