#!/bin/sh
# README.md stays short (at most 500 lines: the two commands, what it is,
# install, how to run it, troubleshooting, building) and links each of the
# references under docs/; every relative link of README.md and docs/*.md
# names a file that exists and, into a markdown file, one of its headings.
. "$(dirname "$0")/lib/common.sh"
t_setup
LINKS="python3 $TOP/tests/tools/md-links.py"
cd "$TOP" || exit 1

N=$(wc -l <README.md)
if [ "$N" -le 500 ]; then
	ok "README.md has at most 500 lines ($N)"
else
	fail "README.md has at most 500 lines" "it has $N"
fi
check "README.md starts with the two commands" \
    sh -c "sed -n 4,5p README.md | grep -c '^sh .ci/install-deps && make ' |
	grep -qx 2"
check "README.md keeps the install section's crontab" grep -q '^ *```cron' README.md

missing=
for f in docs/*.md; do
	grep -q "](${f})\|](${f}#" README.md || missing="$missing $f"
done
check_eq "README.md links every file of docs/" "$missing" ""

$LINKS README.md docs/*.md >"$T/broken"
if [ $? -eq 0 ] && [ ! -s "$T/broken" ]; then
	ok "every relative link of README.md and docs/*.md holds"
else
	fail "every relative link of README.md and docs/*.md holds" \
	    "$(head -5 "$T/broken" | tr '\n' ' ')"
fi

# The checker itself: a missing file, a missing heading and a link into a
# heading that holds code are told apart from links in code.
mkdir -p "$T/m/docs"
printf '# Title\n\n## One-shots, `--status` and more?\n' >"$T/m/docs/A.md"
cat >"$T/m/README.md" <<'EOF'
# x

[a](docs/A.md) [b](docs/A.md#one-shots---status-and-more) [c](#x)
[gone](docs/none.md) and [bad](docs/A.md#nope)
`[code](docs/none2.md)`

```
[fenced](docs/none3.md)
```
EOF
$LINKS "$T/m/README.md" >"$T/mut"
check_eq "the checker fails on broken links" "$?" 1
check_eq "it names the missing file and the missing heading" \
    "$(sed 's/.*: \([^:]*\): .*/\1/' "$T/mut" | tr '\n' ' ')" \
    "docs/none.md docs/A.md#nope "
