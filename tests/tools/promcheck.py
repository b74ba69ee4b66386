#!/usr/bin/env python3
"""Check files in the Prometheus text exposition format (0.0.4).

usage: promcheck.py FILE...

Checks what a scraper or node_exporter's textfile collector would refuse,
and the naming conventions the writer promises:
  - valid UTF-8, a final newline;
  - "# HELP" and "# TYPE" at most once per family, before its samples,
    with a known type; every sampled family has both;
  - the samples of a family in one group;
  - metric and label names, label value escapes (\\\\ \\" \\n only), help
    escapes (\\\\ \\n only), values as Go's ParseFloat reads them, optional
    integer timestamps;
  - no label twice in a sample, no "__" label names, no series twice
    (within a file or across the files given, as the collector merges
    them), the same HELP and TYPE for a family in every file;
  - conventions: lower-case snake_case names without colons, counters and
    only counters end in "_total", base units only, no type in the name.
Prints "FILE:LINE: problem" for each problem; exits 1 if there was any.
"""
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
VALUE = re.compile(
    r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?"
    r"|Inf|inf|NaN)\Z")
TIMESTAMP = re.compile(r"-?\d+\Z")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")
BAD_UNITS = {
    "milliseconds", "microseconds", "nanoseconds", "minutes", "hours",
    "days", "weeks", "months", "years", "kilobytes", "megabytes",
    "gigabytes", "terabytes", "kib", "mib", "gib", "percent", "ms", "us",
    "ns", "s", "sec", "secs", "min", "mins", "h", "hr", "hrs", "d", "b",
    "kb", "mb", "gb", "tb"}
SUFFIXES = {"histogram": ("_bucket", "_sum", "_count"),
            "summary": ("_sum", "_count")}


class Checker:
    def __init__(self):
        self.problems = []
        self.series = {}   # (name, labels) -> "file:line"
        self.meta = {}     # family -> (type, help, "file")

    def bad(self, where, msg):
        self.problems.append("%s: %s" % (where, msg))

    def check_file(self, path):
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except OSError as e:
            return self.bad(path, "cannot read: %s" % e.strerror)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return self.bad(path, "not UTF-8 at byte %d" % e.start)
        if text and not text.endswith("\n"):
            self.bad(path, "no newline at the end")
        FileState(self, path).run(text.split("\n"))


class FileState:
    def __init__(self, checker, path):
        self.c = checker
        self.path = path
        self.help = {}
        self.type = {}
        self.sampled = set()
        self.current = None
        self.where = path

    def bad(self, msg):
        self.c.bad(self.where, msg)

    def run(self, lines):
        for n, line in enumerate(lines, 1):
            self.where = "%s:%d" % (self.path, n)
            if line.startswith("#"):
                self.comment(line)
            elif line.strip():
                self.sample(line)
        self.where = self.path
        for fam in sorted(self.sampled):
            if fam not in self.type:
                self.bad("%s: no # TYPE" % fam)
            if fam not in self.help:
                self.bad("%s: no # HELP" % fam)
            self.remember(fam)

    def remember(self, fam):
        mine = (self.type.get(fam), self.help.get(fam))
        seen = self.c.meta.get(fam)
        if seen is None:
            self.c.meta[fam] = mine + (self.path,)
        elif seen[:2] != mine:
            self.bad("%s: HELP or TYPE differ from %s" % (fam, seen[2]))

    def comment(self, line):
        parts = line.split(None, 3)
        if len(parts) < 2 or parts[1] not in ("HELP", "TYPE"):
            return
        if len(parts) < 3 or not NAME.fullmatch(parts[2]):
            return self.bad("# %s without a valid metric name" % parts[1])
        fam = parts[2]
        rest = parts[3] if len(parts) > 3 else ""
        if fam in self.sampled:
            self.bad("# %s %s after its samples" % (parts[1], fam))
        table = self.help if parts[1] == "HELP" else self.type
        if fam in table:
            self.bad("second # %s for %s" % (parts[1], fam))
        if parts[1] == "HELP":
            if "\\" in re.sub(r"\\[\\n]", "", rest):
                self.bad("bad escape in the help of %s" % fam)
        elif rest not in TYPES:
            self.bad("unknown type %r for %s" % (rest, fam))
        table[fam] = rest
        if parts[1] == "TYPE":
            self.lint(fam, rest)

    def lint(self, fam, typ):
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", fam):
            self.bad("%s: not lower-case snake_case" % fam)
        words = fam.split("_")
        if words[-1] == "total":
            words.pop()
        if BAD_UNITS.intersection(words):
            self.bad("%s: not in base units" % fam)
        if {"gauge", "counter"}.intersection(words):
            self.bad("%s: names its type" % fam)
        if typ == "counter" and not fam.endswith("_total"):
            self.bad("counter %s does not end in _total" % fam)
        if typ != "counter" and fam.endswith("_total"):
            self.bad("%s %s ends in _total" % (typ, fam))

    def family(self, name):
        for typ, sufs in SUFFIXES.items():
            for suf in sufs:
                base = name[:-len(suf)]
                if name.endswith(suf) and self.type.get(base) == typ:
                    return base
        return name

    def sample(self, line):
        m = NAME.match(line)
        if not m:
            return self.bad("sample without a valid metric name")
        name = m.group(0)
        labels, rest = self.labels(line, m.end())
        if labels is None:
            return
        fam = self.family(name)
        if fam != self.current and fam in self.sampled:
            self.bad("samples of %s are not in one group" % fam)
        self.current = fam
        self.sampled.add(fam)
        self.value(rest)
        key = (name, tuple(sorted(labels.items())))
        if key in self.c.series:
            self.bad("series %s%s also at %s" % (
                name, dict(key[1]), self.c.series[key]))
        else:
            self.c.series[key] = self.where

    def labels(self, line, i):
        labels = {}
        if i < len(line) and line[i] == "{":
            i += 1
            while i < len(line) and line[i] != "}":
                m = LABEL.match(line, i)
                if not m or line[m.end():m.end() + 2] != '="':
                    self.bad("bad label at column %d" % (i + 1))
                    return None, ""
                lname = m.group(0)
                value, i = self.quoted(line, m.end() + 2)
                if value is None:
                    return None, ""
                if lname.startswith("__"):
                    self.bad("reserved label name %s" % lname)
                if lname in labels:
                    self.bad("label %s twice" % lname)
                labels[lname] = value
                if i < len(line) and line[i] == ",":
                    i += 1
                elif i >= len(line) or line[i] != "}":
                    self.bad("expected , or } at column %d" % (i + 1))
                    return None, ""
            if i >= len(line):
                self.bad("labels not closed")
                return None, ""
            i += 1
        return labels, line[i:]

    def quoted(self, line, i):
        out = []
        while i < len(line) and line[i] != '"':
            if line[i] == "\\":
                nxt = line[i + 1:i + 2]
                if nxt not in ("\\", '"', "n"):
                    self.bad("bad escape in a label value at column %d"
                             % (i + 1))
                    return None, i
                out.append("\n" if nxt == "n" else nxt)
                i += 2
            else:
                out.append(line[i])
                i += 1
        if i >= len(line):
            self.bad("label value not closed")
            return None, i
        return "".join(out), i + 1

    def value(self, rest):
        if not rest[:1] in (" ", "\t"):
            return self.bad("no blank before the value")
        fields = rest.split()
        if not fields or len(fields) > 2:
            return self.bad("want a value and an optional timestamp")
        if not VALUE.match(fields[0]):
            self.bad("value %r does not parse" % fields[0])
        if len(fields) == 2 and not TIMESTAMP.match(fields[1]):
            self.bad("timestamp %r is not an integer" % fields[1])


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: promcheck.py FILE...\n")
        return 2
    c = Checker()
    for path in argv[1:]:
        c.check_file(path)
    for p in c.problems:
        print(p)
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
