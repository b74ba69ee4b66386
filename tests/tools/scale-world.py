#!/usr/bin/env python3
"""Write a scale world for the forge simulator: ISSUES backlog issues (a
third of them depending on the one before), the first PRS of them with an
open PR whose CI is still running (a pending Woodpecker pipeline and a
pending forge status on its head).

    scale-world.py ISSUES PRS OUT.json [NOW]

NOW (seconds since the epoch, default the current time) dates the
pipelines, so that none of them has been pending long enough for an
alert.  Used by `make bench` and by test_scale_decisions.sh.

With SCALE_BODY=N in the environment every issue and PR body is padded
to N bytes of prose and every PR carries a COMMENT review with an N-byte
body (no decision reads it): a world whose text weighs what a real
forge's does.
"""
import json
import os
import sys
import time

PAD = int(os.environ.get("SCALE_BODY") or "0")
FORGE_CI = os.environ.get("SCALE_CI") == "forge"


def padded(text):
    """text, then filler prose up to PAD bytes (text itself when 0)."""
    if not PAD:
        return text
    text += "\n"
    filler = " Lorem ipsum dolor sit amet, consectetur adipiscing elit."
    while len(text) < PAD:
        text += filler
    return text[:max(PAD, len(text.split("\n")[0]) + 1)]


def sha(n):
    return "%040x" % (0x5ca1e000000 + n)


def main():
    nissues, nprs, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    now = int(sys.argv[4]) if len(sys.argv) > 4 else int(time.time())
    issues = []
    for k in range(1, nissues + 1):
        body = "Depends on #%d." % (k - 1) if k % 3 == 0 else "Do it."
        issues.append({"number": k, "title": "Issue %d" % k,
                       "labels": ["backlog"], "body": padded(body),
                       "user": "alice"})
    pulls, pipelines, statuses = [], [], {}
    for k in range(1, nprs + 1):
        num = 100000 + k
        pulls.append({"number": num, "user": "dev-bot",
                      "title": "fix: Issue %d (#%d)" % (k, k),
                      "body": padded("Fixes #%d" % k),
                      "head": {"ref": "fix/issue-%d" % k, "sha": sha(k)},
                      "files": ["src/a.c"],
                      "reviews": [{"id": k, "user": "alice",
                                   "state": "COMMENT",
                                   "body": padded("Looks fine.")}]
                      if PAD else []})
        pipelines.append({"number": k, "commit": sha(k),
                          "branch": "fix/issue-%d" % k, "event": "pull_request",
                          "status": "pending", "created": now - 60,
                          "started": 0, "finished": 0})
        final = FORGE_CI and k % 8 != 0
        statuses[sha(k)] = {"state": "success" if final else "pending"}
        if final:
            pulls[-1]["comments"] = [{
                "user": "review-bot",
                "body": "## AI Review\n<!-- reviewed: %s -->\nFine." % sha(k)}]
    world = {"repo": "johba/harb",
             "users": [{"login": "dev-bot", "token": "dev-token",
                        "admin": True},
                       {"login": "review-bot", "token": "review-token",
                        "admin": True},
                       {"login": "alice", "token": "alice-token"}],
             "labels": [{"id": 1, "name": "backlog"},
                        {"id": 2, "name": "in-progress"},
                        {"id": 3, "name": "blocked"},
                        {"id": 4, "name": "priority"}],
             "issues": issues, "pulls": pulls, "statuses": statuses}
    if not FORGE_CI:
        world["woodpecker"] = {"repo_id": 1, "token": "wp-token",
                               "pipelines": pipelines}
    with open(out, "w") as f:
        json.dump(world, f)


main()
