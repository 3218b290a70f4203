"""`hwf.cancelRun` of a run another process advances says so (issue 45, an earlier round's
failure; docs/commands.md, cancelRun): the server leaves the cancel marker, the other
runner stops, and the summary's `notices` say another process was advancing it (was: the
run came back cancelled at once with no word of the other process).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pytest_lsp import LanguageClient
from runs_helpers import RunsEnv, chain_design, execute, wait_for
from support.lsp import client_fixture

pytestmark = pytest.mark.asyncio(loop_scope="module")

ENV = RunsEnv("cancel-other")
client = client_fixture(ENV.config(), ENV.workspace)


async def test_the_summary_says_another_process_was_advancing_it(client: LanguageClient):
    design = ENV.workspace / "busy.hwf.json"
    design.write_text(json.dumps(chain_design("busy", ["slow"])), encoding="utf-8")
    other = subprocess.Popen(
        [sys.executable, "-m", "hwf_lsp.cli", "run", str(design), "--agent-command",
         " ".join(ENV.agent_command(sleep=60)), "--hermes-home", str(ENV.home)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        run_file = await wait_for(lambda: next(ENV.runs_dir.glob("*.json"), None), 20)
        await wait_for(lambda: ENV.load_run(run_file.stem).get("in_flight"), 20)
        summary = await execute(client, "hwf.cancelRun", run_file.stem)
        assert summary["status"] in ("cancelled", "running"), summary
        [notice] = summary["notices"]
        assert "another process" in notice, notice
        assert other.wait(30) == 1  # the other runner stopped: its run was cancelled
    finally:
        other.kill()
        other.communicate()
