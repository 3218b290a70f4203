"""RunsIndex: newest run per design, corrupt files skipped, refreshed when the dir changes."""

from __future__ import annotations

import json
import os
import time

from hwf_lsp.analysis.runs_index import (
    DONE,
    FAILED,
    SKIPPED,
    WAITING,
    RunInfo,
    RunsIndex,
    design_name,
)


def write(root, run_id, name, updated, **extra):
    runs = root / "workflow-runs"
    runs.mkdir(parents=True, exist_ok=True)
    state = {"run_id": run_id, "name": name, "status": "completed", "outputs": {},
             "skipped": [], "pending": None, "error": None, "updated_at": updated, **extra}
    tmp = runs / f".{run_id}.tmp"
    tmp.write_text(json.dumps(state))
    os.replace(tmp, runs / f"{run_id}.json")


def test_newest_run_per_design_and_corrupt_files(tmp_path):
    write(tmp_path, "aaaaaa01", "x", "2026-01-01T00:00:00Z", outputs={"a": 1})
    write(tmp_path, "aaaaaa02", "x", "2026-01-02T00:00:00Z", outputs={"a": 2})
    write(tmp_path, "aaaaaa03", "y", "2026-01-03T00:00:00Z")
    (tmp_path / "workflow-runs" / "bbbbbb01.json").write_text("{ not json")
    (tmp_path / "workflow-runs" / "bbbbbb02.json").write_text("[1, 2]")
    (tmp_path / "workflow-runs" / "not-a-run-id.json").write_text("{}")
    index = RunsIndex(tmp_path)
    assert index.newest("x").outputs == {"a": 2}
    assert index.newest("y").run_id == "aaaaaa03"
    assert index.newest("z") is None and index.newest(None) is None


def test_refresh_after_a_new_run(tmp_path):
    write(tmp_path, "aaaaaa01", "x", "2026-01-01T00:00:00Z")
    index = RunsIndex(tmp_path)
    assert index.newest("x").run_id == "aaaaaa01"
    time.sleep(0.06)
    write(tmp_path, "aaaaaa02", "x", "2026-01-02T00:00:00Z")
    assert index.newest("x").run_id == "aaaaaa02"


def test_missing_home(tmp_path):
    assert RunsIndex(tmp_path / "nope").newest("x") is None


def test_node_status():
    run = RunInfo.from_state({
        "run_id": "r", "status": "failed", "outputs": {"a": 0}, "skipped": ["s"],
        "pending": {"node": "w"}, "error": {"node": "f", "msg": "boom"}, "attempts": {"f": 2},
    }, "/x")
    assert [run.node_status(n) for n in ("a", "s", "w", "f", "other")] == [
        DONE, SKIPPED, WAITING, FAILED, None]


def test_junk_state_fields_are_tolerated():
    run = RunInfo.from_state({"run_id": 5, "outputs": [], "skipped": "x", "pending": 3}, "/x")
    assert (run.outputs, run.skipped, run.pending, run.node_status("a")) == ({}, (), None, None)


def test_design_name():
    assert design_name({"name": "n"}, "/x/y.hwf.json") == "n"
    assert design_name({}, "/x/y.hwf.json") == "y"
    assert design_name(None, "/d/workflow-designs/z.json") == "z"
    assert design_name([], None) is None
