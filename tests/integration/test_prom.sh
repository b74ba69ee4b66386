# The Prometheus textfile writer end to end: tests/tools/prom-sample
# writes each tool's series through common/tick/prom.c, twice (the second tick
# carries the counters on), and the files pass the exposition-format
# checker tests/tools/promcheck.py (and promtool, when installed).  The
# checker itself is shown to refuse each kind of broken file.
. "$(dirname "$0")/lib/common.sh"
t_setup

PROMCHECK="python3 $TOP/tests/tools/promcheck.py"
M=$FACTORY_ROOT/metrics

# promcheck_ok NAME FILE...: the checker accepts the files.
promcheck_ok() {
	_p_name=$1
	shift
	if _p_out=$($PROMCHECK "$@" 2>&1); then
		ok "$_p_name"
	else
		fail "$_p_name" "$(printf '%s' "$_p_out" | tr '\n' ';')"
	fi
}

# promcheck_refuses NAME PATTERN TEXT: the checker refuses a file holding
# TEXT (printf format) with a message matching PATTERN.
promcheck_refuses() {
	printf "$3" >"$T/bad.prom"
	_p_out=$($PROMCHECK "$T/bad.prom" 2>&1)
	_p_rc=$?
	if [ "$_p_rc" -eq 1 ] && printf '%s' "$_p_out" | grep -q -- "$2"; then
		ok "promcheck refuses $1"
	else
		fail "promcheck refuses $1" \
		    "status $_p_rc: $(printf '%s' "$_p_out" | tr '\n' ';')"
	fi
}

check "first tick writes the files" "$O/tests/tools/prom-sample" "$M"
check_eq "one file per tool and project" "$(ls "$M" | tr '\n' ' ')" \
    "dev-poll-demo.prom review-poll-demo.prom supervisor-poll.prom "
check "second tick writes them again" "$O/tests/tools/prom-sample" "$M"
check_eq "no temporary file left" "$(ls -a "$M" | grep -c tmp)" 0
check_eq "counters carried over from the previous tick" \
    "$(grep '^disinto_api_requests_total{.*api="forge"}' "$M/dev-poll-demo.prom" | sed 's/.* //')" 28
check_eq "gauges are this tick's" \
    "$(grep -c '^disinto_dev_backlog_issues{.*} 4$' "$M/dev-poll-demo.prom")" 1
check_eq "escaped label value" \
    "$(grep -c 'phase="unknown \\"x\\\\y\\"\\nz"} 0$' "$M/dev-poll-demo.prom")" 1
promcheck_ok "the written files pass the format checker" "$M"/*.prom

if command -v promtool >/dev/null 2>&1; then
	for f in "$M"/*.prom; do
		if out=$(promtool check metrics <"$f" 2>&1); then
			ok "promtool check metrics $(basename "$f")"
		else
			fail "promtool check metrics $(basename "$f")" \
			    "$(printf '%s' "$out" | tr '\n' ';')"
		fi
	done
else
	echo "# promtool not found: promtool check metrics skipped"
fi

printf '%s\n' '# A comment.' \
    '# HELP x_seconds Time, with \\ and \n.' '# TYPE x_seconds gauge' \
    'x_seconds{a="1",b="q\"\\\n"} 1.5e-3 1700000000000' \
    'x_seconds{a="2",} NaN' 'x_seconds +Inf' '' \
    '# TYPE y_total counter' '# HELP y_total Count.' 'y_total 0' \
    >"$T/good.prom"
promcheck_ok "promcheck accepts a valid hand-written file" "$T/good.prom"

H='# HELP m M.\n# TYPE m gauge\n'
promcheck_refuses "HELP after the samples" "after its samples" \
    '# TYPE m gauge\nm 1\n# HELP m M.\n'
promcheck_refuses "a family without TYPE" "no # TYPE" '# HELP m M.\nm 1\n'
promcheck_refuses "a family without HELP" "no # HELP" '# TYPE m gauge\nm 1\n'
promcheck_refuses "a second TYPE" "second # TYPE" "$H"'# TYPE m gauge\nm 1\n'
promcheck_refuses "an unknown type" "unknown type" \
    '# HELP m M.\n# TYPE m meter\nm 1\n'
promcheck_refuses "a counter without _total" "does not end in _total" \
    '# HELP m M.\n# TYPE m counter\nm 1\n'
promcheck_refuses "a gauge ending in _total" "ends in _total" \
    '# HELP m_total M.\n# TYPE m_total gauge\nm_total 1\n'
promcheck_refuses "a unit abbreviation" "base units" \
    '# HELP m_ms M.\n# TYPE m_ms gauge\nm_ms 1\n'
promcheck_refuses "camelCase" "snake_case" \
    '# HELP tickTime M.\n# TYPE tickTime gauge\ntickTime 1\n'
promcheck_refuses "a bad label escape" "bad escape" "$H"'m{a="\\t"} 1\n'
promcheck_refuses "an unclosed label value" "not closed" "$H"'m{a="x} 1\n'
promcheck_refuses "a label twice" "label a twice" "$H"'m{a="1",a="2"} 1\n'
promcheck_refuses "a reserved label" "reserved label" "$H"'m{__a="1"} 1\n'
promcheck_refuses "a bad label name" "bad label" "$H"'m{1a="1"} 1\n'
promcheck_refuses "a duplicate series" "also at" \
    "$H"'m{a="1",b="2"} 1\nm{b="2",a="1"} 2\n'
promcheck_refuses "a value Go cannot parse" "does not parse" "$H"'m 1_000\n'
promcheck_refuses "a bad timestamp" "not an integer" "$H"'m 1 1.5\n'
promcheck_refuses "a family in two groups" "not in one group" \
    "$H"'# HELP n N.\n# TYPE n gauge\nm{a="1"} 1\nn 1\nm{a="2"} 1\n'
promcheck_refuses "invalid UTF-8" "not UTF-8" "$H"'m{a="\377"} 1\n'
promcheck_refuses "a missing final newline" "no newline" "$H"'m 1'

# Across files, as node_exporter merges them.
printf '# HELP m M.\n# TYPE m gauge\nm{a="1"} 1\n' >"$T/one.prom"
printf '# HELP m M.\n# TYPE m gauge\nm{a="1"} 2\n' >"$T/two.prom"
printf '# HELP m Other.\n# TYPE m gauge\nm{a="3"} 2\n' >"$T/three.prom"
if $PROMCHECK "$T/one.prom" "$T/two.prom" | grep -q "also at"; then
	ok "promcheck refuses a series in two files"
else
	fail "promcheck refuses a series in two files"
fi
if $PROMCHECK "$T/one.prom" "$T/three.prom" | grep -q "differ"; then
	ok "promcheck refuses a family described differently in two files"
else
	fail "promcheck refuses a family described differently in two files"
fi
