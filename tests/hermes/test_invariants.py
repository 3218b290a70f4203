"""Import boundaries, by walking the AST of every module of the package.

- `hwf_lsp/hermes` uses the engine (`hwf_lsp.workflow`), never the language server
  or the editor analysis (except the dashboard routes, which draw the editor's graph).
- Nothing outside `hwf_lsp/hermes` imports hermes-agent: its top-level packages are
  read from the installed distribution (`agent`, `tools`, `cron`, `hermes_cli`, …).
"""

from __future__ import annotations

import ast
from importlib.metadata import distribution
from pathlib import Path

import hwf_lsp

PACKAGE = Path(hwf_lsp.__file__).resolve().parent
PLUGIN = PACKAGE / "hermes"


def imported_modules(path: Path) -> set[str]:
    """Absolute module names `path` imports (relative ones resolved against the package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def hermes_top_level() -> set[str]:
    text = distribution("hermes-agent").read_text("top_level.txt") or ""
    return {line.strip() for line in text.splitlines() if line.strip()}


DRAWS_THE_GRAPH = PLUGIN / "plugin_api.py"
"""The dashboard routes: the editor's graph (analysis/graph_view.py, pure) of a file."""


def test_the_plugin_never_imports_the_server_or_the_analysis() -> None:
    offending = {
        f"{path.relative_to(PACKAGE.parent)}: {name}"
        for path in PLUGIN.rglob("*.py") for name in imported_modules(path)
        if name.split(".")[:2] == ["hwf_lsp", "server"]
        or (name.split(".")[:2] == ["hwf_lsp", "analysis"] and path != DRAWS_THE_GRAPH)
        or name.split(".")[0] in ("pygls", "lsprotocol")
    }
    assert offending == set()


def test_only_the_plugin_imports_hermes_agent() -> None:
    top = hermes_top_level()
    assert {"agent", "tools", "cron", "hermes_cli"} <= top
    offending = {
        f"{path.relative_to(PACKAGE.parent)}: {name}"
        for path in PACKAGE.rglob("*.py") if PLUGIN not in path.parents
        for name in imported_modules(path) if name.split(".")[0] in top
    }
    assert offending == set()


def test_the_scan_sees_what_the_plugin_imports() -> None:
    seen = imported_modules(PLUGIN / "host_seams.py") | imported_modules(PLUGIN / "home.py")
    assert {"agent.subagent_lifecycle", "hermes_constants", "hwf_lsp.workflow.seams"} <= seen
