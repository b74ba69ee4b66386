# The scripted Messages API (tests/tools/anthropic-sim.py) the real agent
# CLI is run against by hand: turns (requests offering tools) take the
# script's steps in order, streamed as the API streams them; an error
# step answers its status and error type for its count of requests, with
# retry-after; other requests get a short text; the log has a line each.
. "$(dirname "$0")/lib/common.sh"
t_setup
cat >"$T/s.json" <<'JSON'
[{"tool": {"name": "Bash", "input": {"command": "ls"}}},
 {"error": 429, "retry_after": 30, "times": 2},
 {"error": 529},
 {"text": "all done"}]
JSON
python3 "$TOP/tests/tools/anthropic-sim.py" --script "$T/s.json" \
    --log "$T/sim.log" --port-file "$T/port" 2>/dev/null &
SIMPID=$!
wait_for '[ -s "$T/port" ]' 10
U=http://127.0.0.1:$(cat "$T/port")/v1/messages
turn() {	# turn [stream]: one turn's answer, with its status first
	curl -s -o "$T/out" -D "$T/hdr" -w '%{http_code}' -X POST "$U" \
	    -H 'content-type: application/json' \
	    -d "{\"model\": \"m\", \"stream\": ${1:-false}, \"tools\": [{\"name\": \"Bash\"}], \"messages\": [{\"role\": \"user\", \"content\": \"go\"}]}"
}
check_eq "a tool call, streamed" "$(turn true)" 200
check "as server-sent events" grep -q '^event: message_stop' "$T/out"
check "the tool's input as a JSON delta" \
    grep -q 'input_json_delta.*command.*ls' "$T/out"
check "stop reason tool_use" grep -q '"stop_reason": "tool_use"' "$T/out"
check_eq "a rate limit" "$(turn)" 429
check "its type" grep -q '"rate_limit_error"' "$T/out"
check "retry-after" grep -qi '^retry-after: 30' "$T/hdr"
check_eq "the rate limit again (times 2)" "$(turn)" 429
check_eq "then overloaded" "$(turn)" 529
check "its type" grep -q '"overloaded_error"' "$T/out"
check_eq "then the text" "$(turn)" 200
check "the text" grep -q '"all done"' "$T/out"
check_eq "after the script: done" "$(turn)" 200
check "done" grep -q '"text": "done"' "$T/out"
check_eq "not a turn: a short text" \
    "$(curl -s -o "$T/out" -w '%{http_code}' -X POST "$U" -d '{"model": "h", "messages": []}')" 200
check "and the script did not move" grep -q '"text": "ok"' "$T/out"
check_eq "the log: a line per request" "$(wc -l <"$T/sim.log")" 7
kill "$SIMPID" 2>/dev/null
wait "$SIMPID" 2>/dev/null || :

# A tool step's {{NAME}} placeholders: filled from the session's prompts
# (the dev formula's "Phase file: `PATH`", the review formula's
# NAME=VALUE lines); one the prompts do not name is left alone.
cat >"$T/p.json" <<'JSON'
[{"tool": {"name": "Bash", "input": {"command": "echo x > {{PHASE_FILE}}; cat {{REVIEW_OUTPUT_FILE}} {{NOPE}}"}}}]
JSON
rm -f "$T/port"
python3 "$TOP/tests/tools/anthropic-sim.py" --script "$T/p.json" \
    --port-file "$T/port" 2>/dev/null &
SIMPID=$!
wait_for '[ -s "$T/port" ]' 10
U=http://127.0.0.1:$(cat "$T/port")/v1/messages
curl -s -o "$T/out" -X POST "$U" -H 'content-type: application/json' \
    -d '{"model": "m", "tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": [{"type": "text", "text": "- Phase file: `/r/s/phase`\nREVIEW_OUTPUT_FILE=/r/out.json\n"}]}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "Phase file: `/elsewhere`"}]}'
check_eq "placeholders filled from the first prompt that names them" \
    "$(pyjson 'd["content"][0]["input"]["command"]' <"$T/out")" \
    "echo x > /r/s/phase; cat /r/out.json {{NOPE}}"
kill "$SIMPID" 2>/dev/null
wait "$SIMPID" 2>/dev/null || :
