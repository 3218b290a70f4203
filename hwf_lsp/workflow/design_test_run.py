"""Running a design test case in memory, through the same Runner as a real run.

The agent seam replays the case's mocked results, one per attempt (a `fail` is a failed
attempt, counted against `retries`); when a step's results have run out the seam is
unavailable and the run parks at `awaiting_agent`, as a run with no seam would.  An
approval with an answer is answered with `Runner.answer`; one without stays parked.
The delivery records what it was asked to send, and fails for the case's
`failing_deliveries`.  The run lives in a temporary directory that is removed after the
case: no agent command, no network, nothing written to $HERMES_HOME.

What the run did is read only through the engine's run facts (`run_summary`'s
`step_states`), so a test says what every other surface shows.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hwf_lsp.rules.design_test_check import NOT_RUN, DesignCase, DesignTestFile, MockResult
from hwf_lsp.rules.strict_json import strict_dumps
from hwf_lsp.rules.vocabulary import OUTPUT
from hwf_lsp.workflow.delivery import Delivery, delivered_ok, delivery_key
from hwf_lsp.workflow.run_summary import run_summary
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.seams import AgentFailure, AgentRequest, AgentUnavailable, CallableAgentSeam
from hwf_lsp.workflow.stores import RUNS_DIRNAME, RunStore


class ReplayedAgent:
    """The mocked results of a case, handed out one per attempt of each agent step."""

    def __init__(self, mocks: dict[str, list[MockResult]]) -> None:
        self.left = {node: list(results) for node, results in mocks.items()}
        self.calls: list[str] = []

    def __call__(self, request: AgentRequest) -> dict[str, Any]:
        node_id = request.correlation_id.split(":", 2)[-1]  # workflow:<run_id>:<node_id>
        self.calls.append(node_id)
        results = self.left.get(node_id)
        if not results:
            raise AgentUnavailable("the test case has no result left for this step")
        result = results.pop(0)
        if result.kind == "fail":
            raise AgentFailure(result.value)
        return {result.kind: result.value}


class RecordingDelivery(Delivery):
    """Records every delivery it is asked to make; those of `failing` nodes fail."""

    def __init__(self, failing: frozenset[str]) -> None:
        super().__init__()
        self.failing = failing
        self.sent: list[dict[str, Any]] = []

    def _send(self, deliver: str, text: str, run_id: str, node_id: str, key: str,
              target: str | None) -> str | None:
        self.sent.append({"node": node_id, "deliver": deliver, "target": target,
                          "text": text, "key": key})
        return "failing delivery (design test)" if node_id in self.failing else None


@dataclass
class CaseOutcome:
    """What one case's run did, read off its final state and the run facts."""

    state: dict[str, Any]
    step_states: dict[str, str]
    """Step id -> the run facts' word (None there reads `not run`)."""
    delivered: dict[str, bool]
    """Output step id -> whether its delivery has an ok receipt (False for no deliver)."""
    sent: list[dict[str, Any]] = field(default_factory=list)
    warnings: dict[str, str | None] = field(default_factory=dict)
    """Condition step id -> its warning (it read a field of text), else None."""

    @property
    def status(self) -> str:
        return self.state["status"]

    @property
    def outputs(self) -> dict[str, Any]:
        return self.state["outputs"]


@dataclass
class CaseResult:
    name: str
    index: int
    failures: list[str]
    outcome: CaseOutcome
    seconds: float = 0.0
    differences: list[Difference] = field(default_factory=list)
    """The failures as values (`failures` are their messages)."""

    @property
    def passed(self) -> bool:
        return not self.failures


def run_case(test: DesignTestFile, case: DesignCase) -> CaseOutcome:
    """Run `case` on the test's design in a throwaway run store; its outcome."""
    agent = ReplayedAgent(case.agents)
    delivery = RecordingDelivery(case.failing_deliveries)
    with tempfile.TemporaryDirectory(prefix="hwf-test-") as scratch:
        runs = RunStore(Path(scratch) / RUNS_DIRNAME)
        runner = Runner(runs, agent=CallableAgentSeam(agent), delivery=delivery)
        state = runner.start(test.design, name=test.design_name)
        answered: set[str] = set()
        while state["status"] == "awaiting_approval":
            node_id = state["pending"]["node"]
            if node_id not in case.answers or node_id in answered:
                break
            answered.add(node_id)
            state = runner.answer(state["run_id"], case.answers[node_id])
        summary = run_summary(state, runs.root)
    step_states = {step["id"]: step["status"] or NOT_RUN for step in summary["step_states"]}
    delivered = {
        step["id"]: delivered_ok(state, delivery_key(state["run_id"], step["id"]))
        for step in summary["step_states"] if step.get("type") == OUTPUT
    }
    warnings = {step["id"]: step.get("warning") for step in summary["step_states"]
                if step.get("type") == "condition"}
    return CaseOutcome(state, step_states, delivered, delivery.sent, warnings)


_NO_OUTPUT: Any = object()


def same_json(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1 and "1" is not 1; key order ignored."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


SHOWN_CHARS = 120
"""A value longer than this in a failure message is cut, and the message points at the
first place where the two outputs differ instead."""


def _shown(value: Any) -> str:
    if value is _NO_OUTPUT:
        return "no output"
    text = strict_dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def first_difference(want: Any, got: Any, path: str = "") -> tuple[str, Any, Any]:
    """(path, expected part, actual part) where two JSON values first differ: a key
    (`review.score`), an index (`issues.0`) or `""` for the values themselves; a key
    missing on one side reads "no output" there."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in [*want, *(k for k in got if k not in want)]:
            here = f"{path}.{key}" if path else str(key)
            if key not in want or key not in got:
                return here, want.get(key, _NO_OUTPUT), got.get(key, _NO_OUTPUT)
            if not same_json(want[key], got[key]):
                return first_difference(want[key], got[key], here)
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for index, (a, b) in enumerate(zip(want, got, strict=True)):
            if not same_json(a, b):
                return first_difference(a, b, f"{path}.{index}" if path else str(index))
    return path, want, got


def output_failure(node_id: str, want: Any, got: Any) -> str:
    """`output of 'x': expected A, got B`; for long values, where they first differ."""
    whole = f"output of {node_id!r}: expected {_shown(want)}, got {_shown(got)}"
    if got is _NO_OUTPUT or len(whole) <= 2 * SHOWN_CHARS or "…" not in whole:
        return whole
    path, part_want, part_got = first_difference(want, got)
    where = f" at {path}" if path else ""
    return f"output of {node_id!r}{where}: expected {_shown(part_want)}, got {_shown(part_got)}"


@dataclass(frozen=True)
class Difference:
    """One way a run differs from `expect`: which part (`status`, `steps`, `outputs`,
    `delivered`), which node (None for the status), both values, and the message `hwf
    test` prints.  The editor shows the values side by side (a diff)."""

    part: str
    node: str | None
    expected: Any
    actual: Any
    message: str

    def as_dict(self) -> dict[str, Any]:
        actual = None if self.actual is _NO_OUTPUT else self.actual
        return {"part": self.part, "node": self.node, "expected": self.expected,
                "actual": actual, "message": self.message}


def differences(expect: dict[str, Any], outcome: CaseOutcome) -> list[Difference]:
    """Every difference between `expect` and the run, in `expect`'s order of parts."""
    found: list[Difference] = []
    if "status" in expect and expect["status"] != outcome.status:
        error = outcome.state.get("error")
        found.append(Difference("status", None, expect["status"], outcome.status,
                                f"status: expected {expect['status']!r}, got "
                                f"{outcome.status!r}" + (f" ({error})" if error else "")))
    for node_id, want in (expect.get("steps") or {}).items():
        got = outcome.step_states.get(node_id, NOT_RUN)
        if got != want:
            found.append(Difference("steps", node_id, want, got,
                                    f"step {node_id!r}: expected {want!r}, got {got!r}"))
    for node_id, want in (expect.get("outputs") or {}).items():
        got = outcome.outputs.get(node_id, _NO_OUTPUT)
        if got is _NO_OUTPUT or not same_json(want, got):
            found.append(Difference("outputs", node_id, want, got,
                                    output_failure(node_id, want, got)))
    for node_id, want in (expect.get("delivered") or {}).items():
        got = outcome.delivered.get(node_id, False)
        if got != want:
            found.append(Difference("delivered", node_id, want, got,
                                    f"delivery of {node_id!r}: expected "
                                    f"{'delivered' if want else 'not delivered'}, got "
                                    f"{'delivered' if got else 'not delivered'}"))
    for node_id, want in (expect.get("warnings") or {}).items():
        got = outcome.warnings.get(node_id)
        if bool(got) != want:
            found.append(Difference("warnings", node_id, want, bool(got),
                                    f"warning of {node_id!r}: expected "
                                    f"{'one' if want else 'none'}, got "
                                    f"{repr(got) if got else 'none'}"))
    return found


def run_test_case(test: DesignTestFile, case: DesignCase) -> CaseResult:
    """Run one case and compare its run with its `expect`."""
    started = time.perf_counter()
    outcome = run_case(test, case)
    found = differences(case.expect, outcome)
    return CaseResult(case.name, case.index, [d.message for d in found], outcome,
                      time.perf_counter() - started, found)


def run_test_file(test: DesignTestFile) -> list[CaseResult]:
    """Every case of the file, in order, with its differences from `expect`."""
    return [run_test_case(test, case) for case in test.cases]


def observed_expect(test: DesignTestFile, outcome: CaseOutcome,
                    current: Any) -> dict[str, Any]:
    """`expect` as the run did it (`--write-expectations`): status, every step's state,
    the outputs of the output steps (and of any step `current` already lists), each
    delivering output's delivery, the conditions that warn (and any `current` lists).  Keys `current` has keep their place."""
    nodes = {node["id"]: node for node in test.design["nodes"]}
    listed = current.get("outputs") if isinstance(current, dict) else None
    listed = listed if isinstance(listed, dict) else {}
    outputs = {step: value for step, value in outcome.outputs.items()
               if step in outcome.step_states
               and (nodes[step].get("type") == OUTPUT or step in listed)}
    observed: dict[str, Any] = {
        "status": outcome.status,
        "steps": dict(outcome.step_states),
        "outputs": outputs,
        "delivered": {step: ok for step, ok in outcome.delivered.items()
                      if nodes[step].get("deliver")},
    }
    if not observed["delivered"]:
        del observed["delivered"]
    listed_warnings = current.get("warnings") if isinstance(current, dict) else None
    if any(outcome.warnings.values()) or isinstance(listed_warnings, dict):
        observed["warnings"] = {step: bool(warning)
                                for step, warning in outcome.warnings.items()
                                if warning or step in (listed_warnings or {})}
    merged = {key: observed[key] for key in (current if isinstance(current, dict) else {})
              if key in observed}
    merged.update({key: value for key, value in observed.items() if key not in merged})
    return merged
