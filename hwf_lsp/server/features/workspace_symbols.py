"""workspace/symbol: the nodes of every design in the workspace folders.

Each distinct folder is walked once (`rootUri` and `workspaceFolders` usually name
the same one; a folder inside another is the other's), skipping hidden directories
and dependency trees, and only regular files of at most MAX_FILE_BYTES are read (a
design-named FIFO or a link to /dev/zero is skipped, never opened).  Each file's
symbols, with their ranges already in the negotiated encoding, are kept by mtime and
size; the file's text is not.  The folders are kept current by
`workspace/didChangeWatchedFiles` for the design globs and design test files (never every
JSON file), registered when the client can; without it a folder is walked again when
WALK_TTL_S old and each file stat'ed per query.  The first query of a large workspace
reads every design in slices of SLICE_S, answering other messages in between: a keystroke
is never held behind it (issue 47).

A query is matched against all names at once: one regex over the names joined one per
line (case-insensitive subsequence, as `analysis.symbols.matches_query`), so it takes
milliseconds at thousands of designs.  Open documents use their editor text instead.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import os
import re
import stat as stat_mod
import sys
import time
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.symbols import Symbol, document_symbols, matches_query
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.rules.design_test_check import TEST_FILE_SUFFIX
from hwf_lsp.server.documents import design_matcher, uri_to_path
from hwf_lsp.server.features.document_symbols import symbol_kind
from hwf_lsp.server.guard import guarded
from hwf_lsp.workflow.design_files import design_name_for
from hwf_lsp.workflow.stores import read_text_file

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

log = logging.getLogger(__name__)

SKIP_DIRS = {"node_modules", ".git", ".hg", ".svn", ".venv", "venv", "__pycache__", ".tox",
             "dist", "build", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
MAX_FILES = 10_000
MAX_FILE_BYTES = 5_000_000
MAX_RESULTS = 1000
WALK_TTL_S = 5.0
WATCH_ID = "hwf-workspace-designs"
SLICE_S = 0.0005
"""The longest the first query holds the event loop before other messages are read."""
PAUSE_S = 0.001
"""The pause after each slice.  A real sleep, not `sleep(0)`: the loop then blocks in
select and lets go of the GIL long enough for pygls's stdin reader thread to take it and
hand over the next message (a zero sleep gives it back at once, and the reader waits for
Python's 5 ms switch interval at each of its reads)."""
SWITCH_S = 0.0002
"""Python's thread switch interval while a query reads files: a message that arrives
mid-slice is read by the reader thread within this, not 5 ms."""
NAMES_SLICE = 200
TEST_FILE_GLOB = "**/*" + TEST_FILE_SUFFIX

Span = tuple[int, int, int, int]
"""(start line, start character, end line, end character) in one encoding."""


@dataclass(frozen=True, slots=True)
class _Entry:
    stamp: tuple[int, int]
    encoding: str
    design: str | None
    symbols: tuple[tuple[str, types.SymbolKind, Span], ...]


def _spans(text: str, symbols: list[Symbol], encoding: str,
           lines: LineIndex | None = None) -> tuple[tuple[str, types.SymbolKind, Span], ...]:
    lines = lines or LineIndex(text)
    found = []
    for symbol in symbols:
        start = lines.position(symbol.selection_start, encoding)
        end = lines.position(max(symbol.selection_end, symbol.selection_start), encoding)
        found.append((symbol.name, symbol_kind(symbol.kind), (*start, *end)))
    return tuple(found)


def walk_designs(root: str, matches, limit: int = MAX_FILES) -> set[str]:
    """Design files under `root` (one scandir per directory, no stat per file)."""
    found: set[str] = set()
    for _ in walk_steps(root, matches, found, limit):
        pass
    return found


def walk_steps(root: str, matches, found: set[str], limit: int = MAX_FILES
               ) -> Generator[None, None, None]:
    """`walk_designs` adding to `found`, yielding after each directory."""
    stack = [root]
    while stack and len(found) < limit:
        current = stack.pop()
        try:
            with os.scandir(current) as entries:
                for entry in entries:
                    name = entry.name
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if name not in SKIP_DIRS and not name.startswith("."):
                                stack.append(entry.path)
                            continue
                    except OSError:
                        continue
                    if name.endswith(".json") and matches(entry.path.replace("\\", "/")):
                        found.add(entry.path)
        except OSError:
            continue
        yield


def distinct_roots(folder_uris: tuple[str, ...]) -> list[str]:
    """Folder paths, each once; a folder inside another is covered by the other."""
    paths = sorted({os.path.normpath(uri_to_path(uri) or uri) for uri in folder_uris})
    roots: list[str] = []
    for path in paths:
        if not any(path == root or path.startswith(root.rstrip(os.sep) + os.sep)
                   for root in roots):
            roots.append(path)
    return [root for root in roots if os.path.isdir(root)]


class WorkspaceDesigns:
    """Symbols of the design files under the workspace folders, cached per folder and file."""

    def __init__(self) -> None:
        self.watched = False
        """The client sends didChangeWatchedFiles for JSON files: no walking, no stat."""
        self.folders: dict[str, tuple[float, set[str]]] = {}
        """Folder path -> (when walked, its design files)."""
        self.entries: dict[str, _Entry] = {}
        self._key: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self._names: tuple[str, list[int], list[tuple[str, int]]] | None = None
        """All names, one per line (lowercase), line starts, and (path, symbol index)."""
        self._paths: list[str] = []
        self._encoding: str | None = None

    # --- which files ------------------------------------------------------------------

    def files(self, folder_uris: tuple[str, ...], globs: tuple[str, ...]) -> set[str]:
        steps = self.files_steps(folder_uris, globs)
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return done.value

    def files_steps(self, folder_uris: tuple[str, ...], globs: tuple[str, ...]
                    ) -> Generator[None, None, set[str]]:
        """The design files of the folders (walked when new or, unwatched, old), yielding
        after each directory walked."""
        key = (folder_uris, globs)
        if key != self._key:
            self._key = key
            self.folders.clear()
            self._names = None
        matches = design_matcher(globs, folder_uris)
        found: set[str] = set()
        now = time.monotonic()
        for root in distinct_roots(folder_uris):
            walked = self.folders.get(root)
            if walked is None or (not self.watched and now - walked[0] > WALK_TTL_S):
                files: set[str] = set()
                yield from walk_steps(root, matches, files)
                walked = (now, files)
                self.folders[root] = walked
                self._names = None
            found |= walked[1]
        return found

    def changed(self, path: str, kind: types.FileChangeType) -> None:
        """One didChangeWatchedFiles change."""
        self.entries.pop(path, None)
        self._names = None
        if self._key is None:
            return
        matches = design_matcher(self._key[1], self._key[0])
        for root, (_, files) in self.folders.items():
            if not path.startswith(root.rstrip(os.sep) + os.sep):
                continue
            if kind == types.FileChangeType.Deleted:
                files.discard(path)
            elif matches(path.replace("\\", "/")):
                files.add(path)

    # --- what is in them ---------------------------------------------------------------

    def entry(self, path: str, encoding: str) -> _Entry | None:
        cached = self.entries.get(path)
        if cached is not None and self.watched and cached.encoding == encoding:
            return cached
        try:
            st = os.stat(path)
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        if cached is not None and cached.stamp == stamp and cached.encoding == encoding:
            return cached
        if not stat_mod.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
            return None
        try:
            text = read_text_file(path)
        except (OSError, ValueError):
            return None
        doc = parse(text)
        entry = _Entry(stamp, encoding, design_name_for(doc.to_python(), path),
                       _spans(text, document_symbols(doc), encoding))
        self.entries[path] = entry
        self._names = None
        return entry

    def _build_names(self, paths: list[str]) -> Generator[None, None, None]:
        """All names, one per line, with their owners; yields every NAMES_SLICE files."""
        lines: list[str] = []
        owners: list[tuple[str, int]] = []
        starts: list[int] = []
        at = 0
        for count, path in enumerate(paths, 1):
            entry = self.entries.get(path)
            for index, (name, _, _) in enumerate(entry.symbols if entry else ()):
                line = name.lower().replace("\n", " ")
                lines.append(line)
                owners.append((path, index))
                starts.append(at)
                at += len(line) + 1
            if count % NAMES_SLICE == 0:
                yield
        self._names = ("\n".join(lines), starts, owners)

    def _name_table(self, paths: list[str]) -> tuple[str, list[int], list[tuple[str, int]]]:
        if self._names is None:
            for _ in self._build_names(paths):
                pass
        assert self._names is not None
        return self._names

    def search(self, paths: list[str], query: str, limit: int
               ) -> list[tuple[str, _Entry, int]]:
        """(path, entry, symbol index) of the names matching `query`, in file order."""
        blob, starts, owners = self._name_table(paths)
        if not owners:
            return []
        if query:
            # no `^`: the engine then jumps between occurrences of the first character
            pattern = re.compile("[^\n]*?".join(map(re.escape, query.lower())))
            hits = _lines_of(pattern.finditer(blob), starts)
        else:
            hits = iter(range(len(owners)))
        found = []
        for hit in hits:
            path, index = owners[hit]
            entry = self.entries.get(path)
            if entry is None or index >= len(entry.symbols):
                continue  # changed while the table was built: the next query has it
            found.append((path, entry, index))
            if len(found) >= limit:
                break
        return found

    def query(self, folder_uris: tuple[str, ...], globs: tuple[str, ...], encoding: str,
              query: str, limit: int) -> list[tuple[str, _Entry, int]]:
        """The matching symbols of the design files (each read when new or changed; with
        file events and nothing changed, no file is even stat'ed)."""
        steps = self.query_steps(folder_uris, globs, encoding, query, limit)
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return done.value

    def query_steps(self, folder_uris: tuple[str, ...], globs: tuple[str, ...], encoding: str,
                    query: str, limit: int
                    ) -> Generator[None, None, list[tuple[str, _Entry, int]]]:
        """`query` cut into steps: it yields after each file read and each slice of the
        name table, so a caller can answer other messages in between (`query_sliced`)."""
        paths = yield from self.files_steps(folder_uris, globs)
        if self._names is None or not self.watched or self._encoding != encoding:
            self._encoding = encoding
            self._paths = sorted(paths)
            for path in self._paths:
                self.entry(path, encoding)
                yield
        if self._names is None:
            yield from self._build_names(self._paths)
        return self.search(self._paths, query, limit)

    async def query_sliced(self, folder_uris: tuple[str, ...], globs: tuple[str, ...],
                           encoding: str, query: str, limit: int
                           ) -> list[tuple[str, _Entry, int]]:
        """`query` without holding the event loop more than SLICE_S at a time: the first
        query of a large workspace reads thousands of files while keystrokes are answered
        (issue 47)."""
        steps = self.query_steps(folder_uris, globs, encoding, query, limit)
        started = time.perf_counter()
        switch = sys.getswitchinterval()
        sys.setswitchinterval(min(switch, SWITCH_S))
        try:
            while True:
                try:
                    next(steps)
                except StopIteration as done:
                    return done.value
                if time.perf_counter() - started > SLICE_S:
                    await asyncio.sleep(PAUSE_S)
                    started = time.perf_counter()
        finally:
            sys.setswitchinterval(switch)


def _lines_of(matches, starts: list[int]):
    """The line (name) index of each match, each line once."""
    last = -1
    for match in matches:
        line = bisect.bisect_right(starts, match.start()) - 1
        if line != last:
            last = line
            yield line


def _symbol(uri: str, design: str | None, name: str, kind: types.SymbolKind,
            span: Span) -> types.SymbolInformation:
    return types.SymbolInformation(
        name=name, kind=kind, container_name=design,
        location=types.Location(uri=uri, range=types.Range(
            start=types.Position(line=span[0], character=span[1]),
            end=types.Position(line=span[2], character=span[3]))))


def watch_globs(design_globs: tuple[str, ...]) -> list[str]:
    """What the server asks the client to watch: the designs' globs and the design test
    files, never every JSON file of the workspace (issue 47)."""
    return list(dict.fromkeys([*design_globs, TEST_FILE_GLOB]))


def _watch_files(server: HwfServer, designs: WorkspaceDesigns) -> None:
    """Ask the client to send didChangeWatchedFiles for designs and design test files
    (when it can): the folder cache then stays current without walking.  The globs are
    the settings' at start; the extension restarts the server when they change."""
    caps = server.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps is not None else None
    if watched is None or not watched.dynamic_registration:
        return

    async def register() -> None:
        try:
            await server.client_register_capability_async(types.RegistrationParams(
                registrations=[types.Registration(
                    id=WATCH_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(
                        watchers=[types.FileSystemWatcher(glob_pattern=glob)
                                  for glob in watch_globs(server.settings.design_globs)]))]))
        except Exception as exc:  # noqa: BLE001 - then the folders are walked again
            log.info("the client did not take the file watcher: %s", exc)
            return
        designs.watched = True

    asyncio.ensure_future(register())


def _when_initialized(server: HwfServer, designs: WorkspaceDesigns) -> None:
    features = server.protocol.fm.features
    previous = features.get(types.INITIALIZED)

    async def initialized(params: types.InitializedParams) -> None:
        try:
            _watch_files(server, designs)
        except Exception:
            log.exception("registering the file watcher failed")
        if previous is not None:
            result = previous(params)
            if asyncio.iscoroutine(result):
                await result

    features[types.INITIALIZED] = initialized


def register(server: HwfServer) -> None:
    designs = WorkspaceDesigns()
    server.workspace_designs = designs

    @server.feature(types.WORKSPACE_SYMBOL)
    @guarded(default=list)
    async def workspace_symbol(params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
        encoding = server.encoding
        query = params.query or ""
        results: list[types.SymbolInformation] = []
        seen: set[str] = set()
        for uri in list(server.workspace.text_documents):
            analysis = server.analysis(uri)
            if analysis is None:
                continue
            path = uri_to_path(uri) or uri
            seen.add(os.path.normpath(path))
            design = design_name_for(analysis.doc.to_python(), path)
            symbols = [s for s in document_symbols(analysis.doc, design=analysis.design) if matches_query(s.name, query)]
            for name, kind, span in _spans(analysis.text, symbols, encoding, analysis.lines):
                results.append(_symbol(uri, design, name, kind, span))
        uris: dict[str, str] = {}
        found = await designs.query_sliced(server.folder_uris(), server.settings.design_globs,
                                           encoding, query, MAX_RESULTS + len(seen) * 64)
        for path, entry, index in found:
            if len(results) >= MAX_RESULTS:
                break
            if os.path.normpath(path) in seen:
                continue
            uri = uris.get(path) or uris.setdefault(path, Path(path).as_uri())
            name, kind, span = entry.symbols[index]
            results.append(_symbol(uri, entry.design, name, kind, span))
        return results[:MAX_RESULTS]

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @guarded()
    def did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes or ():
            path = uri_to_path(change.uri)
            if path:
                designs.changed(os.path.normpath(path), change.type)

    _when_initialized(server, designs)
