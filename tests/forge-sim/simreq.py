#!/usr/bin/env python3
"""simreq: one HTTP request for the integration tests (no curl needed).

Usage:
    simreq.py [-t TOKEN] [-w WPTOKEN] [-T SECONDS] [-s | -S | -h NAME]
              METHOD URL [BODY]
    simreq.py --json EXPR            (filter: evaluate EXPR on stdin JSON)
    simreq.py --log-count URL METHOD PATH_REGEX [STATUS]

Prints the response body on stdout.  -s prints only the status code; -S
prints the status code on the first line, then the body; -h prints only
the value of response header NAME.  -T gives up after SECONDS (default
30; a timeout is status 000).  Exit status: 0
for a 2xx answer, 1 otherwise (including transport errors: status 000).

--json reads JSON from stdin and evaluates the Python expression EXPR with
`d` bound to it; strings are printed raw, everything else as JSON.
--log-count fetches URL/_admin/log and prints how many entries match the
METHOD ("*" for any) and PATH_REGEX (re.search on the path with query),
optionally only those with the given status.
"""

import http.client
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request


def request(method, url, body=None, token=None, bearer=None, timeout=30):
    data = body.encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    path = urllib.parse.urlsplit(url).path
    if token and not path.startswith("/api/") or \
            token and path.startswith("/api/v1/"):
        req.add_header("Authorization", "token " + token)
    elif bearer and path.startswith("/api/"):
        req.add_header("Authorization", "Bearer " + bearer)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            return res.status, res.read(), res.headers
    except urllib.error.HTTPError as e:
        try:
            return e.code, e.read(), e.headers
        except http.client.HTTPException as e2:
            return 0, str(e2).encode(), {}
    except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
        return 0, str(e).encode(), {}


def json_filter(expr):
    d = json.load(sys.stdin)
    v = eval(expr, {"re": re, "json": json, "len": len}, {"d": d})
    print(v if isinstance(v, str) else json.dumps(v))
    return 0


def log_count(base, method, rx, status=None):
    st, raw, _ = request("GET", base.rstrip("/") + "/_admin/log")
    if st != 200:
        print(0)
        return 1
    n = 0
    for e in json.loads(raw):
        if method != "*" and e["method"] != method:
            continue
        if not re.search(rx, e["path"]):
            continue
        if status is not None and str(e["status"]) != status:
            continue
        n += 1
    print(n)
    return 0


def main(argv):
    if argv and argv[0] == "--json":
        return json_filter(argv[1])
    if argv and argv[0] == "--log-count":
        return log_count(*argv[1:5])
    token = bearer = header = None
    timeout = 30
    mode = "body"
    while argv and argv[0].startswith("-"):
        opt = argv.pop(0)
        if opt == "-t":
            token = argv.pop(0)
        elif opt == "-w":
            bearer = argv.pop(0)
        elif opt == "-h":
            header = argv.pop(0)
            mode = "header"
        elif opt == "-T":
            timeout = float(argv.pop(0))
        elif opt == "-s":
            mode = "status"
        elif opt == "-S":
            mode = "both"
        else:
            sys.stderr.write("simreq: unknown option %s\n" % opt)
            return 2
    method, url = argv[0], argv[1]
    body = argv[2] if len(argv) > 2 else None
    status, raw, headers = request(method, url, body, token, bearer,
                                   timeout)
    out = sys.stdout.buffer
    if mode == "header":
        out.write((headers.get(header) or "").encode() + b"\n")
    if mode in ("status", "both"):
        out.write(b"%03d\n" % status)
    if mode in ("body", "both"):
        out.write(raw)
        if raw and not raw.endswith(b"\n"):
            out.write(b"\n")
    out.flush()
    return 0 if 200 <= status < 300 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
