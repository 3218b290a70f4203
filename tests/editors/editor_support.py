"""Shared by the editor tests: the README's snippets, the editors' binaries, their env.

Each config the README calls tested sits in a fenced block right after a
`<!-- tested: NAME -->` marker; the tests run that block verbatim as the user's config,
so the README cannot drift from what passes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
VENV_BIN = Path(sys.executable).parent
"""Where `hwf-lsp` is: put first on PATH, as `. .venv/bin/activate` does."""


def snippet(kind: str, name: str) -> str:
    """The fenced block after `<!-- KIND: NAME -->` in the README (KIND: tested, documented)."""
    text = README.read_text(encoding="utf-8")
    found = re.search(rf"<!-- {kind}: {re.escape(name)} -->\n```[a-z]*\n(.*?)\n```", text,
                      re.DOTALL)
    assert found, f"README.md has no block marked <!-- {kind}: {name} -->"
    return found.group(1) + "\n"


def editor(path: str | Path | None, what: str) -> str:
    """The editor's binary; a skip when it is missing, or a failure under `make test`
    (HWF_REQUIRE_EDITORS=1), where the Makefile installs it and a skip would hide that."""
    if path and Path(path).is_file() and os.access(path, os.X_OK):
        return str(path)
    message = f"{what} is not installed (make test installs it)"
    if os.environ.get("HWF_REQUIRE_EDITORS") == "1":
        pytest.fail(message)
    pytest.skip(message)


def user_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A user's environment: `hwf-lsp` on PATH, an empty home, a throwaway HERMES_HOME."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HWF_", "XDG_", "PYTHON"))}
    env |= {"PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_STATE_HOME": str(home / ".local/state"), "XDG_CACHE_HOME": str(home / ".cache"),
            "HERMES_HOME": str(tmp_path / "hermes-home"),
            # the server of the tree under test (the venv's editable install may be another
            # worktree's)
            "PYTHONPATH": str(REPO)}
    return env | extra


DRAFT_LINES = ['{"name": "draft", "nodes": [', '  {"id": "start", "type": "trigger"},',
               '  {"id": "a", "type": "", "after": ["start"]}', "]}"]
"""A design with one defect (an empty type) and places to complete, hover and rename."""
EMPTY_TYPE = (2, DRAFT_LINES[2].index('"type": "') + len('"type": "'))
"""Inside the empty `type` value: completion offers every kind."""
TRIGGER_VALUE = (1, DRAFT_LINES[1].index('"trigger"') + 1)
START_ID = (1, DRAFT_LINES[1].index('"start"') + 1)


def write_draft(tmp_path: Path) -> Path:
    design = tmp_path / "draft.hwf.json"
    design.write_text("\n".join(DRAFT_LINES) + "\n", encoding="utf-8")
    return design


def run_eglot(script: Path, yasnippet: bool, tmp_path: Path, **asks: str) -> dict:
    """Emacs (batch) with the README's eglot config (+ its yasnippet block) as the init
    file, then `script`, which writes what it saw as JSON to HWF_OUT (HWF_* asks)."""
    config = snippet("tested", "emacs-eglot")
    if yasnippet:
        config += snippet("tested", "emacs-eglot-yasnippet")
    init = tmp_path / "init.el"
    init.write_text(config, encoding="utf-8")
    out = tmp_path / "result.json"
    env = user_env(tmp_path, HWF_OUT=str(out), **asks)
    proc = subprocess.run([editor(shutil.which("emacs"), "Emacs"), "--batch", "-f",
                           "package-activate-all", "-l", str(init), "-l", str(script)],
                          env=env, cwd=tmp_path, timeout=240, capture_output=True, text=True)
    assert out.exists(), f"Emacs wrote no result (exit {proc.returncode}): {proc.stderr[-2000:]}"
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert "error" not in seen, f"{seen['error']}\n{proc.stderr[-2000:]}"
    return seen


def run_neovim(binary: str, config: str, script: Path, tmp_path: Path, *args: str,
               **asks: str) -> dict:
    """Neovim (headless) with `config` as the user's init.lua, then `script`, which writes
    what it saw as JSON to HWF_OUT (HWF_* asks); `args`: the files opened."""
    out = tmp_path / "result.json"
    env = user_env(tmp_path, HWF_OUT=str(out), **asks)
    init = Path(env["XDG_CONFIG_HOME"]) / "nvim" / "init.lua"
    init.parent.mkdir(parents=True, exist_ok=True)
    init.write_text(config, encoding="utf-8")
    proc = subprocess.run([binary, "--headless", "-i", "NONE", "-c", f"luafile {script}", *args],
                          env=env, cwd=tmp_path, timeout=240, capture_output=True, text=True)
    assert out.exists(), f"Neovim wrote no result (exit {proc.returncode}): {proc.stderr[-2000:]}"
    return json.loads(out.read_text(encoding="utf-8"))
