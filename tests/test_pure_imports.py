"""The pure packages load no I/O module (ARCHITECTURE.md, invariants).

Every module of `jsontext`, `rules` and `analysis` is imported in a fresh interpreter;
none may load a module of the engine, the server, `hwf` or the plugin (stores, atomic,
locks, run_index, processes, strays, runner, seams, delivery, ...), nor `sqlite3`,
`subprocess` or `threading`.  What an import loads is what a host of these packages pays
for, and what could run behind its back; the AST lint in test_lint_invariants.py sees the
imports inside functions, this test sees what the interpreter really loads.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PURE_PACKAGES = ("jsontext", "rules", "analysis")
FORBIDDEN_PACKAGES = ("hwf_lsp.workflow", "hwf_lsp.server", "hwf_lsp.cli", "hwf_lsp.hermes",
                      "hwf_lsp.generators")
FORBIDDEN_STDLIB = ("sqlite3", "subprocess", "threading")
"""Loaded today by the locks in jsontext/jsontree.py and analysis/design.py, which #42
item 2 removes: empty this tuple when it lands."""

PROBE = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
forbidden, found = json.loads(sys.argv[2]), {}
for name in json.loads(sys.argv[3]):
    before = set(sys.modules)
    module = importlib.import_module(name)
    assert module.__file__.startswith(sys.argv[1]), module.__file__
    for loaded in sorted(set(sys.modules) - before):
        if any(loaded == f or loaded.startswith(f + ".") for f in forbidden):
            found.setdefault(loaded, name)
print(json.dumps(found))
"""


def pure_modules(top: Path) -> list[str]:
    """Every module of the pure packages under `top` (a copy of the repository)."""
    return [".".join(path.relative_to(top).with_suffix("").parts).removesuffix(".__init__")
            for package in PURE_PACKAGES
            for path in sorted((top / "hwf_lsp" / package).rglob("*.py"))]


def forbidden_loads(top: Path, modules: list[str], forbidden: list[str]) -> dict[str, str]:
    """{forbidden module: the first of `modules` whose import loaded it}, importing them
    in this order from the tree at `top` in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-I", "-c", PROBE, str(top), json.dumps(forbidden),
                           json.dumps(modules)], capture_output=True, text=True, timeout=120,
                          cwd=top)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_pure_packages_load_no_io_module() -> None:
    forbidden = [*FORBIDDEN_PACKAGES, *FORBIDDEN_STDLIB]
    modules = pure_modules(ROOT)
    assert len(modules) > 40
    loads = forbidden_loads(ROOT, modules, forbidden)
    assert loads == {}, loads


@pytest.mark.parametrize("module, planted, loaded", [
    ("rules/numbers.py", "import sqlite3\n", "sqlite3"),
    ("rules/step_words.py", "import subprocess\n", "subprocess"),
    ("analysis/symbols.py", "from hwf_lsp.workflow import stores\n", "hwf_lsp.workflow.stores"),
    ("analysis/hints.py", "from hwf_lsp.workflow.run_index import RunIndex\n",
     "hwf_lsp.workflow.run_index"),
    ("jsontext/tokens.py", "import hwf_lsp.workflow.locks\n", "hwf_lsp.workflow.locks"),
    ("rules/graph.py", "import threading\n", "threading"),
])
def test_the_check_sees_a_planted_io_import(tmp_path: Path, module: str, planted: str,
                                            loaded: str) -> None:
    """Guard against a vacuous pass: a copy of the package with one I/O import planted in
    one pure module is caught, and the module that loaded it is named."""
    shutil.copytree(ROOT / "hwf_lsp", tmp_path / "hwf_lsp",
                    ignore=shutil.ignore_patterns("__pycache__", "dashboard"))
    target = tmp_path / "hwf_lsp" / module
    source = target.read_text(encoding="utf-8")
    after_future = source.index("from __future__ import annotations\n") + 35
    target.write_text(source[:after_future] + planted + source[after_future:],
                      encoding="utf-8")
    name = "hwf_lsp." + module.removesuffix(".py").replace("/", ".")
    loads = forbidden_loads(tmp_path, [name, *pure_modules(tmp_path)],
                            [*FORBIDDEN_PACKAGES, *FORBIDDEN_STDLIB])
    assert loads.get(loaded) == name, loads
