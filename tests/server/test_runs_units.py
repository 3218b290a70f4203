"""The protocol-free parts of runs in the editor: names, summaries, lens placement."""

from __future__ import annotations

import json

import pytest

from hwf_lsp.analysis.design import design_of
from hwf_lsp.analysis.jsontree import parse
from hwf_lsp.analysis.runs_index import RunInfo
from hwf_lsp.server.features.code_lens import lens_specs
from hwf_lsp.server.runs.summary import run_summary
from hwf_lsp.workflow.run_facts import failed_step

DESIGN = {"name": "d", "nodes": [
    {"id": "t", "type": "trigger"},
    {"id": "a", "type": "agent", "prompt": "p", "after": ["t"]},
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


@pytest.mark.parametrize("run, steps, step_states", [
    (state(status="awaiting_approval", cursor=2, outputs={"a": 1}, skipped=["c"],
           pending={"node": "g"}), 3, ["done", "skipped", "waiting"]),
    (state(design=None), None, []),
    ({"run_id": 7, "cursor": True, "outputs": "x"}, None, []),
])
def test_run_summary(run, steps, step_states, tmp_path) -> None:
    summary = run_summary(run, tmp_path)
    assert summary["steps"] == steps
    assert [s["status"] for s in summary["step_states"]] == step_states
    json.dumps(summary)  # always serialisable
    assert set(summary) >= {"run_id", "name", "status", "cursor", "pending", "error",
                            "updated_at", "path"}


def run_info(**overrides):
    return RunInfo.from_state(state(**overrides), "/runs/abcdef.json")


@pytest.mark.parametrize("run, expected", [
    (None, [("t", "▶ Start run"), ("a", "▶ Run from here"), ("c", "▶ Run from here"),
            ("g", "▶ Run from here")]),
    (run_info(status="awaiting_approval", cursor=2, pending={"node": "g"}),
     [("t", "▶ Start run"), ("t", "last run abcdef: awaiting_approval"),
      ("a", "▶ Run from here"), ("c", "▶ Run from here"), ("g", "▶ Run from here"),
      ("g", "Answer…")]),
    (run_info(status="awaiting_agent", cursor=0, pending={"node": "a"}),
     [("t", "▶ Start run"), ("t", "last run abcdef: awaiting_agent"), ("a", "▶ Run from here"),
      ("a", "Respond…"), ("c", "▶ Run from here"), ("g", "▶ Run from here")]),
    (run_info(status="failed", cursor=1, outputs={"a": 1}),
     [("t", "▶ Start run"), ("t", "last run abcdef: failed"), ("a", "▶ Run from here"),
      ("c", "▶ Run from here"), ("c", "↻ Retry from here"), ("g", "▶ Run from here")]),
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
