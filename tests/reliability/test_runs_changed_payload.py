"""`hwf/runsChanged` carries what changed: a parked run's context (up to the 1 MiB output
cap) is not sent again for every unrelated run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile import ENV, agent_design, limit_memory
from rawlsp import RawLsp

from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.stores import RunStore

BIG_OUTPUT = "x" * 900_000
"""Under the 1 MiB output cap: the parked step's context holds all of it."""
DELTA_LIMIT_BYTES = 64_000


@pytest.mark.timeout(120)
def test_an_unrelated_run_does_not_resend_a_parked_runs_context(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    runner = Runner(RunStore(home / "workflow-runs"))
    parked = runner.start(agent_design("big", agents=2))
    parked = runner.respond(parked["run_id"], output=BIG_OUTPUT)  # parks at a1, a0 upstream
    assert parked["status"] == "awaiting_agent"
    assert len(json.dumps(parked["pending"])) > len(BIG_OUTPUT)
    for _ in range(2):
        runner.start(agent_design("tiny", agents=0))
    server = RawLsp(env={**ENV, "HERMES_HOME": str(home)}, cwd=workspace,
                    preexec_fn=limit_memory)
    try:
        server.initialize(workspace, {})

        def seen(run_id: str) -> None:
            server.wait_notification("hwf/runsChanged", lambda params: any(
                run.get("run_id") == run_id
                for run in params.get("changed", params.get("runs", []))), timeout=20)

        # once a first new run has been told, the start-up listing (a full one) is behind us
        seen(runner.start(agent_design("first", agents=0))["run_id"])
        before = len(server.notifications)
        seen(runner.start(agent_design("later", agents=0))["run_id"])
        sent = [message for message in server.notifications[before:]
                if message.get("method") == "hwf/runsChanged"]
        sizes = [len(json.dumps(message)) for message in sent]
        assert all(parked["run_id"] not in json.dumps(message) for message in sent), sizes
        assert max(sizes) < DELTA_LIMIT_BYTES, sizes
    finally:
        server.close()
