"""The layering invariants of ARCHITECTURE.md are enforced by lint and by this test, not
only written down: only `hwf_lsp/server` speaks the protocol (ruff TID251), and each layer
imports only the layers below it."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


def ruff_codes(source: str, filename: str) -> set[str]:
    """The rule codes ruff reports for `source` as if it were `filename` in this repo."""
    done = subprocess.run([RUFF, "check", "--no-cache", "--output-format", "concise",
                           "--stdin-filename", filename, "-"], input=source, text=True,
                          capture_output=True, cwd=ROOT, timeout=60)
    return {line.split(" ")[1] for line in done.stdout.splitlines() if ": " in line
            and line.startswith(filename)}


@pytest.mark.skipif(RUFF is None, reason="ruff is installed with the test extra")
@pytest.mark.parametrize("filename, source, banned", [
    ("hwf_lsp/analysis/x.py", "import pygls\n", True),
    ("hwf_lsp/analysis/x.py", "from pygls.lsp.server import LanguageServer\n", True),
    ("hwf_lsp/workflow/x.py", "from lsprotocol import types\n", True),
    ("hwf_lsp/cli/x.py", "import lsprotocol.types\n", True),
    ("hwf_lsp/hermes/x.py", "from pygls.workspace import TextDocument\n", True),
    ("hwf_lsp/server/x.py", "from lsprotocol import types\n", False),
    ("tests/server/x.py", "from lsprotocol import types\n", False),
])
def test_lint_bans_the_protocol_outside_the_server(filename: str, source: str,
                                                    banned: bool) -> None:
    source += "__all__ = [name for name in dir()]\n"  # use the import: no F401 noise
    assert ("TID251" in ruff_codes(source, filename)) == banned


LAYERS = {
    # package: the hwf_lsp packages it must never import
    "workflow": ("hwf_lsp.analysis", "hwf_lsp.server", "hwf_lsp.cli", "hwf_lsp.hermes"),
    "analysis": ("hwf_lsp.server", "hwf_lsp.cli", "hwf_lsp.hermes"),
    "cli": ("hwf_lsp.server",),
    "hermes": ("hwf_lsp.server", "hwf_lsp.analysis"),
}
ALLOWED = {
    # module: the banned package it may import, and why
    "hwf_lsp/hermes/plugin_api.py": "hwf_lsp.analysis",  # the dashboard draws the editor's
    # graph (analysis/graph_view.py, pure) on the stored file's text
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_each_layer_imports_only_the_layers_below(package: str) -> None:
    modules = sorted((ROOT / "hwf_lsp" / package).rglob("*.py"))
    assert modules, package
    wrong = {f"{path.relative_to(ROOT)}: {name}"
             for path in modules for name in imported_modules(path)
             for banned in LAYERS[package] if name == banned or name.startswith(banned + ".")
             if ALLOWED.get(path.relative_to(ROOT).as_posix()) != banned}
    assert not wrong, sorted(wrong)


def test_the_layer_check_sees_a_wrong_import(tmp_path: Path) -> None:
    """Guard against a vacuous pass: the walker finds a function-level import."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from hwf_lsp.server import server\n", encoding="utf-8")
    assert "hwf_lsp.server" in imported_modules(module)
