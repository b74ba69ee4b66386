#!/bin/sh
# dev-poll-reviews-P: the open PRs whose reviews dev-poll read and found
# without a verdict are not read again while the PR's head, updated_at
# and CI state stay as they were (and the read is under 12 hours old).
# A review, a dismissal, a push or a CI state change brings the read
# back; the file is never followed through a symlink, junk in it counts
# for nothing, and a dry run leaves it alone.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/scale.sh"
scale_init
scale_world 6 3 || { fail "the simulator starts"; exit 1; }
Q=$DISINTO_RUN_DIR/dev-poll-reviews-harb
API=/api/v1/repos/johba/harb

# reads: review lists this tick read (their GETs).
reads() {
	sim_log_count GET '/pulls/[0-9]+/reviews'
}

# read_of N: whether PR N's reviews were read this tick (0 or 1).
read_of() {
	sim_log_count GET "/pulls/$1/reviews"
}

# tick: one more dev-poll tick on the same world, its log alone.
tick() {
	sim_post /_admin/log/reset '{}' >/dev/null
	scale_tick dev-poll
}

# line_of N: PR N's line in the file, or nothing.
line_of() {
	grep "^$1 " "$Q"
}

scale_reset
scale_tick dev-poll
check_eq "first tick: exit status" "$SC_RC" 0
check_eq "first tick: every PR's reviews read" "$(reads)" 3
check_eq "first tick: three PRs without a verdict remembered" \
    "$(wc -l <"$Q")" 3
check "a line: PR, head, updated_at, CI state, when read" \
    grep -qE '^100001 0+5ca1e000001 [0-9]+ pending [0-9]+$' "$Q"
first=$(grep -c 'holding #4' "$T/dev-poll.err")

tick
check_eq "next tick: exit status" "$SC_RC" 0
check_eq "next tick: no review read" "$(reads)" 0
check_eq "next tick: the same decision" \
    "$(grep -c 'holding #4' "$T/dev-poll.err")" "$first"
check_eq "next tick: the decision was taken" "$first" 1

# A review moves updated_at: read again, and acted on.
SIM_TOKEN=review-token sim_post "$API/pulls/100002/reviews" \
    '{"event":"REQUEST_CHANGES","body":"fix it"}' >/dev/null
tick
check_eq "after a review: that PR's reviews read, only" \
    "$(reads) $(read_of 100002)" "1 1"
check "after a review: REQUEST_CHANGES acted on" \
    grep -q 'PR #100002 (issue #2) has REQUEST_CHANGES' "$T/dev-poll.err"
check_eq "after a review: a PR with a verdict is not remembered" \
    "$(line_of 100002)" ""
tick
check_eq "a PR with a verdict: read every tick" "$(read_of 100002)" 1

# A dismissal moves updated_at too; a PR updated less than a minute ago
# is read, but not remembered yet.
rid=$(sim_state_get '[r["id"] for p in d["pulls"] if p["number"] == 100002
    for r in p["reviews"]][0]')
SIM_TOKEN=review-token sim_post "$API/pulls/100002/reviews/$rid/dismissals" \
    '{"message":"done"}' >/dev/null
tick
check_eq "after a dismissal: read again" "$(read_of 100002)" 1
check_eq "updated within the minute: not remembered" "$(line_of 100002)" ""
tick
check_eq "updated within the minute: read again next tick" \
    "$(read_of 100002)" 1

# A push: a new head, read again.
sim_post /_admin/push '{"branch":"fix/issue-3","sha":"'"$(printf 'b%.0s' \
    $(seq 40))"'"}' >/dev/null
sim_post /_admin/item '{"number":100003,"updated_at":"2024-01-23T10:00:00Z"}' \
    >/dev/null
tick
check_eq "after a push: that PR's reviews read" "$(read_of 100003)" 1
check "after a push: remembered with its new head" \
    grep -qE '^100003 b{40} ' "$Q"
tick
check_eq "after a push: not read the tick after" "$(read_of 100003)" 0

# CI changes state: read again (what no timeline event shows, such as an
# undismissed review, is seen there, where a verdict starts to count).
check_eq "before CI ends: PR 100001 not read" "$(read_of 100001)" 0
sim_post /_admin/pipeline '{"number":1,"status":"success"}' >/dev/null
tick
check_eq "CI state changed: read again" "$(read_of 100001)" 1
check "CI state changed: remembered with the new state" \
    grep -qE '^100001 [0-9a-f]+ [0-9]+ success [0-9]+$' "$Q"
tick
check_eq "CI state unchanged since: not read" "$(read_of 100001)" 0

# A read older than 12 hours is not trusted.
old=$(($(date +%s) - 13 * 3600))
sed "s/^\(100001 [^ ]* [^ ]* [^ ]*\) [0-9]*\$/\1 $old/" "$Q" >"$Q.new" &&
    mv "$Q.new" "$Q"
tick
check_eq "a read 13 hours old: read again" "$(read_of 100001)" 1

# Junk counts for nothing: the PRs it names are read.
good=$(line_of 100003)
printf '%s\n' "100001 nothex 1706000060 pending 1" \
    "100003 $(echo "$good" | cut -d' ' -f2-4) 1 extra" \
    "100003" "garbage" >"$Q"
tick
check_eq "junk lines: every PR read" "$(reads)" 3
check_eq "junk lines: the file rewritten without them (100002 is too fresh)" \
    "$(grep -cvE '^[0-9]+ [0-9a-f]+ [0-9]+ [a-z]+ [0-9]+$' "$Q") $(cut -d' ' -f1 "$Q" | sort | tr '\n' ' ')" \
    "0 100001 100003 "

# A symlink in its place is not followed.
echo "keep me" >"$T/target"
rm -f "$Q"
ln -s "$T/target" "$Q"
tick
check_eq "symlink: every PR read" "$(reads)" 3
check_eq "symlink: its target untouched" "$(cat "$T/target")" "keep me"
check "symlink: refused, said in the log" \
    grep -q "dev-poll-reviews-harb" "$T/dev-poll.err"
rm -f "$Q"

# A dry run reads and decides, and leaves the file alone.
sim_post /_admin/log/reset '{}' >/dev/null
"$O/dev-poll/dev-poll" --dry-run -v "$P" >/dev/null 2>"$T/dry.err"
check_eq "dry run: reviews read" "$(reads)" 3
check "dry run: no file written" test ! -e "$Q"
