#!/usr/bin/env python3
"""The relative links of markdown files: each must name a file (or
directory) that exists, and a link with a #fragment into a markdown file
a heading of that file, by the anchors GitHub gives headings.

Usage: md-links.py FILE.md...

Prints one line per broken link (FILE:LINE: TARGET: why) and exits 1 when
there is one, 0 when every link holds, 2 on a usage error.  Links inside
code spans and fenced code blocks are text, not links; http(s) and mailto
links are not followed.
"""
import os
import re
import sys

LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^ *(```|~~~)")


def lines(text, spans=False):
    """(line number, line) of the lines outside fenced code blocks; with
    spans=False their code spans blanked out."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif fence == m.group(1):
                fence = None
            continue
        if fence is None:
            yield n, line if spans else re.sub(r"`[^`]*`", "``", line)


def slug(heading):
    """GitHub's anchor of a heading: lower case, a link as its text,
    punctuation but '-' and '_' dropped (backquotes too), spaces as '-'."""
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path, cache={}):
    """The anchors of the headings of a markdown file; a repeated heading
    gets -1, -2, ... as GitHub numbers them."""
    if path not in cache:
        found, seen = set(), {}
        with open(path, encoding="utf-8") as f:
            for _, line in lines(f.read(), spans=True):
                m = re.match(r"^#{1,6} +(.*?)(?: +#+)? *$", line)
                if not m:
                    continue
                base = slug(m.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else "%s-%d" % (base, n))
        cache[path] = found
    return cache[path]


def check(path):
    """The broken links of one file, as messages."""
    bad = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for n, line in lines(text):
        for target in LINK.findall(line):
            if re.match(r"^(https?|mailto):", target):
                continue
            file_part, _, frag = target.partition("#")
            dest = (os.path.normpath(os.path.join(os.path.dirname(path),
                                                  file_part))
                    if file_part else path)
            if not os.path.exists(dest):
                bad.append("%s:%d: %s: no such file" % (path, n, target))
            elif frag and dest.endswith(".md") and os.path.isfile(dest) and \
                    frag not in anchors(dest):
                bad.append("%s:%d: %s: no heading '%s' in %s"
                           % (path, n, target, frag, dest))
    return bad


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: md-links.py FILE.md...\n")
        return 2
    bad = []
    for path in sys.argv[1:]:
        bad.extend(check(path))
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
