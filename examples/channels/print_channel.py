#!/usr/bin/env python3
"""An example delivery command for `hwf run --delivery-command`.

It receives one JSON object on stdin ({target, text, run_id, node_id, key}) and
appends it, as one line, to $HWF_CHANNEL_LOG (or prints it on stderr when unset).
A real channel would post `text` to `target`; a receiver should deduplicate by
`key`, because a delivery may be repeated after a crash.  Standard library only.

  HWF_CHANNEL_FAIL=1   exit 1 without recording anything (a failed delivery)
"""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    raw = sys.stdin.read()
    try:
        message = json.loads(raw)
    except json.JSONDecodeError as exc:
        print(f"print_channel: message is not JSON: {exc}", file=sys.stderr)
        return 2
    if os.environ.get("HWF_CHANNEL_FAIL") == "1":
        print("print_channel: failing on purpose (HWF_CHANNEL_FAIL=1)", file=sys.stderr)
        return 1
    line = json.dumps(message, ensure_ascii=False, sort_keys=True)
    log_path = os.environ.get("HWF_CHANNEL_LOG")
    if log_path:
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(line + "\n")
    else:
        print(f"[channel {message.get('target', '?')}] {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
