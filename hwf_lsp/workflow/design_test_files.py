"""Design test files read from disk: the test file's text, and the design it names found
(a path inside the test file's project, else a name in the store) and read.  Checking one against its design is the
rulebook's (`rules/design_test_check.py`), running its cases `design_test_run.py`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hwf_lsp.rules.design_test_check import (
    DesignRead,
    DesignTestFile,
    InvalidTestFile,
    TestFileError,
    design_reference,
    examine_test_file,
)
from hwf_lsp.rules.names import check_design_name
from hwf_lsp.rules.validator import validate_designer_graph
from hwf_lsp.workflow.design_files import DesignFileError, design_from_text, design_name_for
from hwf_lsp.workflow.paths import hermes_home, safe_child
from hwf_lsp.workflow.stores import DESIGNS_DIRNAME, read_text_file


def load_test_file(path: str | Path, designs_root: Path | None = None, *,
                   with_expect: bool = True, roots: Sequence[Path] = ()) -> DesignTestFile:
    """Read and check a test file.  FileNotFoundError when it is missing; InvalidTestFile
    (every error, each at its place) when it is unreadable, not JSON, names no design that
    can run, or a case names what the design does not have.

    `designs_root` is where a design named (not a path) is looked up: by default
    `$HERMES_HOME/workflow-designs`, only read.  `with_expect=False` leaves each case's
    `expect` unchecked and optional (`--write-expectations` replaces it).  `roots`: see
    `read_design_under_test`."""
    text = read_test_text(path)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidTestFile(path, [TestFileError(
            "", None, None, f"not valid JSON: {exc.msg} at line {exc.lineno}, column "
            f"{exc.colno}")]) from None
    except (ValueError, RecursionError) as exc:
        raise InvalidTestFile(path, [TestFileError("", None, None,
                                                   f"not valid JSON: {exc}")]) from None
    return check_test_file(raw, path, designs_root, with_expect=with_expect, roots=roots)


def read_test_text(path: str | Path) -> str:
    """The file's text (the engine's one reader: regular files, size cap, BOM dropped);
    an unreadable file is InvalidTestFile, a missing one FileNotFoundError."""
    try:
        return read_text_file(path)
    except FileNotFoundError:
        raise
    except ValueError as exc:
        raise InvalidTestFile(path, [TestFileError("", None, None, str(exc))]) from None


def check_test_file(raw: Any, path: str | Path, designs_root: Path | None = None, *,
                    with_expect: bool = True, roots: Sequence[Path] = ()) -> DesignTestFile:
    """A parsed test file checked (see `load_test_file`)."""
    found = read_design_under_test(raw, path, designs_root, roots=roots)
    test, errors = examine_test_file(raw, path, found, with_expect=with_expect)
    if errors or test is None:
        raise InvalidTestFile(path, errors)
    return test


def read_design_under_test(raw: Any, test_path: str | Path,
                           designs_root: Path | None = None, *,
                           roots: Sequence[Path] = (),
                           read: DesignReader | None = None) -> DesignRead | str | None:
    """The design a test file names (a path relative to the test file that stays inside
    its project, else a design name in the store) as read, defects and all; why it cannot
    be read (a message); or None when the file names no design.

    `roots` are folders that count as the project outside a repository (the editor's
    workspace folders, the folder `hwf test` runs in: `project_root`); `read` reads a
    design file (`read_design_file`, or a host's cache of it)."""
    ref = design_reference(raw)
    if ref is None:
        return None
    candidate, root = _find_design(ref, Path(test_path), designs_root, roots)
    if candidate is None:
        if root is not None:
            return (f"design {ref!r} is not a file inside this project ({root}) nor a "
                    "design named in the store: a design file is named by a path relative "
                    "to the test file that stays inside the project")
        return (f"no design file {ref!r} beside this test file and no design named {ref!r} "
                "in the store")
    try:
        return (read or read_design_file)(candidate)
    except (DesignFileError, ValueError, OSError) as exc:
        return f"design {ref!r} ({candidate}) {exc}"


DesignReader = Callable[[Path], DesignRead]
"""Reads one design file (raising DesignFileError, ValueError or OSError): what a host
may replace with a cache (the server's `DesignReads`)."""


def read_design_file(path: Path) -> DesignRead:
    """The design in the file at `path` with the name its runs take and its defects."""
    design, _name = design_from_text(read_text_file(path), path)
    return DesignRead(design, design_name_for(design, path) or "design", str(path),
                      validate_designer_graph(design))


def locate_design(ref: str, test_path: Path, designs_root: Path | None = None,
                  roots: Sequence[Path] = ()) -> Path | None:
    """The file `design` names: `ref` relative to the test file when it stays inside the
    project, else the store's design named `ref`; None when neither exists."""
    return _find_design(ref, test_path, designs_root, roots)[0]


def _find_design(ref: str, test_path: Path, designs_root: Path | None,
                 roots: Sequence[Path]) -> tuple[Path | None, Path | None]:
    """(the file `ref` names or None, the project root when `ref` is refused as a path
    leaving it, else None).  A refused path is never looked at: whether it exists or
    parses is not the test file's to learn."""
    inside, root = path_in_project(ref, test_path, roots)
    if inside is not None and inside.is_file():
        return inside, None
    stored = _stored_design(ref, designs_root)
    return stored, (root if inside is None and stored is None else None)


def path_in_project(ref: str, test_path: Path, roots: Sequence[Path] = ()
                    ) -> tuple[Path | None, Path]:
    """(`ref` relative to the test file's folder with symlinks resolved, when it stays
    inside the project, else None; the project root).  Refused: an absolute path, a path
    whose `..` climbs out, a path through a link that leads out."""
    folder = _real(test_path.parent)
    root = project_root(folder, roots)
    if not ref or "\x00" in ref or Path(ref).is_absolute():
        return None, root
    lexical = Path(os.path.normpath(folder / ref))
    if not lexical.is_relative_to(root):
        return None, root  # nothing outside the project is touched, not even resolved
    real = _real(folder / ref)
    return (real if real.is_relative_to(root) else None), root


def project_root(folder: Path, roots: Sequence[Path] = ()) -> Path:
    """The project a test file in `folder` (a real path) belongs to: the folder holding
    the nearest `.git` at or above it; outside a repository the innermost of `roots` that
    holds it; else `folder` itself (its own tree)."""
    for parent in (folder, *folder.parents):
        if os.path.lexists(parent / ".git"):
            return parent
    holding = [real for real in map(_real, roots) if folder.is_relative_to(real)]
    return max(holding, key=lambda p: len(p.parts)) if holding else folder


def _real(path: Path) -> Path:
    """`path` absolute with symlinks resolved (as far as they exist)."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return Path(os.path.abspath(path))


def _stored_design(name: str, designs_root: Path | None) -> Path | None:
    """The store's file of design `name` when it exists (read only: no store is opened,
    so nothing in $HERMES_HOME is swept or written)."""
    try:
        check_design_name(name)
        root = designs_root if designs_root is not None else hermes_home() / DESIGNS_DIRNAME
        candidate = safe_child(Path(root), f"{name}.json")
    except ValueError:
        return None
    return candidate if candidate.is_file() else None
