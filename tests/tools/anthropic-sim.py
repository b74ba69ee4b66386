#!/usr/bin/env python3
"""A scripted stand-in for the Messages API, on loopback, for running the
real agent CLI (Claude Code) by hand against the executables:

    tests/tools/anthropic-sim.py --port 8765 --script s.json --log sim.log
    ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ANTHROPIC_API_KEY=sk-ant-test \
        claude ...

The agent's turns (requests that offer tools) take the script's steps in
order; every other request (titles, summaries, token counts) gets a
short text.  A step:

  {"text": "..."}                       an answer that ends the turn
  {"tool": {"name": "Bash", "input": {"command": "..."}}}
                                        a tool call (the CLI runs it, with
                                        its hooks, and asks again)
  {"error": 429, "type": "rate_limit_error", "retry_after": 30,
   "times": 12}                         an error answer, for this many
                                        requests in a row (the CLI retries
                                        429 and 5xx itself; default 1)
  {"drop": true, "times": 12}           the connection closed, no answer
  {"wait": 5}                           an answer after 5 seconds

In a tool step's input, "{{NAME}}" stands for what the conversation's
prompts say NAME is: the value of a line "NAME=VALUE" (the review
formula's REVIEW_OUTPUT_FILE= and PHASE_FILE=), or for PHASE_FILE the
path of the dev formula's "Phase file: `PATH`"; the first prompt that
says it counts, so each session's model writes its own files.

After the last step every turn gets {"text": "done"}.  With --every,
every request to /v1/messages takes the script's steps, turn or not (a
one-line probe such as the tools' after an API error).  Answers stream as
the API streams them (server-sent events) when the request asks for a
stream.  The log has one JSON line per request: its path, model, whether
it was a turn, the step it got and the last user text (cut).

The error types are the API's (docs.anthropic.com, "Errors"):
400 invalid_request_error, 401 authentication_error, 403
permission_error, 404 not_found_error, 413 request_too_large, 429
rate_limit_error, 500 api_error, 529 overloaded_error.
"""
import argparse
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
               403: "permission_error", 404: "not_found_error",
               413: "request_too_large", 429: "rate_limit_error",
               500: "api_error", 529: "overloaded_error"}


class Script:
    def __init__(self, steps, log_path):
        self.steps = list(steps)
        self.i = 0
        self.left = None
        self.n = 0
        self.lock = threading.Lock()
        self.log_path = log_path

    def next_step(self):
        """The step for the next turn (an error step lasts its times)."""
        with self.lock:
            if self.i >= len(self.steps):
                return {"text": "done"}
            step = self.steps[self.i]
            if self.left is None:
                self.left = int(step.get("times", 1))
            self.left -= 1
            if self.left <= 0:
                self.i += 1
                self.left = None
            return step

    def log(self, entry):
        if not self.log_path:
            return
        with self.lock:
            self.n += 1
            entry["n"] = self.n
            entry["at"] = time.strftime("%H:%M:%S")
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")


def last_user_text(body):
    for m in reversed(body.get("messages") or []):
        if m.get("role") != "user":
            continue
        c = m.get("content")
        if isinstance(c, str):
            return c[:300]
        for part in reversed(c or []):
            if part.get("type") == "text":
                return part.get("text", "")[:300]
            if part.get("type") == "tool_result":
                out = part.get("content")
                if isinstance(out, list):
                    out = " ".join(p.get("text", "") for p in out
                                   if isinstance(p, dict))
                return "tool_result: %s" % str(out)[:1500]
    return ""


def user_texts(body):
    """Every text the user (the prompts, not tool results) sent."""
    out = []
    for m in body.get("messages") or []:
        if m.get("role") != "user":
            continue
        c = m.get("content")
        if isinstance(c, str):
            out.append(c)
            continue
        out += [p.get("text", "") for p in c or []
                if isinstance(p, dict) and p.get("type") == "text"]
    return out


def fill(value, texts):
    """value with its {{NAME}} placeholders filled from the prompts."""
    def one(m):
        name = m.group(1)
        pats = [r"(?m)^\s*%s=(\S+)" % re.escape(name)]
        if name == "PHASE_FILE":
            pats.append(r"Phase file: `([^`]+)`")
        for t in texts:
            for pat in pats:
                found = re.search(pat, t)
                if found:
                    return found.group(1)
        return m.group(0)
    if isinstance(value, str):
        return re.sub(r"\{\{([A-Z_]+)\}\}", one, value)
    if isinstance(value, dict):
        return {k: fill(v, texts) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, texts) for v in value]
    return value


def message(model, blocks, stop):
    return {"id": "msg_sim_%d" % int(time.time() * 1000), "type": "message",
            "role": "assistant", "model": model, "content": blocks,
            "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5,
                      "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0}}


def blocks_of(step):
    if "tool" in step:
        t = step["tool"]
        return ([{"type": "tool_use", "id": "toolu_sim_%d" %
                  int(time.time() * 1000000), "name": t["name"],
                  "input": t.get("input", {})}], "tool_use")
    return [{"type": "text", "text": step.get("text", "done")}], "end_turn"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script = None
    every = False

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        self.send_json(200, {"data": [], "has_more": False})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        model = body.get("model", "claude-sim")
        if path.endswith("/count_tokens"):
            self.send_json(200, {"input_tokens": 10})
            return
        if not path.endswith("/v1/messages"):
            self.send_json(404, self.error_body(404, "no such endpoint"))
            return
        turn = bool(body.get("tools"))
        step = (self.script.next_step() if turn or self.every
                else {"text": "ok"})
        self.script.log({"path": path, "model": model, "turn": turn,
                         "step": step, "user": last_user_text(body),
                         "max_tokens": body.get("max_tokens"),
                         "key": bool(self.headers.get("x-api-key")),
                         "version": self.headers.get("anthropic-version")})
        if step.get("wait"):
            time.sleep(float(step["wait"]))
        if step.get("drop"):
            self.close_connection = True
            self.connection.close()
            return
        if "error" in step:
            self.send_error_step(step)
            return
        if "tool" in step:
            step = dict(step, tool=fill(step["tool"], user_texts(body)))
        blocks, stop = blocks_of(step)
        if body.get("stream"):
            self.send_stream(message(model, blocks, stop))
        else:
            self.send_json(200, message(model, blocks, stop))

    def error_body(self, code, text):
        return {"type": "error",
                "error": {"type": ERROR_TYPES.get(code, "api_error"),
                          "message": text}}

    def send_error_step(self, step):
        code = int(step["error"])
        body = self.error_body(code, step.get("message", "scripted error"))
        if step.get("type"):
            body["error"]["type"] = step["type"]
        headers = {}
        if step.get("retry_after") is not None:
            headers["retry-after"] = str(step["retry_after"])
            reset = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(
                time.time() + float(step["retry_after"])))
            headers["anthropic-ratelimit-requests-reset"] = reset
        self.send_json(code, body, headers)

    def send_json(self, code, obj, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_sim")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def send_stream(self, msg):
        events = []
        start = dict(msg, content=[], stop_reason=None)
        events.append(("message_start", {"type": "message_start",
                                         "message": start}))
        for i, b in enumerate(msg["content"]):
            if b["type"] == "text":
                events.append(("content_block_start", {
                    "type": "content_block_start", "index": i,
                    "content_block": {"type": "text", "text": ""}}))
                events.append(("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "text_delta", "text": b["text"]}}))
            else:
                events.append(("content_block_start", {
                    "type": "content_block_start", "index": i,
                    "content_block": {"type": "tool_use", "id": b["id"],
                                      "name": b["name"], "input": {}}}))
                events.append(("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta",
                              "partial_json": json.dumps(b["input"])}}))
            events.append(("content_block_stop", {
                "type": "content_block_stop", "index": i}))
        events.append(("message_delta", {
            "type": "message_delta",
            "delta": {"stop_reason": msg["stop_reason"],
                      "stop_sequence": None},
            "usage": {"output_tokens": 5}}))
        events.append(("message_stop", {"type": "message_stop"}))
        data = b"".join(("event: %s\ndata: %s\n\n" % (e, json.dumps(d)))
                        .encode() for e, d in events)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_sim")
        self.end_headers()
        self.wfile.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--script", help="the steps (JSON list); none: text")
    ap.add_argument("--log", help="one JSON line per request")
    ap.add_argument("--port-file", help="write the port chosen here")
    ap.add_argument("--every", action="store_true",
                    help="every request takes the steps, not only turns")
    args = ap.parse_args()
    Handler.every = args.every
    steps = []
    if args.script:
        with open(args.script, encoding="utf-8") as f:
            steps = json.load(f)
    Handler.script = Script(steps, args.log)
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write("%d\n" % srv.server_address[1])
        import os
        os.rename(args.port_file + ".tmp", args.port_file)
    print("anthropic-sim on 127.0.0.1:%d" % srv.server_address[1],
          file=sys.stderr)
    srv.serve_forever()


if __name__ == "__main__":
    main()
