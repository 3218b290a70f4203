"""The sequential runner: advances a JSON run state one step at a time, persisting after each.

`cursor` is the index of the next step of `build_run_plan(design)`, so resuming is
calling `advance` again.  A step whose result (output or skip) is already in the
state is passed over without running: that is how "run from here" reuses the
upstream results of an earlier run, and why a crash between a side effect and
its persist only ever repeats the last step.  See docs/run-state.md.
"""

from __future__ import annotations

import copy
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hwf_lsp.rules.conditions import ConditionError, evaluate, parse_condition, text_read
from hwf_lsp.rules.defects import format_defects
from hwf_lsp.rules.graph import parents_of
from hwf_lsp.rules.names import check_design_name, check_run_id
from hwf_lsp.rules.numbers import whole_number
from hwf_lsp.rules.plan import build_run_plan
from hwf_lsp.rules.run_facts import (
    STEPS_KEY,
    WARNING_EVENT,
    approval_options,
    state_problem,
)
from hwf_lsp.rules.strict_json import NotStrictJson, strict_dumps
from hwf_lsp.rules.validator import validate_designer_graph
from hwf_lsp.rules.vocabulary import (
    FINISHED_STATUSES,
)
from hwf_lsp.workflow.delivery import Delivery, delivered_ok, delivery_key, render_text
from hwf_lsp.workflow.interrupts import Interrupt
from hwf_lsp.workflow.json_values import admit, output_limit
from hwf_lsp.workflow.locks import LOCKS_DIRNAME, RunBusyError, RunLock
from hwf_lsp.workflow.processes import group_alive, process_start, still_running
from hwf_lsp.workflow.seams import (
    OUTPUT_BYTES_KEY,
    AgentCancelled,
    AgentFailure,
    AgentRequest,
    AgentSeam,
    AgentUnavailable,
)
from hwf_lsp.workflow.stores import DesignStore, RunStore

log = logging.getLogger(__name__)

SPEC_KEYS: tuple[str, ...] = (
    "run_id", "name", "cursor", "status", "outputs", "skipped", "pending", "error",
    "answers", "deliveries", "attempts",
)
"""The run-state keys of the spec, in its order."""
EXTRA_KEYS: tuple[str, ...] = ("design", "created_at", "updated_at", "log", STEPS_KEY)
"""Documented extras every run of ours carries (docs/run-state.md)."""
IN_FLIGHT_KEY = "in_flight"
"""Documented extra, only while an agent command performs a step: `{node, agent_pid,
agent_start, runner_pid, since}`, so a resume after its runner died can tell whether that
attempt may still be running (and then refuses to start the step a second time)."""
RERUN_KEYS: tuple[str, ...] = ("base_run", "from_node", "stale")
"""Documented extras of a "run from here" run."""
CONTEXT_RECORD_CHARS = 65_536
"""The context recorded in `steps[id].context` for display is cut past this many
characters (marked); the agent itself always gets it whole."""

CANCEL_WAIT_S = 5.0
"""How long `cancel` of a busy run waits for its holder to stop (an agent is killed within
50 ms of the request, so only a delivery in progress takes longer)."""
CANCEL_POLL_S = 0.05

_MISSING: Any = object()


class StepStillRunning(RunBusyError):
    """On resume: the previous attempt of the step at the cursor may still be running."""

    def __init__(self, run_id: str, node_id: str, pid: int) -> None:
        super().__init__(run_id, f"step {node_id!r} may still be running from an earlier "
                         f"attempt whose runner stopped (agent process group {pid}); wait "
                         f"for it to end or stop it (kill -- -{pid}), then resume")
        self.node_id = node_id
        self.pid = pid


class CancelPending(ValueError):
    """`answer`/`respond` found a cancel asked for earlier: the run is now cancelled."""


def iso_utc(seconds: float) -> str:
    """ISO-8601 UTC with milliseconds and a Z, e.g. 2026-11-30T05:00:00.000Z."""
    stamp = datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def parse_iso(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.timestamp()


def run_name(design: Any, name: str | None) -> str:
    """The design name a run is filed under: the one given, else the design's own."""
    if name is None and isinstance(design, dict):
        name = design.get("name")
    if name is None:
        raise ValueError("a run needs a design name: the design has no 'name'")
    return check_design_name(name)


def check_startable(design: Any, what: str = "design") -> list[dict]:
    """Validate and plan `design`; ValueError listing the first defects if it cannot run."""
    defects = validate_designer_graph(design)
    if defects:
        raise ValueError(format_defects(what, defects) + " — a design with defects cannot run")
    return build_run_plan(design)


def new_run_state(run_id: str, name: str, design: dict, now: float) -> dict[str, Any]:
    """A fresh state: the spec keys in the spec's order, then our documented extras."""
    stamp = iso_utc(now)
    try:
        snapshot = admit(design)  # a strict JSON copy, lone surrogates replaced
    except NotStrictJson as exc:
        raise NotStrictJson(f"design {name!r} {exc}; a run file must be strict JSON") from None
    return {
        "run_id": check_run_id(run_id),
        "name": name,
        "cursor": 0,
        "status": "running",
        "outputs": {},
        "skipped": [],
        "pending": None,
        "error": None,
        "answers": {},
        "deliveries": [],
        "attempts": {},
        "design": snapshot.value,
        "created_at": stamp,
        "updated_at": stamp,
        "log": [{"at": stamp, "node": None, "event": event, "detail": detail}
                for event, detail in snapshot.notes("the design")],
        STEPS_KEY: {},
    }


def recorded_context(context: str) -> str:
    """The context as `steps[id].context` keeps it: whole, or cut with a marker."""
    if len(context) <= CONTEXT_RECORD_CHARS:
        return context
    return (context[:CONTEXT_RECORD_CHARS] + f"[… cut by hwf: {len(context)} characters, "
            f"the first {CONTEXT_RECORD_CHARS} kept for display]")


def agent_output(result: Any) -> Any:
    """`structured` if that key is present, else `output`, else "" — presence, not truthiness."""
    if isinstance(result, dict):
        if "structured" in result:
            return result["structured"]
        if "output" in result:
            return result["output"]
    return ""


def _check_state(state: dict[str, Any], run_id: str) -> None:
    """Refuse a state the runner cannot advance (`run_facts.state_problem`), naming the run."""
    problem = state_problem(state)
    if problem is not None:
        raise ValueError(f"run {run_id} is corrupt: {problem}")
    for key, kind in (("answers", dict), ("deliveries", list), ("attempts", dict),
                      ("log", list), (STEPS_KEY, dict)):
        state.setdefault(key, kind())
    state.setdefault("pending", None)


class _StopCheck:
    """What a seam polls while its agent works (`is_set()`, like an Event): a cancel (in
    this process or the marker file another process leaves) or an interrupt."""

    __slots__ = ("runner", "run_id")

    def __init__(self, runner: Runner, run_id: str) -> None:
        self.runner = runner
        self.run_id = run_id

    def is_set(self) -> bool:
        return self.runner._interrupted() or self.runner._cancel_requested_for(self.run_id)


class Runner:
    """Advances runs stored in a RunStore; one runner per run at a time (RunLock)."""

    def __init__(
        self,
        runs: RunStore,
        *,
        agent: AgentSeam | None = None,
        delivery: Delivery | None = None,
        allow_model_override: bool | Callable[[str], bool] = False,
        clock: Callable[[], float] = time.time,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        cancel_event: threading.Event | None = None,
        checkpoint: Callable[[str], None] | None = None,
        designs: DesignStore | None = None,
        interrupt: Interrupt | None = None,
        max_output_bytes: int | None = None,
        before_step: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
    ) -> None:
        self.runs = runs
        self.agent = agent
        self.delivery = delivery
        self.allow_model_override = allow_model_override
        """True/False, or a predicate on the model name (`ModelGate.permits`, rules/model_gate.py)."""
        self.clock = clock
        self.on_event = on_event
        self.cancel_event = cancel_event
        self.checkpoint = checkpoint
        self.designs = designs
        """Where to find the design of a run that has no `design` snapshot (e.g. a canvas run)."""
        self.interrupt = interrupt
        self.max_output_bytes = output_limit() if max_output_bytes is None else max_output_bytes
        """A stored agent output or response is cut past this many bytes of JSON."""
        self.before_step = before_step
        """Called with (state, node) before a step runs (not for one passed over): the
        debugger waits there to stop *before* a node, and may pin upstream outputs in the
        state (persisted with the step).  Then a cancel or an interrupt is honoured first."""

    # --- public -----------------------------------------------------------

    def create(self, design: dict[str, Any], *, name: str | None = None) -> dict[str, Any]:
        """Validate and persist a new run without advancing it."""
        name = run_name(design, name)
        check_startable(design, f"design {name!r}")
        state = new_run_state(self.runs.new_run_id(), name, design, self.clock())
        self._log(state, None, "created", f"run of design {name!r}")
        self.runs.save(state)
        return state

    def start(self, design: dict[str, Any], *, name: str | None = None) -> dict[str, Any]:
        return self.advance(self.create(design, name=name)["run_id"])

    def advance(self, run_id: str) -> dict[str, Any]:
        """Step until the run parks, finishes or is cancelled; persist after every step."""
        with self._locked(run_id) as state:
            return self._drive(state)

    def answer(self, run_id: str, choice: str) -> dict[str, Any]:
        """Answer the parked approval with one of its options, then advance."""
        with self._locked(run_id) as state:
            self._refuse_if_cancel_pending(state, "answer")
            pending = self._pending(state, "awaiting_approval", "an approval")
            options = approval_options(pending.get("options"))
            if choice not in options:
                raise ValueError(
                    f"{choice!r} is not an option of approval {pending.get('node')!r}: "
                    f"choose one of {', '.join(map(str, options))}"
                )
            self._apply_answer(state, pending, choice, f"answered {choice!r}")
            return self._drive(state)

    def respond(
        self, run_id: str, *, output: Any = _MISSING, structured: Any = _MISSING
    ) -> dict[str, Any]:
        """Give the parked agent step its result (structured wins, as from a seam), then advance."""
        if output is _MISSING and structured is _MISSING:
            raise ValueError("respond needs an output or a structured result")
        value = structured if structured is not _MISSING else output
        try:
            admitted = admit(value, self.max_output_bytes)
        except NotStrictJson as exc:
            raise NotStrictJson(f"the response to run {run_id} {exc}; nothing was "
                                "recorded") from None
        with self._locked(run_id) as state:
            self._refuse_if_cancel_pending(state, "response")
            pending = self._pending(state, "awaiting_agent", "an agent")
            node_id = pending.get("node")
            self._expect_cursor_at(state, node_id)
            state["pending"] = None
            state["status"] = "running"
            self._note(state, node_id, admitted, "the response")
            self._finish_step(state, node_id, "agent", admitted.value, "done", "responded")
            self._emit_answered(state, node_id, "agent", value)
            return self._drive(state)

    def cancel(self, run_id: str, *, on_busy: Callable[[], None] | None = None) -> dict[str, Any]:
        """Cancel now if the run is idle; if another runner holds it, ask that runner to stop.

        Asking is the marker `.locks/<run_id>.cancel`, which the holder looks at before
        every step, while its agent works (it is killed) and before it parks.  Then the
        lock is tried again for up to CANCEL_WAIT_S: once the holder lets go, the run is
        cancelled here if the holder did not.  A state still not `cancelled` means the
        holder is still busy (a delivery in progress, or a runner that does not look).
        `on_busy` is called when another runner held the run (a caller says so)."""
        try:
            with self._locked(run_id) as state:
                if state["status"] in FINISHED_STATUSES:
                    return state
                return self._cancel(state)
        except RunBusyError:
            if on_busy is not None:
                on_busy()
            marker = self._cancel_marker(run_id)
            marker.parent.mkdir(parents=True, exist_ok=True)
            if not os.path.lexists(marker):
                marker.touch()
        deadline = time.monotonic() + CANCEL_WAIT_S
        while True:
            try:
                with self._locked(run_id) as state:
                    if state["status"] in FINISHED_STATUSES:
                        self._clear_cancel_marker(run_id)
                        return state
                    return self._cancel(state)
            except RunBusyError:
                if time.monotonic() >= deadline:
                    return self.runs.load(run_id)
                time.sleep(CANCEL_POLL_S)

    # --- driving ----------------------------------------------------------

    @contextmanager
    def _locked(self, run_id: str) -> Iterator[dict[str, Any]]:
        check_run_id(run_id)
        with RunLock(self.runs.root, run_id):
            self.runs.sweep(run_id)  # we hold the lock: any temp file of this run is an orphan
            state = self.runs.load(run_id)
            _check_state(state, run_id)
            yield state

    def _drive(self, state: dict[str, Any]) -> dict[str, Any]:
        if state["status"] in FINISHED_STATUSES:
            return state
        plan = self._plan(state)
        if self._cancel_requested(state):
            return self._cancel(state)
        if state["status"] == "awaiting_approval" and not self._deadline_passed(state, plan):
            return state
        if state["status"] == "awaiting_agent":
            if self.agent is None:
                return state
            self._expect_cursor_at(state, state["pending"].get("node"))
            state["pending"] = None
            state["status"] = "running"
        state["status"] = "running"
        state["error"] = None
        while True:
            if self._cancel_requested(state):
                return self._cancel(state)
            cursor = state["cursor"]
            if cursor > len(plan):
                raise ValueError(f"run {state['run_id']} is corrupt: cursor past the plan")
            if cursor == len(plan):
                return self._end(state, "completed", None)
            node = plan[cursor]
            if node["id"] in state["outputs"] or node["id"] in state["skipped"]:
                state["cursor"] = cursor + 1  # already has a result (run from here)
                continue
            if self._stopped_before(state, node):
                return state
            outcome = self._step(state, node, cursor, len(plan))
            if outcome == "parked" and self._cancel_requested(state):
                return self._cancel(state)  # the cancel came while it parked
            if outcome in ("parked", "failed", "cancelled", "interrupted"):
                return state

    def _stopped_before(self, state: dict[str, Any], node: dict[str, Any]) -> bool:
        """The `before_step` hook (the debugger), then a cancel or an interrupt that came
        meanwhile: True when the run stopped before `node` (cancelled, or resumable)."""
        if self.before_step is not None:
            self.before_step(state, node)
            if self._cancel_requested(state):
                self._cancel(state)
                return True
        if self._interrupted():
            self._interrupt(state, node["id"])
            return True
        return False

    def _step(self, state: dict[str, Any], node: dict[str, Any], index: int, total: int) -> str:
        node_id, kind = node["id"], node.get("type")
        base = {"run_id": state["run_id"], "node": node_id, "kind": kind, "index": index,
                "total": total}
        self._emit({"event": "step-start", **base})
        self._checkpoint("step-start")
        self._record(state, node_id).setdefault("started_at", iso_utc(self.clock()))
        skipped_parent = next((p for p in parents_of(node) if p in state["skipped"]), None)
        if skipped_parent is not None:
            outcome = self._skip(state, node_id, f"parent {skipped_parent!r} was skipped")
        elif kind == "agent":
            outcome = self._agent_step(state, node)
        elif kind == "condition":
            outcome = self._condition_step(state, node)
        elif kind == "approval":
            outcome = self._approval_step(state, node)
        elif kind == "output":
            outcome = self._output_step(state, node)
        else:  # build_run_plan only yields step kinds; a hand-edited snapshot could lie
            outcome = self._fail(state, node_id, f"step {node_id!r} has unknown type {kind!r}")
        self._emit({"event": "step-finish", "outcome": outcome, **base})
        if outcome in ("parked", "failed"):
            self._emit_status(state)
        return outcome

    # --- step kinds -------------------------------------------------------

    def _agent_step(self, state: dict[str, Any], node: dict[str, Any]) -> str:
        node_id = node["id"]
        request = AgentRequest(
            prompt=str(node.get("prompt", "")),
            context=self._context(state, node),
            profile=node.get("profile") if isinstance(node.get("profile"), str) else None,
            timeout_minutes=whole_number(node.get("timeout_minutes")),
            correlation_id=f"workflow:{state['run_id']}:{node_id}",
            model=self._allowed_model(node.get("model")),
        )
        self._record(state, node_id)["context"] = recorded_context(request.context)
        if self.agent is None:
            return self._park_agent(state, node_id, request, "no agent seam configured")
        self._check_previous_attempt(state, node_id)
        request.on_start = lambda pid: self._record_in_flight(state, node_id, pid)
        try:
            result = self.agent.perform(request, cancel_event=_StopCheck(self, state["run_id"]))
        except AgentUnavailable as exc:
            state.pop(IN_FLIGHT_KEY, None)
            return self._park_agent(state, node_id, request,
                                    str(exc) or "the agent seam is unavailable")
        except AgentCancelled:
            state.pop(IN_FLIGHT_KEY, None)
            if self._interrupted() and not self._cancel_requested(state):
                return self._interrupt(state, node_id)
            self._cancel(state)
            return "cancelled"
        except Exception as exc:  # noqa: BLE001 - any seam error is a failed attempt
            state.pop(IN_FLIGHT_KEY, None)
            if self._cancel_requested(state):  # e.g. it timed out while a cancel was pending
                self._cancel(state)
                return "cancelled"
            reason = str(exc) if isinstance(exc, AgentFailure) else f"{type(exc).__name__}: {exc}"
            return self._attempt_failed(state, node, reason)
        state.pop(IN_FLIGHT_KEY, None)
        known = result.get(OUTPUT_BYTES_KEY) if isinstance(result, dict) else None
        try:
            admitted = admit(agent_output(result), self.max_output_bytes,
                             known_size=known if isinstance(known, int) else None)
        except NotStrictJson as exc:
            return self._attempt_failed(state, node, f"the agent's answer {exc}")
        self._note(state, node_id, admitted, "the agent's answer")
        return self._finish_step(state, node_id, "agent", admitted.value, "done", "completed")

    def _park_agent(self, state: dict[str, Any], node_id: str, request: AgentRequest,
                    why: str) -> str:
        """Park at `awaiting_agent`: no one performs the step, `hwf respond` gives its result."""
        state["status"] = "awaiting_agent"
        state["pending"] = {
            "kind": "agent", "node": node_id, "prompt": request.prompt,
            "context": request.context, "profile": request.profile,
            "timeout_minutes": request.timeout_minutes,
            "correlation_id": request.correlation_id,
            "waiting_since": iso_utc(self.clock()),
        }
        if request.model is not None:  # the trust gate let it through: whoever answers uses it
            state["pending"]["model"] = request.model
        self._log(state, node_id, "parked", f"awaiting an agent: {why}")
        self._persist(state)
        return "parked"

    def _attempt_failed(self, state: dict[str, Any], node: dict[str, Any], reason: str) -> str:
        """Count a failed attempt: retry, or fail the run past the step's `retries`."""
        node_id = node["id"]
        failures = (whole_number(state["attempts"].get(node_id)) or 0) + 1
        state["attempts"][node_id] = failures
        self._record(state, node_id).setdefault("attempts", []).append(
            {"error": reason, "at": iso_utc(self.clock())})
        retries = whole_number(node.get("retries")) or 0
        if failures > retries:
            return self._fail(
                state, node_id,
                f"agent step {node_id!r} failed after {failures} attempt"
                f"{'s' if failures != 1 else ''}: {reason}",
            )
        self._log(state, node_id, "attempt-failed",
                  f"attempt {failures} of {retries + 1} failed: {reason}")
        self._persist(state)
        return "retry"

    def _note(self, state: dict[str, Any], node_id: str, admitted: Any, what: str) -> None:
        for event, detail in admitted.notes(what):
            self._log(state, node_id, event, detail)

    def _condition_step(self, state: dict[str, Any], node: dict[str, Any]) -> str:
        node_id = node["id"]
        expression = node.get("expression")
        try:
            condition = parse_condition(expression if isinstance(expression, str) else "")
        except ConditionError as exc:
            return self._fail(state, node_id, f"condition {node_id!r} cannot be parsed: {exc}")
        value, reason = evaluate(condition, state["outputs"])
        if not value:
            warning = text_read(condition, state["outputs"])
            if warning is not None:  # never silent: the run's summary and every surface
                self._log(state, node_id, WARNING_EVENT, f"{warning}; {expression} reads "
                          "false, and the steps after it are skipped")
            why = f"{expression} is false" + (f" ({reason})" if reason else "")
            return self._skip(state, node_id, why)
        return self._finish_step(state, node_id, "condition", True, "done", f"{expression} is true")

    def _approval_step(self, state: dict[str, Any], node: dict[str, Any]) -> str:
        node_id = node["id"]
        options = approval_options(node.get("options"))
        on_timeout = node.get("on_timeout") if node.get("on_timeout") in ("reject", "escalate") \
            else "reject"
        context = self._context(state, node)
        self._record(state, node_id)["context"] = recorded_context(context)
        state["status"] = "awaiting_approval"
        state["pending"] = {
            "kind": "approval", "node": node_id, "question": str(node.get("question", "")),
            "options": list(options), "context": context,
            "correlation_id": f"workflow:{state['run_id']}:{node_id}",
            "waiting_since": iso_utc(self.clock()),
            "timeout_minutes": whole_number(node.get("timeout_minutes")),
            "on_timeout": on_timeout,
        }
        self._log(state, node_id, "parked", "awaiting approval")
        self._persist(state)
        return "parked"

    def _output_step(self, state: dict[str, Any], node: dict[str, Any]) -> str:
        node_id = node["id"]
        collected = {
            p: state["outputs"][p]
            for p in parents_of(node)
            if p in state["outputs"] and p not in state["skipped"]
        }
        state["outputs"][node_id] = collected
        deliver = node.get("deliver")
        if deliver:
            target = node.get("target") if isinstance(node.get("target"), str) else None
            self._deliver(state, node_id, str(deliver), render_text(collected),
                          delivery_key(state["run_id"], node_id), target)
        return self._finish_step(state, node_id, "output", collected, "done", "collected")

    # --- approvals --------------------------------------------------------

    def _deadline_passed(self, state: dict[str, Any], plan: list[dict]) -> bool:
        """Apply a passed approval deadline; True when the run may go on (answered reject)."""
        pending = state["pending"]
        minutes = whole_number(pending.get("timeout_minutes"))
        since = parse_iso(pending.get("waiting_since"))
        if not minutes or since is None or self.clock() - since < minutes * 60:
            return False
        node_id = pending.get("node")
        if pending.get("on_timeout") == "escalate":
            key = delivery_key(state["run_id"], str(node_id), "escalation")
            if not delivered_ok(state, key):
                text = (f"Approval {node_id!r} of run {state['run_id']} ({state.get('name')}) "
                        f"has waited more than {minutes} minutes: {pending.get('question', '')}")
                self._deliver(state, str(node_id), "notification", text, key, None)
                self._persist(state)
            return False
        self._expect_cursor_at(state, node_id, plan)
        self._apply_answer(state, pending, "reject", f"no answer within {minutes} minutes: reject")
        return True

    def _apply_answer(self, state: dict[str, Any], pending: dict, choice: str, why: str) -> None:
        node_id = pending.get("node")
        self._expect_cursor_at(state, node_id)
        state["answers"][node_id] = choice
        state["outputs"][node_id] = {"choice": choice}
        state["pending"] = None
        state["status"] = "running"
        if choice == "reject":
            state["skipped"].append(node_id)  # rejecting prunes the downstream branch
        self._ended(state, node_id)
        self._log(state, node_id, "answered", why)
        state["cursor"] += 1
        self._persist(state)
        self._emit_answered(state, node_id, "approval", choice)

    # --- shared step endings ----------------------------------------------

    def _finish_step(
        self, state: dict[str, Any], node_id: str, kind: str, output: Any, outcome: str,
        detail: str,
    ) -> str:
        state["outputs"][node_id] = output
        state["cursor"] += 1
        self._ended(state, node_id)
        self._log(state, node_id, outcome if outcome != "done" else "completed", detail)
        self._persist(state)
        return outcome

    def _skip(self, state: dict[str, Any], node_id: str, why: str) -> str:
        if node_id not in state["skipped"]:
            state["skipped"].append(node_id)
        state["cursor"] += 1
        self._ended(state, node_id)
        self._log(state, node_id, "skipped", why)
        self._persist(state)
        return "skipped"

    def _fail(self, state: dict[str, Any], node_id: str, error: str) -> str:
        state["status"] = "failed"
        state["error"] = error
        state["pending"] = None
        self._ended(state, node_id)
        self._log(state, node_id, "failed", error)
        self._persist(state)
        self._clear_cancel_marker(state["run_id"])
        return "failed"

    def _end(self, state: dict[str, Any], status: str, detail: str | None) -> dict[str, Any]:
        state["status"] = status
        state["pending"] = None
        self._log(state, None, status, detail)
        self._persist(state)  # first: a marker that cannot be removed must not undo the end
        self._clear_cancel_marker(state["run_id"])
        self._emit_status(state)
        return state

    def _cancel(self, state: dict[str, Any]) -> dict[str, Any]:
        return self._end(state, "cancelled", "cancelled by the user")

    def _refuse_if_cancel_pending(self, state: dict[str, Any], what: str) -> None:
        """A cancel asked for while the run was busy, that its runner did not get to: it
        comes first, and the answer is not recorded into a run that is then cancelled."""
        if state["status"] not in FINISHED_STATUSES and self._cancel_requested(state):
            self._cancel(state)
            raise CancelPending(f"run {state['run_id']} is cancelled: a cancel was asked for "
                                f"before this {what}, which was not recorded")

    def _interrupted(self) -> bool:
        return self.interrupt is not None and self.interrupt.is_set()

    def _interrupt(self, state: dict[str, Any], node_id: str | None) -> str:
        """Stop here, resumable: the step at the cursor runs again on resume."""
        reason = getattr(self.interrupt, "reason", None) or "interrupted"
        state["status"] = "running"
        state["pending"] = None
        self._log(state, node_id, "interrupted",
                  f"{reason}: stopped before step {node_id!r} finished; resume the run "
                  "to go on" if node_id else f"{reason}: resume the run to go on")
        self._persist(state)
        self._emit({"event": "run-status", "run_id": state["run_id"], "status": "running",
                    "interrupted": True})
        return "interrupted"

    def _record_in_flight(self, state: dict[str, Any], node_id: str, pid: int) -> None:
        """The seam started agent process `pid`: persist that, before it can answer."""
        state[IN_FLIGHT_KEY] = {"node": node_id, "agent_pid": pid,
                                "agent_start": process_start(pid), "runner_pid": os.getpid(),
                                "since": iso_utc(self.clock())}
        self._persist(state)

    def _check_previous_attempt(self, state: dict[str, Any], node_id: str) -> None:
        """A recorded attempt whose runner is gone (we hold the lock): if its agent (or
        anything of its process group) still runs, refuse to start the step again."""
        previous = state.get(IN_FLIGHT_KEY)
        if not isinstance(previous, dict):
            state.pop(IN_FLIGHT_KEY, None)
            return
        pid, start = previous.get("agent_pid"), previous.get("agent_start")
        if isinstance(pid, int) and not isinstance(pid, bool) and pid > 1 and (
                still_running(pid, start if isinstance(start, int) else None)
                or group_alive(pid)):
            raise StepStillRunning(state["run_id"], node_id, pid)
        del state[IN_FLIGHT_KEY]
        self._log(state, node_id, "attempt-interrupted",
                  f"the attempt started at {previous.get('since')} (agent pid {pid}) did not "
                  "finish: its runner stopped; performing the step again")

    def _deliver(self, state: dict[str, Any], node_id: str, deliver: str, text: str, key: str,
                 target: str | None) -> None:
        """Deliver unless `key` already has an ok receipt; record the receipt (not persisted)."""
        if delivered_ok(state, key):
            return
        sender = self.delivery if self.delivery is not None else Delivery()
        receipt = sender.send(deliver=deliver, text=text, run_id=state["run_id"],
                              node_id=node_id, key=key, target=target, clock=self.clock)
        self._checkpoint("after-delivery")
        state["deliveries"].append(receipt)
        self._log(state, node_id, "delivered" if receipt["ok"] else "delivery-failed",
                  f"{deliver} {key}" + ("" if receipt["ok"] else f": {receipt.get('error')}"))
        self._emit({"event": "delivery", "run_id": state["run_id"], "node": node_id,
                    "receipt": receipt})

    # --- helpers ----------------------------------------------------------

    def _record(self, state: dict[str, Any], node_id: str) -> dict[str, Any]:
        """What the run keeps of one step (`steps[node_id]`, docs/run-state.md); written
        with the step's own persist, so recording costs no extra write."""
        records = state.setdefault(STEPS_KEY, {})
        record = records.get(node_id)
        if not isinstance(record, dict):
            record = records[node_id] = {}
        return record

    def _ended(self, state: dict[str, Any], node_id: str) -> None:
        self._record(state, node_id)["ended_at"] = iso_utc(self.clock())

    def _plan(self, state: dict[str, Any]) -> list[dict]:
        design = state.get("design")
        if not isinstance(design, dict):
            if self.designs is None:
                raise ValueError(f"run {state['run_id']} has no design snapshot")
            design = self.designs.load(state.get("name"))
        try:
            return build_run_plan(design)
        except ValueError as exc:
            raise ValueError(f"run {state['run_id']}: its design cannot be planned: {exc}") from exc

    def _pending(self, state: dict[str, Any], status: str, what: str) -> dict[str, Any]:
        if state["status"] != status:
            raise ValueError(
                f"run {state['run_id']} is not waiting for {what} (status: {state['status']})"
            )
        return state["pending"]

    def _expect_cursor_at(self, state: dict[str, Any], node_id: Any,
                          plan: list[dict] | None = None) -> None:
        plan = self._plan(state) if plan is None else plan
        cursor = state["cursor"]
        if cursor >= len(plan) or plan[cursor]["id"] != node_id:
            raise ValueError(
                f"run {state['run_id']} is corrupt: pending step {node_id!r} is not at the cursor"
            )

    def _allowed_model(self, model: Any) -> str | None:
        """The node's `model` when the trust gate lets it through, else None (never sent)."""
        if not isinstance(model, str):
            return None
        allowed = self.allow_model_override
        return model if (allowed(model) if callable(allowed) else allowed is True) else None

    def _context(self, state: dict[str, Any], node: dict[str, Any]) -> str:
        """The parents' outputs as a JSON object (parents without an output are left out)."""
        outputs = state["outputs"]
        return strict_dumps({p: outputs[p] for p in parents_of(node) if p in outputs},
                            ensure_ascii=False)

    def _cancel_marker(self, run_id: str) -> Path:
        return self.runs.root / LOCKS_DIRNAME / f"{check_run_id(run_id)}.cancel"

    def _cancel_requested(self, state: dict[str, Any]) -> bool:
        return self._cancel_requested_for(state["run_id"])

    def _cancel_requested_for(self, run_id: str) -> bool:
        if self.cancel_event is not None and self.cancel_event.is_set():
            return True
        return os.path.lexists(self._cancel_marker(run_id))

    def _clear_cancel_marker(self, run_id: str) -> None:
        """Remove the marker, whatever is there (a directory someone made included)."""
        marker = self._cancel_marker(run_id)
        try:
            marker.unlink()
        except FileNotFoundError:
            pass
        except OSError:  # a directory (EISDIR, or EPERM on macOS), or not ours to remove
            try:
                os.rmdir(marker)
            except OSError as exc:
                log.warning("cannot remove the cancel marker %s: %s", marker, exc)

    def _persist(self, state: dict[str, Any]) -> None:
        state["updated_at"] = iso_utc(self.clock())
        self._checkpoint("before-persist")
        self.runs.save(state)
        self._checkpoint("after-persist")

    def _log(self, state: dict[str, Any], node: str | None, event: str, detail: Any) -> None:
        state["log"].append({"at": iso_utc(self.clock()), "node": node, "event": event,
                             "detail": detail})

    def _checkpoint(self, label: str) -> None:
        if self.checkpoint is not None:
            self.checkpoint(label)

    def _emit(self, event: dict[str, Any]) -> None:
        if self.on_event is None:
            return
        try:
            self.on_event(copy.deepcopy(event))
        except Exception:  # a broken progress display must not break the run
            log.warning("on_event callback failed", exc_info=True)

    def _emit_answered(self, state: dict[str, Any], node_id: Any, kind: str,
                       answer: Any) -> None:
        """A parked step was moved on (answered, responded): recorded and persisted."""
        self._emit({"event": "step-answered", "run_id": state["run_id"], "node": node_id,
                    "kind": kind, "index": state["cursor"] - 1,
                    "total": len(self._plan(state)), "answer": answer})

    def _emit_status(self, state: dict[str, Any]) -> None:
        event = {"event": "run-status", "run_id": state["run_id"], "status": state["status"]}
        if state.get("error"):
            event["error"] = state["error"]
        if state.get("pending"):
            event["pending"] = state["pending"]
        self._emit(event)
