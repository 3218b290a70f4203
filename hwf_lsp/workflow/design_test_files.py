"""Design test files read from disk: the test file's text, and the design it names found
(beside the file, else in the store) and read.  Checking one against its design is the
rulebook's (`rules/design_test_check.py`), running its cases `design_test_run.py`.
"""

from __future__ import annotations

import json
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
from hwf_lsp.workflow.design_files import DesignFileError, design_from_text, design_name_for
from hwf_lsp.workflow.paths import hermes_home, safe_child
from hwf_lsp.workflow.stores import DESIGNS_DIRNAME, read_text_file


def load_test_file(path: str | Path, designs_root: Path | None = None, *,
                   with_expect: bool = True) -> DesignTestFile:
    """Read and check a test file.  FileNotFoundError when it is missing; InvalidTestFile
    (every error, each at its place) when it is unreadable, not JSON, names no design that
    can run, or a case names what the design does not have.

    `designs_root` is where a design named (not a path) is looked up: by default
    `$HERMES_HOME/workflow-designs`, only read.  `with_expect=False` leaves each case's
    `expect` unchecked and optional (`--write-expectations` replaces it)."""
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
    return check_test_file(raw, path, designs_root, with_expect=with_expect)


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
                    with_expect: bool = True) -> DesignTestFile:
    """A parsed test file checked (see `load_test_file`)."""
    found = read_design_under_test(raw, path, designs_root)
    test, errors = examine_test_file(raw, path, found, with_expect=with_expect)
    if errors or test is None:
        raise InvalidTestFile(path, errors)
    return test


def read_design_under_test(raw: Any, test_path: str | Path,
                           designs_root: Path | None = None) -> DesignRead | str | None:
    """The design a test file names (a path relative to the test file, else a design name
    in the store) as read, defects and all; why it cannot be read (a message); or None
    when the file names no design."""
    ref = design_reference(raw)
    if ref is None:
        return None
    candidate = locate_design(ref, Path(test_path), designs_root)
    if candidate is None:
        return (f"no design file {ref!r} beside this test file and no design named {ref!r} "
                "in the store")
    try:
        design, _name = design_from_text(read_text_file(candidate), candidate)
    except (DesignFileError, ValueError, OSError) as exc:
        return f"design {ref!r} ({candidate}) {exc}"
    return DesignRead(design, design_name_for(design, candidate) or "design", str(candidate))


def locate_design(ref: str, test_path: Path, designs_root: Path | None = None
                  ) -> Path | None:
    """The file `design` names: `ref` relative to the test file, else the store's design
    named `ref`; None when neither exists."""
    candidate = test_path.parent / ref
    if candidate.is_file():
        return candidate
    return _stored_design(ref, designs_root)


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
