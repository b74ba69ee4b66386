#!/bin/sh
# review-poll-files-P: whether each open PR's head changes only non-code
# files is remembered between ticks; a PR waiting for CI is not asked for
# its changed files again while its head and updated_at stay as they
# were.  A push or an edit of the PR brings the read back, a non-code PR
# is still reviewed without CI on the tick after, junk in the file counts
# for nothing, a symlink is not followed and a dry run leaves it alone.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/scale.sh"
scale_init
scale_world 6 3 || { fail "the simulator starts"; exit 1; }
M=$DISINTO_RUN_DIR/review-poll-files-harb

# files_of N: GETs of PR N's changed files this tick.
files_of() {
	sim_log_count GET "/pulls/$1/files"
}

tick() {
	sim_post /_admin/log/reset '{}' >/dev/null
	scale_tick review-poll
}

scale_reset
# PR 100003 changes documentation only; it was opened long ago.
sim_post /_admin/item '{"number":100003,"files":["docs/x.md"],"updated_at":"2024-01-23T10:00:00Z"}' \
    >/dev/null
scale_tick review-poll
# (The review of the docs-only PR cannot start: this world has no git
# origin; the tick fails on that alone.)
check "first tick: ran to its end" grep -q -- '--- Poll done: ' "$T/review-poll.err"
check_eq "first tick: every PR's files read" \
    "$(sim_log_count GET '/pulls/[0-9]+/files')" 3
check_eq "first tick: three PRs remembered" "$(wc -l <"$M")" 3
check "a line: PR, head, updated_at, what changed, when read" \
    grep -qE '^100001 0+5ca1e000001 [0-9]+ code [0-9]+$' "$M"
check "the docs-only PR: non-code" grep -qE '^100003 .* non-code [0-9]+$' "$M"
check "the docs-only PR: reviewed without CI" \
    grep -q 'pr #100003: ci=pending but no code files, proceeding' \
    "$T/review-poll.err"

tick
check_eq "next tick: code PRs' files not read" \
    "$(files_of 100001) $(files_of 100002)" "0 0"
check "next tick: the docs-only PR still goes without CI" \
    grep -q 'pr #100003: ci=pending but no code files, proceeding' \
    "$T/review-poll.err"
check "next tick: a code PR still waits for CI" \
    grep -q 'pr #100001: ci=pending, skip' "$T/review-poll.err"

# A push moves the head: read again.
sim_post /_admin/push '{"branch":"fix/issue-1","sha":"'"$(printf 'c%.0s' \
    $(seq 40))"'"}' >/dev/null
tick
check_eq "after a push: that PR's files read" \
    "$(files_of 100001) $(files_of 100002)" "1 0"

# An edit (updated_at moves): read again.
sim_post /_admin/item '{"number":100002,"updated_at":"2024-02-01T10:00:00Z"}' \
    >/dev/null
tick
check_eq "after an edit: that PR's files read" "$(files_of 100002)" 1

# Junk counts for nothing.
printf '%s\n' "100002 zz 1 code 1" "100002" "junk" >"$M"
tick
check_eq "junk lines: the PRs read" "$(files_of 100002)" 1
check_eq "junk lines: rewritten without them" \
    "$(grep -cvE '^[0-9]+ [0-9a-f]+ [0-9]+ (code|non-code) [0-9]+$' "$M")" 0

# A symlink in its place is not followed.
echo "keep me" >"$T/target"
rm -f "$M"
ln -s "$T/target" "$M"
tick
check_eq "symlink: the PRs' files read" "$(files_of 100002)" 1
check_eq "symlink: its target untouched" "$(cat "$T/target")" "keep me"
rm -f "$M"

# A dry run decides and leaves the file alone.
sim_post /_admin/log/reset '{}' >/dev/null
"$O/review-poll/review-poll" --dry-run -v "$P" >/dev/null 2>"$T/dry.err"
check_eq "dry run: files read" "$(files_of 100002)" 1
check "dry run: no file written" test ! -e "$M"
