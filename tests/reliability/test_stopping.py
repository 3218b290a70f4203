"""Issue 13, items 3 and 4: stopping cleanly.

3. `shutdown` while a run command is in flight: answered null, the run stops at a clean
   point (resumable, `interrupted` in its log), its agent is killed, `exit` gives 0.
   Before: -32603 "dictionary changed size during iteration", exit 1, the agent kept
   running, the file said `running`.
4. Ctrl-C, SIGTERM, SIGHUP to `hwf run`, kill -9 of it or of the server: the agent dies
   with its runner; after a signal `hwf run` prints `next: hwf resume ID` and the run
   records the interruption; a resume never starts a step whose earlier attempt may
   still be running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from hostile import (
    ENV,
    BlockingAgent,
    agent_design,
    alive,
    hwf,
    limit_memory,
    process_start,
    run_state,
    spawn_hwf,
    wait_until,
    write_json,
)
from rawlsp import RawLsp

from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.stores import RunStore

CAPABILITIES = {"window": {"workDoneProgress": True}}  # VS Code's, for the progress path


def _server(tmp_path: Path, home: Path, agent: BlockingAgent) -> tuple[RawLsp, Path]:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    design = write_json(workspace / "stop.hwf.json", agent_design("stop", agents=2))
    server = RawLsp(env={**ENV, "HERMES_HOME": str(home)}, cwd=workspace,
                    preexec_fn=limit_memory)
    server.initialize(workspace, CAPABILITIES,
                      options={"settings": {"hwf": {"agent": {"command": agent.argv}}}})
    return server, design


def _resumes_to_completion(home: Path, run_id: str, agent: BlockingAgent) -> dict:
    agent.release()
    done = hwf("resume", run_id, "--agent-command", agent.command, home=home)
    assert done.code == 0, done.text
    state = run_state(home, run_id)
    assert state["status"] == "completed", state
    assert state["outputs"]["a0"] == "done: step 0"
    return state


@pytest.mark.timeout(120)
def test_shutdown_during_a_run_command_stops_the_run_and_its_agent(tmp_path: Path) -> None:
    home = tmp_path / "home"
    agent = BlockingAgent(tmp_path)
    server, design = _server(tmp_path, home, agent)
    try:
        started = server.request_nowait("workspace/executeCommand", {
            "command": "hwf.startRun", "arguments": [design.as_uri()]})
        pid = agent.pid()
        answer = server.request("shutdown", timeout=20)
        assert answer.get("result", "missing") is None and "error" not in answer, answer
        run = server.wait_response(started, timeout=20)["result"]
        wait_until(lambda: not alive(pid), 5, f"agent {pid} killed at shutdown")
        state = run_state(home, run["run_id"])
        assert state["status"] == "running" and state["log"][-1]["event"] == "interrupted", \
            state["log"][-1]
        server.notify("exit")
        wait_until(lambda: server.proc.poll() is not None, 20, "the server to exit")
        assert server.proc.returncode == 0, server.stderr_tail()
    finally:
        server.close()
    _resumes_to_completion(home, run["run_id"], agent)


STOP_SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("signum", STOP_SIGNALS, ids=[s.name for s in STOP_SIGNALS])
def test_a_signal_to_hwf_run_stops_its_agent_and_says_how_to_resume(
        tmp_path: Path, signum: signal.Signals) -> None:
    home = tmp_path / "home"
    agent = BlockingAgent(tmp_path)
    design = write_json(tmp_path / "stop.hwf.json", agent_design("stop", agents=2))
    runner = spawn_hwf("run", str(design), "--agent-command", agent.command, home=home)
    pid = agent.pid()
    os.kill(runner.pid, signum)
    stdout, stderr = runner.communicate(timeout=20)
    assert runner.returncode == 128 + signum, (runner.returncode, stdout, stderr)
    run_id = stdout.split()[1]
    assert f"next: hwf resume {run_id} --agent-command" in stdout, stdout
    wait_until(lambda: not alive(pid), 5, f"agent {pid} killed with its runner")
    state = run_state(home, run_id)
    assert state["log"][-1]["event"] == "interrupted" and signum.name in \
        state["log"][-1]["detail"], state["log"][-1]
    assert "in_flight" not in state
    _resumes_to_completion(home, run_id, agent)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("runner_kind", ["hwf", "server"])
def test_kill_9_of_the_runner_kills_its_agent(tmp_path: Path, runner_kind: str) -> None:
    home = tmp_path / "home"
    agent = BlockingAgent(tmp_path)
    server = None
    if runner_kind == "hwf":
        design = write_json(tmp_path / "stop.hwf.json", agent_design("stop", agents=2))
        runner = spawn_hwf("run", str(design), "--agent-command", agent.command, home=home)
        proc = runner
    else:
        server, design = _server(tmp_path, home, agent)
        server.request_nowait("workspace/executeCommand", {
            "command": "hwf.startRun", "arguments": [design.as_uri()]})
        proc = server.proc
    pid = agent.pid()
    proc.kill()
    proc.wait(timeout=10)
    if server is not None:
        server.close()
    wait_until(lambda: not alive(pid), 5, f"agent {pid} killed with its runner (kill -9)")
    (run_id,) = [p.stem for p in (home / "workflow-runs").glob("*.json")]
    agent.forget_pid()
    state = _resumes_to_completion(home, run_id, agent)
    assert any(e["event"] == "attempt-interrupted" for e in state["log"]), state["log"]
    assert len(agent.calls()) == 3  # a0 killed, a0 again, a1


@pytest.mark.timeout(120)
def test_resume_refuses_a_step_whose_earlier_attempt_may_still_run(tmp_path: Path) -> None:
    """An agent that outlived its runner (another OS, an agent that left its group):
    resume says so and waits; once it is gone, resume performs the step again."""
    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    run_id = Runner(runs).create(agent_design("stop", agents=1))["run_id"]
    survivor = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        path = runs.path(run_id)
        state = json.loads(path.read_text())
        state["in_flight"] = {"node": "a0", "agent_pid": survivor.pid,
                              "agent_start": process_start(survivor.pid),
                              "runner_pid": 999_999, "since": state["created_at"]}
        path.write_text(json.dumps(state))
        agent = BlockingAgent(tmp_path)
        agent.release()
        refused = hwf("resume", run_id, "--agent-command", agent.command, home=home)
        assert refused.code == 4 and "may still be running" in refused.stderr, refused.text
        assert str(survivor.pid) in refused.stderr and agent.calls() == []
    finally:
        survivor.kill()
        survivor.wait()
    state = _resumes_to_completion(home, run_id, agent)
    assert [e["event"] for e in state["log"]].count("attempt-interrupted") == 1
    assert agent.calls() == [f"workflow:{run_id}:a0"]
