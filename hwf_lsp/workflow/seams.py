"""Who performs an agent step: nobody (the run parks), a user's command, or a Python callable.

The plan never calls a model itself; it receives a seam.  The command comes only
from the user's settings or CLI flags (HWF_AGENT_COMMAND, --agent-command), never
from a design file, and runs without a shell.
"""

from __future__ import annotations

import os
import shlex
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from hwf_lsp.rules.strict_json import NotStrictJson, strict_dumps, strict_loads
from hwf_lsp.workflow.json_values import output_limit
from hwf_lsp.workflow.processes import CommandStopped, CommandTimedOut, run_command

AgentResult = dict[str, Any]
"""What a seam returns: a dict holding `structured` and/or `output`."""

DEFAULT_AGENT_TIMEOUT_S = 600.0
STDERR_TAIL_CHARS = 500
MAX_STDOUT_BYTES = 16 * 1024 * 1024
"""An agent's stdout is read up to this (or 4× $HWF_MAX_OUTPUT_BYTES if more); the rest is
counted and dropped.  16× the default cap of a stored output (json_values: 1 MiB), room
for a JSON envelope and its escapes."""
OUTPUT_BYTES_KEY = "output_bytes"
"""In a result whose `output` was cut on reading: how many bytes the agent wrote."""


class AgentFailure(Exception):
    """A failed attempt: non-zero exit, timeout, unusable answer.  Counts in attempts."""


class AgentCancelled(AgentFailure):
    """The run was cancelled while the agent worked; not counted as an attempt."""


class AgentUnavailable(Exception):
    """The seam has no one to perform this step now: the run parks at `awaiting_agent`,
    exactly as with no seam, and is not an attempt (a design test whose mocked results
    for the step have run out: the run waits for a response, as a real run would)."""


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
    on_start: Callable[[int], None] | None = field(default=None, repr=False, compare=False)
    """Called by a seam that starts a process, with its pid (the runner records it, so a
    resume knows the attempt may still be running).  Not part of the stdin contract."""

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
    """A JSON object holding `structured` or `output` is the result; other text is `output`.
    An object with NaN or Infinity in it is a failed attempt (AgentFailure)."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = strict_loads(stripped)
        except NotStrictJson as exc:  # JSON, but not strict: say so, do not store it
            raise AgentFailure(f"the agent's answer is not strict JSON: {exc}") from None
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict) and ("structured" in value or "output" in value):
            return {k: value[k] for k in ("structured", "output") if k in value}
    return {"output": stripped}


def _tail(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace").strip()
    return text if len(text) <= STDERR_TAIL_CHARS else "..." + text[-STDERR_TAIL_CHARS:]


class CommandAgentSeam:
    """Runs the user's agent command once per attempt: JSON request on stdin, answer on stdout.

    The attempt ends when the command exits (`processes.run_command`: its process group is
    then killed, and it dies with its runner); stdout is read up to `max_stdout_bytes`.
    With `hermes_home`, the command runs with `HERMES_HOME` set to it: the home the run
    lives in, so `hermes workflow agent` uses that home's model and trust gate, not the
    one of whatever `HERMES_HOME` the editor or shell was started with."""

    def __init__(self, argv: list[str], default_timeout_s: float = DEFAULT_AGENT_TIMEOUT_S,
                 max_stdout_bytes: int | None = None, hermes_home: str | None = None) -> None:
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("agent command must be a non-empty list of strings")
        self.argv = list(argv)
        self.env = {"HERMES_HOME": str(hermes_home)} if hermes_home else None
        self.default_timeout_s = default_timeout_s
        self.max_stdout_bytes = max(MAX_STDOUT_BYTES, 4 * output_limit()) \
            if max_stdout_bytes is None else max_stdout_bytes

    def timeout_for(self, request: AgentRequest) -> float:
        if request.timeout_minutes:
            return float(request.timeout_minutes) * 60.0
        return self.default_timeout_s

    def perform(
        self, request: AgentRequest, *, cancel_event: threading.Event | None = None
    ) -> AgentResult:
        payload = strict_dumps(request.to_json(), ensure_ascii=False).encode("utf-8")
        timeout = self.timeout_for(request)
        try:
            done = run_command(self.argv, payload, timeout_s=timeout,
                               stdout_limit=self.max_stdout_bytes,
                               stop=None if cancel_event is None else cancel_event.is_set,
                               on_start=request.on_start, env=self.env)
        except CommandStopped:
            raise AgentCancelled(f"agent {request.correlation_id} cancelled") from None
        except CommandTimedOut:
            raise AgentFailure(f"agent timed out after {timeout:g} s") from None
        except OSError as exc:
            raise AgentFailure(f"cannot start agent command {self.argv[0]!r}: {exc}") from exc
        if done.returncode != 0:
            detail = _tail(done.stderr_tail)
            how = (f"was killed by signal {-done.returncode}" if done.returncode < 0
                   else f"exited with status {done.returncode}")
            raise AgentFailure(f"agent {how}" + (f": {detail}" if detail else ""))
        text = done.stdout.decode("utf-8", errors="replace")
        if done.stdout_bytes > len(done.stdout):  # cut: no JSON to parse, the text is kept
            return {"output": text, OUTPUT_BYTES_KEY: done.stdout_bytes}
        return result_from_text(text)


class CallableAgentSeam:
    """A Python function as the agent: for embedding and tests.

    `fn(request)` returns a dict (holding `structured`/`output`) or a string (= output);
    any exception it raises is a failed attempt, but AgentUnavailable (the run parks).
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
        except (AgentFailure, AgentUnavailable):
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
    hermes_home: str | None = None,
) -> CommandAgentSeam | None:
    """The seam for `--agent-command` (argv or a shell-like string), else $HWF_AGENT_COMMAND.

    The string is split with shlex, never run through a shell.  None: no seam, runs park.
    `hermes_home`: the command's `HERMES_HOME` (CommandAgentSeam).
    """
    if argv is None:
        argv = (os.environ if env is None else env).get("HWF_AGENT_COMMAND") or None
    if isinstance(argv, str):
        argv = shlex.split(argv)
    if not argv:
        return None
    return CommandAgentSeam(list(argv), hermes_home=hermes_home)
