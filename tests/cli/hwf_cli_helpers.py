"""Helpers for the CLI tests: run the real `hwf` in a subprocess against a throwaway HERMES_HOME."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
AGENT = f"{sys.executable} {EXAMPLES / 'agents' / 'echo_agent.py'}"
CHANNEL = f"{sys.executable} {EXAMPLES / 'channels' / 'print_channel.py'}"
SCRUBBED = ("HERMES_HOME", "HWF_AGENT_COMMAND", "HWF_DELIVERY_COMMAND", "HWF_AGENT_CALL_LOG",
            "HWF_AGENT_FAIL", "HWF_AGENT_SLEEP", "HWF_AGENT_SCORE", "HWF_CHANNEL_LOG")


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)


class Hwf:
    """`hwf(*args)` runs `python -m hwf_lsp.cli` with HERMES_HOME set to a tmp dir."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
        self.env["HERMES_HOME"] = str(home)

    def __call__(self, *args: str, env: dict[str, str] | None = None,
                 timeout: float = 60, cwd: Path | None = None) -> Result:
        done = subprocess.run(
            [sys.executable, "-m", "hwf_lsp.cli", *args], cwd=cwd or ROOT,
            env={**self.env, **(env or {})}, capture_output=True, text=True,
            timeout=timeout, check=False,
        )
        return Result(done.returncode, done.stdout, done.stderr)

    def run_file(self, run_id: str) -> Path:
        return self.home / "workflow-runs" / f"{run_id}.json"

    def state(self, run_id: str) -> dict:
        return json.loads(self.run_file(run_id).read_text(encoding="utf-8"))


def started_run_id(result: Result) -> str:
    """The run id from `hwf run`'s first line: `run <id> of <name> started (...)`."""
    match = re.match(r"run ([0-9a-f]+) of \S+ started ", result.stdout)
    assert match, result.stdout + result.stderr
    return match.group(1)
