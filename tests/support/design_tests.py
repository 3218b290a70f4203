"""Builders for design test files (`*.hwf-test.json`, contract 7) and the design they test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.designs import agent, approval, condition, design, output

DESIGN_FILE = "flow.hwf.json"


def branching_design() -> dict:
    """work (agent, 1 retry) -> high (score >= 5) -> ok (approval) -> out (notification)."""
    return design(agent("work", retries=1),
                  condition("high", "out.work.score >= 5", "work"),
                  approval("ok", "high"),
                  output("out", "ok", "work", deliver="notification"),
                  name="flow")


def case(name: str = "c", expect: Any = None, **fields: Any) -> dict:
    """A case; `expect` defaults to {"status": "completed"}, fields as given."""
    return {"name": name, **fields,
            "expect": {"status": "completed"} if expect is None else expect}


def hwf_test(*cases: dict, design_ref: str = DESIGN_FILE, **extra: Any) -> dict:
    return {"design": design_ref, "cases": list(cases), **extra}


def write_test(folder: Path, test: Any, name: str = "flow.hwf-test.json",
               the_design: dict | None = None) -> Path:
    """The test file `name` in `folder`, beside the design file it names (written too)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / DESIGN_FILE).write_text(json.dumps(the_design or branching_design()),
                                      encoding="utf-8")
    path = folder / name
    path.write_text(test if isinstance(test, str) else json.dumps(test, indent=2),
                    encoding="utf-8")
    return path
