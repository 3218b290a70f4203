"""The chat seam: `ctx.subagent_lifecycle` (launch / wait / result) where the host has one.

Hermes 0.19.0 has none, so it is tested against a fake of the shape newer hosts
have (`agent/subagent_lifecycle.py`: a handle from `launch`, `wait` returning a
terminal state with `completed`, `result` with `terminal_state`, `summary`,
`structured_payload`), both directly and through the plugin's own `register(ctx)`.
"""

from __future__ import annotations

import enum
import json
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import gate_config
from designs import one_agent

import hwf_lsp.hermes as plugin
from hwf_lsp.hermes.engine import Workflows
from hwf_lsp.hermes.host_seams import LaunchRequest, SubagentSeam, chat_seam
from hwf_lsp.workflow.seams import AgentCancelled, AgentFailure, AgentRequest


class State(str, enum.Enum):  # noqa: UP042 - the host's SubagentState has this shape
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    RUNNING = "RUNNING"


class FakeLifecycle:
    """The host's lifecycle service: finishes after `waits_needed` waits with `outcome`."""

    def __init__(self, outcome: State = State.SUCCEEDED, summary: str | None = "done",
                 structured: dict | None = None, waits_needed: int = 1,
                 error: str | None = None) -> None:
        self.outcome, self.summary, self.structured = outcome, summary, structured
        self.waits_needed, self.error = waits_needed, error
        self.launched: list[Any] = []
        self.waits: list[float | None] = []
        self.cancelled: list[str] = []

    def launch(self, request: Any) -> Any:
        self.launched.append(request)
        return SimpleNamespace(subagent_id=f"child-{len(self.launched)}",
                               correlation_id=request.correlation_id)

    def wait(self, handle: Any, *, timeout_seconds: float | None = None) -> Any:
        self.waits.append(timeout_seconds)
        done = len(self.waits) >= self.waits_needed
        return SimpleNamespace(handle=handle, completed=done, timed_out=not done,
                               state=self.outcome if done else State.RUNNING)

    def result(self, handle: Any) -> Any:
        return SimpleNamespace(handle=handle, terminal_state=self.outcome, ready=True,
                               summary=self.summary, structured_payload=self.structured,
                               error_message=self.error)

    def cancel(self, handle: Any, *, reason: str) -> Any:
        self.cancelled.append(reason)
        return SimpleNamespace(accepted=True)


def request(**overrides: Any) -> AgentRequest:
    fields = {"prompt": "Summarise", "context": '{"a": 1}', "profile": None,
              "timeout_minutes": None, "correlation_id": "workflow:abcdef123456:s",
              "model": None} | overrides
    return AgentRequest(**fields)


SEAM_CASES = [
    (FakeLifecycle(summary="a summary"), {"output": "a summary"}),
    (FakeLifecycle(summary='{"structured": {"k": 1}}'), {"structured": {"k": 1}}),
    (FakeLifecycle(structured={"score": 9}), {"structured": {"score": 9}}),
    (FakeLifecycle(waits_needed=3, summary="late"), {"output": "late"}),
]


@pytest.mark.parametrize(("lifecycle", "expected"), SEAM_CASES)
def test_launch_wait_result(lifecycle: FakeLifecycle, expected: dict) -> None:
    seam = SubagentSeam(lifecycle, request_type=LaunchRequest, wait_slice_s=0.01)
    assert seam.perform(request(model="m1")) == expected
    (launched,) = lifecycle.launched
    assert (launched.goal, launched.context, launched.model, launched.correlation_id) == (
        "Summarise", '{"a": 1}', "m1", "workflow:abcdef123456:s")
    assert launched.timeout_seconds == 600.0 and lifecycle.cancelled == []
    assert all(w is not None and w <= 0.01 for w in lifecycle.waits)


def test_a_failed_child_is_a_failed_attempt() -> None:
    seam = SubagentSeam(FakeLifecycle(State.FAILED, summary=None, error="boom"),
                        request_type=LaunchRequest)
    with pytest.raises(AgentFailure, match="subagent ended FAILED: boom"):
        seam.perform(request())


def test_a_refused_launch_is_a_failed_attempt() -> None:
    lifecycle = FakeLifecycle()
    lifecycle.launch = lambda req: (_ for _ in ()).throw(ValueError("no parent session"))
    with pytest.raises(AgentFailure, match="launch failed: ValueError: no parent session"):
        SubagentSeam(lifecycle, request_type=LaunchRequest).perform(request())


def test_timeout_cancels_the_child() -> None:
    lifecycle = FakeLifecycle(waits_needed=10**9)
    seam = SubagentSeam(lifecycle, request_type=LaunchRequest, default_timeout_s=0.05,
                        wait_slice_s=0.01)
    with pytest.raises(AgentFailure, match="timed out"):
        seam.perform(request())
    assert lifecycle.cancelled == ["workflow step timed out"]


def test_cancelling_the_run_cancels_the_child() -> None:
    lifecycle = FakeLifecycle(waits_needed=10**9)
    cancel = threading.Event()
    lifecycle.wait = lambda handle, timeout_seconds=None: (cancel.set(), SimpleNamespace(
        completed=False))[1]
    with pytest.raises(AgentCancelled):
        SubagentSeam(lifecycle, request_type=LaunchRequest).perform(request(),
                                                                    cancel_event=cancel)
    assert lifecycle.cancelled == ["workflow run cancelled"]


def test_hermes_0_19_has_no_lifecycle_so_chat_runs_park(manager) -> None:
    from hermes_cli.plugins import PluginContext, PluginManifest

    ctx = PluginContext(PluginManifest(name="visual-workflow"), manager)
    assert not hasattr(ctx, "subagent_lifecycle") and chat_seam(ctx) is None
    assert isinstance(chat_seam(SimpleNamespace(subagent_lifecycle=FakeLifecycle())),
                      SubagentSeam)


class FakeContext:
    """A host context of the newer shape: what `register(ctx)` registers, and a lifecycle."""

    def __init__(self, lifecycle: FakeLifecycle) -> None:
        self.subagent_lifecycle = lifecycle
        self.tools: dict[str, Any] = {}

    def register_tool(self, name: str, toolset: str, schema: dict, handler: Any,
                      **_: Any) -> None:
        self.tools[name] = handler

    def register_command(self, *args: Any, **kwargs: Any) -> None:
        pass

    def register_cli_command(self, *args: Any, **kwargs: Any) -> None:
        pass


@pytest.mark.parametrize("gate_open", [True, False])
def test_a_chat_run_is_performed_by_a_child_agent(hermes_home: Path, gate_open: bool) -> None:
    (hermes_home / "config.yaml").write_text(gate_config(gate_open))
    lifecycle = FakeLifecycle(summary="17")
    ctx = FakeContext(lifecycle)
    plugin.register(ctx)
    Workflows(hermes_home).designs.save("solo", one_agent())
    answer = json.loads(ctx.tools["workflow_design_run"]({"name": "solo"}, task_id="t1"))
    assert answer["status"] == "completed" and "instructions" not in answer
    state = Workflows(hermes_home).runs.load(answer["run_id"])
    assert state["outputs"]["think"] == "17"
    (launched,) = lifecycle.launched
    assert launched.correlation_id == f"workflow:{answer['run_id']}:think"
    assert launched.model == ("big-model" if gate_open else None)
