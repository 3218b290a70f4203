"""Fork N processes that all respond to one parked run at the same instant.

Usage: respond_storm.py RUNS_ROOT RUN_ID N TAG
Each child waits on a shared start time, then calls Runner.respond(run_id,
output="<TAG>-<i>") once and prints one JSON line: its output text and its
outcome ("ok", "busy" or "refused: <reason>").  The test then checks that the
run holds exactly the outputs of the children that said "ok".
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from hwf_lsp.workflow.locks import RunBusyError
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.stores import RunStore


def respond_once(root: Path, run_id: str, text: str, start_at: float) -> str:
    runner = Runner(RunStore(root))
    while time.time() < start_at:
        pass  # spin: every child leaves the gate within microseconds of the others
    try:
        runner.respond(run_id, output=text)
    except RunBusyError:
        return "busy"
    except ValueError as exc:
        return f"refused: {exc}"
    return "ok"


def main(argv: list[str]) -> int:
    root, run_id, count, tag = Path(argv[0]), argv[1], int(argv[2]), argv[3]
    start_at = time.time() + 0.05 + 0.002 * count
    read_end, write_end = os.pipe()
    children = []
    for number in range(count):
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            text = f"{tag}-{number}"
            outcome = respond_once(root, run_id, text, start_at)
            os.write(write_end, (json.dumps({"output": text, "outcome": outcome}) + "\n").encode())
            os._exit(0)
        children.append(pid)
    os.close(write_end)
    for pid in children:
        os.waitpid(pid, 0)
    with os.fdopen(read_end) as results:
        sys.stdout.write(results.read())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
