"""Who performs an agent step inside Hermes (the spec's "Who performs an agent step").

- `PluginLlmSeam`: the host's `ctx.llm` facade. It needs no parent session, which is
  why the dashboard (and `/workflow run --llm`) can run an agent node at all.
- `SubagentSeam`: the host's `ctx.subagent_lifecycle` (launch, wait, result), bound
  to the active chat session. Hermes 0.19.0 has none; newer hosts do.
- No seam: the run parks at `awaiting_agent`, and the chat model (or a cron
  session) performs the prompt and calls `workflow_design_respond`.

Every launch carries the prompt, the rendered context and the correlation id
`workflow:<run_id>:<node_id>`; `model` only when the Runner's trust gate let it
through (`AgentRequest.model`). Any failure, a `PluginLlmTrustError` included, is
a failed attempt that the Runner records and retries.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hwf_lsp.workflow.seams import (
    DEFAULT_AGENT_TIMEOUT_S,
    AgentCancelled,
    AgentFailure,
    AgentRequest,
    AgentResult,
    result_from_text,
)

SYSTEM_PROMPT = (
    "You perform one agent step of a Hermes Workflow run. Do what the step asks, using "
    "the outputs of the steps before it. Answer with the step's result only: plain "
    "text, or a JSON object {\"structured\": ...} when the result is data."
)
WAIT_SLICE_S = 0.25
"""How often a waiting seam (subagent, PluginLlm) looks at the run's cancel event."""


def timeout_s(request: AgentRequest, default: float = DEFAULT_AGENT_TIMEOUT_S) -> float:
    return float(request.timeout_minutes) * 60.0 if request.timeout_minutes else default


def step_messages(request: AgentRequest) -> list[dict[str, str]]:
    """The chat messages for one step: the prompt, then the upstream outputs."""
    user = request.prompt
    if request.context and request.context != "{}":
        user += ("\n\nOutputs of the upstream steps (JSON, by step id):\n" + request.context)
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def _check_cancel(request: AgentRequest, cancel_event: threading.Event | None) -> None:
    if cancel_event is not None and cancel_event.is_set():
        raise AgentCancelled(f"agent {request.correlation_id} cancelled")


class PluginLlmSeam:
    """`ctx.llm.complete(messages, model=?, timeout=, purpose=correlation id)` per attempt."""

    def __init__(self, llm: Any, default_timeout_s: float = DEFAULT_AGENT_TIMEOUT_S) -> None:
        self.llm = llm
        self.default_timeout_s = default_timeout_s

    def perform(self, request: AgentRequest, *,
                cancel_event: threading.Event | None = None) -> AgentResult:
        _check_cancel(request, cancel_event)
        kwargs: dict[str, Any] = {"timeout": timeout_s(request, self.default_timeout_s),
                                  "purpose": request.correlation_id}
        if request.model is not None:  # set only when the trust gate is open for it
            kwargs["model"] = request.model
        result = self._complete(request, kwargs, cancel_event)
        text = getattr(result, "text", None)
        if not isinstance(text, str):
            raise AgentFailure(f"ctx.llm returned {type(result).__name__} without text")
        return result_from_text(text)


    def _complete(self, request: AgentRequest, kwargs: dict[str, Any],
                  cancel_event: threading.Event | None) -> Any:
        """`llm.complete` on a thread of its own, waited for in slices: a model call cannot
        be killed as an agent command can, so a cancel ends the step now and the call's
        late answer is dropped (its thread ends with the call, a daemon)."""
        done: dict[str, Any] = {}
        finished = threading.Event()

        def call() -> None:
            try:
                done["result"] = self.llm.complete(step_messages(request), **kwargs)
            except Exception as exc:  # noqa: BLE001 - handed to the waiting thread
                done["error"] = exc
            finally:
                finished.set()

        threading.Thread(target=call, name=f"ctx.llm {request.correlation_id}",
                         daemon=True).start()
        while not finished.wait(WAIT_SLICE_S):
            _check_cancel(request, cancel_event)
        _check_cancel(request, cancel_event)  # cancelled while it answered: not recorded
        if "error" in done:
            exc = done["error"]
            raise AgentFailure(f"ctx.llm failed: {type(exc).__name__}: {exc}") from exc
        return done["result"]


@dataclass(frozen=True)
class LaunchRequest:
    """The fields of Hermes' `SubagentLaunchRequest`, for hosts and fakes without the class."""

    goal: str
    context: str | None = None
    model: str | None = None
    correlation_id: str | None = None
    timeout_seconds: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def _host_request_type() -> Callable[..., Any]:
    try:
        from agent.subagent_lifecycle import SubagentLaunchRequest
    except ImportError:
        return LaunchRequest
    return SubagentLaunchRequest


def _state_name(state: Any) -> str:
    return str(getattr(state, "value", state))


class SubagentSeam:
    """The chat path: launch a child agent, wait for it (watching cancel), take its result."""

    def __init__(self, lifecycle: Any, *, request_type: Callable[..., Any] | None = None,
                 default_timeout_s: float = DEFAULT_AGENT_TIMEOUT_S,
                 wait_slice_s: float = WAIT_SLICE_S) -> None:
        self.lifecycle = lifecycle
        self.request_type = request_type
        self.default_timeout_s = default_timeout_s
        self.wait_slice_s = wait_slice_s

    def perform(self, request: AgentRequest, *,
                cancel_event: threading.Event | None = None) -> AgentResult:
        _check_cancel(request, cancel_event)
        timeout = timeout_s(request, self.default_timeout_s)
        make = self.request_type or _host_request_type()
        try:
            handle = self.lifecycle.launch(make(
                goal=request.prompt, context=request.context or None, model=request.model,
                correlation_id=request.correlation_id, timeout_seconds=timeout,
                metadata={"correlation_id": request.correlation_id},
            ))
        except Exception as exc:
            raise AgentFailure(f"subagent launch failed: {type(exc).__name__}: {exc}") from exc
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            terminal = self.lifecycle.wait(handle, timeout_seconds=max(0.0, min(left,
                                                                               self.wait_slice_s)))
            if getattr(terminal, "completed", False):
                break
            if cancel_event is not None and cancel_event.is_set():
                self._cancel(handle, "workflow run cancelled")
                raise AgentCancelled(f"agent {request.correlation_id} cancelled")
            if time.monotonic() >= deadline:
                self._cancel(handle, "workflow step timed out")
                raise AgentFailure(f"subagent timed out after {timeout:g} s")
        result = self.lifecycle.result(handle)
        state = _state_name(getattr(result, "terminal_state", None))
        if state != "SUCCEEDED" or not getattr(result, "ready", False):
            detail = getattr(result, "error_message", None) or getattr(
                result, "error_classification", None) or "no result"
            raise AgentFailure(f"subagent ended {state}: {detail}")
        payload = getattr(result, "structured_payload", None)
        if payload is not None:
            return {"structured": dict(payload)}
        return result_from_text(getattr(result, "summary", None) or "")

    def _cancel(self, handle: Any, reason: str) -> None:
        try:
            self.lifecycle.cancel(handle, reason=reason)
        except Exception:  # noqa: BLE001 - the attempt already failed; cancel is best effort
            pass


def subagent_lifecycle_of(ctx: Any) -> Any | None:
    """The host's subagent lifecycle service, where it has one (Hermes 0.19.0 has none)."""
    try:
        if not hasattr(ctx, "subagent_lifecycle"):
            return None
        return ctx.subagent_lifecycle
    except Exception:  # noqa: BLE001 - a host property that fails means: no such seam here
        return None


def chat_seam(ctx: Any) -> SubagentSeam | None:
    """The seam of a chat tool call: the subagent lifecycle, else none (the run parks)."""
    lifecycle = subagent_lifecycle_of(ctx)
    return SubagentSeam(lifecycle) if lifecycle is not None else None


def llm_seam(ctx: Any) -> PluginLlmSeam:
    """The seam of the dashboard and of an explicit `--llm`: the host's `ctx.llm`."""
    return PluginLlmSeam(ctx.llm)


def host_llm() -> Any:
    """The host's `PluginLlm` facade for this plugin where no ctx is handed over (the
    dashboard's routes: the web server loads no plugins): the one Hermes' own
    `PluginContext` builds for this plugin's manifest, as `register(ctx)`'s `ctx.llm` is:
    plugin id `visual-workflow`, its trust gate, the user's configured model."""
    from hermes_cli.plugins import PluginContext, PluginManifest, get_plugin_manager

    from hwf_lsp.rules.model_gate import PLUGIN_NAME

    return PluginContext(PluginManifest(name=PLUGIN_NAME, key=PLUGIN_NAME),
                         get_plugin_manager()).llm


def host_llm_seam() -> PluginLlmSeam:
    """The seam of the dashboard and of `hermes workflow agent`: the host's PluginLlm."""
    return PluginLlmSeam(host_llm())
