"""Diagnostics on open, change and save: newest version only, never out of order.

No debounce: a validation starts as soon as a change arrives and its result is
published as soon as it is computed.  Per document there is at most one
validation in flight (in a worker thread, so the event loop keeps reading
edits).  When it finishes, the result is published only if no newer version
arrived meanwhile; otherwise the newest text is validated next and the stale
result is dropped.  `published` remembers the last version sent per document,
so a version is never published after a newer one.

Most keystrokes land inside one value (a prompt, an id, a condition, a number): when
the one ranged edit since the last analysis keeps the document's structure
(documents.after_edit, analysis/incremental.py), the findings are re-checked from
the previous ones right in the didChange handler -- no parse, no task, no thread
hop, published before the next message is read.  Anything else takes the full
check in the worker.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING
from urllib.parse import unquote

from lsprotocol import types

from hwf_lsp.server import convert
from hwf_lsp.server.documents import Analysis, after_edit, analyse
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

log = logging.getLogger(__name__)

ON_LOOP_TREE_CHARS = 262_144
"""Up to this size the event loop may parse and walk the previous text to find the edited
value (about a millisecond); above it that happens in the worker thread."""


class Validator:
    """Coalescing, ordered validation of every open design."""

    def __init__(self, server: HwfServer) -> None:
        self.server = server
        self.tasks: dict[str, asyncio.Task] = {}
        self.published: dict[str, int | None] = {}
        self.uris: dict[str, str] = {}
        """Unquoted key -> the URI as the client spelled it (publish with the client's)."""
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hwf-validate")

    def schedule(self, uri: str) -> None:
        """Validate `uri`'s newest text soon (one validation in flight per document)."""
        key = unquote(uri)
        self.uris.setdefault(key, uri)
        task = self.tasks.get(key)
        if task is not None and not task.done():
            return  # the running loop picks up the newest version when it finishes
        if self._publish_rechecked(key):
            return
        self.tasks[key] = asyncio.get_running_loop().create_task(self._run(key))

    def _publish_rechecked(self, key: str) -> bool:
        """Re-check and publish the newest text now, when the last edit allows it (a
        keystroke inside one value, analysis/incremental.py); False when the full
        path is needed.  Nothing else is in flight for `key`, so nothing newer can be
        published before this."""
        server = self.server
        current = server.open_text(key)
        if current is None or not server.is_design(key):
            return False
        version, text = current
        result = self._after_edit(key, server.analyses.get(key), version, text, on_loop=True)
        if result is None:
            return False
        self._deliver(key, version, result)
        return True

    def _deliver(self, key: str, version: int | None, result: Analysis) -> None:
        """Keep `result` as the document's analysis and publish its findings, unless a
        newer version was published already."""
        self.server.remember(result)
        last = self.published.get(key)
        if last is not None and version is not None and version < last:
            return
        items = convert.diagnostic_dicts(result.findings, result.lines, self.server.encoding)
        self.published[key] = version
        self._publish(key, version, items)

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
        edits = getattr(getattr(self.server, "protocol", None), "last_edits", None)
        if edits:
            edits.pop(key, None)

    async def _run(self, key: str) -> None:
        server = self.server
        loop = asyncio.get_running_loop()
        while True:
            current = server.open_text(key)
            if current is None:
                return
            if not server.is_design(key):
                if key in self.published:  # it stopped being a design: clear what we said
                    self.published.pop(key, None)
                    self._publish(key, None, [])
                return
            version, text = current
            cached = server.analyses.get(key)
            if cached is not None and cached.version == version and cached.text == text \
                    and not cached.stale:
                result: Analysis = cached
            elif (rechecked := self._after_edit(key, cached, version, text, on_loop=True)) \
                    is not None:
                result = rechecked  # on the loop: no parse, no thread hop
            else:
                runs = server.runs
                if runs is not None:
                    runs = runs.refreshing()  # a worker thread may check the disk
                try:
                    result = await loop.run_in_executor(
                        self.pool, self._analyse, key, cached, version, text, runs,
                        len(text) > ON_LOOP_TREE_CHARS)
                except Exception:
                    log.exception("validation of %s failed", key)
                    return
            now = server.open_text(key)
            if now is None:
                return
            if now[0] != version or now[1] != text or not server.is_design(key):
                continue  # a newer version or new settings arrived: start over
            self._deliver(key, version, result)
            return

    def _analyse(self, key: str, cached: Analysis | None, version: int | None, text: str,
                 runs: object, carry_over: bool) -> Analysis:
        """In the worker: with `carry_over` (the loop left a big text's tree lookup to
        us), the re-checked analysis when the edit allows one; else the full check."""
        rechecked = self._after_edit(key, cached, version, text, on_loop=False) \
            if carry_over else None
        return rechecked if rechecked is not None else analyse(key, version, text, runs)

    def _after_edit(self, key: str, cached: Analysis | None, version: int | None,
                    text: str, *, on_loop: bool) -> Analysis | None:
        """The analysis of `text` re-checked from `cached` when the one edit between them
        (as the protocol recorded it) is inside one scalar value and keeps it one; else
        None (documents.after_edit).

        On the loop, the edited value is looked up in the tree only for small texts
        (ON_LOOP_TREE_CHARS); a big one pays that in the worker, once per value."""
        if cached is None:
            return None
        edits = getattr(getattr(self.server, "protocol", None), "last_edits", None)
        edit = edits.get(key) if edits else None
        if edit is None or edit.after is not text or edit.before is not cached.text \
                or edit.version != version:
            return None
        try:
            return after_edit(cached, version, text, edit.start, edit.end, edit.replacement,
                              self.server.runs.token(),
                              find_token=not on_loop or len(text) <= ON_LOOP_TREE_CHARS)
        except Exception:  # the full check is always there to fall back on
            log.exception("incremental check of %s failed", key)
            return None

    def _publish(self, key: str, version: int | None, items: list[dict]) -> None:
        """Publish `items` (convert.diagnostic_dicts: already in wire form, see there)."""
        try:
            self.server.text_document_publish_diagnostics(
                convert.WirePublish(uri=self.uris.get(key, key), diagnostics=items,
                                    version=version))
        except Exception:
            log.exception("publishing diagnostics failed")


def register(server: HwfServer) -> None:
    validator = Validator(server)
    server.validator = validator

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

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guarded()
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        validator.closed(params.text_document.uri)
