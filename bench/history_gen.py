"""A seeded run history for the history benchmark: real-looking run files, many of them.

About 4 KB each (a design snapshot, outputs, a log), 26 designs, mtimes spread over
90 days, mostly completed with some failed, cancelled and parked runs, as a cron job
every few minutes leaves them.  Writing 100,000 files takes a while, so a generated
history is kept (`cached_history`) and copied per measurement with hard links.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from pathlib import Path

DESIGNS = 26
DAYS = 90
SEED = 17
FORMAT = 3
"""Bump when the files change, so a cached history is made again."""

STEPS = [
    {"id": "start", "type": "trigger"},
    {"id": "fetch", "type": "agent", "prompt": "Fetch today's figures and sum them up.",
     "after": ["start"]},
    {"id": "check", "type": "condition", "expression": "out.fetch.ok == true",
     "after": ["fetch"]},
    {"id": "draft", "type": "agent", "prompt": "Draft the report for the team.",
     "after": ["check"], "retries": 2},
    {"id": "gate", "type": "approval", "question": "Send the report?", "after": ["draft"]},
    {"id": "ship", "type": "output", "deliver": "notification", "after": ["gate"]},
]


def design_name(index: int) -> str:
    return f"cron-report-{index:02d}"


def iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(stamp)) + \
        f".{int(stamp * 1000) % 1000:03d}Z"


def run_state(run_id: str, name: str, stamp: float, rng: random.Random) -> dict:
    """One run file's state, about 4 KB."""
    roll = rng.random()
    status = ("completed" if roll < 0.86 else "failed" if roll < 0.95
              else "cancelled" if roll < 0.98 else "awaiting_approval")
    at = iso(stamp)
    outputs: dict = {
        "fetch": {"ok": True, "rows": rng.randrange(10, 999),
                  "text": "figures " + "lorem ipsum dolor sit amet " * 40},
        "check": True,
        "draft": {"text": "Dear team, " + "consectetur adipiscing elit " * 36},
    }
    cursor = 5
    pending = None
    error = None
    log = [{"at": at, "node": step["id"], "event": "completed", "detail": "done"}
           for step in STEPS[1:]]
    if status == "completed":
        outputs["gate"] = {"choice": "approve"}
        outputs["ship"] = {"gate": {"choice": "approve"}}
    elif status == "failed":
        del outputs["draft"]
        cursor = 2
        error = "step draft failed after 3 attempts: agent exited with status 1"
        log = log[:2] + [{"at": at, "node": "draft", "event": "failed", "detail": error}]
    elif status == "awaiting_approval":
        cursor = 3
        pending = {"kind": "approval", "node": "gate", "question": "Send the report?",
                   "options": ["approve", "reject"], "context": {"draft": outputs["draft"]},
                   "waiting_since": at, "correlation_id": f"workflow:{run_id}:gate"}
        log = log[:3]
    else:
        cursor = 4
        log = log[:3] + [{"at": at, "node": "gate", "event": "cancelled", "detail": "by user"}]
    return {
        "run_id": run_id, "name": name, "cursor": cursor, "status": status,
        "outputs": outputs, "skipped": [], "pending": pending, "error": error,
        "answers": {"gate": "approve"} if status == "completed" else {},
        "deliveries": [], "attempts": {"draft": 1}, "design": {"name": name, "nodes": STEPS},
        "created_at": iso(stamp - 40), "updated_at": at, "log": log,
    }


def write_history(root: Path, count: int, *, now: float | None = None) -> None:
    """`count` run files in `root` (emptied first), the newest a minute before `now`."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    rng = random.Random(SEED)
    end = (time.time() if now is None else now) - 60
    span = DAYS * 86400
    for i in range(count):
        stamp = end - span + span * (i + 1) / max(count, 1)
        run_id = f"{rng.getrandbits(48):012x}"
        state = run_state(run_id, design_name(rng.randrange(DESIGNS)), stamp, rng)
        path = root / f"{run_id}.json"
        path.write_text(json.dumps(state, indent=1), encoding="utf-8")
        os.utime(path, (stamp, stamp))


def cached_history(cache: Path, count: int) -> Path:
    """A directory holding `count` runs, generated once per FORMAT and kept in `cache`."""
    root = cache / f"runs-{count}-v{FORMAT}"
    done = root.parent / f"{root.name}.done"
    if not done.exists():
        write_history(root, count)
        done.write_text(str(count))
    return root


def copy_history(source: Path, target: Path) -> None:
    """`target` = a copy of `source` made of hard links (fast; writers replace, never
    rewrite, so the cache stays intact), mtimes kept."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    with os.scandir(source) as listing:
        for entry in listing:
            os.link(entry.path, target / entry.name)
