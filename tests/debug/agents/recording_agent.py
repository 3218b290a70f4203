"""An agent command for the debugger tests: records every call, fails on demand.

Each call appends its node id (from the correlation id) to $HWF_TEST_CALLS.  A node named
in $HWF_TEST_FAIL (comma-separated) fails (exit 1); one in $HWF_TEST_SLOW sleeps
$HWF_TEST_SLEEP seconds (default 30) first (an agent at work).  A prompt that mentions "review"
gets {"verdict": "approve", "score": $HWF_TEST_SCORE (default 8), "issues": []}; any other
prompt a short text.
"""

import json
import os
import sys
import time

request = json.loads(sys.stdin.read() or "{}")
node = str(request.get("correlation_id", "")).split(":", 2)[-1]
calls = os.environ.get("HWF_TEST_CALLS")
if calls:
    with open(calls, "a", encoding="utf-8") as handle:
        handle.write(node + "\n")
if node in os.environ.get("HWF_TEST_SLOW", "").split(","):
    time.sleep(float(os.environ.get("HWF_TEST_SLEEP", "30")))
if node in os.environ.get("HWF_TEST_FAIL", "").split(","):
    print(f"{node} broke on purpose", file=sys.stderr)
    sys.exit(1)
if "review" in str(request.get("prompt", "")).lower():
    score = int(os.environ.get("HWF_TEST_SCORE", "8"))
    print(json.dumps({"structured": {"verdict": "approve", "score": score, "issues": []}}))
else:
    print(json.dumps({"output": f"text from {node}"}))
