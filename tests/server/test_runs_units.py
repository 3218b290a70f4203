"""The protocol-free parts of runs in the editor: names, summaries, lens placement, the watcher."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from hwf_lsp.analysis.design import design_of
from hwf_lsp.analysis.jsontree import parse
from hwf_lsp.analysis.runs_index import RunInfo
from hwf_lsp.server.features.code_lens import lens_specs
from hwf_lsp.server.runs.summary import run_summary
from hwf_lsp.server.runs.watcher import RunsWatcher, runs_signature
from hwf_lsp.workflow.run_cache import RunFilesCache
from hwf_lsp.workflow.run_facts import failed_step
from hwf_lsp.workflow.stores import RunStore

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
    (state(), 3, ["a:None", "c:None", "g:None"]),  # not run: null
    (state(status="completed", outputs={"a": 1, "c": True, "g": {"choice": "approve"}},
           **APPROVE), 3, ["a:done", "c:done", "g:answered=approve"]),
    # a rejected approval is answered too (the runner also lists it as skipped)
    (state(status="completed", outputs={"a": 1, "c": True, "g": {"choice": "reject"}},
           skipped=["g"], **REJECT), 3, ["a:done", "c:done", "g:answered=reject"]),
    (state(status="failed", outputs={"a": 1}, log=[{"event": "failed", "node": "c"}]), 3,
     ["a:done", "c:failed", "g:None"]),
    # run from here: outside {c and its descendants} the base run's results are reused
    (state(status="completed", outputs={"a": 1, "c": True, "g": {"choice": "approve"}},
           **APPROVE, **FROM_C), 3, ["a:reused-rerun", "c:done+rerun", "g:answered+rerun=approve"]),
    (state(status="running", cursor=1, outputs={"a": 1}, **FROM_C), 3,
     ["a:reused-rerun", "c:None+rerun", "g:None+rerun"]),
    (state(status="running", outputs={}, skipped=["a"], **FROM_C), 3,
     ["a:reused-rerun", "c:None+rerun", "g:None+rerun"]),
    # from_node without a base run reuses nothing: no rerun flags
    (state(status="completed", outputs={"a": 1, "c": True}, from_node="c", base_run=None), 3,
     ["a:done", "c:done", "g:None"]),
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


def write_atomic(path, payload) -> None:
    tmp = path.with_name(f".tmp-{path.name}")
    tmp.write_text(json.dumps(payload))
    os.replace(tmp, path)


def test_signature_sees_every_atomic_write_and_ignores_temp_files(tmp_path) -> None:
    assert runs_signature(tmp_path / "missing") is None
    run = tmp_path / "abcdef.json"
    seen = {runs_signature(tmp_path)}
    for i in range(20):  # many writes inside one mtime tick: the inode still changes
        write_atomic(run, {"i": i})
        seen.add(runs_signature(tmp_path))
    assert len(seen) == 21
    before = runs_signature(tmp_path)
    (tmp_path / ".tmp-abcdef.json.123").write_text("{")
    (tmp_path / ".locks").mkdir()
    assert runs_signature(tmp_path) == before


def test_watcher_calls_back_on_change_only(tmp_path) -> None:
    changes = []
    fired = threading.Event()

    def on_change() -> None:
        changes.append(time.monotonic())
        fired.set()

    watcher = RunsWatcher(lambda: tmp_path, on_change, interval=0.02)
    watcher.start()
    try:
        time.sleep(0.1)
        assert changes == []
        written = time.monotonic()
        write_atomic(tmp_path / "abcdef.json", {})
        assert fired.wait(2)
        assert changes[0] - written < 0.5
        time.sleep(0.1)
        assert len(changes) == 1
    finally:
        watcher.stop()


def test_watcher_sees_atomic_and_in_place_writes(tmp_path) -> None:
    """Atomic writes by the directory's mtime; in-place rewrites by the periodic full scan."""
    run = tmp_path / "abcdef.json"
    write_atomic(run, {"i": 0})
    time.sleep(0.1)  # let the directory's mtime settle
    changes = []
    watcher = RunsWatcher(lambda: tmp_path, lambda: changes.append(time.monotonic()),
                          interval=0.02)
    watcher.start()
    try:
        time.sleep(0.1)
        for expected, write in enumerate([
            lambda: write_atomic(run, {"i": 1}),
            lambda: write_atomic(run, {"i": 2}),
            lambda: run.write_text(json.dumps({"i": 3})),  # in place: dir mtime unchanged
        ], start=1):
            written = time.monotonic()
            write()
            deadline = written + 2
            while len(changes) < expected and time.monotonic() < deadline:
                time.sleep(0.005)
            assert len(changes) == expected
            assert changes[-1] - written < 1.0
    finally:
        watcher.stop()


def test_run_files_cache_rereads_only_changed_files(tmp_path) -> None:
    store = RunStore(tmp_path)
    for i, stamp in enumerate(["2026-11-30T05:00:00Z", "2026-11-30T06:00:00Z"]):
        store.save({"run_id": f"aaaaa{i}", "name": "d", "updated_at": stamp})
    (tmp_path / "bbbbbb.json").write_text("{broken")  # skipped, never raised
    (tmp_path / "not-a-run.json").write_text("{}")
    cache = RunFilesCache(tmp_path, store)
    assert cache.snapshot is None
    first = cache.refresh()
    assert [s["run_id"] for s in first.states] == ["aaaaa1", "aaaaa0"]
    assert first.unreadable == ("bbbbbb.json", "not-a-run.json")
    assert first.newest["d"]["run_id"] == "aaaaa1"
    loads = []
    original = store.load
    store.load = lambda run_id: loads.append(run_id) or original(run_id)
    assert cache.refresh() is first  # nothing changed: nothing re-read, same snapshot
    assert loads == [] and cache.snapshot is first
    store.save({"run_id": "aaaaa0", "name": "d", "updated_at": "2026-11-30T07:00:00Z"})
    (tmp_path / "aaaaa1.json").unlink()
    second = cache.refresh()
    assert [s["run_id"] for s in second.states] == ["aaaaa0"]
    assert loads == ["aaaaa0"] and second.generation == first.generation + 1
    (tmp_path / "bbbbbb.json").unlink()  # a removed (unreadable) file changes the snapshot too
    assert cache.refresh().unreadable == ("not-a-run.json",)


def test_watcher_follows_a_new_hermes_home(tmp_path) -> None:
    homes = [tmp_path / "one", tmp_path / "two"]
    for home in homes:
        home.mkdir()
    current = [homes[0]]
    fired = threading.Event()
    watcher = RunsWatcher(lambda: current[0], fired.set, interval=0.02)
    watcher.start()
    try:
        time.sleep(0.1)
        assert not fired.is_set()
        current[0] = homes[1]  # hwf.hermesHome changed: other runs, so a change
        assert fired.wait(2)
    finally:
        watcher.stop()
