#!/usr/bin/env python3
"""Observer and report of tests/bench-latency.

  latency-observe.py T PROJECT ISSUES TMUX_SOCKET O
      watch (every 0.25 s) until every issue is merged and its session
      ended, or until stopped (SIGTERM); the timeline so far is written
      to T/observed.json after every round (atomically), so a run cut
      short by the bench's limit still has its report.  The times come
      from the files the run leaves (phase files' and agents' prompt
      files' mtimes, the events log of the timer and of CI), the
      simulator's state (SIM_URL), tmux, and the tools' logs (each new
      line stamped when it is first seen: a tick's wake reason, "woken:
      REASON", is logged when its pass starts); processes of ours are
      sampled each round.
  latency-observe.py --report T TICK MODE
      read T/observed.json, T/events.log and the tools' logs and print
      the figures; never fails on a run that did not finish (it says
      where the chain stopped and what it waited for).

Per issue, the transitions (event -> the tool that reacts):
  launch   slot free (start, or the previous issue's session ended)
           -> session up (dev-poll)
  park     PHASE:escalate written -> the conversation parked (its record
           written; BENCH_ESCALATE=1)
  resume   a person's reply posted -> the resumed conversation's first
           prompt (the reply typed in)
  pr       PHASE:awaiting_ci written -> PR opened (dev-poll)
  ci       CI final -> dev-poll takes the result ("CI ... injected" in
           its log: typed into the session, or queued for it)
  review   CI final and PR open -> review agent prompted (review-poll)
  posted   review agent wrote PHASE:done -> review posted (review-poll)
  verdict  review agent wrote PHASE:done -> verdict typed into the dev
           session (review-poll; "-" when the PR merged first)
  merge    review posted -> PR merged (dev-poll)
  end      PR merged -> session ended, the clean-up (dev-poll)
For each: who made the event (an agent, CI, or a tool's tick), the
seconds the orchestration added (event -> reaction seen), the reacting
tool's tick start (the latest tick or pass of that tool started before
the reaction and not turned away by its tick lock: a timer tick, or a
pass started by a wake, with its reason) and the delay event -> that
tick start.  "timer ticks used on the happy path" counts the reactions
made by a timer tick that started after the event (the bench's first
tick, at 0 s, is the start, not counted).  The reaction is seen within
0.25 s (or exactly: a prompt or phase file's mtime), a woken pass's
start within 0.25 s (the time its "woken:" line was first seen, not
before the line's own second).
"""
import calendar
import json
import os
import signal
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


# The tools' logs under FACTORY_ROOT, and the lines kept from them (with
# the time each was first seen): wakes, woken passes, tick locks held.
LOGS = (("dev-poll", "dev/dev-agent-%s.log"), ("review-poll",
                                                 "review/review.log"),
        ("supervisor-poll", "supervisor/supervisor.log"),
        ("webhook", "../webhook.log"))
KEEP = ("wake", "woken", " holds ", " injected", "queued for ", "PR #",
        "pr #", "cleaning up", "resuming")
# The line a reaction leaves in its tool's log (%(pr)s, %(n)s: the PR's
# and the issue's numbers): the pass that logged it is the one that
# reacted (the log's order; the reaction's time is still the observed
# one).  Without it the latest tick start before the reaction is taken.
REACT_LINES = {
    "pr": ("dev-poll", "PR #%(pr)s for #%(n)s on"),
    "ci_taken": ("dev-poll", "on PR #%(pr)s injected"),
    "review_started": ("review-poll", "pr #%(pr)s: review session"),
    "review_posted": ("review-poll", "pr #%(pr)s: review comment for"),
    "verdict_delivered": ("review-poll", "pr #%(pr)s: verdict"),
    "merged": ("dev-poll", "PR #%(pr)s merged"),
    "ended": ("dev-poll", "#%(n)s: done"),
    "resumed": ("dev-poll", "resuming Claude session"),
}
# Reactions seen exactly (a file's mtime) may precede the sight of the
# "woken:" line of the pass that made them by one round.
EXACT = ("review_started", "ci_delivered", "verdict_delivered")


class Tail:
    """New complete lines of a file, from where the last read ended."""

    def __init__(self, path):
        self.path, self.off, self.part = path, 0, b""

    def lines(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.off)
                data = f.read()
        except OSError:
            return []
        self.off += len(data)
        data = self.part + data
        out = data.split(b"\n")
        self.part = out.pop()
        return [x.decode("utf-8", "replace") for x in out]


def phase(run, kind, P, n):
    """A session's phase file: in its session directory, or (older
    layout) in the run directory."""
    name = "%s-session-%s-%d.phase" % (kind, P, n)
    path = os.path.join(run, "sessions", "active", "%s-%s-%d" % (kind, P, n),
                        name)
    return path if os.path.exists(path) else os.path.join(run, name)


def save(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.replace(tmp, path)


def observe(T, P, issues, sock, O):
    run = os.environ["DISINTO_RUN_DIR"]
    factory = os.environ["FACTORY_ROOT"]
    tools = {os.path.realpath(os.path.join(O, t, t))
             for t in ("dev-poll", "review-poll", "supervisor-poll")}
    ev = {n: {} for n in range(1, issues + 1)}
    mark = ("DISINTO_RUN_DIR=" + run).encode()
    samples, kept = [], []
    tails = [(t, Tail(os.path.join(factory, f % P if "%s" in f else f)))
             for t, f in LOGS]
    out = os.path.join(T, "observed.json")
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))

    def first(n, k, t):
        if t is not None and k not in ev[n]:
            ev[n][k] = t

    while not stop:
        now = time.time()
        for tool, tail in tails:
            for line in tail.lines():
                if any(k in line for k in KEEP):
                    kept.append((now, tool, line))
        server = tmux_pid(sock)   # a new server once the last session ended
        samples.append((now, ours(tools, server or -1, mark)))
        ss = sessions(sock)
        try:
            st = state()
        except (OSError, ValueError):
            st = {"pulls": []}
        for n in ev:
            e = ev[n]
            if "dev-%s-%d" % (P, n) in ss:
                first(n, "launched", now)
            ph = phase(run, "dev", P, n)
            if head(ph) == "PHASE:awaiting_ci":
                first(n, "awaiting_ci", mtime(ph))
            if head(ph) == "PHASE:escalate":
                first(n, "escalated", mtime(ph))
            first(n, "parked", mtime(os.path.join(
                run, "dev-escalation-parked-%s-%d" % (P, n))))
            agent = os.path.join(T, "agents", "%s-worktree-%d" % (P, n))
            if os.path.isdir(agent + "-resumed"):   # after an escalation
                agent += "-resumed"
                first(n, "resumed", mtime(os.path.join(agent,
                                                       "prompt-1.txt")))
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
                rph = phase(run, "review", P, r)
                if head(rph) == "PHASE:done":
                    first(n, "review_ended", mtime(rph))
            if "merged" in e and "dev-%s-%d" % (P, n) not in ss:
                first(n, "ended", now)
        done = all("ended" in e for e in ev.values())
        save(out, {"issues": ev, "samples": samples, "lines": kept,
                   "done": done, "at": now, "project": P})
        if done:
            break
        time.sleep(max(0.0, 0.25 - (time.time() - now)))
    return 0


def events(T):
    """The timer's ticks, CI's pushes and ends (a line cut short by the
    run's end is skipped)."""
    start, ticks, push, ci, begun = None, [], {}, {}, []
    try:
        f = open(os.path.join(T, "events.log"))
    except OSError:
        return start, ticks, [], push, ci
    with f:
        for line in f:
            w = line.split()
            try:
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
                elif w[0] == "reply":
                    ci.setdefault("reply", float(w[1]))
            except (IndexError, ValueError):
                continue
    # A tick still running when the run stopped: open to the end.
    ended = {(n, a) for n, a, _, _ in ticks}
    running = [(n, a, float("inf"), 0) for n, a in begun
               if (n, a) not in ended]
    return start, ticks, running, push, ci


def fmt(x):
    return "-" if x is None else "%.1f" % x


def dt(a, b):
    return None if a is None or b is None else b - a


def log_ts(line):
    """The whole second a tool's log line was written at, or None."""
    try:
        return calendar.timegm(time.strptime(line[1:24],
                                             "%Y-%m-%d %H:%M:%S UTC"))
    except ValueError:
        return None


class Starts:
    """The tick starts of each tool: the timer's (events.log; "locked"
    when the tool logged that the tick lock was held within the second)
    and the passes a wake started ("woken: REASON" lines, placed at the
    later of the line's own second and 0.25 s before it was seen)."""

    def __init__(self, start, ticks, running, lines):
        self.by = {}
        held = [(t, tool) for t, tool, line in lines if " holds " in line]
        for tool, a, _, _ in ticks + running:
            if start is not None and a - start < 1.0:
                kind = "start"    # the bench's first tick, at 0
            elif any(x == tool and 0 <= t - a <= 1.25 for t, x in held):
                kind = "locked"
            else:
                kind = "timer"
            self.by.setdefault(tool, []).append((a, kind, "", -1))
        self.woken = {}
        for seq, (seen, tool, line) in enumerate(lines):
            i = line.find("woken: ")
            if i < 0:
                continue
            reason = line[i + 7:].rsplit(" (pass", 1)[0]
            ts = log_ts(line)
            at = seen - 0.25 if ts is None else max(ts, seen - 0.25)
            self.by.setdefault(tool, []).append((at, "wake", reason, seq))
            self.woken.setdefault(tool, []).append(reason)
        for v in self.by.values():
            v.sort()

    def reacting(self, tool, reaction, seq=None, slack=0.0):
        """The latest start of the tool's ticks before the reaction that
        could act (not one that found the lock held)."""
        best = None
        for at, kind, reason, n in self.by.get(tool, []):
            if seq is not None and (n > seq or (n < 0 and at > reaction)):
                continue    # logged after the reaction's own line
            if seq is None and at > reaction + slack:
                break
            if kind != "locked":
                best = (at, kind, reason)
        return best


# name, event key, reaction key, reacting tool, what it waits for, who
# made the event (agent: an agent's write; CI; tool: another tick's act)
STEPS = (
    ("launch", "eligible", "launched", "dev-poll",
     "dev-poll to launch the session (slot free, issue in the backlog)",
     "tool"),
    ("park", "escalated", "parked", "dev-poll",
     "the escalation's notice and park (PHASE:escalate written)", "agent"),
    ("resume", "reply", "resumed", "dev-poll",
     "the reply typed into the resumed conversation (a person replied)",
     "person"),
    ("pr", "awaiting_ci", "pr", "dev-poll",
     "dev-poll to open the PR (PHASE:awaiting_ci written)", "agent"),
    ("ci", "ci_end", "ci_taken", "dev-poll",
     "dev-poll to take CI's result (CI final)", "CI"),
    ("review", "ready", "review_started", "review-poll",
     "review-poll to start the review (CI final, PR open)", "CI"),
    ("posted", "review_ended", "review_posted", "review-poll",
     "review-poll to post the review (the review agent's PHASE:done)",
     "agent"),
    ("verdict", "review_ended", "verdict_delivered", "review-poll",
     "review-poll to type the verdict into the dev session", "agent"),
    ("merge", "review_posted", "merged", "dev-poll",
     "dev-poll to merge (the approval posted)", "tool"),
    ("end", "merged", "ended", "dev-poll",
     "dev-poll to end the session (PR merged)", "tool"),
)
# What the run reached, in the chain's order, for a timeline.
MILESTONES = (
    ("launched", "launch"), ("escalated", "PHASE:escalate"),
    ("parked", "parked"), ("reply", "reply posted"),
    ("resumed", "resumed with the reply"),
    ("awaiting_ci", "PHASE:awaiting_ci"),
    ("pr", "PR opened"), ("ci_end", "CI final"),
    ("ci_delivered", "CI result typed in"),
    ("review_started", "review started"),
    ("review_ended", "review agent done (verdict written)"),
    ("review_posted", "review posted"),
    ("verdict_delivered", "verdict typed in"),
    ("merged", "merged"), ("ended", "session ended (clean-up)"))
# The agents' own time and CI's: not the orchestration's.
WORK = (("prompted", "awaiting_ci"), ("pushed", "ci_end"),
        ("review_started", "review_ended"))


def ci_taken(lines, devlog, pr):
    """When dev-poll first took CI's result of PR pr (typed it in or
    queued it: "CI ... on PR #pr injected"): the time the line was seen,
    else (a timeline without it) the middle of the line's second."""
    def hit(line):
        return "CI " in line and "on PR #%s injected" % pr in line
    seen = [(t, n) for n, (t, tool, line) in enumerate(lines)
            if tool == "dev-poll" and hit(line)]
    if seen:
        return min(seen)
    for line in tail_lines(devlog, 100000):
        if hit(line) and log_ts(line) is not None:
            return log_ts(line) + 0.5, None
    return None, None


def react_seq(lines, n, pr):
    """Each reaction's first line in the kept log lines: its index."""
    out = {}
    for k, (tool, pat) in REACT_LINES.items():
        want = pat % {"pr": pr, "n": n}
        for i, (_, t, line) in enumerate(lines):
            if t == tool and want in line:
                out[k + "_seq"] = i
                break
    return out


def times(e, push, ci, eligible, taken=(None, None), seqs=None):
    """The issue's observed times, with CI's from the events log; the
    kept log line of a reaction seen there by its place (key_seq)."""
    x = dict(e)
    x.update(seqs or {})
    x["ci_taken"] = taken[0] if taken[0] is not None else \
        e.get("ci_delivered")
    if taken[1] is not None:
        x["ci_taken_seq"] = taken[1]
    x["eligible"] = eligible
    sha = e.get("sha")
    if ci.get(sha) is not None:
        x["ci_end"] = ci[sha]
    if push.get(sha) is not None:
        x["pushed"] = push[sha]
    if e.get("escalated") is not None and ci.get("reply") is not None:
        x["reply"] = ci["reply"]
    if x.get("ci_end") is not None and x.get("pr") is not None:
        x["ready"] = max(x["ci_end"], x["pr"])
    return x


def tail_lines(path, n):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()[-n:]
    except OSError:
        return []


def load_observed(T):
    try:
        with open(os.path.join(T, "observed.json")) as f:
            obs = json.load(f)
        return obs if isinstance(obs, dict) else None
    except (OSError, ValueError):
        return None


def report_issue(n, x, starts, rel, agent_delays):
    """The issue's transitions: added seconds, the reacting tick and the
    delay; returns (timer ticks used, first transition not reached)."""
    print("issue #%s:" % n)
    print("  %-8s %-6s %7s %7s   %-34s %s" % ("step", "event", "added",
                                               "delay", "reacting tick",
                                               "event at"))
    used, stuck = [], None
    for name, ek, rk, tool, what, by in STEPS:
        ev, re_ = x.get(ek), x.get(rk)
        if ev is None:
            continue
        if re_ is None and name == "verdict" and x.get("merged"):
            print("  %-8s %-6s %7s %7s   %-34s %s" % (
                name, by, "-", "-", "(merged first: not needed)", rel(ev)))
            continue
        if re_ is None:
            stuck = stuck or (name, ev, tool, what)
            print("  %-8s %-6s %7s %7s   %-34s %s" % (
                name, by, "-", "-", "(none yet)", rel(ev)))
            continue
        s = starts.reacting(tool, re_, x.get(rk + "_seq"),
                            0.25 if rk in EXACT else 0.0)
        if s is None:
            who, delay = "%s ?" % tool, None
        else:
            delay = max(0.0, s[0] - ev)
            who = "%s %s%s" % (tool, s[1], (" (%s)" % s[2]) if s[2] else "")
            if s[1] == "timer" and s[0] > ev - 0.3:
                used.append(name)
            if by == "agent":
                agent_delays.append(delay)
        print("  %-8s %-6s %7s %7s   %-34s %s" % (
            name, by, fmt(re_ - ev), fmt(delay), who[:34], rel(ev)))
    return used, stuck


def report(T, tick, mode):
    obs = load_observed(T)
    start, ticks, running, push, ci = events(T)
    factory = os.environ.get("FACTORY_ROOT", os.path.join(T, "factory"))
    print("mode: %s; timer every %s s" % (mode, tick))
    if obs is None:
        print("no timeline: the observer wrote nothing (T/observe.err)")
        obs = {"issues": {}, "samples": [], "lines": [], "done": False}
    starts = Starts(start, ticks, running, obs.get("lines", []))
    issues = obs.get("issues", {})
    done = bool(obs.get("done")) and bool(issues)

    def rel(t):
        return "-" if t is None or start is None else "%.1f s" % (t - start)
    used_all, eligible, stuck_all, agent_delays = [], start, [], []
    rows = []
    for n in sorted(issues, key=int):
        devlog = os.path.join(factory, LOGS[0][1] % obs.get("project",
                                                            "bench"))
        x = times(issues[n], push, ci, eligible,
                  ci_taken(obs.get("lines", []), devlog,
                           issues[n].get("pr_number")),
                  react_seq(obs.get("lines", []), n,
                            issues[n].get("pr_number")))
        used, stuck = report_issue(n, x, starts, rel, agent_delays)
        used_all += ["#%s %s" % (n, u) for u in used]
        L = x.get("launched")
        print("  reached (s since launch): " + ", ".join(
            "%s %s" % (label, fmt(dt(L, x.get(k)))) for k, label in MILESTONES
            if x.get(k) is not None) if L is not None else
            "  reached: nothing (no session launched)")
        if stuck is None and x.get("ended") is None:
            # No tool's reaction pending: the chain waits on an agent,
            # CI or a reviewer: the first milestone not reached.
            nxt = [label for k, label in MILESTONES if x.get(k) is None]
            stuck = ("-", None, "", "the next milestone, '%s' (an agent's "
                     "or CI's own work)" % (nxt[0] if nxt else "?"))
        if stuck is not None:
            stuck_all.append((n, stuck))
        work = [dt(x.get(a), x.get(b)) for a, b in WORK]
        total = dt(eligible, x.get("merged"))
        added = None if total is None or None in work else total - sum(work)
        rows.append((n, dt(L, x.get("merged")), dt(eligible, x.get("merged")),
                     None if None in work else sum(work), added))
        eligible = x.get("ended") or x.get("merged")
    print()
    print("%-6s %16s %16s %9s %9s" % ("issue", "launch->merge",
                                      "free->merge", "work", "added"))
    for n, lm, fm, w, a in rows:
        print("%-6s %16s %16s %9s %9s" % ("#" + n, fmt(lm), fmt(fm), fmt(w),
                                          fmt(a)))
    print("launch to merge (s): %s" % (", ".join(
        "#%s %s" % (n, fmt(lm)) for n, lm, _, _, _ in rows) or "-"))
    print("agent-driven transitions (event -> reacting tick's start): "
          "%d, longest delay %s s" % (
              len(agent_delays), fmt(max(agent_delays)
                                     if agent_delays else None)))
    report_ticks(starts, ticks)
    print("timer ticks used on the happy path: %d%s" % (
        len(used_all), (" (" + ", ".join(used_all) + ")") if used_all else
        ""))
    report_samples(obs.get("samples", []), ticks, running)
    if done:
        return 0
    print()
    print("NOT FINISHED: the chain did not end within the bench's limit "
          "(%s after the start)" % rel(obs.get("at")))
    for n, (name, ev, tool, what) in stuck_all:
        if ev is None:
            print("  #%s stopped with no tool's reaction pending: waited "
                  "for %s" % (n, what))
            continue
        print("  #%s stopped at '%s': waited for %s, since %s" % (
            n, name, what, rel(ev)))
    if not stuck_all:
        print("  stopped before any event of a transition (no launch?)")
    for tool, f in LOGS:
        path = os.path.join(factory, f % obs.get("project", "bench")
                            if "%s" in f else f)
        print("  last lines of %s (%s):" % (tool, os.path.relpath(path, T)))
        for line in tail_lines(path, 6) or ["(empty)"]:
            print("    " + line)
    return 0


def report_ticks(starts, ticks):
    """Per tool: the timer's ticks, and the passes wakes started."""
    print()
    print("ticks by reason (timer: started by the schedule; wake: passes "
          "whose log says 'woken: REASON'):")
    for tool, _ in LOGS[:3]:
        own = starts.by.get(tool, [])
        kinds = [k for _, k, _, _ in own]
        reasons = {}
        for r in starts.woken.get(tool, []):
            reasons[r] = reasons.get(r, 0) + 1
        print("  %-16s timer %d (the first at 0 s: %d, lock held: %d), "
              "wake %d%s" % (
                  tool, kinds.count("timer") + kinds.count("start") +
                  kinds.count("locked"), kinds.count("start"),
                  kinds.count("locked"), kinds.count("wake"),
                  (": " + ", ".join("%s x%d" % (r, c) for r, c in
                                    sorted(reasons.items())))
                  if reasons else ""))
    if ticks:
        lon = max(ticks, key=lambda x: x[2] - x[1])
        bad = sorted({x[0] for x in ticks if x[3] != 0})
        print("timer's ticks ended: %d; longest %.2f s (%s); "
              "exit status not 0: %d %s" % (
                  len(ticks), lon[2] - lon[1], lon[0],
                  sum(1 for x in ticks if x[3] != 0), " ".join(bad)))


def report_samples(samples, ticks, running):
    def in_tick(t):
        return any(a <= t <= b for _, a, b, _ in ticks + running)
    between = [c for t, c in samples if not in_tick(t)]
    print("processes of ours alive (outside sessions), %d samples: max %d; "
          "between the timer's ticks: %d of %d samples with one, max %d" % (
              len(samples), max([c for _, c in samples] or [0]),
              sum(1 for c in between if c), len(between),
              max(between or [0])))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--report":
        try:
            return report(*sys.argv[2:5])
        except Exception as e:      # a report, even of a run gone wrong
            print("bench-latency: the report stopped: %s: %s" % (
                type(e).__name__, e))
            return 1
    if len(sys.argv) == 6:
        T, P, n, sock, O = sys.argv[1:6]
        return observe(T, P, int(n), sock, O)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
