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
from support.import_walk import runtime_imports

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
    ("hwf_lsp/jsontext/x.py", "from lsprotocol import types\n", True),
    ("hwf_lsp/analysis/x.py", "from pygls.lsp.server import LanguageServer\n", True),
    ("hwf_lsp/workflow/x.py", "from lsprotocol import types\n", True),
    ("hwf_lsp/rules/x.py", "import pygls.protocol\n", True),
    ("hwf_lsp/cli/x.py", "import lsprotocol.types\n", True),
    ("hwf_lsp/hermes/x.py", "from pygls.workspace import TextDocument\n", True),
    ("hwf_lsp/server/x.py", "from lsprotocol import types\n", False),
    ("tests/server/x.py", "from lsprotocol import types\n", False),
])
def test_lint_bans_the_protocol_outside_the_server(filename: str, source: str,
                                                    banned: bool) -> None:
    source += "__all__ = [name for name in dir()]\n"  # use the import: no F401 noise
    assert ("TID251" in ruff_codes(source, filename)) == banned


ABOVE_THE_ENGINE = ("hwf_lsp.analysis", "hwf_lsp.server", "hwf_lsp.cli", "hwf_lsp.hermes",
                    "hwf_lsp.generators")
LAYERS = {
    # package: the hwf_lsp packages it must never import
    "jsontext": ("hwf_lsp.rules", "hwf_lsp.workflow", *ABOVE_THE_ENGINE),
    "rules": ("hwf_lsp.jsontext", "hwf_lsp.workflow", *ABOVE_THE_ENGINE),
    "workflow": ("hwf_lsp.jsontext", *ABOVE_THE_ENGINE),
    "analysis": ("hwf_lsp.workflow", "hwf_lsp.server", "hwf_lsp.cli", "hwf_lsp.hermes",
                 "hwf_lsp.generators"),
    "generators": ("hwf_lsp.jsontext", "hwf_lsp.workflow", "hwf_lsp.analysis", "hwf_lsp.server",
                   "hwf_lsp.cli", "hwf_lsp.hermes"),
    "cli": ("hwf_lsp.server", "hwf_lsp.hermes"),
    "hermes": ("hwf_lsp.server", "hwf_lsp.analysis", "hwf_lsp.jsontext"),
    "debug": ("hwf_lsp.server", "hwf_lsp.cli", "hwf_lsp.hermes"),
}
ALLOWED = {
    # module: the banned packages it may import, and why
    "hwf_lsp/hermes/plugin_api.py": ("hwf_lsp.analysis", "hwf_lsp.jsontext"),  # the dashboard
    # draws the editor's graph (analysis/graph_view.py, pure) on the stored file's text
}


def imported_modules(path: Path, *, typing_too: bool = True) -> set[str]:
    """Every absolute import of a module, inside functions too; `typing_too=False` leaves out
    those under `if TYPE_CHECKING:` (annotations only: they never run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: set[str] = set()
    for node in ast.walk(tree) if typing_too else runtime_imports(tree):
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
             if banned not in ALLOWED.get(path.relative_to(ROOT).as_posix(), ())}
    assert not wrong, sorted(wrong)


def test_the_layer_check_sees_a_wrong_import(tmp_path: Path) -> None:
    """Guard against a vacuous pass: the walker finds a function-level import."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from hwf_lsp.server import server\n", encoding="utf-8")
    assert "hwf_lsp.server" in imported_modules(module)


# --- no process-wide mutable state in the pure layers ----------------------------------

PURE = ("jsontext", "rules", "analysis")
"""The pure packages: values in, values out (no I/O, no threads, no process-wide state)."""
NO_SHARED_STATE = (*PURE, "workflow")
MUTATORS = frozenset({"append", "extend", "insert", "pop", "popitem", "clear", "update",
                      "setdefault", "add", "discard", "remove", "move_to_end", "appendleft"})
MEMOISERS = frozenset({"lru_cache", "cache", "cached_property"})


def _module_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _local_names(function: ast.AST) -> set[str]:
    args = function.args  # type: ignore[attr-defined]
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def shared_state_changes(source: str, *, memoisers: bool = True) -> list[str]:
    """Where a function changes a module-level object, declares `global`, or (unless
    `memoisers=False`) memoises."""
    tree = ast.parse(source)
    shared = _module_names(tree)
    found: list[str] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if memoisers and not isinstance(function, ast.Lambda):
            for decorator in function.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) else getattr(
                    target, "id", "")
                if name in MEMOISERS:
                    found.append(f"{function.name}: memoised by {name}")
        own = _local_names(function)
        for node in ast.walk(function):
            if isinstance(node, ast.Global):
                found.append(f"global {', '.join(node.names)}")
            receiver = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in MUTATORS:
                receiver = node.func.value
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
                receiver = node.value
            elif isinstance(node, ast.AugAssign):
                receiver = node.target
            if isinstance(receiver, ast.Name) and receiver.id in shared \
                    and receiver.id not in own:
                found.append(f"line {node.lineno}: changes module-level {receiver.id}")
    return found


@pytest.mark.parametrize("package", NO_SHARED_STATE)
def test_the_pure_layers_keep_no_process_wide_state(package: str) -> None:
    wrong = [f"{path.relative_to(ROOT)}: {what}"
             for path in sorted((ROOT / "hwf_lsp" / package).rglob("*.py"))
             for what in shared_state_changes(path.read_text(encoding="utf-8"))]
    assert not wrong, wrong


@pytest.mark.parametrize("package", ["server", "cli", "hermes"])
def test_state_lives_in_the_objects_that_own_it(package: str) -> None:
    """Above the pure layers too, no module-level container a function changes and no
    `global`: state belongs to the server, the command or the plugin registration that
    owns it, so two of them in one process (tests, a host) never share it."""
    wrong = [f"{path.relative_to(ROOT)}: {what}"
             for path in sorted((ROOT / "hwf_lsp" / package).rglob("*.py"))
             for what in shared_state_changes(path.read_text(encoding="utf-8"),
                                              memoisers=False)]
    assert not wrong, wrong


@pytest.mark.parametrize("source, flagged", [
    ("CACHE = {}\ndef f(k):\n    CACHE[k] = 1\n", True),
    ("SEEN = []\ndef f(k):\n    SEEN.append(k)\n", True),
    ("N = 0\ndef f():\n    global N\n    N += 1\n", True),
    ("import functools\n@functools.lru_cache(maxsize=8)\ndef f(k):\n    return k\n", True),
    ("CACHE = {}\ndef f(k):\n    CACHE = {}\n    CACHE[k] = 1\n", False),  # a local of that name
    ("TABLE = {'a': 1}\ndef f(k):\n    return TABLE.get(k)\n", False),  # read only
])
def test_the_state_check_sees_shared_state(source: str, flagged: bool) -> None:
    """Guard against a vacuous pass."""
    assert bool(shared_state_changes(source)) is flagged


def test_no_two_modules_share_a_file_name() -> None:
    """A name says which module it is without its package (`findings.py`, not a second
    `check.py`), so a newcomer, a traceback and an editor tab can place it."""
    names: dict[str, list[str]] = {}
    for path in sorted((ROOT / "hwf_lsp").rglob("*.py")):
        if path.name not in ("__init__.py", "__main__.py"):
            names.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert {name: where for name, where in names.items() if len(where) > 1} == {}


IO_MODULES = ("os", "pathlib", "io", "shutil", "sqlite3", "subprocess", "socket", "tempfile")


@pytest.mark.parametrize("package", PURE)
def test_the_pure_layers_do_no_io(package: str) -> None:
    """`jsontext`, `rules` and `analysis` take text and values and return values: no module
    of theirs imports a file-system, process or network module (but for an annotation),
    nor calls `open`."""
    wrong = []
    for path in sorted((ROOT / "hwf_lsp" / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        wrong += [f"{path.relative_to(ROOT)}: imports {name}"
                  for name in imported_modules(path, typing_too=False)
                  if name.split(".")[0] in IO_MODULES]
        wrong += [f"{path.relative_to(ROOT)}:{node.lineno}: open()" for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "open"]
    assert not wrong, wrong


THREAD_MODULES = ("threading", "_thread", "concurrent", "multiprocessing", "asyncio")


def thread_imports(path: Path) -> list[str]:
    return sorted(name for name in imported_modules(path)
                  if name.split(".")[0] in THREAD_MODULES)


@pytest.mark.parametrize("package", PURE)
def test_the_pure_layers_start_no_thread_and_hold_no_lock(package: str) -> None:
    """A pure function is safe on any thread because it shares nothing, not because it
    locks: no module of a pure package imports a threading module."""
    wrong = {str(path.relative_to(ROOT)): thread_imports(path)
             for path in sorted((ROOT / "hwf_lsp" / package).rglob("*.py"))
             if thread_imports(path)}
    assert wrong == {}


@pytest.mark.parametrize("source, flagged", [
    ("import threading\n_LOCK = threading.Lock()\n", True),
    ("from threading import Lock\n", True),
    ("def f():\n    from concurrent.futures import ThreadPoolExecutor\n", True),
    ("from typing import TYPE_CHECKING\nimport re\n", False),
])
def test_the_thread_check_sees_a_thread_module(tmp_path: Path, source: str,
                                               flagged: bool) -> None:
    """Guard against a vacuous pass."""
    module = tmp_path / "m.py"
    module.write_text(source, encoding="utf-8")
    assert bool(thread_imports(module)) is flagged


@pytest.mark.parametrize("source, found", [
    ("import os\n", {"os"}),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pathlib import Path\n",
     {"typing"}),
    ("def f():\n    import shutil\n", {"shutil"}),
])
def test_the_io_check_leaves_out_annotations_only(tmp_path: Path, source: str,
                                                  found: set[str]) -> None:
    module = tmp_path / "m.py"
    module.write_text(source, encoding="utf-8")
    assert imported_modules(module, typing_too=False) == found
