"""Reliability tests: `@pytest.mark.slow` variants run only under `make soak`.

`make test` keeps this directory within a few minutes; the soak versions (every
prefix of bigger inputs, deeper nesting, longer Hypothesis budgets, more crash
points) run when HWF_SOAK=1 or when `-m slow` is asked for explicitly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))  # corpus.py, rawlsp.py, crash_driver.py


def soak() -> bool:
    return os.environ.get("HWF_SOAK") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if soak() or "slow" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="soak variant: run with `make soak` (HWF_SOAK=1)")
    for item in items:
        if item.get_closest_marker("slow") and HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(skip)
