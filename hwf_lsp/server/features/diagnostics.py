"""Diagnostics on open, change and save: newest version only, never out of order.

No debounce: a validation starts as soon as a change arrives and its result is
published as soon as it is computed.  Per document there is at most one
validation in flight.  A keystroke is checked in its didChange handler, on the
event loop, with the runs as last read: its diagnostics are out before the next
message is read.  Opening, saving and runs changing are checked in a worker thread,
which may read the run history from disk, so the loop keeps reading edits meanwhile.
When a check finishes, its result is published only if no newer version arrived
meanwhile; otherwise the newest text is checked next and the stale result is
dropped.  `published` remembers the last version sent per document, so a version
is never published after a newer one.

A client that pulls diagnostics (textDocument.diagnostic capability) is never pushed
any: the same checks run, their result is kept for its textDocument/diagnostic
requests (features/document_diagnostic.py), and when a version it already pulled is
checked again (the runs changed) it is asked to pull again, if it can be.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING
from urllib.parse import unquote

from lsprotocol import types

from hwf_lsp.server import convert
from hwf_lsp.server.documents import Analysis, analyse
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

log = logging.getLogger(__name__)

class Validator:
    """Coalescing, ordered validation of every open design."""

    def __init__(self, server: HwfServer) -> None:
        self.server = server
        self.tasks: dict[str, asyncio.Task] = {}
        self.published: dict[str, int | None] = {}
        self.uris: dict[str, str] = {}
        """Unquoted key -> the URI as the client spelled it (publish with the client's)."""
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hwf-validate")
        self.pulled: dict[str, int | None] = {}
        """Unquoted key -> the version a pull answered last (pull clients only)."""
        self.pull = False
        """Whether the client pulls diagnostics (set at initialize, `client_pulls`): then
        none is ever pushed to it."""
        self.runs_epoch = 0
        """How many times the runs changed (`runs_changed`): a check that began under an
        older count may hold an older newest run, and is made again."""

    async def current(self, key: str) -> Analysis | None:
        """The checked analysis of `key`'s newest text, waiting for a check in flight."""
        for _ in range(3):
            task = self.tasks.get(key)
            if task is not None and not task.done():
                await asyncio.shield(task)
            now = self.server.open_text(key)
            cached = self.server.analyses.get(key)
            if now is None:
                return None
            if cached is not None and cached.version == now[0] and cached.text == now[1] \
                    and not cached.stale and cached._findings is not None:
                return cached
            self.schedule(key)
        return self.server.analysis(key) or self.server.test_analysis(key)

    def schedule(self, uri: str) -> None:
        """Validate `uri`'s newest text: at once when it needs no worker (a keystroke is
        published before the next message is read, as the bare pygls floor does), else
        in a task (one validation in flight per document)."""
        key = unquote(uri)
        self.uris.setdefault(key, uri)
        task = self.tasks.get(key)
        if task is not None and not task.done():
            return  # the running loop picks up the newest version when it finishes
        pending = self._check_on_loop(key)
        if pending is not None:
            self.tasks[key] = asyncio.get_running_loop().create_task(self._run(key, pending))

    def _deliver(self, key: str, version: int | None, result: Analysis) -> None:
        """Keep `result` as the document's analysis and publish its findings, unless a
        newer version was published already."""
        self.server.remember(result)
        if self.pull:
            if self.pulled.get(key, -1) == version:  # checked again: runs changed
                self.server.refresh_pulled_diagnostics()
            return
        last = self.published.get(key)
        if last is not None and version is not None and version < last:
            return
        items = convert.diagnostics(result.findings, result.lines, self.server.encoding,
                                    self.uris.get(key, key))
        self.published[key] = version
        self._publish(key, version, items)

    def runs_changed(self) -> None:
        """Run data changed (the watcher, on the loop): every analysis is stale, and so is
        a check in flight on the worker thread, which may have read the runs before."""
        self.runs_epoch += 1
        for cached in self.server.analyses.values():
            cached.stale = True
        self.schedule_all()

    def recheck_test_files(self) -> None:
        """Check every open design test file again (a design was saved: the one it names
        may have changed on disk)."""
        for key, cached in list(self.server.analyses.items()):
            if cached.kind == "test":
                cached.stale = True
                self.schedule(key)

    def schedule_all(self) -> None:
        """Revalidate every open document (settings or run data changed)."""
        try:
            uris = list(self.server.workspace.text_documents)
        except RuntimeError:
            return
        for uri in uris:
            self.schedule(uri)

    def closed(self, uri: str) -> None:
        key = unquote(uri)
        task = self.tasks.pop(key, None)
        if task is not None:
            task.cancel()
        if key in self.published:
            self.published.pop(key, None)
            self._publish(key, None, [])
        self.server.forget(key)
        self.uris.pop(key, None)
        self.pulled.pop(key, None)

    def _check_on_loop(self, key: str) -> tuple[int | None, str] | None:
        """Check `key`'s newest text where the loop can, and publish: None when done, else
        the (version, text) the worker must check (opened, saved or runs changed: the
        runs may be read from disk).  A keystroke is checked here with the runs as last
        read (the watcher's thread reads the disk, and marks every analysis stale when
        runs change)."""
        server = self.server
        current = server.open_text(key)
        if current is None:
            return None
        if not server.is_checked(key):
            if key in self.published:  # it stopped being a design: clear what we said
                self.published.pop(key, None)
                self._publish(key, None, [])
            return None
        version, text = current
        cached = server.analyses.get(key)
        if cached is None or cached.stale:
            return current
        if cached.version == version and cached.text == text:
            result: Analysis = cached
        else:
            result = analyse(key, version, text, server.runs, source=server.design_source)
        self._deliver(key, version, result)
        return None

    async def _run(self, key: str, pending: tuple[int | None, str]) -> None:
        """Check `pending` on the worker, then whatever newer text arrived meanwhile."""
        server = self.server
        loop = asyncio.get_running_loop()
        cases_for = pending[0]  # the version opened or saved: a test file's cases run for it
        while pending is not None:
            epoch = self.runs_epoch  # the worker may read the runs before a change
            version, text = pending
            try:
                result = await loop.run_in_executor(self.pool, functools.partial(
                    analyse, key, version, text, server.runs, source=server.design_source,
                    run_cases=version == cases_for))  # not for a keystroke picked up here
            except Exception:
                log.exception("validation of %s failed", key)
                return
            # only this await lets other messages in: look again
            now = server.open_text(key)
            if now is None:
                return
            if now[0] == version and now[1] == text and server.is_checked(key):
                self._deliver(key, version, result)
                if epoch == self.runs_epoch:
                    return
                result.stale = True  # the runs changed during the check: again
            pending = self._check_on_loop(key)

    def _publish(self, key: str, version: int | None,
                 items: list[types.Diagnostic]) -> None:
        try:
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=self.uris.get(key, key), diagnostics=items,
                                               version=version))
        except Exception:
            log.exception("publishing diagnostics failed")


def client_pulls(capabilities: types.ClientCapabilities | None) -> bool:
    """Whether a client with these capabilities pulls diagnostics (textDocument.diagnostic)."""
    text_document = capabilities.text_document if capabilities is not None else None
    return bool(text_document is not None and text_document.diagnostic is not None)


def register(server: HwfServer) -> None:
    validator = server.validator

    def on_settings(ls: HwfServer, before: object) -> None:
        validator.schedule_all()

    server.settings_listeners.append(on_settings)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @guarded()
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        validator.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @guarded()
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        validator.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    @guarded()
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        key = unquote(params.text_document.uri)
        cached = server.analyses.get(key)
        if cached is not None:
            cached.stale = True  # run data may have changed: recompute this version
        validator.schedule(key)
        if server.is_design(key):  # the open test files read the designs from disk
            validator.recheck_test_files()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guarded()
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        validator.closed(params.text_document.uri)
