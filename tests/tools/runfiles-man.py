#!/usr/bin/env python3
"""The run-file table of docs/CONFIG.md's "Run files" section as an mdoc list,
for disinto-c.5's RUN FILES section ("make man" puts it there; test_man.sh
checks that the page is current).

Usage: runfiles-man.py docs/CONFIG.md
"""
import re
import sys
import textwrap


def inline(text):
    """Markdown inline text as mdoc text: code spans quoted, links as
    their text, and no line that roff would take for a request."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("\\", "\\e")
    text = re.sub(r"`([^`]*)`", lambda m: "\\(oq" + m.group(1) + "\\(cq", text)
    text = text.replace("**", "")
    return text


def wrap(text):
    """Lines of at most 78 bytes, a new sentence on a new line (mdoc's
    style), never starting with a dot or an apostrophe."""
    lines = []
    for sentence in re.split(r"(?<=[.!?]) +(?=[A-Z(])", text):
        lines.extend(textwrap.wrap(sentence, 78, break_long_words=False,
                                   break_on_hyphens=False))
    return ["\\&" + l if l[:1] in ".'" else l for l in lines]


def rows(lines):
    """The rows of the first table after the "## Run files" heading."""
    inside = seen = False
    for line in lines:
        if line.startswith("## "):
            if inside and seen:
                return
            inside = line.strip() == "## Run files"
            continue
        if not inside:
            continue
        if line.startswith("|"):
            seen = True
            cells = [c.strip().replace("\\|", "|") for c in
                     re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if cells[0] == "file" or set(cells[0]) <= set("-: "):
                continue
            yield cells
        elif seen:
            return


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: runfiles-man.py docs/CONFIG.md\n")
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        table = list(rows(f.read().splitlines()))
    if not table:
        sys.stderr.write("%s: no run-file table under '## Run files'\n"
                         % sys.argv[1])
        return 1
    out = [".Bl -tag -width Ds"]
    for cells in table:
        name, writer, meaning = (cells + ["", "", ""])[:3]
        names = re.findall(r"`([^`]*)`", name) or [name]
        out.append(".It " + " , ".join("Pa " + n.replace("\\", "\\e")
                                       for n in names).lstrip())
        out.extend(wrap(inline("Written by " + writer + ": " + meaning)))
    out.append(".El")
    for line in out:
        if line.startswith("'") or (line.startswith(".") and
                                    not re.match(r"\.(Bl|El|It) ?", line)):
            line = "\\&" + line
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
