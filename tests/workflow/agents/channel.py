"""A channel command for tests: `channel.py FILE [EXIT]` appends the stdin JSON to FILE."""

import json
import sys

payload = json.loads(sys.stdin.read())
with open(sys.argv[1], "a", encoding="utf-8") as handle:
    handle.write(json.dumps(payload) + "\n")
code = int(sys.argv[2]) if len(sys.argv) > 2 else 0
if code:
    print("channel down", file=sys.stderr)
sys.exit(code)
