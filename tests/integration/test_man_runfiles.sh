# disinto-c.5's list of run files is docs/CONFIG.md's table of them ("make
# man" writes it with tests/tools/runfiles-man.py): current, naming the
# files the run-file module formats, and the generator refuses a file
# without the table (so the check cannot pass on an empty list).
. "$(dirname "$0")/lib/common.sh"
t_setup
GEN="python3 $TOP/tests/tools/runfiles-man.py"

sed -n '/^\.\\" runfiles-table begin/,/^\.\\" runfiles-table end/p' \
    "$TOP/disinto-c.5" | sed '1d;$d' >"$T/page"
$GEN "$TOP/docs/CONFIG.md" >"$T/table"
check "the generated list names the phase file" \
    grep -q '^\.It Pa dev-session-P-N\.phase$' "$T/table"
check "the generated list names the Claude lock's state file" \
    grep -q '^\.It Pa agent-S\.state , Pa agent-S\.lock-request$' "$T/table"
if cmp -s "$T/page" "$T/table"; then
	ok "disinto-c.5's list of run files is current"
else
	fail "disinto-c.5's list of run files is current" \
	    "run make man ($(diff "$T/page" "$T/table" | head -3 | tr '\n' ' '))"
fi
check "no generated text line is longer than 80 bytes" \
    sh -c "! grep -v '^\.It ' '$T/table' | awk 'length > 80' | grep -q ."
check "no generated text line is taken for a request" \
    sh -c "! grep -v '^\.\(Bl\|El\|It\)' '$T/table' | grep -q \"^[.']\""

printf '# x\n\n## Run files\n\nno table\n\n## Next\n' >"$T/CONFIG.md"
check "a file without the table is refused" \
    sh -c "! $GEN '$T/CONFIG.md' >/dev/null 2>&1"
check_eq "its exit status" \
    "$($GEN "$T/CONFIG.md" >/dev/null 2>&1; echo $?)" 1

if command -v man >/dev/null 2>&1; then
	MANPAGER=cat MANWIDTH=80 man -l "$TOP/disinto-c.5" >"$T/shown" 2>/dev/null
	check "man -l disinto-c.5 shows the run files" \
	    grep -q '^ *ci-result-P-N\.txt$' "$T/shown"
else
	echo "# man not found: man -l skipped"
fi
