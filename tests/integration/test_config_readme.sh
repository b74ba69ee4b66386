# docs/CONFIG.md's configuration table is the one the settings table of
# common/config/config.c generates (`make config-doc` rewrites it): a setting
# added, renamed or given another default without `make config-doc` fails here.
. "$(dirname "$0")/lib/common.sh"
t_setup
sed -n '/^<!-- config-table begin/,/^<!-- config-table end/p' \
    "$TOP/docs/CONFIG.md" | sed '1d;$d' >"$T/doc"
"$O/tests/tools/conf-tool" doc >"$T/table"
check "the generated table is not empty" \
    grep -q '^| `FORGE_TOKEN` (legacy `CODEBERG_TOKEN`) |' "$T/table"
if cmp -s "$T/doc" "$T/table"; then
	ok "docs/CONFIG.md's configuration table is current"
else
	fail "docs/CONFIG.md's configuration table is current" \
	    "run make config-doc ($(diff "$T/doc" "$T/table" | head -3 | tr '\n' ' '))"
fi
