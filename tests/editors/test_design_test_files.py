"""Design test files (`*.hwf-test.json`, contract 7) in real clients, through the
README's configs verbatim: each config attaches hwf-lsp to a test file, the client shows
`hwf test`'s error at the key the CLI points to, and a plain JSON file beside it still
gets no server.

The test file is examples/review-flow.hwf-test.json next to its design, with one answer
given to a node the design does not have.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import test_emacs
import test_neovim
from editor_support import REPO, editor, snippet

UNKNOWN_ANSWER = ('"answers": {"sign-off"', '"answers": {"sign-of"')
"""The error introduced: the first case answers an approval the design does not have."""

CLIENTS = {
    # name: (editor, Neovim version or None, the README snippets that make the config)
    "neovim-0.11": ("neovim", "0.11", ["neovim-0.11"]),
    "neovim-0.11-completion": ("neovim", "0.11", ["neovim-0.11", "neovim-0.11-completion"]),
    "neovim-0.7": ("neovim", "0.7", ["neovim-0.7"]),
    "eglot": ("emacs", None, ["emacs-eglot"]),
    "eglot-yasnippet": ("emacs", None, ["emacs-eglot", "emacs-eglot-yasnippet"]),
}


def write_test_file_with_an_unknown_answer(folder: Path) -> Path:
    return write_changed_test_file(folder, UNKNOWN_ANSWER)


def write_changed_test_file(folder: Path, change: tuple[str, str]) -> Path:
    """examples/review-flow.hwf-test.json beside its design in `folder`, with `change`
    (old, new) made once."""
    shutil.copy(REPO / "examples" / "review-flow.hwf.json", folder / "review-flow.hwf.json")
    text = (REPO / "examples" / "review-flow.hwf-test.json").read_text(encoding="utf-8")
    assert change[0] in text
    test_file = folder / "review-flow.hwf-test.json"
    test_file.write_text(text.replace(*change, 1), encoding="utf-8")
    return test_file


def cli_diagnostics(test_file: Path) -> list[tuple[int, int, str]]:
    """(line, character, message) of each error `hwf test --format json` reports: at the
    key its pointer ends with, the message as the server words it (the case, then why)."""
    proc = subprocess.run([sys.executable, "-m", "hwf_lsp.cli", "test", "--format", "json",
                           str(test_file)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = test_file.read_text(encoding="utf-8").splitlines()
    out = []
    for error in json.loads(proc.stdout)[0]["errors"]:
        key = '"' + error["pointer"].rsplit("/", 1)[1] + '":'
        (line,) = [i for i, text in enumerate(lines) if key in text]
        out.append((line, lines[line].index(key), f"case {error['case']!r}: {error['msg']}"))
    return out


def open_in(client: str, test_file: Path, other: Path, tmp_path: Path) -> dict:
    """What the client saw: `attached` (hwf-lsp serves the test file), its `diagnostics`
    as (line, character, message), and `other_attached` (hwf-lsp serves `other`)."""
    kind, version, names = CLIENTS[client]
    config = "".join(snippet("tested", name) for name in names)
    if kind == "neovim":
        binary = editor(test_neovim.NEOVIMS[version][0], f"Neovim {version}")
        seen = test_neovim.drive((version, binary, config), test_file, tmp_path,
                                 HWF_OTHER=str(other))
        return {"attached": seen["clients"] == ["hwf-lsp"],
                "diagnostics": [(d["line"], d["character"], d["message"])
                                for d in seen["diagnostics"]],
                "other_attached": seen["other_clients"] != []}
    seen = test_emacs.drive(config, test_file, tmp_path, HWF_OTHER=str(other))
    return {"attached": seen["mode"] == "hwf-design-mode" and seen["connected"] is True,
            "diagnostics": [(d["line"], d["character"], d["message"])
                            for d in seen["diagnostics"]],
            "other_attached": seen["other_managed"] is True}


@pytest.mark.parametrize("client", CLIENTS)
def test_the_readme_config_checks_a_design_test_file_and_leaves_plain_json_alone(
        client: str, tmp_path: Path) -> None:
    test_file = write_test_file_with_an_unknown_answer(tmp_path)
    other = tmp_path / "other.json"
    other.write_text('{"name": "not-a-design"}\n', encoding="utf-8")
    (want,) = cli_diagnostics(test_file)
    assert "unknown node 'sign-of'" in want[2]

    seen = open_in(client, test_file, other, tmp_path)

    assert seen["attached"], f"{client} did not attach hwf-lsp to the test file: {seen}"
    (got,) = seen["diagnostics"]
    assert got[:2] == want[:2], f"diagnostic at {got[:2]}, the CLI's key at {want[:2]}"
    assert want[2] in got[2]
    assert not seen["other_attached"], f"{client} started hwf-lsp for a plain JSON file"
