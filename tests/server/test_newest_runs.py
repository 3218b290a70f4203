"""NewestRunsByDesign: newest run per design, corrupt files skipped, refreshed when the dir changes."""

from __future__ import annotations

import json
import os
import time

from hwf_lsp.analysis.newest_run import RunInfo
from hwf_lsp.rules.step_words import STEP_DONE as DONE
from hwf_lsp.rules.step_words import STEP_FAILED as FAILED
from hwf_lsp.rules.step_words import STEP_SKIPPED as SKIPPED
from hwf_lsp.rules.step_words import STEP_WAITING as WAITING
from hwf_lsp.server.runs.newest_runs import NewestRunsByDesign


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
    index = NewestRunsByDesign(tmp_path)
    assert index.newest("x").outputs == {"a": 2}
    assert index.newest("y").run_id == "aaaaaa03"
    assert index.newest("z") is None and index.newest(None) is None


def test_refresh_after_a_new_run(tmp_path):
    write(tmp_path, "aaaaaa01", "x", "2026-01-01T00:00:00Z")
    index = NewestRunsByDesign(tmp_path)
    assert index.newest("x").run_id == "aaaaaa01"
    time.sleep(0.06)
    write(tmp_path, "aaaaaa02", "x", "2026-01-02T00:00:00Z")
    assert index.newest("x").run_id == "aaaaaa02"


def test_missing_home(tmp_path):
    assert NewestRunsByDesign(tmp_path / "nope").newest("x") is None


DESIGN = {"name": "x", "nodes": [
    {"id": "t", "type": "trigger"},
    {"id": "a", "type": "agent", "prompt": "p", "after": ["t"]},
    {"id": "s", "type": "condition", "expression": "out.a.k == 1", "after": ["a"]},
    {"id": "f", "type": "agent", "prompt": "p", "after": ["a"]},
]}


def status(run: RunInfo, node_id: str) -> str | None:
    """The step's state word, None for a node that is no step of the run."""
    fact = run.fact(node_id)
    return None if fact is None else fact["status"]


def test_node_status():
    """As the runner records a failure: a `failed` log entry naming the step."""
    run = RunInfo.from_state({
        "run_id": "r", "status": "failed", "outputs": {"a": 0}, "skipped": ["s"],
        "pending": {"node": "w"}, "error": "agent step 'f' failed after 3 attempts",
        "log": [{"event": "attempt-failed", "node": "f"}, {"event": "failed", "node": "f"}],
    }, "/x")
    # a failed run waits for nothing: its stale `pending` is no waiting step
    assert [status(run, n) for n in ("a", "s", "w", "f", "other")] == [
        DONE, SKIPPED, None, FAILED, None]
    parked = RunInfo.from_state({"run_id": "r", "status": "awaiting_agent", "outputs": {},
                                 "skipped": [], "pending": {"node": "w"}}, "/x")
    assert status(parked, "w") == WAITING


def test_failure_without_attempts_is_found_by_the_cursor():
    """A condition that cannot be parsed fails with no attempt; a log-less run (another
    tool's) still has its cursor on the failed step and its design snapshot."""
    run = RunInfo.from_state({"run_id": "r", "status": "failed", "cursor": 2, "design": DESIGN,
                              "outputs": {"a": 0}, "skipped": ["s"], "attempts": {},
                              "error": "condition 's' cannot be parsed"}, "/x")
    assert run.failed == "f" and status(run, "f") == FAILED


def test_fed_index_answers_from_the_index_only(tmp_path):
    """The language server's mode: questions never sync with the disk, and before the
    first `refresh()` (the watcher's prime) there are no runs rather than a wait;
    `refresh()` brings changes in, reading only changed files."""
    write(tmp_path, "aaaaaa01", "x", "2026-01-01T00:00:00Z")
    write(tmp_path, "aaaaaa02", "y", "2026-01-01T00:00:00Z")
    index = NewestRunsByDesign(tmp_path, auto_refresh=False)
    assert index.newest("x") is None  # no waiting for the disk
    index.refresh()
    assert index.newest("x").run_id == "aaaaaa01"
    reads = index.index.reads
    time.sleep(0.06)
    write(tmp_path, "aaaaaa03", "x", "2026-01-02T00:00:00Z")
    assert index.newest("x").run_id == "aaaaaa01" and index.index.reads == reads
    index.refresh()
    assert index.newest("x").run_id == "aaaaaa03"
    assert index.index.reads == reads + 2  # the new file, by the sync and by its RunInfo
    assert index.newest("x") is index.newest("x")  # RunInfo built once per change
    assert index.newest("y").run_id == "aaaaaa02"


def test_junk_state_fields_are_tolerated():
    run = RunInfo.from_state({"run_id": 5, "outputs": [], "skipped": "x", "pending": 3}, "/x")
    assert (run.outputs, run.skipped, run.pending, status(run, "a")) == ({}, (), None, None)
