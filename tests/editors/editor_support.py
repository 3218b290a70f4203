"""Shared by the editor tests: the README's snippets, the editors' binaries, their env.

Each config the README calls tested sits in a fenced block right after a
`<!-- tested: NAME -->` marker; the tests run that block verbatim as the user's config,
so the README cannot drift from what passes.
"""

from __future__ import annotations

import os
import re
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
