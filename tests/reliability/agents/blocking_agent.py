"""An agent for the stop tests: `blocking_agent.py PIDFILE GOFILE`.

Writes its pid to PIDFILE (atomically) and its correlation id to PIDFILE.calls, then
answers `{"output": "done: <prompt>"}` only once GOFILE exists (at most 60 s).
"""

import json
import os
import sys
import time

pidfile, gofile = sys.argv[1], sys.argv[2]
request = json.loads(sys.stdin.read() or "{}")
with open(pidfile + ".calls", "a", encoding="utf-8") as calls:
    calls.write(str(request.get("correlation_id", "")) + "\n")
with open(pidfile + ".tmp", "w", encoding="ascii") as handle:
    handle.write(str(os.getpid()))
os.replace(pidfile + ".tmp", pidfile)
deadline = time.time() + 60
while not os.path.exists(gofile) and time.time() < deadline:
    time.sleep(0.02)
print(json.dumps({"output": "done: " + str(request.get("prompt", ""))}))
