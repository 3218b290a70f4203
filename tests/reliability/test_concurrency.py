"""Concurrency across processes: readers never see a partial run file, runners never lose
an update, and the language server and the CLI can advance the same run safely.

(tests/workflow/test_stores.py::test_reader_never_sees_partial_json covers readers
and a writer as threads of one process; here they are separate processes, as the
canvas, the CLI and the editor are.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from rawlsp import RawLsp

from hwf_lsp.workflow.locks import RunBusyError
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.stores import RunStore

HERE = Path(__file__).resolve().parent
SOAK = os.environ.get("HWF_SOAK") == "1"
WRITES = 30_000 if SOAK else 3_000
MIN_READS = 100_000 if SOAK else 10_000
RUN_ID = "c0ffee00"
ENV = {**os.environ, "PYTHONPATH": str(Path.cwd())}
ENV.pop("HWF_AGENT_COMMAND", None)
ENV.pop("HWF_DELIVERY_COMMAND", None)

WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from hwf_lsp.workflow.stores import RunStore
    runs = RunStore(Path(sys.argv[1]))
    for seq in range(int(sys.argv[2])):
        payload = "x" * (seq * 7919 % 8_000)   # sizes jump between 0 and 8 KB
        runs.save({"run_id": sys.argv[3], "seq": seq, "payload": payload,
                   "check": len(payload)})
""")


@pytest.mark.timeout(3600)
def test_readers_never_see_a_partial_run_file(tmp_path: Path) -> None:
    runs = RunStore(tmp_path)
    runs.save({"run_id": RUN_ID, "seq": -1, "payload": "", "check": 0})
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(WRITES), RUN_ID],
                              env=ENV, stderr=subprocess.PIPE)
    reads = raw_reads = partial = went_back = 0
    seen_seqs: set[int] = set()
    last_seq = -1
    path = runs.path(RUN_ID)
    while writer.poll() is None or reads < MIN_READS:
        try:
            state = runs.load(RUN_ID)  # the store's reader
            raw = json.loads(path.read_bytes())  # a reader that knows nothing of the store
        except ValueError:
            partial += 1
            continue
        reads += 1
        raw_reads += 1
        for value in (state, raw):
            if value["check"] != len(value["payload"]):
                partial += 1
        if state["seq"] < last_seq:
            went_back += 1
        last_seq = max(last_seq, state["seq"], raw["seq"])
        seen_seqs.add(state["seq"])
    assert writer.wait() == 0, writer.stderr.read().decode()
    final = runs.load(RUN_ID)
    print(f"\nreader vs writer: {reads} store reads + {raw_reads} raw reads during "
          f"{WRITES} writes; {len(seen_seqs)} distinct versions seen; partial reads: {partial}")
    assert final["seq"] == WRITES - 1
    assert partial == 0 and went_back == 0
    assert reads >= MIN_READS and len(seen_seqs) > 100  # reads really overlapped the writes
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".tmp-")]


def _parked_design(agents: int) -> dict[str, Any]:
    nodes: list[dict[str, Any]] = [{"id": "t", "type": "trigger"}]
    for number in range(agents):
        nodes.append({"id": f"a{number}", "type": "agent", "prompt": f"step {number}",
                      "after": [nodes[-1]["id"]]})
    return {"name": "storm", "nodes": nodes}


@pytest.mark.timeout(3600)
@pytest.mark.parametrize("agents, processes", [(6, 16)] + ([(40, 64)] if SOAK else []))
def test_racing_runners_never_lose_an_update(tmp_path: Path, agents: int, processes: int) -> None:
    """Waves of processes respond to the same parked run at the same instant."""
    runs = RunStore(tmp_path / "runs")
    runner = Runner(runs)
    run_id = runner.start(_parked_design(agents))["run_id"]
    outcomes: list[dict[str, str]] = []
    wave = 0
    while runs.load(run_id)["status"] != "completed":
        wave += 1
        assert wave <= agents * 4, "the run does not progress"
        done = subprocess.run([sys.executable, str(HERE / "respond_storm.py"), str(runs.root),
                               run_id, str(processes), f"w{wave}"], env=ENV,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        outcomes += [json.loads(line) for line in done.stdout.splitlines()]
    state = runs.load(run_id)
    winners = [o["output"] for o in outcomes if o["outcome"] == "ok"]
    busy = sum(o["outcome"] == "busy" for o in outcomes)
    refused = [o for o in outcomes if o["outcome"].startswith("refused")]
    stored = [state["outputs"][f"a{number}"] for number in range(agents)]
    print(f"\n{len(outcomes)} racing responders in {wave} waves: {len(winners)} ok, "
          f"{busy} 'run is busy', {len(refused)} refused (step already answered)")
    assert sorted(winners) == sorted(stored)  # every ok is in the state, nothing else is
    assert len(winners) == agents and busy > 0
    assert all("not waiting" in o["outcome"] or "corrupt" not in o["outcome"] for o in refused)
    answered = [entry["node"] for entry in state["log"] if entry["event"] == "completed"
                and entry["node"]]
    assert answered == [f"a{number}" for number in range(agents)]  # each step once, in order


SLOW_AGENT = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    request = json.load(sys.stdin)
    Path(sys.argv[1]).write_text("started")
    while not Path(sys.argv[2]).exists():
        time.sleep(0.01)
    print(json.dumps({"output": "slow:" + request["prompt"]}))
""")


def _hwf(*args: str, home: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hwf_lsp.cli", *args, "--hermes-home", str(home)],
                          env=ENV, capture_output=True, text=True, timeout=timeout)


def _wait_for(path: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def _holder(tmp_path: Path, home: Path, run_id: str) -> tuple[subprocess.Popen, Path]:
    """`hwf resume` with an agent that blocks until we create the returned go-file."""
    agent = tmp_path / "slow_agent.py"
    agent.write_text(SLOW_AGENT)
    started, go = tmp_path / "started", tmp_path / "go"
    holder = subprocess.Popen(
        [sys.executable, "-m", "hwf_lsp.cli", "resume", run_id, "--hermes-home", str(home),
         "--agent-command", f"{sys.executable} {agent} {started} {go}"],
        env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(started)
    return holder, go


def test_a_second_runner_gets_run_is_busy_and_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    run_id = Runner(runs).start(_parked_design(2))["run_id"]
    holder, go = _holder(tmp_path, home, run_id)
    before = runs.path(run_id).read_bytes()

    with pytest.raises(RunBusyError, match=f"run {run_id} is busy"):
        Runner(runs).advance(run_id)
    with pytest.raises(RunBusyError):
        Runner(runs).respond(run_id, output="intruder")
    for args in (["resume", run_id], ["respond", run_id, "--output", "intruder"],
                 ["answer", run_id, "approve"]):
        done = _hwf(*args, home=home)
        assert done.returncode == 4 and "busy" in done.stderr, (args, done.returncode, done.stderr)
    assert runs.path(run_id).read_bytes() == before  # the losers wrote nothing

    go.write_text("go")
    stdout, stderr = holder.communicate(timeout=120)
    assert holder.returncode == 0, stdout + stderr
    state = runs.load(run_id)
    assert state["status"] == "completed"
    assert state["outputs"] == {"a0": "slow:step 0", "a1": "slow:step 1"}
    assert "intruder" not in json.dumps(state)


def _server(home: Path) -> RawLsp:
    workspace = Path(tempfile.mkdtemp(prefix="hwf-concurrency-ws-"))
    client = RawLsp(env={**ENV, "HERMES_HOME": str(home)}, cwd=workspace)
    client.initialize(workspace)
    return client


def test_language_server_and_cli_advance_the_same_run(tmp_path: Path) -> None:
    """The editor and a terminal respond to one parked run at once: one wins each step,
    the other is told (busy or not waiting), and the run holds exactly the winners."""
    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    server = _server(home)
    try:
        # while the CLI holds the run, the server's commands are refused with "busy"
        run_id = Runner(runs).start(_parked_design(1))["run_id"]
        holder, go = _holder(tmp_path, home, run_id)
        for command, arguments in (("hwf.resumeRun", [run_id]),
                                   ("hwf.respondAgent", [run_id, {"output": "lsp"}])):
            response = server.request("workspace/executeCommand",
                                      {"command": command, "arguments": arguments}, timeout=60)
            assert "busy" in response.get("error", {}).get("message", ""), response
        go.write_text("go")
        assert holder.wait(timeout=120) == 0
        assert runs.load(run_id)["outputs"] == {"a0": "slow:step 0"}

        # races: both respond at once, several times
        races = 4
        tally = {"lsp": 0, "cli": 0}
        for race in range(races):
            run_id = Runner(runs).start(_parked_design(2))["run_id"]
            msg_id = server.request_nowait("workspace/executeCommand", {
                "command": "hwf.respondAgent", "arguments": [run_id, {"output": f"lsp{race}"}]})
            cli = subprocess.Popen([sys.executable, "-m", "hwf_lsp.cli", "respond", run_id,
                                    "--output", f"cli{race}", "--hermes-home", str(home)],
                                   env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
            response = server.wait_response(msg_id, timeout=120)
            cli_out, cli_err = cli.communicate(timeout=120)
            lsp_ok = "result" in response
            cli_ok = cli.returncode in (0, 3)
            if not lsp_ok:
                assert response["error"]["message"], response
            if not cli_ok:
                assert cli.returncode in (2, 4) and cli_err.strip(), (cli.returncode, cli_err)
            state = runs.load(run_id)
            stored = [state["outputs"][node] for node in ("a0", "a1") if node in state["outputs"]]
            winners = [text for text, ok in ((f"lsp{race}", lsp_ok), (f"cli{race}", cli_ok)) if ok]
            assert sorted(stored) == sorted(winners), (state["outputs"], response, cli_err)
            tally["lsp"] += lsp_ok
            tally["cli"] += cli_ok
        print(f"\nserver vs CLI: {races} races; steps won: {tally}")
        assert tally["lsp"] + tally["cli"] >= races
        assert server.alive()
    finally:
        server.close()


def test_the_cli_gets_run_is_busy_while_the_language_server_holds_the_run(
    tmp_path: Path,
) -> None:
    """The other direction: the editor advances a run (its agent blocks), the terminal waits."""
    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    agent = tmp_path / "slow_agent.py"
    agent.write_text(SLOW_AGENT)
    started, go = tmp_path / "started", tmp_path / "go"
    workspace = Path(tempfile.mkdtemp(prefix="hwf-concurrency-ws-"))
    server = RawLsp(env={**ENV, "HERMES_HOME": str(home)}, cwd=workspace)
    try:
        server.initialize(workspace, options={"settings": {"hwf": {"agent": {
            "command": [sys.executable, str(agent), str(started), str(go)]}}}})
        run_id = Runner(runs).start(_parked_design(2))["run_id"]
        msg_id = server.request_nowait("workspace/executeCommand",
                                       {"command": "hwf.resumeRun", "arguments": [run_id]})
        _wait_for(started)
        before = runs.path(run_id).read_bytes()
        for args in (["resume", run_id], ["respond", run_id, "--output", "intruder"]):
            done = _hwf(*args, home=home)
            assert done.returncode == 4 and "busy" in done.stderr, (args, done.stderr)
        assert runs.path(run_id).read_bytes() == before
        go.write_text("go")
        response = server.wait_response(msg_id, timeout=120)
        assert response.get("result", {}).get("status") == "completed", response
        assert runs.load(run_id)["outputs"] == {"a0": "slow:step 0", "a1": "slow:step 1"}
    finally:
        server.close()
