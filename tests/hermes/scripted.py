"""Scripted chat models for the offline runs of the real `hermes` CLI (fake_openai.py),
and the one way the tests run that CLI."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import HERMES, hermes_env

Step = Callable[[dict[str, Any] | None], dict[str, Any]]


def call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool, "arguments": arguments}]}


class ToolPlan:
    """A chat model that makes `steps` tool calls in turn (each sees the last tool result)."""

    def __init__(self, *steps: Step) -> None:
        self.steps = steps

    def __call__(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        tool_results = [m for m in messages if m.get("role") == "tool"]
        last = tool_results[-1] if tool_results else None
        result = json.loads(last["content"]) if last else None
        index = min(len(tool_results), len(self.steps) - 1)
        return self.steps[index](result)


def hermes(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real `hermes` CLI on `home`; it must succeed."""
    done = subprocess.run([HERMES, *args], capture_output=True, text=True, timeout=300,
                          env=hermes_env(home), cwd=home)
    assert done.returncode == 0, done.stdout + done.stderr
    return done
