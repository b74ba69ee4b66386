"""The one-shot mode of tests/fake-agent: `fake-agent -p --output-format
json [--resume ID] ... [PROMPT]`, as the agent runs under protocol
"checkpoint".  As `claude -p` does, it takes the prompt from its
standard input when no prompt argument is given (the orchestrator never
puts one on the command line).

Each run takes the next entry of the script (one entry per run, counted
over every run that logs to the same $FAKE_AGENT_LOG, resumed or not),
runs its steps as the terminal mode does (write, commit, push, phase,
summary, sleep, exit...), then prints the JSON result on stdout with its
"session_id" and exits 0.  Past the end of the script a run does nothing
and writes no checkpoint.

Steps of this mode:
  "checkpoint": {...}     written to $CTRLRELAY_STATE_FILE with "version",
                          "session_id" ($CTRLRELAY_SESSION_ID) and
                          "timestamp" filled in unless given
  "checkpoint": "TEXT"    written as it is (an invalid checkpoint)
  "no_output": true       print nothing on stdout
As `claude -p` does, a run that completes its turn runs the Stop hooks
of .claude/settings.json in its working directory (after its steps, so
after its checkpoint), unless a step ended the turn otherwise.
A run with --resume ID continues the session ID (an ID no run printed is
refused, as the real CLI refuses it: exit 1); without it a new session ID
is made.

Logged in $FAKE_AGENT_LOG: prompt-N.txt (the prompt of run N, byte-exact),
argv-N.txt (its command line as /proc shows it to every user, NUL
separated), env-N.txt (its whole environment, one variable a line),
events.log ("run N new SID" / "run N resume SID", "env NAME=VALUE" for the
variables the orchestrator sets, "pid N pgid N", "prompt from stdin" or
"prompt from argv").
"""

import argparse
import fcntl
import json
import os
import sys
import time
import uuid

ENV_SEEN = ("CTRLRELAY_SESSION_ID", "CTRLRELAY_STATE_FILE",
            "DISINTO_SESSION_ID", "DISINTO_STATE_FILE")


def counter(logdir, resume):
    """The run number and session ID of this run (state in oneshot.json)."""
    path = os.path.join(logdir, "oneshot.json")
    with open(path + ".lock", "a+", encoding="utf-8") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        try:
            with open(path, encoding="utf-8") as f:
                st = json.load(f)
        except (OSError, ValueError):
            st = {"runs": 0, "sessions": []}
        if resume and resume not in st["sessions"]:
            return st["runs"], None
        st["runs"] += 1
        sid = resume or str(uuid.uuid4())
        if sid not in st["sessions"]:
            st["sessions"].append(sid)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(st, f)
        os.rename(tmp, path)
        return st["runs"], sid


def make_agent(base):
    """A subclass of the terminal mode's Agent without a terminal."""

    class OneShot(base):
        def out(self, text):
            sys.stderr.write(text)
            sys.stderr.flush()

        def restore(self):
            pass

        def checkpoint(self, spec):
            path = os.environ.get("CTRLRELAY_STATE_FILE")
            if not path:
                raise RuntimeError("CTRLRELAY_STATE_FILE is not set")
            if isinstance(spec, str):
                text = spec
            else:
                ck = {"version": "1",
                      "session_id": os.environ.get("CTRLRELAY_SESSION_ID",
                                                   ""),
                      "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                 time.gmtime())}
                ck.update(json.loads(self.expand(json.dumps(spec))))
                text = json.dumps(ck)
            tmp = path + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
            os.rename(tmp, path)
            self.event("checkpoint %s" % (
                spec.get("status") if isinstance(spec, dict) else "raw"))

        def run_step(self, step):
            base.run_step(self, step)
            if "checkpoint" in step:
                self.checkpoint(step["checkpoint"])

    return OneShot


def save_process(logdir, n):
    """This run's command line and environment, as another process sees
    them."""
    with open("/proc/self/cmdline", "rb") as f:
        cmdline = f.read()
    with open(os.path.join(logdir, "argv-%d.txt" % n), "wb") as f:
        f.write(cmdline)
    with open(os.path.join(logdir, "env-%d.txt" % n), "w",
              encoding="utf-8") as f:
        for k in sorted(os.environ):
            f.write("%s=%s\n" % (k, os.environ[k]))


def main(argv, base, load_script):
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("-p", "--print", dest="print", action="store_true")
    ap.add_argument("--output-format")
    ap.add_argument("--model")
    ap.add_argument("--dangerously-skip-permissions", action="store_true")
    ap.add_argument("--resume")
    ap.add_argument("--script", default=os.environ.get("FAKE_AGENT_SCRIPT"))
    ap.add_argument("prompt", nargs="?")
    args, _unknown = ap.parse_known_args(argv)
    logdir = os.environ.get("FAKE_AGENT_LOG") or "."
    os.makedirs(logdir, exist_ok=True)
    n, sid = counter(logdir, args.resume)
    agent = make_agent(base)(load_script(args.script), logdir)
    if sid is None:
        agent.event("run refused: no session %s" % args.resume)
        sys.stderr.write("No conversation found with session ID: %s\n" %
                         args.resume)
        return 1
    agent.n = n
    agent.event("run %d %s %s" % (n, "resume" if args.resume else "new",
                                  sid))
    agent.event("pid %d pgid %d" % (os.getpid(), os.getpgid(0)))
    for name in ENV_SEEN:
        if os.environ.get(name):
            agent.event("env %s=%s" % (name, os.environ[name]))
    for var, env in (("phase_file", "FAKE_AGENT_PHASE_FILE"),
                     ("summary_file", "FAKE_AGENT_SUMMARY_FILE")):
        if os.environ.get(env):
            agent.vars[var] = os.environ[env]
    save_process(logdir, n)
    if args.prompt is not None:
        agent.event("prompt from argv")
        data = args.prompt.encode()
    else:
        agent.event("prompt from stdin")
        data = sys.stdin.buffer.read()
    if not data:
        sys.stderr.write("Error: Input must be provided either through "
                         "stdin or as a prompt argument when using "
                         "--print\n")
        return 1
    agent.save_prompt(data)
    agent.learn_paths(data)
    entries = agent.script
    agent.turn_ended = False
    if n <= len(entries):
        agent.run_entry(entries[n - 1])
    agent.end_turn()
    steps = entries[n - 1] if n <= len(entries) else []
    steps = steps if isinstance(steps, list) else [steps]
    if not any(s.get("no_output") for s in steps if isinstance(s, dict)):
        json.dump({"type": "result", "subtype": "success",
                   "is_error": False, "result": "fake-agent run %d" % n,
                   "session_id": sid, "num_turns": 1}, sys.stdout)
        sys.stdout.write("\n")
    agent.event("run %d end" % n)
    return 0
