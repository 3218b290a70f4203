"""A failing design-test expectation shows in Neovim and Emacs as in VS Code (issue 43):
the README's configs verbatim open a test file whose case fails, and the client shows the
failure at the `expect` entry `hwf test` names, with its message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_design_test_files import CLIENTS, open_in, write_changed_test_file

FAILING = ('"steps": {"draft": "done"', '"steps": {"draft": "skipped"')
"""The change that makes the first case of examples/review-flow.hwf-test.json fail."""


@pytest.mark.parametrize("client", ["neovim-0.11", "eglot"])
def test_a_failing_expectation_shows_at_its_expect_entry(client: str, tmp_path: Path) -> None:
    test_file = write_changed_test_file(tmp_path, FAILING)
    proc = subprocess.run([sys.executable, "-m", "hwf_lsp.cli", "test", "--format", "json",
                           str(test_file)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the case fails in `hwf test`
    assert "expected 'skipped', got 'done'" in json.dumps(json.loads(proc.stdout))
    lines = test_file.read_text(encoding="utf-8").splitlines()
    (line,) = [i for i, text in enumerate(lines) if '"draft": "skipped"' in text]
    want = (line, lines[line].index('"draft": "skipped"'))
    other = tmp_path / "other.json"
    other.write_text("{}\n", encoding="utf-8")

    seen = open_in(client, test_file, other, tmp_path)

    assert seen["attached"], seen
    (got,) = seen["diagnostics"]
    assert got[:2] == want, f"diagnostic at {got[:2]}, the expect entry at {want}"
    assert "step 'draft': expected 'skipped', got 'done'" in got[2]
    assert client in CLIENTS
