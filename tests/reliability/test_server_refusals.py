"""The server refuses plainly: a closed connection and a refused command are ordinary
events, logged in one line, never as a traceback (which reads as a bug); a disk error
says what happened; a second `initialize` is refused (-32600); a client without markdown
gets plain-text hovers; an unknown command name is refused without a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile import ENV, agent_design, limit_memory, write_json
from rawlsp import RawLsp, frame, open_params, position_params


def server_env(home: Path) -> dict[str, str]:
    return {**os.environ, "HERMES_HOME": str(home)}


def read_message(stdout) -> dict | None:
    length = None
    while True:
        line = stdout.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return json.loads(stdout.read(length))


def test_stdin_closing_while_configuration_is_awaited_prints_no_traceback(tmp_path: Path) -> None:
    """A12: the client goes away before answering workspace/configuration."""
    proc = subprocess.Popen([sys.executable, "-m", "hwf_lsp", "-v"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=server_env(tmp_path))

    def send(message: dict) -> None:
        proc.stdin.write(frame(json.dumps(message)))
        proc.stdin.flush()

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": None,
            "capabilities": {"workspace": {"configuration": True}}}})
        while (message := read_message(proc.stdout)) is not None and message.get("id") != 1:
            pass
        send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        while (message := read_message(proc.stdout)) is not None and \
                message.get("method") != "workspace/configuration":
            pass
        assert message is not None, "the server never asked for its configuration"
        proc.stdin.close()  # ... and never answers
        proc.stdin = None
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = stderr.decode("utf-8", "replace")
    assert "Traceback" not in text and "CancelledError" not in text, text[-3000:]
    assert "workspace/configuration was not answered" in text


def test_a_refused_command_is_logged_in_one_line_without_a_traceback(tmp_path: Path) -> None:
    """hwf.cancelRun with an invalid and with an unknown run id: an error answer each, one
    INFO line each in the log (even at -vv, where pygls logs every request)."""
    (tmp_path / "workflow-runs").mkdir()
    argv = [sys.executable, "-m", "hwf_lsp", "-vv"]
    with RawLsp(argv=argv, env=server_env(tmp_path)) as lsp:
        lsp.initialize()
        answers = [lsp.request("workspace/executeCommand",
                               {"command": "hwf.cancelRun", "arguments": [run_id]})
                   for run_id in ("../../etc/passwd", "0123456789ab")]
        time.sleep(0.3)
        log = lsp.stderr_tail(10**8)
    assert [a["error"]["code"] for a in answers] == [-32602, -32803], answers
    assert "Traceback" not in log, log[log.find("Traceback") - 500:][:3000]
    refusals = [line for line in log.splitlines() if "hwf.cancelRun refused:" in line]
    assert len(refusals) == 2, refusals
    assert "invalid run id" in refusals[0] and "not found" in refusals[1]


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
