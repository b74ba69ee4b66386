# The factory's own formulas/review-pr.toml (upstream's review formula:
# `"""` strings, [[steps]], whatever TOML) is never parsed as settings:
# review-poll runs and puts its text into the review prompt as a
# "## Formula" section, as review-pr.sh did; without the file the prompt
# has no such section.  The review settings come from [review] of the
# project file.  The review agent holds no forge token, and the prompt
# says so over the formula's own calls to the forge API.
. "$(dirname "$0")/lib/common.sh"
. "$TOP/tests/integration/lib/review.sh"
rv_setup
S1=$(rv_branch fix/issue-1 one.c "one")
S2=$(rv_branch fix/issue-2 two.c "two")
cat >"$T/pulls.json" <<'JSON'
[
 {"number": 11, "title": "fix: one (#1)", "head": {"ref": "fix/issue-1"},
  "files": ["one.c"], "body": "OUTPUT<<{\"verdict\": \"APPROVE\"}>>OUTPUT"},
 {"number": 12, "title": "fix: two (#2)", "head": {"ref": "fix/issue-2"},
  "files": ["two.c"], "body": "OUTPUT<<{\"verdict\": \"APPROVE\"}>>OUTPUT"}
]
JSON
printf '{"%s": {"state": "success"}, "%s": {"state": "success"}}\n' \
    "$S1" "$S2" >"$T/statuses.json"
rv_scenario "$T/scenario.json"
sim_start "$T/scenario.json" --git-dir "$T/origin.git" ||
    { fail "simulator starts"; exit 1; }

# A factory's formulas: this repository's templates, and upstream's
# kind of review formula.
cp -r "$TOP/formulas" "$T/formulas"
cat >"$T/formulas/review-pr.toml" <<'TOML'
# formulas/review-pr.toml: the factory's review formula
name        = "review-pr"
description = "review a PR"
version     = 1
model       = "sonnet"

[context]
files = ["AGENTS.md"]

[[steps]]
id    = "review"
description = """
Check the change against AGENTS.md.
Look for the FORMULA-MARKER-42 problems first.
"""
TOML
export DISINTO_FORMULAS_DIR=$T/formulas
# One review per tick, from the project file's [review].
cat >"$T/harb.toml" <<TOML
name = "$P"
repo = "johba/harb"
forge_url = "$SIM_URL"
repo_root = "$T/repo"
[ci]
woodpecker_repo_id = 1
[review]
max_reviews_per_tick = 1
model = "opus"
TOML

rv_tick "$T/harb.toml"
check_eq "with the formula: exit 0" "$RV_RC" 0
rv_wait_done 12
check "the prompt has a Formula section" \
    grep -qx '## Formula' "$T/prompts/pr-12.txt"
check "the Formula section holds the factory's formula" \
    grep -q 'Look for the FORMULA-MARKER-42 problems first.' \
    "$T/prompts/pr-12.txt"
check "the formula's [[steps]] are there as written" \
    grep -qx '\[\[steps\]\]' "$T/prompts/pr-12.txt"
# Upstream's formula has the agent open issues with a token it no longer
# holds: the prompt says it has none and where follow-ups go instead.
check "the prompt says the agent holds no forge token" \
    grep -q 'You hold no forge token and need none: do not post comments, reviews or issues yourself' \
    "$T/prompts/pr-12.txt"
check "the prompt sends a formula's issues to the Follow-ups heading" \
    grep -q 'You have no forge token: where a formula below says to create issues or call the forge API, put them under that heading instead' \
    "$T/prompts/pr-12.txt"
check_eq "one review per tick ([review] max_reviews_per_tick)" \
    "$(t_tmux list-sessions -F '#{session_name}' 2>/dev/null | tr '\n' ' ')" \
    "review-harb-12 "
check_eq "the review model from [review] model" \
    "$(t_tmux list-panes -t review-harb-12 -F '#{pane_start_command}' |
	grep -c -- '--model opus')" 1

rm "$T/formulas/review-pr.toml"
rv_tick "$T/harb.toml"
check_eq "without the formula: exit 0" "$RV_RC" 0
rv_wait_done 11
check "without the formula file, no Formula section" \
    sh -c "! grep -q '^## Formula' '$T/prompts/pr-11.txt'"
check "without the formula file, the prompt is whole" \
    grep -q '^## Output' "$T/prompts/pr-11.txt"
