#!/usr/bin/env python3
"""Observer and report of tests/bench-latency.

  latency-observe.py T PROJECT ISSUES TMUX_SOCKET O
      watch (every 0.25 s) until every issue is merged and its session
      ended; print the timeline as JSON.  The times come from the files
      the run leaves (phase files' and agents' prompt files' mtimes, the
      events log of the timer and of CI), the simulator's state
      (SIM_URL) and tmux; processes of ours are sampled each round.
  latency-observe.py --report T TICK MODE
      read T/observed.json and T/events.log and print the figures.

Per issue (seconds the orchestration adds; the agents', CI's and the
review's own time is not counted):
  launch   slot free (start, or the previous issue merged) -> session up
  pr       PHASE:awaiting_ci written -> PR opened
  ci       CI finished -> "CI passed" typed into the session
  review   CI finished and PR open -> review agent prompted
  verdict  review agent wrote PHASE:done -> verdict typed into the session
  merge    review agent wrote PHASE:done -> PR merged
  end      PR merged -> session ended
"""
import json
import os
import subprocess
import sys
import time
import urllib.request


def mtime(path):
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def head(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.readline().strip()
    except OSError:
        return ""


def sessions(sock):
    try:
        out = subprocess.run(["tmux", "-L", sock, "list-sessions", "-F",
                              "#{session_name}"], capture_output=True,
                             text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    return set(out.split())


def tmux_pid(sock):
    try:
        out = subprocess.run(["tmux", "-L", sock, "display-message", "-p",
                              "#{pid}"], capture_output=True, text=True,
                             timeout=5).stdout.strip()
        return int(out)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def parent(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def this_run(pid, mark):
    """Whether the process runs with this bench's run directory."""
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            return mark in f.read().split(b"\0")
    except OSError:
        return False


def ours(tools, server, mark):
    """Processes of this run whose executable is one of the tools,
    outside tmux (the agent wrappers inside sessions are the tools' own
    binary too)."""
    n = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            exe = os.readlink("/proc/%s/exe" % d)
        except OSError:
            continue
        if exe not in tools:
            continue
        if not this_run(int(d), mark):
            continue
        pid, inside = int(d), False
        for _ in range(64):
            pid = parent(pid)
            if pid <= 1:
                break
            if pid == server:
                inside = True
                break
        n += not inside
    return n


def state():
    url = os.environ["SIM_URL"] + "/_admin/state"
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)


def observe(T, P, issues, sock, O):
    run = os.environ["DISINTO_RUN_DIR"]
    tools = {os.path.realpath(os.path.join(O, t, t))
             for t in ("dev-poll", "review-poll", "supervisor-poll")}
    ev = {n: {} for n in range(1, issues + 1)}
    mark = ("DISINTO_RUN_DIR=" + run).encode()
    samples = []

    def first(n, k, t):
        if t is not None and k not in ev[n]:
            ev[n][k] = t

    while True:
        now = time.time()
        server = tmux_pid(sock)   # a new server once the last session ended
        samples.append((now, ours(tools, server or -1, mark)))
        ss = sessions(sock)
        try:
            st = state()
        except OSError:
            st = {"pulls": []}
        for n in ev:
            e = ev[n]
            if "dev-%s-%d" % (P, n) in ss:
                first(n, "launched", now)
            ph = os.path.join(run, "dev-session-%s-%d.phase" % (P, n))
            if head(ph) == "PHASE:awaiting_ci":
                first(n, "awaiting_ci", mtime(ph))
            agent = os.path.join(T, "agents", "%s-worktree-%d" % (P, n))
            for k, i in (("prompted", 1), ("ci_delivered", 2),
                         ("verdict_delivered", 3)):
                first(n, k, mtime(os.path.join(agent, "prompt-%d.txt" % i)))
            for p in st.get("pulls", []):
                if p.get("head", {}).get("ref") != "fix/issue-%d" % n:
                    continue
                r = p["number"]
                first(n, "pr", now)
                e.setdefault("pr_number", r)
                e["sha"] = p["head"].get("sha")
                if p.get("reviews"):
                    first(n, "review_posted", now)
                if p.get("merged"):
                    first(n, "merged", now)
                ragent = os.path.join(T, "agents", "%s-review-%d" % (P, r))
                first(n, "review_started",
                      mtime(os.path.join(ragent, "prompt-1.txt")))
                rph = os.path.join(run, "review-session-%s-%d.phase" % (P, r))
                if head(rph) == "PHASE:done":
                    first(n, "review_ended", mtime(rph))
            if "merged" in e and "dev-%s-%d" % (P, n) not in ss:
                first(n, "ended", now)
        if all("ended" in e for e in ev.values()):
            break
        time.sleep(max(0.0, 0.25 - (time.time() - now)))
    json.dump({"issues": ev, "samples": samples}, sys.stdout)
    return 0


def events(T):
    start, ticks, push, ci, begun = None, [], {}, {}, []
    with open(os.path.join(T, "events.log")) as f:
        for line in f:
            w = line.split()
            if w[0] == "start":
                start = float(w[1])
            elif w[0] == "begin":
                begun.append((w[1], float(w[2])))
            elif w[0] == "tick" and len(w) >= 5:
                ticks.append((w[1], float(w[2]), float(w[3]), int(w[4])))
            elif w[0] == "push":
                push.setdefault(w[1], float(w[2]))
            elif w[0] == "ci":
                ci.setdefault(w[1], float(w[2]))
    # A tick still running when the run stopped: open to the end.
    ended = {(n, a) for n, a, _, _ in ticks}
    running = [(n, a, float("inf"), 0) for n, a in begun
               if (n, a) not in ended]
    return start, ticks, running, push, ci


def fmt(x):
    return "-" if x is None else "%.1f" % x


def report(T, tick, mode):
    with open(os.path.join(T, "observed.json")) as f:
        obs = json.load(f)
    start, ticks, running, push, ci = events(T)
    names = ("launch", "pr", "ci", "review", "verdict", "merge", "end")
    rows, eligible = [], start
    for n in sorted(obs["issues"], key=int):
        e = obs["issues"][n]
        g = e.get
        sha = g("sha")
        ci_end = ci.get(sha)
        pushed = push.get(sha)
        d = {}

        def dt(a, b):
            return None if a is None or b is None else b - a
        d["launch"] = dt(eligible, g("launched"))
        d["pr"] = dt(g("awaiting_ci"), g("pr"))
        d["ci"] = dt(ci_end, g("ci_delivered"))
        ready = None if ci_end is None or g("pr") is None else \
            max(ci_end, g("pr"))
        d["review"] = dt(ready, g("review_started"))
        d["verdict"] = dt(g("review_ended"), g("verdict_delivered"))
        d["merge"] = dt(g("review_ended"), g("merged"))
        d["end"] = dt(g("merged"), g("ended"))
        work = [dt(g("prompted"), g("awaiting_ci")), dt(pushed, ci_end),
                dt(g("review_started"), g("review_ended"))]
        total = dt(eligible, g("merged"))
        d["added"] = None if total is None or None in work else \
            total - sum(work)
        d["work"] = None if None in work else sum(work)
        rows.append((n, d))
        eligible = g("merged")
    print("mode: %s; timer every %s s" % (mode, tick))
    print("seconds added by the orchestration per transition "
          "(- : did not happen, e.g. a verdict not typed in because the PR "
          "merged and the session ended first):")
    print("%-6s" % "issue" + "".join("%9s" % k for k in names) +
          "%9s %9s" % ("work", "added"))
    for n, d in rows:
        print("%-6s" % ("#" + n) + "".join("%9s" % fmt(d[k]) for k in names)
              + "%9s %9s" % (fmt(d["work"]), fmt(d["added"])))
    if ticks:
        lon = max(ticks, key=lambda x: x[2] - x[1])
        bad = sorted({x[0] for x in ticks if x[3] != 0})
        print("ticks the timer started: %d; longest %.2f s (%s); "
              "exit status not 0: %d %s" % (
                  len(ticks), lon[2] - lon[1], lon[0],
                  sum(1 for x in ticks if x[3] != 0), " ".join(bad)))
    samples = obs["samples"]

    def in_tick(t):
        return any(a <= t <= b for _, a, b, _ in ticks + running)
    between = [c for t, c in samples if not in_tick(t)]
    print("processes of ours alive (outside sessions), %d samples: max %d; "
          "between the timer's ticks: %d of %d samples with one, max %d" % (
              len(samples), max([c for _, c in samples] or [0]),
              sum(1 for c in between if c), len(between),
              max(between or [0])))
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--report":
        return report(*sys.argv[2:5])
    if len(sys.argv) == 6:
        T, P, n, sock, O = sys.argv[1:6]
        return observe(T, P, int(n), sock, O)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
