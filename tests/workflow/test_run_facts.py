"""One rule for "which step failed", and the lazy runtime exports of hwf_lsp.workflow."""

from __future__ import annotations

import subprocess
import sys

import pytest

import hwf_lsp.workflow as workflow
from hwf_lsp.workflow.run_facts import failed_step, plan_of
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.seams import AgentFailure, CallableAgentSeam
from hwf_lsp.workflow.stores import RunStore

DESIGN = {"name": "d", "nodes": [
    {"id": "t", "type": "trigger"},
    {"id": "a", "type": "agent", "prompt": "p", "after": ["t"]},
    {"id": "c", "type": "condition", "expression": "out.a.x == 1", "after": ["a"]},
    {"id": "g", "type": "approval", "question": "q?", "after": ["c"]},
]}


def state(**overrides):
    base = {"run_id": "abcdef", "name": "d", "cursor": 0, "status": "failed", "outputs": {},
            "skipped": [], "pending": None, "error": "x", "design": DESIGN, "log": [],
            "attempts": {}}
    return {**base, **overrides}


@pytest.mark.parametrize("run, design, expected", [
    (state(status="completed"), None, None),
    (state(status="running", cursor=1), None, None),
    (state(log=[{"event": "failed", "node": "c"}], cursor=0), None, "c"),  # the log wins
    (state(log=[{"event": "failed", "node": "a"}, {"event": "created", "node": None}]), None,
     "a"),
    (state(cursor=1), None, "c"),  # no log: the step at the cursor
    (state(cursor=1, attempts={}), None, "c"),  # no attempts needed (unparsable condition)
    (state(cursor=3), None, None),  # past the plan
    (state(cursor=-1), None, None),
    (state(cursor=True), None, None),
    (state(cursor=1, design=None), None, None),  # no snapshot, no design: unknown
    (state(cursor=1, design=None), DESIGN, "c"),  # ... the stored/open design plans it
    (state(cursor=1, design={"nodes": "junk"}), None, None),
    (state(log="junk", cursor=0), None, "a"),
    ("not a state", None, None),
])
def test_failed_step(run, design, expected) -> None:
    assert failed_step(run, design) == expected


def test_plan_of_tolerates_junk() -> None:
    assert [s["id"] for s in plan_of(state())] == ["a", "c", "g"]
    assert plan_of({"design": {"nodes": [{"id": "x", "type": "nope"}]}}) == []


def agent_that_fails(request):
    raise AgentFailure("boom")


@pytest.mark.parametrize("design, expected", [
    (DESIGN, "a"),  # agent retries exhausted (attempts recorded)
    ({"name": "d", "nodes": [  # a condition that cannot be parsed (no attempts at all)
        {"id": "t", "type": "trigger"},
        {"id": "b", "type": "agent", "prompt": "p", "after": ["t"]},
        {"id": "c", "type": "condition", "expression": "out.b.x === 1", "after": ["b"]}]}, "c"),
])
def test_failed_step_agrees_with_the_runner(tmp_path, design, expected) -> None:
    """What the runner really records, with and without the log."""
    runner = Runner(RunStore(tmp_path), agent=CallableAgentSeam(
        agent_that_fails if expected == "a" else (lambda request: {"output": "ok"})))
    if expected == "c":  # the validator refuses the bad condition: plant it in the snapshot
        run = runner.create({**design, "nodes": design["nodes"][:2]}, name="d")
        run["design"] = design
        runner.runs.save(run)
        final = runner.advance(run["run_id"])
    else:
        final = runner.start(design, name="d")
    assert final["status"] == "failed"
    assert failed_step(final) == expected
    assert failed_step({**final, "log": []}) == expected  # by the cursor alone


def test_lazy_runtime_exports() -> None:
    assert set(workflow.__all__) <= set(dir(workflow))
    for name in workflow.__all__:
        assert getattr(workflow, name) is not None
    with pytest.raises(AttributeError):
        workflow.no_such_thing  # noqa: B018
    code = ("import sys, hwf_lsp.workflow as w\n"
            "from hwf_lsp.workflow import validate_designer_graph, build_run_plan\n"
            "heavy = [m for m in ('runner', 'rerun', 'seams', 'delivery', 'stores', 'locks')\n"
            "         if 'hwf_lsp.workflow.' + m in sys.modules]\n"
            "assert not heavy, heavy\n"
            "from hwf_lsp.workflow import Runner, RunStore\n"
            "assert Runner.__module__ == 'hwf_lsp.workflow.runner'\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
