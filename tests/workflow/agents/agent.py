"""A tiny agent command for tests: `agent.py MODE [ARG]`, the request JSON on stdin.

Modes: json (answers {"structured": {...}} echoing the request), text (plain text),
output (answers {"output": ARG}), fail (exit 3 with a message on stderr),
sleep (sleeps ARG seconds, then answers), record (appends the request to the file ARG).
"""

import json
import sys
import time

mode = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else None
request = json.loads(sys.stdin.read() or "{}")

if mode == "json":
    print(json.dumps({"structured": {"echo": request, "n": 0}}))
elif mode == "text":
    print("  plain answer for " + request.get("correlation_id", "?") + "  ")
elif mode == "output":
    print(json.dumps({"output": arg}))
elif mode == "fail":
    print("agent broke on purpose", file=sys.stderr)
    sys.exit(3)
elif mode == "sleep":
    time.sleep(float(arg))
    print("woke up")
elif mode == "record":
    with open(arg, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(request) + "\n")
    print(json.dumps({"output": "recorded"}))
else:
    sys.exit(f"unknown mode {mode}")
