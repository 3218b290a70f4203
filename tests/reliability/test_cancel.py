"""Issue 13, item 5 and two low items: a cancel always lands, and lands as `cancelled`.

- A cancel that arrives while the run parks (after the runner's last look, before the
  park) used to be left behind: the run parked with `.locks/<id>.cancel` present, and the
  next `hwf answer` printed "answered" then "is cancelled", the answer recorded in a
  cancelled run.  Now parking honours it; an answer never lands in a run then cancelled.
- Cancel of a busy run (its agent at work) ended `failed` ("agent timed out") once the
  agent ran out of time; now the agent is stopped at once and the run ends `cancelled`,
  and `hwf cancel` waits for it and says so.
- A directory at `.locks/<id>.cancel` left the run stuck at `running`.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from hostile import BlockingAgent, agent_design, hwf, spawn_hwf, wait_until, write_json

from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.seams import CommandAgentSeam
from hwf_lsp.workflow.stores import RunStore


def _marker(runs: RunStore, run_id: str) -> Path:
    return runs.root / ".locks" / f"{run_id}.cancel"


def test_a_cancel_that_lands_while_the_run_parks_cancels_it(tmp_path: Path) -> None:
    runs = RunStore(tmp_path / "workflow-runs")
    design = agent_design("park", agents=0, approval=True)
    holder = Runner(runs)
    run_id = holder.create(design)["run_id"]

    def cancel_lands(label: str) -> None:  # another process's `hwf cancel`, mid-park
        if label == "step-start":
            _marker(runs, run_id).parent.mkdir(parents=True, exist_ok=True)
            _marker(runs, run_id).touch()

    holder.checkpoint = cancel_lands
    state = holder.advance(run_id)
    assert state["status"] == "cancelled", state["status"]
    assert not _marker(runs, run_id).exists()


@pytest.mark.timeout(60)
def test_an_answer_is_never_recorded_into_a_run_then_cancelled(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    run_id = Runner(runs).start(agent_design("park", agents=0, approval=True))["run_id"]
    _marker(runs, run_id).touch()  # a cancel left behind by a runner that had parked
    done = hwf("answer", run_id, "approve", home=home)
    assert done.code == 1, done.text
    assert "answered" not in done.stdout and "not recorded" in done.stderr, done.text
    state = runs.load(run_id)
    assert state["status"] == "cancelled" and state["answers"] == {}, state
    assert "ok" not in state["outputs"] and state["deliveries"] == []


@pytest.mark.timeout(60)
def test_cancel_of_a_busy_run_stops_its_agent_and_ends_cancelled(tmp_path: Path) -> None:
    """Engine: the agent's timeout would fire first if the cancel waited for the step."""
    runs = RunStore(tmp_path / "workflow-runs")
    agent = BlockingAgent(tmp_path)
    # the agent's timeout is far off (30 s): a cancel that waited for the step would show
    runner = Runner(runs, agent=CommandAgentSeam(agent.argv, default_timeout_s=30.0))
    run_id = runner.create(agent_design("busy", agents=1))["run_id"]
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(runner.advance(run_id)))
    thread.start()
    agent.pid()
    started = time.monotonic()
    Runner(runs).cancel(run_id)
    thread.join(40)
    assert result["status"] == "cancelled", result.get("error")
    assert time.monotonic() - started < 10, "the cancel waited for the agent"


@pytest.mark.timeout(60)
def test_hwf_cancel_of_a_busy_run_waits_and_reports_cancelled(tmp_path: Path) -> None:
    home = tmp_path / "home"
    agent = BlockingAgent(tmp_path)
    design = write_json(tmp_path / "busy.hwf.json", agent_design("busy", agents=1))
    holder = spawn_hwf("run", str(design), "--agent-command", agent.command, home=home)
    agent.pid()
    (run_id,) = [p.stem for p in (home / "workflow-runs").glob("*.json")]
    cancelled = hwf("cancel", run_id, home=home)
    assert cancelled.code == 0 and f"run {run_id} cancelled" in cancelled.stdout, \
        cancelled.text
    holder.communicate(timeout=20)
    assert holder.returncode == 1
    assert RunStore(home / "workflow-runs").load(run_id)["status"] == "cancelled"


def test_a_directory_at_the_cancel_marker_does_not_leave_the_run_running(
        tmp_path: Path) -> None:
    runs = RunStore(tmp_path / "workflow-runs")
    runner = Runner(runs)
    run_id = runner.create(agent_design("dir", agents=1))["run_id"]
    _marker(runs, run_id).mkdir(parents=True)
    state = runner.advance(run_id)
    assert state["status"] == "cancelled"
    assert runs.load(run_id)["status"] == "cancelled"
    wait_until(lambda: not _marker(runs, run_id).exists(), 1, "the marker removed")
