"""Who performs an agent step: nobody (the run parks), a user's command, or a Python callable.

The plan never calls a model itself; it receives a seam.  The command comes only
from the user's settings or CLI flags (HWF_AGENT_COMMAND, --agent-command), never
from a design file, and runs without a shell.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

AgentResult = dict[str, Any]
"""What a seam returns: a dict holding `structured` and/or `output`."""

DEFAULT_AGENT_TIMEOUT_S = 600.0
POLL_INTERVAL_S = 0.05
STDERR_TAIL_CHARS = 500


class AgentFailure(Exception):
    """A failed attempt: non-zero exit, timeout, unusable answer.  Counts in attempts."""


class AgentCancelled(AgentFailure):
    """The run was cancelled while the agent worked; not counted as an attempt."""


@dataclass(slots=True)
class AgentRequest:
    prompt: str
    context: str
    """The parents' outputs rendered as a JSON object {parent id: output}."""
    profile: str | None
    timeout_minutes: int | None
    correlation_id: str
    """`workflow:<run_id>:<node_id>`."""
    model: str | None = None
    """Set only when the user allows model overrides (the Runner decides)."""

    def to_json(self) -> dict[str, Any]:
        """The stdin object of the contract; `model` appears only when set."""
        out: dict[str, Any] = {
            "prompt": self.prompt,
            "context": self.context,
            "profile": self.profile,
            "timeout_minutes": self.timeout_minutes,
            "correlation_id": self.correlation_id,
        }
        if self.model is not None:
            out["model"] = self.model
        return out


class AgentSeam(Protocol):
    def perform(
        self, request: AgentRequest, *, cancel_event: threading.Event | None = None
    ) -> AgentResult: ...


def result_from_text(text: str) -> AgentResult:
    """A JSON object holding `structured` or `output` is the result; other text is `output`."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict) and ("structured" in value or "output" in value):
            return {k: value[k] for k in ("structured", "output") if k in value}
    return {"output": stripped}


def _tail(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace").strip()
    return text if len(text) <= STDERR_TAIL_CHARS else "..." + text[-STDERR_TAIL_CHARS:]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill the process group and reap; a grandchild that escaped the group cannot hang us."""
    _kill_group(proc)
    try:
        proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        proc.wait()


class CommandAgentSeam:
    """Runs the user's agent command once per attempt: JSON request on stdin, answer on stdout."""

    def __init__(self, argv: list[str], default_timeout_s: float = DEFAULT_AGENT_TIMEOUT_S) -> None:
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("agent command must be a non-empty list of strings")
        self.argv = list(argv)
        self.default_timeout_s = default_timeout_s

    def timeout_for(self, request: AgentRequest) -> float:
        if request.timeout_minutes:
            return float(request.timeout_minutes) * 60.0
        return self.default_timeout_s

    def perform(
        self, request: AgentRequest, *, cancel_event: threading.Event | None = None
    ) -> AgentResult:
        payload = json.dumps(request.to_json(), ensure_ascii=False).encode("utf-8")
        timeout = self.timeout_for(request)
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group, so a timeout kills it all
            )
        except OSError as exc:
            raise AgentFailure(f"cannot start agent command {self.argv[0]!r}: {exc}") from exc
        deadline = time.monotonic() + timeout
        first = True
        while True:
            try:
                stdout, stderr = proc.communicate(
                    payload if first else None, timeout=POLL_INTERVAL_S
                )
                break
            except subprocess.TimeoutExpired:
                first = False
            except BrokenPipeError:  # the agent exited without reading its request
                first = False
                continue
            if cancel_event is not None and cancel_event.is_set():
                _stop(proc)
                raise AgentCancelled(f"agent {request.correlation_id} cancelled")
            if time.monotonic() >= deadline:
                _stop(proc)
                raise AgentFailure(f"agent timed out after {timeout:g} s")
        if proc.returncode != 0:
            detail = _tail(stderr)
            raise AgentFailure(
                f"agent exited with status {proc.returncode}" + (f": {detail}" if detail else "")
            )
        return result_from_text(stdout.decode("utf-8", errors="replace"))


class CallableAgentSeam:
    """A Python function as the agent: for embedding and tests.

    `fn(request)` returns a dict (holding `structured`/`output`) or a string (= output);
    any exception it raises is a failed attempt.
    """

    def __init__(self, fn: Callable[[AgentRequest], Any]) -> None:
        self.fn = fn

    def perform(
        self, request: AgentRequest, *, cancel_event: threading.Event | None = None
    ) -> AgentResult:
        if cancel_event is not None and cancel_event.is_set():
            raise AgentCancelled(f"agent {request.correlation_id} cancelled")
        try:
            value = self.fn(request)
        except AgentFailure:
            raise
        except Exception as exc:  # any error of the callable is a failed attempt
            raise AgentFailure(f"{type(exc).__name__}: {exc}") from exc
        if isinstance(value, str):
            return {"output": value}
        if isinstance(value, dict):
            return value
        raise AgentFailure(f"agent returned {type(value).__name__}, expected a dict or a string")


def agent_seam_from_env(
    argv: list[str] | str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    default_timeout_s: float = DEFAULT_AGENT_TIMEOUT_S,
) -> CommandAgentSeam | None:
    """The seam for `--agent-command` (argv or a shell-like string), else $HWF_AGENT_COMMAND.

    The string is split with shlex, never run through a shell.  None: no seam, runs park.
    """
    if argv is None:
        argv = (os.environ if env is None else env).get("HWF_AGENT_COMMAND") or None
    if isinstance(argv, str):
        argv = shlex.split(argv)
    if not argv:
        return None
    return CommandAgentSeam(list(argv), default_timeout_s)
