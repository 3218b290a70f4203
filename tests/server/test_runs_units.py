"""The protocol-free parts of runs in the editor: names, summaries, lens placement."""

from __future__ import annotations

import json

import pytest

from hwf_lsp.analysis.design import design_of
from hwf_lsp.analysis.newest_run import RunInfo
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.rules.run_facts import failed_step
from hwf_lsp.server.features.code_lens import lens_specs
from hwf_lsp.workflow.run_summary import run_summary

DESIGN = {"name": "d", "nodes": [
    {"id": "t", "type": "trigger"},
    {"id": "a", "type": "agent", "title": "Ask", "prompt": "p", "after": ["t"]},
    {"id": "c", "type": "condition", "expression": "out.a.x == 1", "after": ["a"]},
    {"id": "g", "type": "approval", "question": "q?", "after": ["c"]},
    {"id": "n", "type": "note", "text": "hi"},
]}


def state(**overrides):
    base = {"run_id": "abcdef", "name": "d", "cursor": 0, "status": "running", "outputs": {},
            "skipped": [], "pending": None, "error": None, "design": DESIGN, "log": []}
    return {**base, **overrides}


@pytest.mark.parametrize("run, expected", [
    (state(status="completed", outputs={"a": 1}), None),
    (state(status="failed", cursor=1, outputs={"a": 1}), "c"),  # by the cursor
    (state(status="failed", log=[{"event": "failed", "node": "a"}]), "a"),  # by the log
    (state(status="failed", cursor=9), None),
    (state(status="failed", design="junk"), None),
])
def test_failed_step(run, expected) -> None:
    assert failed_step(run) == expected


def step_facts(summary):
    """Each step as `id:status`, with `+rerun`/`-rerun` and `=answer` when the summary says."""
    facts = []
    for step in summary["step_states"]:
        fact = f"{step['id']}:{step['status']}"
        if "rerun" in step:
            fact += "+rerun" if step["rerun"] else "-rerun"
        if "answer" in step:
            fact += f"={step['answer']}"
        facts.append(fact)
    return facts


FROM_C = {"from_node": "c", "base_run": "base12"}
APPROVE, REJECT = {"answers": {"g": "approve"}}, {"answers": {"g": "reject"}}
PARKED_AT_G = {"status": "awaiting_approval", "cursor": 2, "outputs": {"a": 1, "c": True}}


@pytest.mark.parametrize("run, steps, facts", [
    (state(status="awaiting_approval", cursor=2, outputs={"a": 1}, skipped=["c"],
           pending={"node": "g"}), 3, ["a:done", "c:skipped", "g:waiting"]),
    (state(), 3, ["a:running", "c:not run", "g:not run"]),  # the step at the cursor runs
    (state(status="completed", outputs={"a": 1, "c": True, "g": {"choice": "approve"}},
           **APPROVE), 3, ["a:done", "c:done", "g:answered=approve"]),
    # a rejected approval reads rejected (the runner also lists it as skipped)
    (state(status="completed", outputs={"a": 1, "c": True, "g": {"choice": "reject"}},
           skipped=["g"], **REJECT), 3, ["a:done", "c:done", "g:rejected=reject"]),
    (state(status="failed", outputs={"a": 1}, log=[{"event": "failed", "node": "c"}]), 3,
     ["a:done", "c:failed", "g:not run"]),
    (state(status="cancelled", outputs={"a": 1}, cursor=1), 3,
     ["a:done", "c:not run", "g:not run"]),
    # run from here: outside {c and its descendants} the base run's results are reused
    (state(status="completed", outputs={"a": 1, "c": True, "g": {"choice": "approve"}},
           **APPROVE, **FROM_C), 3, ["a:reused-rerun", "c:done+rerun", "g:answered+rerun=approve"]),
    (state(status="running", cursor=1, outputs={"a": 1}, **FROM_C), 3,
     ["a:reused-rerun", "c:running+rerun", "g:not run+rerun"]),
    (state(status="running", outputs={}, skipped=["a"], **FROM_C), 3,
     ["a:reused-rerun", "c:running+rerun", "g:not run+rerun"]),
    # from_node without a base run reuses nothing: no rerun flags
    (state(status="completed", outputs={"a": 1, "c": True}, from_node="c", base_run=None), 3,
     ["a:done", "c:done", "g:not run"]),
    (state(design=None), None, []),
    (state(design=None, **FROM_C), None, []),
    ({"run_id": 7, "cursor": True, "outputs": "x"}, None, []),
])
def test_run_summary(run, steps, facts, tmp_path) -> None:
    summary = run_summary(run, tmp_path)
    assert summary["steps"] == steps
    assert step_facts(summary) == facts
    json.dumps(summary)  # always serialisable
    assert set(summary) >= {"run_id", "name", "status", "cursor", "pending", "error",
                            "updated_at", "path", "design_path"}


def test_run_summary_steps_carry_type_and_title(tmp_path) -> None:
    steps = run_summary(state(), tmp_path)["step_states"]
    assert [(s["id"], s["type"], s["title"]) for s in steps] == [
        ("a", "agent", "Ask"), ("c", "condition", None), ("g", "approval", None)]


@pytest.mark.parametrize("pending, options", [
    ({"kind": "approval", "node": "g"}, ["approve", "reject"]),  # absent: the defaults
    ({"kind": "approval", "node": "g", "options": ["ship", "hold"]}, ["ship", "hold"]),
    ({"kind": "approval", "node": "g", "options": []}, ["approve", "reject"]),
    ({"kind": "approval", "node": "g", "options": [1, 2]}, ["approve", "reject"]),
    ({"kind": "approval", "node": "g", "options": "ship"}, ["approve", "reject"]),
    ({"node": "g"}, ["approve", "reject"]),  # no kind: the status says approval
])
def test_run_summary_resolves_approval_options(pending, options, tmp_path) -> None:
    given = json.loads(json.dumps(pending))
    summary = run_summary(state(**PARKED_AT_G, pending=pending), tmp_path)
    assert summary["pending"] == {**given, "options": options}
    assert pending == given  # the state read from the run file is not changed


@pytest.mark.parametrize("pending", [None, "junk", {"kind": "agent", "node": "a", "prompt": "p"}])
def test_run_summary_leaves_other_pending_alone(pending, tmp_path) -> None:
    run = state(status="awaiting_agent", pending=pending)
    assert run_summary(run, tmp_path)["pending"] == (pending if isinstance(pending, dict) else None)


@pytest.mark.parametrize("name, stored, expected", [
    ("d", True, "workflow-designs/d.json"),
    ("d", False, None),
    ("../d", False, None),  # not a design name: never a path outside the store
    (None, False, None),
])
def test_run_summary_design_path(name, stored, expected, tmp_path) -> None:
    designs = tmp_path / "workflow-designs"
    designs.mkdir()
    if stored:
        (designs / f"{name}.json").write_text(json.dumps(DESIGN))
    summary = run_summary(state(name=name), tmp_path / "workflow-runs")
    assert summary["design_path"] == (str(tmp_path / expected) if expected else None)


def run_info(**overrides):
    return RunInfo.from_state(state(**overrides), "/runs/abcdef.json")


@pytest.mark.parametrize("run, expected", [
    (None, [("t", "▶ Start run"), ("a", "▶ Run from here"), ("c", "▶ Run from here"),
            ("g", "▶ Run from here")]),
    (run_info(status="awaiting_approval", cursor=2, outputs={"a": 1, "c": True},
              pending={"node": "g"}),
     [("t", "▶ Start run"), ("t", "last run abcdef: awaiting_approval · 2/3 steps finished"),
      ("a", "▶ Run from here"), ("a", "✓ done"), ("c", "▶ Run from here"), ("c", "✓ done"),
      ("g", "▶ Run from here"), ("g", "⏸ waiting for approval"), ("g", "Answer…")]),
    (run_info(status="awaiting_agent", cursor=0, pending={"node": "a"}),
     [("t", "▶ Start run"), ("t", "last run abcdef: awaiting_agent · 0/3 steps finished"),
      ("a", "▶ Run from here"), ("a", "⏸ waiting for an agent"), ("a", "Respond…"),
      ("c", "▶ Run from here"), ("c", "○ not run"), ("g", "▶ Run from here"),
      ("g", "○ not run")]),
    (run_info(status="failed", cursor=1, outputs={"a": 1}),
     [("t", "▶ Start run"), ("t", "last run abcdef: failed · 1/3 steps finished"),
      ("a", "▶ Run from here"), ("a", "✓ done"), ("c", "▶ Run from here"), ("c", "✗ failed"),
      ("c", "↻ Retry from here"), ("g", "▶ Run from here"), ("g", "○ not run")]),
])
def test_lens_specs(run, expected) -> None:
    text = json.dumps(DESIGN, indent=1)
    doc = parse(text)
    specs = lens_specs(design_of(doc), "file:///d.hwf.json", run)
    # each lens sits on the `{` that opens its node
    node_at = {text.rindex("{", 0, text.index('"id": "' + node["id"])): node["id"]
               for node in DESIGN["nodes"]}
    found = [(node_at[offset], title) for offset, title, _command, _args in specs]
    assert found == expected


def test_lens_specs_tolerate_broken_json() -> None:
    doc = parse('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, {"id": "a", "ty')
    specs = lens_specs(design_of(doc), "file:///d.hwf.json", None)
    assert [title for _, title, _, _ in specs] == ["▶ Start run"]
