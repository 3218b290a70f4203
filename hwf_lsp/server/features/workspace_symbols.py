"""workspace/symbol: the nodes of every design in the workspace folders.

Folders are walked for files matching the design globs (skipping hidden
directories and dependency trees); each file's symbols are cached by mtime and
size, and open documents use their editor text instead of the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.jsontree import parse
from hwf_lsp.analysis.positions import LineIndex
from hwf_lsp.analysis.symbols import Symbol, document_symbols, matches_query
from hwf_lsp.server import convert
from hwf_lsp.server.documents import is_design_uri, uri_to_path
from hwf_lsp.server.features.document_symbols import symbol_kind
from hwf_lsp.server.guard import guarded
from hwf_lsp.workflow.design_files import design_name_for

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

SKIP_DIRS = {"node_modules", ".git", ".hg", ".svn", ".venv", "venv", "__pycache__", ".tox",
             "dist", "build", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
MAX_FILES = 5000
MAX_FILE_BYTES = 5_000_000
MAX_RESULTS = 1000


@dataclass(slots=True)
class _Entry:
    stamp: tuple[int, int]
    design: str | None
    text: str
    symbols: list[Symbol]


class WorkspaceDesigns:
    """Symbols of the design files under the workspace folders, cached per file."""

    def __init__(self) -> None:
        self.cache: dict[str, _Entry] = {}

    def files(self, folders: tuple[str, ...], globs: tuple[str, ...]) -> list[str]:
        found: list[str] = []
        for folder in folders:
            root = uri_to_path(folder) or folder
            if not os.path.isdir(root):
                continue
            for current, dirs, names in os.walk(root):
                dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
                for name in names:
                    if not name.endswith(".json"):
                        continue
                    path = os.path.join(current, name)
                    if is_design_uri(Path(path).as_uri(), globs, folders):
                        found.append(path)
                        if len(found) >= MAX_FILES:
                            return found
        return sorted(set(found))

    def entry(self, path: str) -> _Entry | None:
        try:
            stat = os.stat(path)
        except OSError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self.cache.get(path)
        if cached is not None and cached.stamp == stamp:
            return cached
        if stat.st_size > MAX_FILE_BYTES:
            return None
        try:
            with open(path, encoding="utf-8-sig", errors="replace") as handle:
                text = handle.read()
        except OSError:
            return None
        doc = parse(text)
        entry = _Entry(stamp, design_name_for(doc.to_python(), path), text, document_symbols(doc))
        self.cache[path] = entry
        return entry


def register(server: HwfServer) -> None:
    designs = WorkspaceDesigns()

    @server.feature(types.WORKSPACE_SYMBOL)
    @guarded(default=list)
    def workspace_symbol(params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
        encoding = server.encoding
        query = params.query or ""
        results: list[types.SymbolInformation] = []
        seen: set[str] = set()
        sources: list[tuple[str, str, str | None, list[Symbol]]] = []
        for uri in list(server.workspace.text_documents):
            analysis = server.analysis(uri)
            if analysis is not None:
                path = uri_to_path(uri) or uri
                seen.add(os.path.normpath(path))
                sources.append((uri, analysis.text,
                                design_name_for(analysis.doc.to_python(), path),
                                document_symbols(analysis.doc)))
        for path in designs.files(server.folder_uris(), server.settings.design_globs):
            if os.path.normpath(path) in seen:
                continue
            entry = designs.entry(path)
            if entry is not None:
                uri = Path(path).as_uri()
                sources.append((uri, entry.text, entry.design, entry.symbols))
        for uri, text, name, symbols in sources:
            lines = None
            for symbol in symbols:
                if not matches_query(symbol.name, query):
                    continue
                lines = lines or LineIndex(text)
                results.append(types.SymbolInformation(
                    name=symbol.name, kind=symbol_kind(symbol.kind), container_name=name,
                    location=convert.location(uri, lines, symbol.selection_start,
                                              symbol.selection_end, encoding)))
                if len(results) >= MAX_RESULTS:
                    return results
        return results
