# supervisor-poll's memory does not grow with the forge: the peak RSS of
# one tick on the 5000/1000 scale world (tests/tools/scale-world.py: 5000
# backlog issues, 1000 open PRs) stays within 2 MB of a tick on an empty
# one (0/0; nearly all of it is shared libraries).  The lists are read
# page by page and kept as a few fields each, never whole.  Needs
# /usr/bin/time; a sanitizer build (its shadow memory) is not measured.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/scale.sh"
BIN=$O/supervisor-poll/supervisor-poll
if [ -z "$SC_TIME" ]; then
	echo "# no /usr/bin/time: supervisor-poll's memory not measured"
	exit 0
fi
if ldd "$BIN" 2>/dev/null | grep -q 'lib[a-z]*san'; then
	echo "# a sanitizer build: supervisor-poll's memory not measured"
	exit 0
fi
scale_init
rss() {	# rss ISSUES PRS: one tick's peak RSS in kB, in $SC_RSS
	scale_world "$1" "$2" >/dev/null 2>&1 ||
	    { fail "the simulator starts ($1/$2)"; exit 1; }
	scale_reset
	scale_tick supervisor-poll
	check_eq "$1/$2: tick exit status" "$SC_RC" 0
}
rss 0 0
idle=$SC_RSS
rss 5000 1000
big=$SC_RSS
if [ $((big - idle)) -le 2048 ]; then
	ok "5000/1000: peak RSS ${big} kB, within 2 MB of the empty world's ${idle} kB"
else
	fail "5000/1000: peak RSS within 2 MB of the empty world's" \
	    "${big} kB against ${idle} kB"
fi
check "5000/1000: every backlog issue counted" \
    grep -q 'Pipeline stalled: 5000 backlog issue(s)' "$T/supervisor-poll.err"
