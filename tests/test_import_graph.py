"""No import cycle inside hwf_lsp (ARCHITECTURE.md, invariants).

The graph has one edge per import statement that runs: module level and inside
functions alike, but not under `if TYPE_CHECKING:` (never executed).  An import of
`a.b.c`, or of a name from `a.b.c`, is an edge to that module and to the packages Python
runs first (`a/__init__`, `a/b/__init__`; not the importer's own packages, which ran
before it did); `from a.b import c` is an edge to `a.b.c` when
that is a module, else to the package `a.b`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support.import_walk import runtime_imports

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "hwf_lsp"


def module_name(path: Path, top: Path) -> str:
    parts = path.relative_to(top).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Module name -> file, for every module of `package` (a directory)."""
    return {module_name(path, package.parent): path for path in sorted(package.rglob("*.py"))}


def edges(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The hwf_lsp modules `name` (at `path`) imports."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in runtime_imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            parts = name.split(".")
            anchor = parts if is_package else parts[:-1]
            anchor = anchor[:len(anchor) - (node.level - 1)]
            base = ".".join(anchor + ([base] if base else []))
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            out.add(sub if sub in modules else base)
    already_run = {*packages_run_first(name), name}  # its own packages ran before it did
    out |= {parent for target in out for parent in packages_run_first(target)} - already_run
    return {target for target in out if target in modules and target != name}


def packages_run_first(module: str) -> list[str]:
    """The packages whose `__init__` Python runs before `module`: `a`, `a.b` for `a.b.c`."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    return {name: edges(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path [a, b, ..., a], or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        path = [start]
        iters = [iter(sorted(graph[start]))]
        state[start] = 1
        while iters:
            nxt = next(iters[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                iters.pop()
                continue
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                iters.append(iter(sorted(graph[nxt])))
    return None


@pytest.mark.parametrize("graph, cycle", [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
    ({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
    ({"a": {"a"}}, ["a", "a"]),
    ({"a": {"b", "c"}, "b": {"d"}, "c": {"d"}, "d": set()}, None),  # a diamond is no cycle
    ({"a": {"b"}, "b": {"c"}, "c": {"d"}, "d": {"b"}}, ["b", "c", "d", "b"]),
    ({"x": set(), "a": {"b"}, "b": {"x", "a"}}, ["a", "b", "a"]),
])
def test_the_cycle_finder(graph: dict[str, set[str]], cycle: list[str] | None) -> None:
    assert find_cycle(graph) == cycle


def test_hwf_lsp_has_no_import_cycle() -> None:
    modules = all_modules()
    assert len(modules) > 50
    cycle = find_cycle(import_graph(modules))
    assert cycle is None, " -> ".join(cycle)


@pytest.mark.parametrize("files, cycle", [
    ({"p/__init__.py": "", "p/a.py": "from p import b\n", "p/b.py": "import p.a\n"}, True),
    ({"p/__init__.py": "", "p/a.py": "def f():\n    from .b import x\n",
      "p/b.py": "from .a import y\n"}, True),
    ({"p/__init__.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.a import A\n",
      "p/a.py": "import p\n"}, False),
    ({"p/__init__.py": "", "p/a.py": "from p.b import x\n", "p/b.py": "x = 1\n"}, False),
    ({"p/__init__.py": "from p.a import f\n", "p/a.py": "from p import VALUE\n"}, True),
    # a package's __init__ runs first: p.cli -> p.h.sub runs p/h/__init__ -> p.h.tools -> p.cli
    ({"p/__init__.py": "", "p/cli/__init__.py": "def main():\n    from p.h.sub import add\n",
      "p/h/__init__.py": "from p.h.tools import t\n", "p/h/sub.py": "add = 1\n",
      "p/h/tools.py": "import p.cli\n"}, True),
    ({"p/__init__.py": "", "p/cli/__init__.py": "def main():\n    from p.h.sub import add\n",
      "p/h/__init__.py": "", "p/h/sub.py": "add = 1\n", "p/h/tools.py": "import p.cli\n"},
     False),
    # a package's own __init__ ran before its modules: a sibling import is no cycle
    ({"p/__init__.py": "def main():\n    from p.a import x\n", "p/a.py": "from p.b import y\n",
      "p/b.py": "y = 1\n"}, False),
])
def test_the_cycle_check_sees_cycles(tmp_path: Path, files: dict[str, str],
                                     cycle: bool) -> None:
    """Guard against a vacuous pass: function-level and relative imports count,
    TYPE_CHECKING imports do not."""
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    modules = all_modules(tmp_path / "p")
    assert (find_cycle(import_graph(modules)) is not None) is cycle
