"""The design test files that name a design: what a rename of one of its node ids (or of
the design) must also rewrite, and where references also look (issue 47).

Candidates are the open test files and the `*.hwf-test.json` files under the workspace
folders (one directory walk per request, as `workspace/symbol`'s; only files whose text
mentions `"design"` are parsed).  A test file names this design when its `design` resolves
to the design's file (a path inside its project, as `hwf test` reads it) or is the design's name.
An open test file's editor text and version are used, so the edit applies to what the
user sees.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hwf_lsp.jsontext.jsontree import ParsedDocument, parse
from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.rules.design_test_check import TEST_FILE_SUFFIX, design_reference
from hwf_lsp.server.design_test_documents import designs_root
from hwf_lsp.server.documents import uri_to_path
from hwf_lsp.server.features.workspace_symbols import MAX_FILE_BYTES, distinct_roots, walk_designs
from hwf_lsp.workflow.design_test_files import locate_design
from hwf_lsp.workflow.stores import read_text_file

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


@dataclass(frozen=True, slots=True)
class TestFileText:
    uri: str
    version: int | None
    """The open document's version, None for a file on disk."""
    doc: ParsedDocument
    lines: LineIndex


def _is_test_path(path: str) -> bool:
    return path.endswith(TEST_FILE_SUFFIX)


def _same_file(a: Path | None, b: str) -> bool:
    if a is None:
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normpath(a) == os.path.normpath(b)


def _candidates(server: HwfServer) -> dict[str, tuple[int | None, str | None]]:
    """Test file path -> (version, text) when open, else (None, None)."""
    found: dict[str, tuple[int | None, str | None]] = {}
    for root in distinct_roots(server.folder_uris()):
        for path in walk_designs(root, _is_test_path):
            found[os.path.normpath(path)] = (None, None)
    for document in _open_documents(server):
        path = uri_to_path(document.uri)
        if path and _is_test_path(path):
            found[os.path.normpath(path)] = (document.version, document.source)
    return found


def _text_of(path: str) -> str | None:
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            return None
        return read_text_file(path)
    except (OSError, ValueError):
        return None


def test_files_naming(server: HwfServer, design_uri: str, design_name: str | None
                      ) -> list[TestFileText]:
    """The test files whose `design` is this design's file or its name, sorted by path."""
    design_path = uri_to_path(design_uri)
    if not design_path:
        return []
    source = server.design_source()
    root = designs_root(source.home)
    found: list[TestFileText] = []
    for path, (version, text) in sorted(_candidates(server).items()):
        text = text if text is not None else _text_of(path)
        if text is None or '"design"' not in text:
            continue
        doc = parse(text)
        ref = design_reference(doc.to_python())
        if ref is None:
            continue
        if ref == design_name or _same_file(
                locate_design(ref, Path(path), root, source.roots), design_path):
            uri = next((d.uri for d in _open_documents(server)
                        if os.path.normpath(uri_to_path(d.uri) or "") == path),
                       Path(path).as_uri())
            found.append(TestFileText(uri, version, doc, LineIndex(text)))
    return found


def _open_documents(server: HwfServer) -> list[Any]:
    try:
        return list(server.workspace.text_documents.values())
    except RuntimeError:
        return []
