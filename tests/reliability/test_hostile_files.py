"""Issue 13, item 2: a file that is not a regular file never hangs or exhausts anything.

A FIFO named `<id>.json` in workflow-runs/ or `<name>.json` in workflow-designs/, and
symlinks to /dev/zero and /dev/stdin in their place: `hwf runs/show/resume/run/check`
answer at once with a clear error (the other runs are still listed), and the language
server keeps answering (listRuns, diagnostics, startRun) and honours `exit`.  Before
the fix a FIFO blocked `open()` forever, /dev/stdin read the terminal (or the server's
own LSP stream) and /dev/zero allocated until MemoryError.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile import ENV, agent_design, hwf, limit_memory, wait_until, write_json
from rawlsp import RawLsp, open_params

from hwf_lsp.workflow import stores
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.stores import RunStore, read_text_file

HOSTILE_ID = "deadbeef0001"
NOT_REGULAR = "not a regular file"
REFUSED = ("not a regular file", "escapes")
"""In a store, a symlink that resolves outside its directory was already refused by name
(`names.safe_child`); one to a FIFO beside it reaches the reader."""


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _symlink_to(target: str) -> Callable[[Path], None]:
    return lambda path: path.symlink_to(target)


def _symlink_to_a_fifo_beside(path: Path) -> None:
    target = path.with_name(".fifo-" + path.name)
    os.mkfifo(target)
    path.symlink_to(target.name)


HOSTILE: dict[str, Callable[[Path], None]] = {
    "fifo": _fifo,
    "link-to-fifo": _symlink_to_a_fifo_beside,
    "dev-zero": _symlink_to("/dev/zero"),
    "dev-stdin": _symlink_to("/dev/stdin"),
}


def refused(stderr: str) -> bool:
    return any(why in stderr for why in REFUSED) and "Traceback" not in stderr


def _home_with_runs(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A home with one good parked run and a hostile `<HOSTILE_ID>.json` beside it."""
    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    good = Runner(runs).start(agent_design())["run_id"]
    HOSTILE[kind](runs.root / f"{HOSTILE_ID}.json")
    return home, good


# --- the reader itself ------------------------------------------------------------------


READ_IN_A_CHILD = """
import sys
from hwf_lsp.workflow.stores import read_text_file
try:
    read_text_file(sys.argv[1])
except ValueError as exc:
    print(exc)
"""


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_the_reader_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    """In a child process (bounded in time and memory: /dev/zero allocated without end)."""
    path = tmp_path / "x.json"
    HOSTILE[kind](path)
    for target, why in ((path, NOT_REGULAR), (tmp_path, "is unreadable: a directory")):
        try:
            done = subprocess.run([sys.executable, "-c", READ_IN_A_CHILD, str(target)],
                                  env=ENV, capture_output=True, text=True, timeout=20,
                                  preexec_fn=limit_memory, stdin=subprocess.PIPE)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"reading {kind} did not return within 20 s") from None
        assert why in done.stdout, (kind, done.stdout, done.stderr[-500:])


def test_the_reader_follows_a_symlink_to_a_regular_file_and_caps_the_size(
        tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_bytes(b"\xef\xbb\xbf{}")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert read_text_file(link) == "{}"
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:  # sparse: no disk, no time
        handle.truncate(stores.MAX_DESIGN_FILE_BYTES + 1)
    with pytest.raises(ValueError, match="over the limit"):
        stores.read_file_bytes(big)
    assert stores.read_file_bytes(real, limit=5) == b"\xef\xbb\xbf{}"
    with pytest.raises(ValueError, match="over the limit of 4 bytes"):
        stores.read_file_bytes(real, limit=4)


# --- the CLI --------------------------------------------------------------------------


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_cli_run_commands_answer_at_once_beside_a_hostile_run_file(
        tmp_path: Path, kind: str) -> None:
    home, good = _home_with_runs(tmp_path, kind)
    listed = hwf("runs", home=home)
    assert listed.code == 0, listed.text
    assert good in listed.stdout
    assert HOSTILE_ID in listed.stderr and refused(listed.stderr), listed.stderr
    for args in (["show", HOSTILE_ID], ["resume", HOSTILE_ID], ["answer", HOSTILE_ID, "ok"]):
        done = hwf(*args, home=home)
        assert done.code == 2 and refused(done.stderr), (args, done.text)
    design = write_json(tmp_path / "again.hwf.json", agent_design())
    rerun = hwf("run", str(design), "--from", "a0", home=home)  # the newest-run lookup
    assert rerun.code == 3, rerun.text


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_cli_design_commands_answer_at_once_on_a_hostile_design(
        tmp_path: Path, kind: str) -> None:
    home = tmp_path / "home"
    stored = home / "workflow-designs" / "hostile.json"
    stored.parent.mkdir(parents=True)
    HOSTILE[kind](stored)
    loose = tmp_path / "loose.hwf.json"
    HOSTILE[kind](loose)
    stored_run = hwf("run", "hostile", home=home)
    assert stored_run.code == 2 and refused(stored_run.stderr), stored_run.text
    for args, with_home in ((["run", str(loose)], True), (["check", str(loose)], False)):
        done = hwf(*args, home=home if with_home else None)  # a loose file: no name check
        assert done.code == 2, (args, done.text)
        assert NOT_REGULAR in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)


# --- the language server ----------------------------------------------------------------


@pytest.mark.timeout(120)
def test_language_server_keeps_answering_beside_hostile_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    good = Runner(runs).start(agent_design())["run_id"]
    for index, make in enumerate(HOSTILE.values()):
        make(runs.root / f"deadbeef000{index}.json")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    design = write_json(workspace / "hostile.hwf.json", agent_design())
    loose = {kind: workspace / f"{kind}.hwf.json" for kind in HOSTILE}
    for kind, path in loose.items():
        HOSTILE[kind](path)
    server = RawLsp(env={**ENV, "HERMES_HOME": str(home)}, cwd=workspace,
                    preexec_fn=limit_memory)
    try:
        server.initialize(workspace)
        listed = server.request("workspace/executeCommand",
                                {"command": "hwf.listRuns", "arguments": []}, timeout=20)
        assert [r["run_id"] for r in listed["result"]["runs"]] == [good], listed
        server.notify("textDocument/didOpen", open_params(design.as_uri(), design.read_text()))
        server.wait_notification("textDocument/publishDiagnostics",
                                 lambda p: p["uri"] == design.as_uri(), timeout=20)
        for path in loose.values():  # not open in the editor: read from disk
            answer = server.request("workspace/executeCommand",
                                    {"command": "hwf.startRun", "arguments": [path.as_uri()]},
                                    timeout=20)
            assert NOT_REGULAR in answer["error"]["message"], (path.name, answer)
        assert server.request("shutdown", timeout=20)["result"] is None
        server.notify("exit")
        assert wait_until(lambda: server.proc.poll() is not None, 20, "exit") is True
        assert server.proc.returncode == 0
    finally:
        server.close()
