"""One rule for "which step failed", and contract 1 (`hwf_lsp.workflow`) loading no runtime."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hwf_lsp.rules.run_facts import failed_step, plan_of
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


def test_contract_one_loads_no_runtime() -> None:
    code = ("import sys\n"
            "from hwf_lsp.workflow import validate_designer_graph, build_run_plan\n"
            "heavy = [m for m in ('runner', 'rerun', 'seams', 'delivery', 'stores', 'locks')\n"
            "         if 'hwf_lsp.workflow.' + m in sys.modules]\n"
            "assert not heavy, heavy\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# --- step facts: what each step did, one rule each ---------------------------------

FACTS_DESIGN = {"name": "d", "nodes": [
    {"id": "t", "type": "trigger"},
    {"id": "a", "type": "agent", "prompt": "p", "after": ["t"]},
    {"id": "g", "type": "approval", "question": "q?", "after": ["a"]},
    {"id": "c", "type": "condition", "expression": "out.a.x == 1", "after": ["g"]},
    {"id": "o", "type": "output", "deliver": "channel", "target": "x:y", "after": ["c"]},
]}


def run(**overrides):
    base = {"run_id": "abcdef", "name": "d", "cursor": 0, "status": "running", "outputs": {},
            "skipped": [], "pending": None, "error": None, "answers": {}, "deliveries": [],
            "attempts": {}, "design": FACTS_DESIGN, "log": []}
    return {**base, **overrides}


DONE_A = {"outputs": {"a": 1}, "cursor": 1}
RECEIPT = {"key": "abcdef:o", "node": "o", "deliver": "channel", "target": "x:y", "ok": False,
           "error": "no channel command configured", "at": "2026-01-01T00:00:00.000Z"}


@pytest.mark.parametrize("state, step, expected", [
    # the step at the cursor of a running run runs; an interrupted run runs nothing
    (run(**DONE_A), "g", {"status": "running"}),
    (run(**DONE_A, log=[{"event": "interrupted", "node": "g"}]), "g", {"status": "not run"}),
    # an agent command at work: its start is in_flight's
    (run(in_flight={"node": "a", "since": "2026-01-01T00:00:01.000Z"}), "a",
     {"status": "running", "started_at": "2026-01-01T00:00:01.000Z"}),
    # a rejection by its deadline reads rejected, with the runner's words
    (run(status="completed", cursor=4, outputs={"a": 1, "g": {"choice": "reject"}},
         skipped=["g", "c", "o"], answers={"g": "reject"},
         log=[{"event": "answered", "node": "g", "detail": "no answer within 5 minutes: reject"}]),
     "g", {"status": "rejected", "answer": "reject",
           "detail": "no answer within 5 minutes: reject"}),
    # ... and everything downstream, transitively, is skipped: rejected upstream
    (run(status="completed", cursor=4, outputs={"a": 1, "g": {"choice": "reject"}},
         skipped=["g", "c", "o"], answers={"g": "reject"}), "o",
     {"status": "skipped", "why": "rejected upstream", "parent": "c"}),
    # a false condition, then its child
    (run(status="completed", cursor=4, outputs={"a": 1, "g": {"choice": "ok"}},
         answers={"g": "ok"}, skipped=["c", "o"]), "c",
     {"status": "skipped", "why": "false condition"}),
    (run(status="completed", cursor=4, outputs={"a": 1, "g": {"choice": "ok"}},
         answers={"g": "ok"}, skipped=["c", "o"]), "o",
     {"status": "skipped", "why": "skipped parent", "parent": "c"}),
    # a failed delivery keeps its output and reads not delivered, with the receipt's error
    (run(status="completed", cursor=4, outputs={"o": {}}, deliveries=[RECEIPT]), "o",
     {"status": "not delivered", "error": "no channel command configured", "target": "x:y"}),
    # a later ok receipt of the same key wins
    (run(status="completed", cursor=4, outputs={"o": {}},
         deliveries=[RECEIPT, {**RECEIPT, "ok": True}]), "o", {"status": "done"}),
    # waiting: for what and since when; an escalation delivered
    (run(status="awaiting_approval", cursor=1, outputs={"a": 1},
         pending={"kind": "approval", "node": "g", "waiting_since": "2026-01-01T00:00:00Z"},
         deliveries=[{"key": "abcdef:g:escalation", "ok": True}]), "g",
     {"status": "waiting", "waiting_for": "approval", "since": "2026-01-01T00:00:00Z",
      "escalated": True}),
    # a failed run's step, its attempts from the log when the run has no step records
    (run(status="failed", error="agent step 'a' failed after 2 attempts: x", attempts={"a": 2},
         log=[{"event": "attempt-failed", "node": "a", "detail": "attempt 1 of 2 failed: x",
               "at": "t1"},
              {"event": "failed", "node": "a", "detail": "agent step 'a' failed", "at": "t2"}]),
     "a", {"status": "failed", "error": "agent step 'a' failed after 2 attempts: x",
           "attempts": [{"error": "attempt 1 of 2 failed: x", "at": "t1"},
                        {"error": "agent step 'a' failed", "at": "t2"}]}),
    # ... and from the runner's records when it has them
    (run(status="failed", attempts={"a": 1},
         steps={"a": {"started_at": "s", "ended_at": "e", "attempts": [{"error": "x",
                                                                         "at": "t"}]}}),
     "a", {"status": "failed", "attempts": [{"error": "x", "at": "t"}], "started_at": "s",
           "ended_at": "e"}),
    # a cancelled run's parked step never ran
    (run(status="cancelled", cursor=1, outputs={"a": 1}), "g", {"status": "not run"}),
    # junk records are no facts
    (run(status="completed", cursor=4, outputs={"a": 1}, steps={"a": "junk"}), "a",
     {"status": "done", "started_at": None}),
])
def test_step_facts(state, step, expected) -> None:
    from hwf_lsp.rules.run_facts import step_facts
    from hwf_lsp.rules.step_words import step_label

    fact = next(f for f in step_facts(state) if f["id"] == step)
    assert {key: fact.get(key) for key in expected} == expected
    assert fact["label"] == step_label(fact) and fact["icon"] == fact["label"][0]


def test_the_runner_records_each_step(tmp_path) -> None:
    """started/ended times, failed attempts with their errors, the context an agent got;
    one save per step as before (records ride on the step's own persist)."""
    failures = iter([True])

    def flaky(request):
        if next(failures, False):
            raise AgentFailure("overloaded")
        return {"output": "fine"}

    design = {"name": "d", "nodes": [
        {"id": "t", "type": "trigger"},
        {"id": "a", "type": "agent", "prompt": "p", "retries": 1, "after": ["t"]},
        {"id": "b", "type": "agent", "prompt": "p", "after": ["a"]}]}
    runs = RunStore(tmp_path)
    saves = []
    original = runs.save
    runs.save = lambda state: saves.append(1) or original(state)  # type: ignore[method-assign]
    clock = iter(range(1_790_000_000, 1_790_000_100))
    final = Runner(runs, agent=CallableAgentSeam(flaky), clock=lambda: next(clock)).start(
        design, name="d")
    assert final["status"] == "completed"
    records = runs.load(final["run_id"])["steps"]
    assert records["a"]["context"] == "{}" and "attempts" not in records["b"]
    assert [a["error"] for a in records["a"]["attempts"]] == ["overloaded"]
    assert records["b"]["context"] == '{"a": "fine"}'
    for record in records.values():
        assert record["started_at"] < record["ended_at"]
    assert len(saves) == 1 + 1 + 1 + 1 + 1  # create, a's failed attempt, a, b, completed


def test_step_facts_of_any_junk_never_raise() -> None:
    """A run file may be another tool's or hand-edited: any JSON in any key gives facts in
    the vocabulary's words, never an exception."""
    from hypothesis import given
    from hypothesis import strategies as st

    from hwf_lsp.rules.run_facts import step_facts
    from hwf_lsp.rules.step_words import STEP_STATES
    from hwf_lsp.workflow.run_summary import run_summary

    ids = st.sampled_from(["a", "g", "c", "o", "zz"])
    junk = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3) | ids,
                        lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(max_size=2) | ids, inner, max_size=3),
                        max_leaves=8)
    keys = ["cursor", "status", "outputs", "skipped", "pending", "error", "answers",
            "deliveries", "attempts", "log", "steps", "in_flight", "base_run", "from_node"]

    @given(st.dictionaries(st.sampled_from(keys), junk | st.sampled_from(
        ["running", "failed", "awaiting_approval", "awaiting_agent", 0, 2]), max_size=8))
    def check(overrides) -> None:
        state = run(**overrides)
        for fact in step_facts(state):
            assert fact["status"] in STEP_STATES
        json.dumps(run_summary(state, "/runs"))

    check()
