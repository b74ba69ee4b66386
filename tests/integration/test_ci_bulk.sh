#!/bin/sh
# CI states in bulk: one Woodpecker pipeline list (read until every open
# PR's head is covered) gives the CI state of every head, in all three
# tools; the forge's commit status is asked only for a head the list does
# not cover.  Per-PR reads wait for CI: review-poll reads no reviews or
# comments of PRs whose CI is still running; the supervisor takes the
# dependencies listed among the open backlog issues from the list.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/scale.sh"
scale_init
scale_world 400 100 || { fail "the simulator starts"; exit 1; }

# n_get REGEX: GETs of this tick whose path matches.
n_get() {
	sim_log_count GET "$1"
}

dups() {
	sim_get /_admin/log | pyjson 'len([1 for e in d if e["method"] == "GET"]) - len(set([e["path"] for e in d if e["method"] == "GET"]))'
}

scale_reset
scale_tick dev-poll
check_eq "dev-poll: exit status" "$SC_RC" 0
check_eq "dev-poll: two pages of pipelines cover 100 heads" \
    "$(n_get '/api/repos/1/pipelines\?')" 2
check_eq "dev-poll: no commit status asked" "$(n_get '/commits/.*/status')" 0
check_eq "dev-poll: no GET twice" "$(dups)" 0

scale_reset
scale_tick review-poll
check_eq "review-poll: exit status" "$SC_RC" 0
check_eq "review-poll: two pages of pipelines" \
    "$(n_get '/api/repos/1/pipelines\?')" 2
check_eq "review-poll: no commit status asked" \
    "$(n_get '/commits/.*/status')" 0
check_eq "review-poll: no reviews read while CI runs" \
    "$(n_get '/pulls/[0-9]+/reviews')" 0
check_eq "review-poll: no comments read while CI runs" \
    "$(n_get '/issues/[0-9]+/comments')" 0
check_eq "review-poll: no review started while CI runs" \
    "$(grep -c 'needs review' "$T/review-poll.err")" 0
check_eq "review-poll: no GET twice" "$(dups)" 0

scale_reset
scale_tick supervisor-poll
check_eq "supervisor-poll: exit status" "$SC_RC" 0
check_eq "supervisor-poll: the pipeline check's pages serve the PRs too" \
    "$(n_get '/api/repos/1/pipelines\?')" 3
check_eq "supervisor-poll: no commit status asked" \
    "$(n_get '/commits/.*/status')" 0
check_eq "supervisor-poll: listed dependencies not asked one by one" \
    "$(n_get '/issues/[0-9]+$')" 0
check "supervisor-poll: stale dependencies still reported" \
    grep -q 'stale dependency: #399 waits on #398' "$T/supervisor-poll.err"
check_eq "supervisor-poll: no GET twice" "$(dups)" 0

# A head without a pipeline: its forge status, and only its.
scale_reset
sim_post /_admin/push \
    '{"branch": "fix/issue-1", "sha": "1234567890123456789012345678901234567890"}' >/dev/null
sim_post /_admin/checkpoint '{}' >/dev/null
scale_reset
scale_tick dev-poll
check_eq "uncovered head: the list read to its end" \
    "$(n_get '/api/repos/1/pipelines\?')" 3
check_eq "uncovered head: its forge status alone" \
    "$(n_get '/commits/.*/status')" 1
check_eq "uncovered head: that status is its" \
    "$(n_get '/commits/1234567890123456789012345678901234567890/status')" 1
