"""Issue 13, item 8 and a low item: one malformed run never hides the others.

A run file whose `pending` is a string, list, number or `true` made `hwf runs` and
`hwf show` crash ("internal error: AttributeError"); a 5000-digit number gave Python's
int-limit message without naming the run.  Now the run is shown as corrupt (saying
why), the others as usual, in `hwf runs` (text and JSON), `hwf show` and the language
server's run summaries (`hwf.listRuns`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile import ENV, agent_design, hwf, limit_memory
from rawlsp import RawLsp

from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.stores import RunStore

BAD_PENDING: dict[str, object] = {
    "a0000001": "a string",
    "a0000002": ["a", "list"],
    "a0000003": 5,
    "a0000004": True,
    "a0000005": {"kind": "approval", "node": "ok", "options": 5},
}
HUGE_NUMBER_RUN = "a0000009"


def _home(tmp_path: Path) -> tuple[Path, str]:
    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    good = Runner(runs).start(agent_design("good", agents=0, approval=True))
    template = runs.load(good["run_id"])
    for run_id, pending in BAD_PENDING.items():
        runs.path(run_id).write_text(json.dumps({**template, "run_id": run_id,
                                                 "pending": pending}))
    runs.path(HUGE_NUMBER_RUN).write_text(
        json.dumps({**template, "run_id": HUGE_NUMBER_RUN})[:-1] + ', "n": ' + "7" * 5000
        + "}")
    return home, good["run_id"]


@pytest.mark.timeout(120)
def test_hwf_runs_and_show_show_a_corrupt_run_as_corrupt(tmp_path: Path) -> None:
    home, good = _home(tmp_path)
    listed = hwf("runs", home=home)
    assert listed.code == 0, listed.text
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[1:]}
    assert "awaiting_approval" in rows[good] and "approval ok" in rows[good]
    for run_id in BAD_PENDING:
        assert " corrupt " in rows[run_id], rows[run_id]
        assert f"run {run_id} is corrupt" in listed.stderr
    assert HUGE_NUMBER_RUN in listed.stderr and "digits" in listed.stderr
    as_json = hwf("runs", "--json", home=home)
    assert as_json.code == 0, as_json.text
    summaries = {s["run_id"]: s for s in json.loads(as_json.stdout)}
    assert "corrupt" not in summaries[good]
    assert {run_id for run_id, s in summaries.items() if "corrupt" in s} == set(BAD_PENDING)
    for run_id in BAD_PENDING:
        shown = hwf("show", run_id, home=home)
        assert shown.code == 2 and f"run {run_id} is corrupt: pending" in shown.stderr, \
            shown.text
        assert "internal error" not in shown.stderr
    assert hwf("show", good, home=home).code == 0


@pytest.mark.timeout(60)
def test_a_5000_digit_number_names_its_run(tmp_path: Path) -> None:
    home, _good = _home(tmp_path)
    for args in (["show", HUGE_NUMBER_RUN], ["resume", HUGE_NUMBER_RUN]):
        done = hwf(*args, home=home)
        assert done.code == 2, done.text
        assert f"run {HUGE_NUMBER_RUN} is corrupt" in done.stderr and "digits" in done.stderr, \
            done.text


@pytest.mark.timeout(120)
def test_the_servers_run_summaries_flag_a_corrupt_run(tmp_path: Path) -> None:
    home, good = _home(tmp_path)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with RawLsp(env={**ENV, "HERMES_HOME": str(home)}, cwd=workspace,
                preexec_fn=limit_memory) as server:
        server.initialize(workspace)
        answer = server.request("workspace/executeCommand",
                                {"command": "hwf.listRuns", "arguments": []}, timeout=20)
        runs = {s["run_id"]: s for s in answer["result"]["runs"]}
        assert "corrupt" not in runs[good] and runs[good]["pending"]["node"] == "ok"
        for run_id in BAD_PENDING:
            assert runs[run_id]["corrupt"].startswith("pending"), runs[run_id]
            assert runs[run_id]["pending"] is None or isinstance(runs[run_id]["pending"], dict)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("number", ["NaN", "1e400", "-Infinity"])
def test_a_non_finite_cursor_never_hides_the_json_listing(tmp_path: Path, number: str) -> None:
    """Issue 33: a run whose `cursor` is NaN or 1e400 made `hwf runs --json` print nothing
    and exit 2; a run without `updated_at` was listed as `UPDATED None`."""
    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    good = Runner(runs).start(agent_design("good", agents=0, approval=True))["run_id"]
    template = runs.load(good)
    bad, undated = "b0000001", "b0000002"
    runs.path(bad).write_text(json.dumps({**template, "run_id": bad})
                              .replace('"cursor": 0', f'"cursor": {number}'))
    assert number in runs.path(bad).read_text()
    runs.path(undated).write_text(json.dumps(
        {k: v for k, v in {**template, "run_id": undated}.items() if k != "updated_at"}))
    as_json = hwf("runs", "--json", home=home)
    assert as_json.code == 0, as_json.text
    summaries = {s["run_id"]: s for s in json.loads(as_json.stdout)}
    assert set(summaries) == {good, bad, undated}
    assert summaries[bad]["cursor"] is None and summaries[bad]["corrupt"], summaries[bad]
    assert "corrupt" not in summaries[good] and summaries[good]["cursor"] == 0
    listed = hwf("runs", home=home)
    assert listed.code == 0, listed.text
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[1:]}
    assert " corrupt " in rows[bad], rows[bad]
    assert "None" not in rows[undated], rows[undated]
