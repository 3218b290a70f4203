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
    ("hwf_lsp/jsontext/x.py", "from lsprotocol import types\n", True),
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
    "jsontext": ("hwf_lsp.workflow", "hwf_lsp.analysis", "hwf_lsp.server", "hwf_lsp.cli",
                 "hwf_lsp.hermes"),
    "workflow": ("hwf_lsp.jsontext", "hwf_lsp.analysis", "hwf_lsp.server", "hwf_lsp.cli",
                 "hwf_lsp.hermes"),
    "analysis": ("hwf_lsp.server", "hwf_lsp.cli", "hwf_lsp.hermes"),
    "cli": ("hwf_lsp.server",),
    "hermes": ("hwf_lsp.server", "hwf_lsp.analysis", "hwf_lsp.jsontext"),
}
ALLOWED = {
    # module: the banned packages it may import, and why
    "hwf_lsp/hermes/plugin_api.py": ("hwf_lsp.analysis", "hwf_lsp.jsontext"),  # the dashboard
    # draws the editor's graph (analysis/graph_view.py, pure) on the stored file's text
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
             if banned not in ALLOWED.get(path.relative_to(ROOT).as_posix(), ())}
    assert not wrong, sorted(wrong)


def test_the_layer_check_sees_a_wrong_import(tmp_path: Path) -> None:
    """Guard against a vacuous pass: the walker finds a function-level import."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from hwf_lsp.server import server\n", encoding="utf-8")
    assert "hwf_lsp.server" in imported_modules(module)


# --- no process-wide mutable state in the pure layers ----------------------------------

PURE = ("jsontext", "workflow", "analysis")
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


def shared_state_changes(source: str) -> list[str]:
    """Where a function changes a module-level object, declares `global`, or memoises."""
    tree = ast.parse(source)
    shared = _module_names(tree)
    found: list[str] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if not isinstance(function, ast.Lambda):
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


@pytest.mark.parametrize("package", PURE)
def test_the_pure_layers_keep_no_process_wide_state(package: str) -> None:
    wrong = [f"{path.relative_to(ROOT)}: {what}"
             for path in sorted((ROOT / "hwf_lsp" / package).rglob("*.py"))
             for what in shared_state_changes(path.read_text(encoding="utf-8"))]
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


@pytest.mark.parametrize("package", ["jsontext", "analysis"])
def test_the_text_layers_do_no_io(package: str) -> None:
    """`jsontext` and `analysis` take text and values and return values: no module of
    theirs imports a file-system, process or network module, nor calls `open`."""
    wrong = []
    for path in sorted((ROOT / "hwf_lsp" / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        wrong += [f"{path.relative_to(ROOT)}: imports {name}"
                  for name in imported_modules(path) if name.split(".")[0] in IO_MODULES]
        wrong += [f"{path.relative_to(ROOT)}:{node.lineno}: open()" for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "open"]
    assert not wrong, wrong


@pytest.mark.parametrize("package", ["jsontext", "analysis"])
def test_the_text_layers_take_no_locks(package: str) -> None:
    """A parsed document and its design are used by one thread at a time (the server hands
    an analysis from its worker to the event loop), so the text layers need no lock: none of
    their modules imports `threading`."""
    wrong = [f"{path.relative_to(ROOT)}: imports {name}"
             for path in sorted((ROOT / "hwf_lsp" / package).rglob("*.py"))
             for name in imported_modules(path) if name.split(".")[0] in ("threading", "_thread")]
    assert not wrong, wrong
