#!/usr/bin/env python3
"""fm.py: the fault matrix's helper (tests/integration/faults/).

    fm.py reset SIM_URL [ENDPOINT MODE DELAY]
        the simulator back to its scenario, with the fault of one cell
    fm.py snap SIM_URL SOCKET AGENTS OUT [LOG_OUT]
        the normalised world into OUT; with LOG_OUT, the request log is
        saved there and the faults are cleared first
    fm.py endpoints LOG_JSON            endpoints of a request log, one a line
    fm.py verdict SIM_URL SOCKET AGENTS DIR FAULT ENDPOINT RC1 RC2 RC3
                  BRC1 BRC3
        "ok", "not hit" or what went wrong, one line: the world now
        (saved as DIR/g3.json) against DIR/b3.json, the run without a
        fault, and the first tick's (DIR/g1.json, DIR/log.json) against
        DIR/b1.json; DIR/b0.json is the world before the first tick,
        DIR/g2.json after the second
    fm.py pick SEED N WORLD             N of the cells on stdin ("ENDPOINT
                                        <tab> FAULT" lines), by the seed
    fm.py table RESULTS [FAULTS...]     the endpoint x fault table

AGENTS is "SESSION=LOGDIR ..." (the prompts a fake agent received are
LOGDIR/prompt-N.txt); SOCKET the private tmux server; RC1..RC3 the exit
statuses of the cell's ticks, BRC1 and BRC3 those without a fault.

An endpoint is "METHOD PATH": the path of a logged request without its
query and without the repository prefix of the Gitea API ("GET
/issues/1/comments", "GET /api/repos/1/pipelines").  A dump is the forge
state without ids and times (issues, labels, comments, PRs, reviews,
merges, branches, pipelines) plus the live tmux sessions and the prompts
each agent received, so that two runs of a world compare equal when they
did the same things.
"""

import json
import os
import random
import re
import subprocess
import sys
import time
import urllib.request
from collections import Counter

REPO_PREFIX = re.compile(r"^/api/v1/repos/[^/]+/[^/]+")
TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?"
                  r"(Z|[+-]\d\d:?\d\d| ?UTC)?")
WRITES = ("POST", "PATCH", "PUT", "DELETE")


def endpoint(entry):
    path = entry["path"].split("?", 1)[0]
    m = REPO_PREFIX.match(path)
    if m:
        path = path[m.end():] or "/"
    return "%s %s" % (entry["method"], path)


def endpoints(log):
    seen = []
    for e in log:
        key = endpoint(e)
        if key not in seen:
            seen.append(key)
    return seen


def fault_body(key, mode, delay):
    """The fault for every request of the endpoint, for the whole tick."""
    method, path = key.split(" ", 1)
    if path.startswith("/api/"):
        rx = "^" + re.escape(path)
    else:
        rx = "^" + REPO_PREFIX.pattern[1:] + re.escape(path if path != "/"
                                                       else "")
    return {"method": method, "path": rx + r"(\?|$)", "mode": mode,
            "count": 0, "delay": float(delay)}


def admin(url, path, body=None):
    """A request to the simulator's admin interface; the answer's JSON."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data,
                                 method="POST" if data else "GET")
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())


def agents(socket, spec):
    """The live tmux sessions and the prompts of each fake agent."""
    res = subprocess.run(["tmux", "-L", socket, "list-sessions", "-F",
                          "#{session_name}"], capture_output=True,
                         text=True, check=False)
    prompts = {}
    for a in spec.split():
        name, logdir = a.split("=", 1)
        try:
            files = os.listdir(logdir)
        except OSError:
            files = []
        prompts[name] = len([f for f in files
                             if re.fullmatch(r"prompt-\d+\.txt", f)])
    return {"sessions": res.stdout.split(), "prompts": prompts}


def snap(url, socket, spec, out, log_out=None):
    # The fake agent saves a prompt just after it shows it was received.
    time.sleep(0.2)
    if log_out:
        with open(log_out, "w") as f:
            json.dump(admin(url, "/_admin/log"), f)
        admin(url, "/_admin/faults/clear", {})
    d = dump(admin(url, "/_admin/state"), agents(socket, spec))
    with open(out, "w") as f:
        json.dump(d, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def norm_text(text):
    if not isinstance(text, str):
        return text
    return TIME.sub("<time>", text)


def norm_comments(item):
    return [[c.get("user"), norm_text(c.get("body"))]
            for c in item.get("comments", [])]


def norm_issue(it):
    return {"number": it["number"], "title": it.get("title"),
            "body": norm_text(it.get("body")), "state": it.get("state"),
            "labels": sorted(it.get("labels", [])),
            "comments": norm_comments(it)}


def norm_pull(pr):
    out = norm_issue(pr)
    out.update({"merged": pr.get("merged"),
                "head": pr.get("head", {}).get("ref"),
                "base": pr.get("base", {}).get("ref"),
                "reviews": [[r.get("user"), r.get("state"),
                             norm_text(r.get("body")), r.get("commit_id"),
                             bool(r.get("dismissed"))]
                            for r in pr.get("reviews", [])]})
    return out


def dump(state, agents):
    wp = state.get("woodpecker", {})
    return {"issues": [norm_issue(i) for i in
                       sorted(state.get("issues", []),
                              key=lambda i: i["number"])],
            "pulls": [norm_pull(p) for p in
                      sorted(state.get("pulls", []),
                             key=lambda p: p["number"])],
            "labels": sorted(lab["name"] for lab in state.get("labels", [])),
            "branches": sorted(state.get("branches", {})),
            "pipelines": [[p.get("number"), p.get("commit"), p.get("status"),
                           p.get("parent")]
                          for p in wp.get("pipelines", [])],
            "sessions": sorted(agents.get("sessions", [])),
            "prompts": agents.get("prompts", {})}


def first_diffs(a, b, path="", out=None, limit=3):
    """Up to limit short descriptions of where b differs from a."""
    if out is None:
        out = []
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                first_diffs(a.get(k), b.get(k), "%s.%s" % (path, k), out,
                            limit)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                first_diffs(x, y, "%s[%d]" % (path, i), out, limit)
    elif a != b:
        out.append("%s: %s, want %s" % (path.lstrip("."), short(b),
                                        short(a)))
    return out


def short(v):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= 70 else s[:67] + "..."


def more_than_once(got, base):
    """Some value is in got more than once, and more often than in base."""
    have = Counter(map(json.dumps, got))
    had = Counter(map(json.dumps, base))
    return any(v > 1 and v > had[k] for k, v in have.items())


def duplicates(base, got):
    """Comments, reviews, PRs and labels that got has more often than the
    world without faults has them."""
    out = []
    for kind in ("issues", "pulls"):
        b = {i["number"]: i for i in base[kind]}
        for it in got[kind]:
            n = it["number"]
            want = b.get(n, {})
            if more_than_once(it["comments"], want.get("comments", [])):
                out.append("duplicate comment on #%d" % n)
            if len(it["labels"]) != len(set(it["labels"])):
                out.append("duplicate label on #%d" % n)
            if kind == "pulls" and more_than_once(
                    [[r[0], r[1], r[3]] for r in it["reviews"]],
                    [[r[0], r[1], r[3]] for r in want.get("reviews", [])]):
                out.append("duplicate review on #%d" % n)
    if more_than_once([p["head"] for p in got["pulls"]],
                      [p["head"] for p in base["pulls"]]):
        out.append("duplicate PR")
    labs = Counter(got["labels"]) - Counter(base["labels"])
    if labs:
        out.append("label created: %s" % ",".join(sorted(labs)))
    return out


def merged_work(before, after):
    """Sessions started or typed into, in one tick, for an issue whose PR
    was merged before the tick began."""
    out = []
    merged = {p["head"] for p in before["pulls"] if p["merged"]}
    for s in after["sessions"]:
        m = re.match(r"dev-.*-(\d+)$", s)
        if m and "fix/issue-" + m.group(1) in merged and \
                s not in before["sessions"]:
            out.append("session %s started on merged work" % s)
    for s, n in after["prompts"].items():
        m = re.match(r"dev-.*-(\d+)$", s)
        if m and "fix/issue-" + m.group(1) in merged and \
                n > before["prompts"].get(s, 0):
            out.append("%s typed into on merged work" % s)
    return out


def rc_rule(key, fault, same1, rc1):
    """What the exit status of the faulty tick must be: a write the forge
    never applied (500, 404, no answer), or any fault of a write after
    which the tick did less than without it, fails the tick; a failed
    read fails it only when the tick could do nothing else at all
    (docs/POLLERS.md), which the matrix cannot tell from outside: 0 or 1; a 502
    then success is no failure at all."""
    method = key.split(" ", 1)[0]
    if fault == "502once":
        return None
    if method in WRITES and not same1:
        return 1
    return "01"


def verdict(args):
    url, socket, spec, d = args[:4]
    snap(url, socket, spec, d + "/g3.json")
    (b0, b1, b3, g1, g2, g3, log) = [
        json.load(open("%s/%s.json" % (d, n)))
        for n in ("b0", "b1", "b3", "g1", "g2", "g3", "log")]
    fault, key = args[4], args[5]
    rc1, rc2, rc3, brc1, brc3 = args[6:11]
    if not [e for e in log if e.get("fault")]:
        return "not hit"
    reasons = []
    for rc in (rc1, rc2, rc3):
        if rc not in ("0", "1"):
            reasons.append("exit status %s" % rc)
            break
    same1 = b1 == g1
    want = rc_rule(key, fault, same1, rc1)
    if want is None and rc1 != brc1:
        reasons.append("exit status %s after a retried 502, want %s" % (
            rc1, brc1))
    elif want == 1 and rc1 != "1":
        reasons.append("exit status %s, want 1 (the tick %s)" % (
            rc1, "did less than without the fault" if not same1
            else "failed a write"))
    if rc3 != brc3 and rc3 in ("0", "1"):
        reasons.append("last tick's exit status %s, want %s" % (rc3, brc3))
    reasons += duplicates(b3, g3)
    for before, after in ((b0, g1), (g1, g2), (g2, g3)):
        for r in merged_work(before, after):
            if r not in reasons:
                reasons.append(r)
    if b3 != g3:
        reasons.append("final state differs: " +
                       "; ".join(first_diffs(b3, g3)))
    return "; ".join(reasons) if reasons else "ok"


def table(path, faults):
    rows = {}
    order = []
    for line in open(path, encoding="utf-8"):
        world, key, fault, result = line.rstrip("\n").split("\t")[:4]
        if (world, key) not in rows:
            rows[(world, key)] = {}
            order.append((world, key))
        rows[(world, key)][fault] = result
    w = max([len("%s: %s" % r) for r in order] + [8])
    out = [("%-*s %s" % (w, "endpoint", " ".join("%-8s" % f[:8]
                                                   for f in faults))).rstrip()]
    for r in order:
        cells = []
        for f in faults:
            res = rows[r].get(f)
            cells.append("%-8s" % ("." if res is None else
                                   "ok" if res == "ok" else
                                   "-" if res == "not hit" else "FAIL"))
        out.append(("%-*s %s" % (w, "%s: %s" % r, " ".join(cells))).rstrip())
    return "\n".join(out)


def main(argv):
    cmd = argv[0]
    if cmd == "endpoints":
        print("\n".join(endpoints(json.load(open(argv[1])))))
    elif cmd == "reset":
        admin(argv[1], "/_admin/reset", {})
        if len(argv) > 2:
            admin(argv[1], "/_admin/fault", fault_body(*argv[2:5]))
    elif cmd == "snap":
        snap(*argv[1:])
    elif cmd == "verdict":
        print(verdict(argv[1:]))
    elif cmd == "pick":
        cells = sys.stdin.read().splitlines()
        rng = random.Random("%s %s" % (argv[1], argv[3]))
        keep = set(rng.sample(range(len(cells)), min(int(argv[2]),
                                                      len(cells))))
        print("\n".join(c for i, c in enumerate(cells) if i in keep))
    elif cmd == "table":
        print(table(argv[1], argv[2:]))
    else:
        sys.stderr.write("fm.py: unknown command %s\n" % cmd)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
