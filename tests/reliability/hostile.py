"""Shared by the hostile-input tests (issue 13): the real `hwf` and server, bounded.

Every child gets a wall-clock timeout (a hang is a failure with a message, not a stuck
suite) and an address-space limit (a reader that allocates without end dies with
MemoryError in the child instead of exhausting the machine).  `hwf`'s stdin is a pipe
whose write end the test keeps open, so `/dev/stdin` blocks as it would in a terminal.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SCRUBBED = ("HERMES_HOME", "HWF_AGENT_COMMAND", "HWF_DELIVERY_COMMAND", "HWF_DEBUG",
            "HWF_MAX_OUTPUT_BYTES")
ENV = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
ENV["PYTHONPATH"] = str(REPO)
MEMORY_LIMIT_BYTES = 2 << 30
"""Address space of a child: far above what hwf needs (~100 MB), far below the machine."""
ANSWER_WITHIN_S = 20.0


def limit_memory() -> None:  # runs in the child, before exec
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    except (ImportError, ValueError, OSError):
        pass


@dataclass
class Done:
    code: int
    stdout: str
    stderr: str

    @property
    def text(self) -> str:
        return self.stdout + self.stderr


def hwf(*args: str, home: Path | None, timeout: float = ANSWER_WITHIN_S,
        env: dict[str, str] | None = None) -> Done:
    """`hwf ARGS [--hermes-home HOME]` to its end; AssertionError if it does not end in time."""
    where = [] if home is None else ["--hermes-home", str(home)]
    read_end, write_end = os.pipe()  # we hold the write end: the child's stdin never ends
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "hwf_lsp.cli", *args, *where],
            stdin=read_end, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**ENV, **(env or {})}, cwd=REPO, preexec_fn=limit_memory,
            start_new_session=True)
    finally:
        os.close(read_end)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        raise AssertionError(f"hwf {' '.join(args)} did not answer within {timeout:g} s; "
                             f"stdout: {stdout[-500:]!r} stderr: {stderr[-500:]!r}") from None
    finally:
        os.close(write_end)
    return Done(proc.returncode, stdout, stderr)


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def wait_until(predicate: Callable[[], Any], timeout: float = ANSWER_WITHIN_S,
               what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout:g} s")
        time.sleep(0.02)


def agent_design(name: str = "hostile", agents: int = 1, approval: bool = False) -> dict:
    """trigger -> agents a0..aN-1 in a chain [-> approval 'ok'] -> output 'out'."""
    nodes: list[dict[str, Any]] = [{"id": "start", "type": "trigger"}]
    previous = "start"
    for index in range(agents):
        nodes.append({"id": f"a{index}", "type": "agent", "prompt": f"step {index}",
                      "after": [previous]})
        previous = f"a{index}"
    if approval:
        nodes.append({"id": "ok", "type": "approval", "question": "ship it?",
                      "after": [previous]})
        previous = "ok"
    nodes.append({"id": "out", "type": "output", "after": [previous]})
    return {"name": name, "nodes": nodes}


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def process_start(pid: int) -> int | None:
    """/proc/PID/stat's start time (field 22), as the runner records it."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


class BlockingAgent:
    """tests/reliability/agents/blocking_agent.py: blocks until `release()`."""

    SCRIPT = Path(__file__).resolve().parent / "agents" / "blocking_agent.py"

    def __init__(self, where: Path) -> None:
        self.pidfile = where / "agent.pid"
        self.gofile = where / "agent.go"

    @property
    def argv(self) -> list[str]:
        return [sys.executable, str(self.SCRIPT), str(self.pidfile), str(self.gofile)]

    @property
    def command(self) -> str:
        return " ".join(self.argv)

    def pid(self, timeout: float = ANSWER_WITHIN_S) -> int:
        """The pid of the agent at work (waits for it to start)."""
        return int(wait_until(lambda: self.pidfile.exists() and self.pidfile.read_text(),
                              timeout, "the agent to start"))

    def calls(self) -> list[str]:
        calls = self.pidfile.with_name(self.pidfile.name + ".calls")
        return calls.read_text().split() if calls.exists() else []

    def release(self) -> None:
        self.gofile.write_text("go")

    def forget_pid(self) -> None:
        self.pidfile.unlink(missing_ok=True)


def run_state(home: Path, run_id: str) -> dict:
    return json.loads((home / "workflow-runs" / f"{run_id}.json").read_text(encoding="utf-8"))


def spawn_hwf(*args: str, home: Path) -> subprocess.Popen:
    """`hwf ARGS` in the background (its own session, so signals reach only it)."""
    return subprocess.Popen([sys.executable, "-m", "hwf_lsp.cli", *args, "--hermes-home",
                             str(home)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV, cwd=REPO,
                            start_new_session=True, preexec_fn=limit_memory)
