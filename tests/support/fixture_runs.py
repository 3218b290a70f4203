"""One set of fixture runs covering every step state, made by really running the Runner.

Each fixture is a design, run through `Runner` with scripted seams (a Python agent, a
delivery with no channel command, a clock moved forward), so the run files are what
the engine really writes; `EXPECTED` says what the run facts must be for each.  The
conformance test (tests/workflow/test_conformance.py) renders every fixture on every
surface reachable from Python and compares each rendering with the run facts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hwf_lsp.workflow.delivery import Delivery
from hwf_lsp.workflow.rerun import prepare_rerun
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.seams import AgentFailure, CallableAgentSeam
from hwf_lsp.workflow.stores import RunStore
from support.designs import agent, approval, condition, design, output


class Clock:
    """A clock the fixtures move forward (deadlines, durations)."""

    def __init__(self) -> None:
        self.now = 1_790_000_000.0

    def __call__(self) -> float:
        self.now += 0.25  # every reading a quarter second later: steps have durations
        return self.now


def scripted_agent(failures: dict[str, int] | None = None) -> CallableAgentSeam:
    """An agent that answers `{"n": 1, "text": "<id> done"}`, after failing the first
    `failures[id]` attempts of a step."""
    left = dict(failures or {})

    def answer(request: Any) -> Any:
        node = request.correlation_id.rsplit(":", 1)[1]
        if left.get(node, 0) > 0:
            left[node] -= 1
            raise AgentFailure(f"model overloaded ({node})")
        return {"structured": {"n": 1, "text": f"{node} done"}}

    return CallableAgentSeam(answer)


@dataclass
class Fixture:
    name: str
    state: dict[str, Any]
    """The run file as the engine wrote it."""
    design: dict[str, Any]


Builder = Callable[[RunStore, Clock], dict[str, Any]]


def _runner(runs: RunStore, clock: Clock, agent_seam: Any = "default", **kw: Any) -> Runner:
    seam = scripted_agent() if agent_seam == "default" else agent_seam
    return Runner(runs, agent=seam, clock=clock,
                  delivery=kw.pop("delivery", Delivery(notify=lambda text: None)), **kw)


DESIGNS: dict[str, dict[str, Any]] = {
    "failed-delivery": design(
        agent("draft"), output("post", "draft", deliver="channel", target="slack:#team"),
        name="failed-delivery"),
    "rejected": design(
        agent("draft"), approval("gate", "draft"), agent("publish", "gate"),
        agent("announce", "publish"), name="rejected"),
    "answered": design(
        agent("draft"), approval("gate", "draft", options=["ship", "hold"]),
        agent("publish", "gate"), name="answered"),
    "reused": design(agent("draft"), agent("review", "draft"), name="reused"),
    "condition": design(
        agent("draft"), condition("big", "out.draft.n > 5", "draft"),
        agent("expand", "big"), agent("polish", "expand"), agent("side", "draft"),
        name="condition"),
    "retries": design(agent("draft", retries=2), agent("after", "draft"), name="retries"),
    "cancelled": design(agent("draft"), approval("gate", "draft"), agent("publish", "gate"),
                        name="cancelled"),
    "escalated": design(
        agent("draft"), approval("gate", "draft", timeout_minutes=1, on_timeout="escalate"),
        name="escalated"),
    "waiting-agent": design(agent("draft"), agent("review", "draft"), name="waiting-agent"),
    "running": design(agent("draft"), agent("review", "draft"), agent("last", "review"),
                      name="running"),
    "retried": design(agent("draft", retries=1), name="retried"),
    "text-condition": design(
        agent("review"), condition("gate", "out.review.score >= 7", "review"),
        agent("publish", "gate"), name="text-condition"),
}


def _failed_delivery(runs: RunStore, clock: Clock) -> dict[str, Any]:
    # the CLI's and the editor's delivery with no channel command configured
    return _runner(runs, clock).start(DESIGNS["failed-delivery"])


def _rejected(runs: RunStore, clock: Clock) -> dict[str, Any]:
    runner = _runner(runs, clock)
    return runner.answer(runner.start(DESIGNS["rejected"])["run_id"], "reject")


def _answered(runs: RunStore, clock: Clock) -> dict[str, Any]:
    runner = _runner(runs, clock)
    return runner.answer(runner.start(DESIGNS["answered"])["run_id"], "ship")


def _reused(runs: RunStore, clock: Clock) -> dict[str, Any]:
    runner = _runner(runs, clock)
    base = runner.start(DESIGNS["reused"])
    state, _notices = prepare_rerun(runs, DESIGNS["reused"], "review",
                                    base_run_id=base["run_id"])
    return runner.advance(state["run_id"])


def _condition(runs: RunStore, clock: Clock) -> dict[str, Any]:
    return _runner(runs, clock).start(DESIGNS["condition"])


def _text_condition(runs: RunStore, clock: Clock) -> dict[str, Any]:
    """The review answered its JSON as text: the condition reads false, with a warning."""
    as_text = CallableAgentSeam(lambda request: {"output": '{"score": 9}'})
    return _runner(runs, clock, as_text).start(DESIGNS["text-condition"])


def _retries(runs: RunStore, clock: Clock) -> dict[str, Any]:
    return _runner(runs, clock, scripted_agent({"draft": 9})).start(DESIGNS["retries"])


def _retried(runs: RunStore, clock: Clock) -> dict[str, Any]:
    return _runner(runs, clock, scripted_agent({"draft": 1})).start(DESIGNS["retried"])


def _cancelled(runs: RunStore, clock: Clock) -> dict[str, Any]:
    runner = _runner(runs, clock)
    return runner.cancel(runner.start(DESIGNS["cancelled"])["run_id"])


def _escalated(runs: RunStore, clock: Clock) -> dict[str, Any]:
    runner = _runner(runs, clock)
    run_id = runner.start(DESIGNS["escalated"])["run_id"]
    clock.now += 120  # past the 1-minute deadline: one escalation, still waiting
    return runner.advance(run_id)


def _waiting_agent(runs: RunStore, clock: Clock) -> dict[str, Any]:
    # no agent seam (no agent command configured): the run parks at the agent step
    return _runner(runs, clock, None).start(DESIGNS["waiting-agent"])


def _running(runs: RunStore, clock: Clock) -> dict[str, Any]:
    """The run file as another process sees it while `review` runs: read at the
    runner's `step-start` checkpoint of its second step."""
    seen: list[dict[str, Any]] = []
    run_id: list[str] = []

    def checkpoint(label: str) -> None:
        if label == "step-start":
            seen.append(runs.load(run_id[0]))

    runner = _runner(runs, clock, checkpoint=checkpoint)
    run_id.append(runner.create(DESIGNS["running"])["run_id"])
    runner.advance(run_id[0])
    runs.save(seen[1])  # the file as it was then: as if the runner were still at it
    return seen[1]


BUILDERS: dict[str, Builder] = {
    "failed-delivery": _failed_delivery,
    "rejected": _rejected,
    "answered": _answered,
    "reused": _reused,
    "condition": _condition,
    "retries": _retries,
    "retried": _retried,
    "cancelled": _cancelled,
    "escalated": _escalated,
    "waiting-agent": _waiting_agent,
    "running": _running,
    "text-condition": _text_condition,
}

EXPECTED: dict[str, dict[str, tuple[Any, ...]]] = {
    # fixture: {step: (status, detail key=value checks...)}
    "failed-delivery": {"draft": ("done",),
                        "post": ("not delivered", ("error", "no channel command configured"),
                                 ("target", "slack:#team"))},
    "rejected": {"draft": ("done",), "gate": ("rejected", ("answer", "reject")),
                 "publish": ("skipped", ("why", "rejected upstream")),
                 "announce": ("skipped", ("why", "rejected upstream"))},
    "answered": {"draft": ("done",), "gate": ("answered", ("answer", "ship")),
                 "publish": ("done",)},
    "reused": {"draft": ("reused",), "review": ("done",)},
    "condition": {"draft": ("done",), "big": ("skipped", ("why", "false condition")),
                  "expand": ("skipped", ("why", "skipped parent")),
                  "polish": ("skipped", ("why", "skipped parent")), "side": ("done",)},
    "retries": {"draft": ("failed", ("attempts", 3)), "after": ("not run",)},
    "retried": {"draft": ("done", ("attempts", 1))},
    "cancelled": {"draft": ("done",), "gate": ("not run",), "publish": ("not run",)},
    "escalated": {"draft": ("done",),
                  "gate": ("waiting", ("waiting_for", "approval"), ("escalated", True))},
    "waiting-agent": {"draft": ("waiting", ("waiting_for", "agent")), "review": ("not run",)},
    "running": {"draft": ("done",), "review": ("running",), "last": ("not run",)},
    "text-condition": {
        "review": ("done",),
        "gate": ("skipped", ("why", "false condition"), ("warning", (
            'out.review is text, not JSON (it holds JSON as text: an agent sends data as '
            '{"structured": …}); out.review.score >= 7 reads false, and the steps after it '
            'are skipped'))),
        "publish": ("skipped", ("why", "skipped parent"))},
}
"""What the run facts of each fixture must say: the engine's side of the conformance."""


class _CountingIds(RunStore):
    """Run ids 000000000001, 000000000002, …: fixture files the same on every build."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.count = 0

    def new_run_id(self) -> str:  # type: ignore[override]
        self.count += 1
        return f"{self.count:012x}"


def build_all(home: Path) -> dict[str, Fixture]:
    """Every fixture run, written under `home/workflow-runs` (one Hermes home); the same
    runs (ids, times, logs) on every build."""
    runs = _CountingIds(home / "workflow-runs")
    fixtures = {}
    for name, build in BUILDERS.items():
        state = build(runs, Clock())
        fixtures[name] = Fixture(name, state, DESIGNS[name])
    return fixtures


EXTENSION_FIXTURE = Path(__file__).resolve().parents[2] / "vscode-extension" / "src" / "test" / \
    "fixtures" / "run-summaries.json"
"""The fixture runs' summaries, for the VS Code extension's conformance test (node --test):
the Runs view, the canvas's node model, the status bar and the dashboard render them."""


def extension_fixture_text(fixtures: dict[str, Fixture], runs_root: Path) -> str:
    """`{fixture: run summary}` as the server sends it, without the machine's paths."""
    from hwf_lsp.workflow.run_summary import run_summary

    summaries = {}
    for name, fixture in fixtures.items():
        summary = run_summary(fixture.state, runs_root)
        for key in ("path", "design_path", "created_at"):  # (prepare_rerun: the real clock)
            summary.pop(key)
        summaries[name] = summary
    return json.dumps(summaries, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
