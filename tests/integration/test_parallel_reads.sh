#!/bin/sh
# The per-PR reads the forge has no list form for (dev-poll's reviews,
# review-poll's changed files) go out in parallel, at most 8 at once, on
# the transport's timeouts and retries: the simulator's log says how many
# requests it was handling when each came in.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/scale.sh"
scale_init
scale_world 60 20 || { fail "the simulator starts"; exit 1; }

# inflight REGEX: the most requests in flight when one matching came in.
inflight() {
	sim_get /_admin/log |
	    pyjson "max([0] + [e.get('inflight', 0) for e in d if __import__('re').search(r'$1', e['path'])])"
}

# asked REGEX: how many matching requests, and how many distinct paths.
asked() {
	sim_get /_admin/log |
	    pyjson "'%d %d' % (len([e for e in d if __import__('re').search(r'$1', e['path'])]), len(set([e['path'] for e in d if __import__('re').search(r'$1', e['path'])])))"
}

# slow REGEX: every matching GET answers 0.2 s late.
slow() {
	fault "{\"method\": \"GET\", \"path\": \"$1\", \"mode\": \"delay\", \"count\": 0, \"delay\": 0.2}"
}

scale_reset
scale_tick dev-poll
scale_decisions dev-poll >"$T/dev.fast"
scale_reset
slow '/reviews'
scale_tick dev-poll
check_eq "dev-poll: exit status" "$SC_RC" 0
n=$(inflight '/reviews')
check "dev-poll: reviews read several at once" test "$n" -gt 1
check "dev-poll: never more than 8 at once" test "$n" -le 8
check_eq "dev-poll: each PR's reviews asked once" "$(asked '/reviews')" "20 20"
n=$(sim_get /_admin/log | pyjson "len([e for e in d if '/reviews' in e['path'] and e['inflight'] > 1])")
check "dev-poll: most reviews asked alongside others (batches stay full)" \
    test "$n" -ge 14
scale_decisions dev-poll >"$T/dev.slow"
check "dev-poll: the same decisions" cmp -s "$T/dev.fast" "$T/dev.slow"

scale_reset
slow '/files'
scale_tick review-poll
check_eq "review-poll: exit status" "$SC_RC" 0
n=$(inflight '/files')
check "review-poll: files read several at once" test "$n" -gt 1
check "review-poll: never more than 8 at once" test "$n" -le 8
check_eq "review-poll: each PR's files asked once" "$(asked '/files')" "20 20"

# A 502 on each is retried, in the parallel batch, and then read.
scale_reset
fault '{"method": "GET", "path": "/reviews", "mode": "502once", "count": 0}'
scale_tick dev-poll
check_eq "502 once: exit status" "$SC_RC" 0
check_eq "502 once: each PR's reviews asked twice" "$(asked '/reviews')" "40 20"
scale_decisions dev-poll >"$T/dev.502"
check "502 once: the same decisions" cmp -s "$T/dev.fast" "$T/dev.502"
